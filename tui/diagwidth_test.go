package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/diagnose"
	"jitterlab/lab"
)

// Everything the diagnosis box says before lab diagnose's own text is
// wrapped to the box, whatever its width (qa: at 64×20, the smallest
// terminal the lab draws on, the ranked preview's sentences and the
// notes after its rows were broken at 78 columns and cut at the box's
// edge, 62). Only the preview's table rows keep their width, as a table
// does (← → scroll them).
func TestDiagnosisBoxWrapsItsSentencesToTheBox(t *testing.T) {
	cfg := lab.DefaultConfig()
	cfg.Duration = 3 * time.Second
	r, err := diagnose.Run(diagnose.Options{Base: cfg, Name: "default", Seeds: []uint64{1, 2}, Workers: 1, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	finished := make(chan struct{})
	close(finished)
	d := &diagRun{result: r, finished: finished}
	row := regexp.MustCompile(`^(\d+ |  {30} )`) // a table row, or the columns' names
	for _, w := range []int{62, 50} {
		box := d.boxText(w, false)
		head, _, ok := strings.Cut(box, "↑↓←→ PgUp PgDn scroll")
		if !ok || !strings.Contains(head, "ranked changes") {
			t.Fatalf("the case is gone: no ranked preview:\n%s", box)
		}
		for _, l := range strings.Split(head, "\n") {
			if n := len([]rune(l)); n > w && !row.MatchString(l) {
				t.Errorf("%d columns: a line of %d runes runs off the box: %q", w, n, l)
			}
		}
	}
}
