package main

import (
	"strings"
	"testing"
)

// A mistyped name gets one line, exit status 2 and the name meant: a
// scenario (--scenario, --show), a command, a --set with a space for "=".
func TestMistypedNamesSayWhatWasMeant(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scenario", "jiter-fix", "--duration", "1s"}, "did you mean jitter-fix?"},
		{[]string{"run", "--scenario", "mobile4g", "--duration", "1s"}, "did you mean mobile-4g?"},
		{[]string{"--scenario", "jiter-fix"}, "did you mean jitter-fix?"},
		{[]string{"diagnose", "--scenario", "latncy-spike"}, "did you mean latency-spike?"},
		{[]string{"scenarios", "--show", "jitterfix"}, "did you mean jitter-fix?"},
		{[]string{"daignose"}, `unknown command "daignose"; did you mean diagnose?`},
		{[]string{"run", "--set", "link.latency", "80ms"}, "--set takes key=value: --set link.latency=80ms"},
		{[]string{"ab", "--b", "server.inputs", "queue"}, "--b takes key=value: --b server.inputs=queue"},
		{[]string{"run", "--duraton", "1s"}, "did you mean --duration?"},
	}
	for _, c := range cases {
		code, _, errOut := runLab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("lab %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
		if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 {
			t.Errorf("lab %s: %d lines, want one:\n%s", strings.Join(c.args, " "), n+1, errOut)
		}
	}
	// Nothing near: no guess.
	if _, _, errOut := runLab(t, "run", "--scenario", "xyzzy-quux"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a guess for a name near nothing: %q", errOut)
	}
}

// diagnose -h lists only flags diagnose takes: it refuses --seed (it runs
// every seed of --seeds), so its help does not offer it.
func TestDiagnoseHelpListsNoSeedFlag(t *testing.T) {
	code, out, _ := runLab(t, "diagnose", "-h")
	if code != 0 || !strings.Contains(out, "-seeds") {
		t.Fatalf("diagnose -h: exit %d:\n%s", code, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "-seed ") || strings.TrimSpace(l) == "-seed" {
			t.Errorf("diagnose -h lists %q, a flag diagnose refuses", l)
		}
	}
}
