package lab

import (
	"bytes"
	"strings"
	"testing"
)

// The list names every built-in scenario once with its source; verbose,
// it adds each one's parameters and its timeline as written.
func TestWriteScenariosListsEveryBuiltin(t *testing.T) {
	all, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	var short, long bytes.Buffer
	if err := WriteScenarios(&short, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteScenarios(&long, true); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(short.String(), "  source: "); n != len(all) {
		t.Errorf("%d sources for %d scenarios", n, len(all))
	}
	for _, sc := range all {
		if !strings.Contains(short.String(), "\n"+sc.Name+" ") {
			t.Errorf("no line for %s", sc.Name)
		}
	}
	if strings.Contains(short.String(), "params:") {
		t.Error("the short list shows parameters")
	}
	for _, want := range []string{"  params: link.latency=", "  at 20s: link.latency=300ms"} {
		if !strings.Contains(long.String(), want) {
			t.Errorf("the verbose list lacks %q", want)
		}
	}
}
