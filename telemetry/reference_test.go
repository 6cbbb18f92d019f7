package telemetry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referenceRow is a field's row in docs/reference/telemetry.md.
func referenceRow(f *field) string {
	return "| `" + f.name + "` | " + f.allowed() + " | " + f.doc + " |"
}

// The reference page (docs/reference/telemetry.md) is the field table and
// the classes this package reads: every field's row, as the decoder checks
// it, and every class's name, with the size limit and the version.
func TestReferenceNamesEveryFieldAndClass(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "reference", "telemetry.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for i := range fields {
		if row := referenceRow(&fields[i]); !strings.Contains(page, row+"\n") {
			t.Errorf("no row for %s %q; want\n%s", fields[i].kind, fields[i].name, row)
		}
	}
	for c := range Class(NumClasses) {
		if !strings.Contains(page, "| "+c.String()+" |") {
			t.Errorf("no row for the class %q", c)
		}
	}
	// The examples are what the code prints.
	var c Counts
	c.Frames, c.Ticks, c.Refused[ClassNotFinite] = 8640, 7680, 1
	refusal := Decode([]byte(with(`"visible_x_m":3.5`, `"visible_x_m":NaN`)), new(Datagram)).(*Error)
	for _, s := range []string{c.Summary() + "\n", "(not finite), counted from now on: " + refusal.Msg + "\n", frameJSON + "\n", tickJSON + "\n"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page's example is not what the code prints: %s", s)
		}
	}
	for _, s := range []string{"at most 1200 bytes", `"v":1`, "5,000 datagrams a second", "bursts of 1,000", "4,096"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page does not say %q", s)
		}
	}
}
