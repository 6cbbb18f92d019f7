package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"jitterlab/lab"
)

// gateFile writes text as a scenario file in a temporary folder.
func gateFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadReadsSeedsAndOneAssertionPerBound(t *testing.T) {
	p := gateFile(t, "g.toml", `seeds = "3-5,9"
link.latency = "40ms"

[[assert]]
metric = "judder_mps"
min = 0
max = "0.3m/s"
`)
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Seeds) != 4 || g.Seeds[0] != 3 || g.Seeds[3] != 9 {
		t.Errorf("seeds %v; want 3 4 5 9", g.Seeds)
	}
	if len(g.Asserts) != 2 || g.Asserts[0].Bound != "max" || g.Asserts[0].Limit != 0.3 || g.Asserts[1].Bound != "min" || g.Asserts[0].Line != 4 {
		t.Errorf("assertions %+v; want max 0.3 then min 0, both on line 4", g.Asserts)
	}
	if g.Asserts[0].Claim() != "judder_mps ≤ 0.3 m/s" {
		t.Errorf("claim %q", g.Asserts[0].Claim())
	}
}

func TestDefaultSeedsAreOneToTwenty(t *testing.T) {
	g, err := Load(gateFile(t, "g.toml", "[[assert]]\nmetric = \"judder_mps\"\nmax = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Seeds) != 20 || g.Seeds[0] != 1 || g.Seeds[19] != 20 {
		t.Errorf("seeds %v; want 1-20", g.Seeds)
	}
}

// Bad input: one line naming the file and the line, the value and what
// is allowed.
func TestBadInputNamesFileAndLine(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"unknown figure, near a name", "\n[[assert]]\nmetric = \"judder_mp\"\nmax = 1\n", `:3: metric "judder_mp": no such figure; did you mean judder_mps?`},
		{"unknown figure, inside a name", "[[assert]]\nmetric = \"input_delay_p95_ms\"\nmax = 1\n", `:2: metric "input_delay_p95_ms": no such figure; did you mean server_input_delay_p95_ms?`},
		{"unknown figure, far from every name", "[[assert]]\nmetric = \"fun\"\nmax = 1\n", `:2: metric "fun": no such figure; allowed progress_deficit_mps,`},
		{"a bound in seconds on a figure in ms", "[[assert]]\nmetric = \"visible_lag_p99_ms\"\nmax = \"0.2s\"\n", `:3: max = "0.2s" on visible_lag_p99_ms: the figure is in ms, not s`},
		{"a bound in ms on a speed", "[[assert]]\nmetric = \"judder_mps\"\nmax = \"300ms\"\n", `:3: max = "300ms" on judder_mps: the figure is in m/s, not ms`},
		{"a unit on a share", "[[assert]]\nmetric = \"server_input_lost_share\"\nmax = \"5%\"\n", `:3: max = "5%" on server_input_lost_share: the figure has no unit`},
		{"a negative max on a figure never negative", "[[assert]]\nmetric = \"snaps_per_min\"\nmax = -1\n", `:3: max = -1 on snaps_per_min: the figure is never negative, so the bound can never pass`},
		{"a negative max_worse", "[[assert]]\nmetric = \"judder_mps\"\nmax_worse = -0.1\n", `:3: max_worse = -0.1 on judder_mps: max_worse is how much the figure may grow over the baseline's; allowed ≥ 0`},
		{"max_worse on a speed", "[[assert]]\nmetric = \"mean_visible_speed_mps\"\nmax_worse = 0.1\n", `:3: max_worse on mean_visible_speed_mps: the figure is better when larger`},
		{"one seed", "seeds = \"7\"\n[[assert]]\nmetric = \"judder_mps\"\nmax = 1\n", `:1: seeds "7": allowed at least 2 seeds`},
		{"seeds not a list", "seeds = \"1-x\"\n[[assert]]\nmetric = \"judder_mps\"\nmax = 1\n", `:1: seeds "1-x": "1-x" is not a range from low to high`},
		{"no assertion", "link.latency = \"40ms\"\n", `no [[assert]] entries: nothing to check`},
		{"an unknown parameter still named", "link.latncy = \"40ms\"\n[[assert]]\nmetric = \"judder_mps\"\nmax = 1\n", `:1: `},
	} {
		p := gateFile(t, "gate.toml", c.text)
		_, err := Load(p)
		if err == nil || !IsInput(err) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line of bad input naming %s and %q", c.name, err, p, c.want)
		}
	}
}

// A negative bound is allowed on a figure that can be negative (the
// progress deficit: the player ahead of the command).
func TestNegativeBoundOnASignedFigure(t *testing.T) {
	if _, err := Load(gateFile(t, "g.toml", "[[assert]]\nmetric = \"progress_deficit_mps\"\nmin = -0.5\n")); err != nil {
		t.Fatal(err)
	}
}

// The unit read from a figure's name is the unit the report card gives
// it: one definition, checked on every card figure.
func TestUnitOfAgreesWithTheCard(t *testing.T) {
	for _, m := range lab.CardMetrics {
		if got := UnitOf(m.Name); got != m.Unit {
			t.Errorf("%s: unit %q from its name, the card says %q", m.Name, got, m.Unit)
		}
	}
}

func TestFilesListsAFoldersTomlFilesInOrder(t *testing.T) {
	d := t.TempDir()
	for _, n := range []string{"b.toml", "a.toml", "notes.txt"} {
		os.WriteFile(filepath.Join(d, n), nil, 0o644)
	}
	got, err := Files([]string{d, filepath.Join(d, "notes.txt")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(d, "a.toml"), filepath.Join(d, "b.toml"), filepath.Join(d, "notes.txt")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v; want %v", got, want)
	}
	if _, err := Files([]string{filepath.Join(d, "nosuch")}); err == nil || !IsInput(err) {
		t.Errorf("a missing path: %v; want bad input", err)
	}
}

func TestLoadAllRefusesTwoFilesOfOneName(t *testing.T) {
	d := t.TempDir()
	text := "name = \"same\"\n[[assert]]\nmetric = \"judder_mps\"\nmax = 1\n"
	os.WriteFile(filepath.Join(d, "a.toml"), []byte(text), 0o644)
	os.WriteFile(filepath.Join(d, "b.toml"), []byte(text), 0o644)
	if _, err := LoadAll([]string{d}); err == nil || !IsInput(err) || !strings.Contains(err.Error(), `b.toml: scenario "same" is also `) {
		t.Errorf("two files named same: %v", err)
	}
}

// A gate with max_worse and no baseline is refused before anything runs.
func TestBaselinesRefuseMaxWorseWithoutOne(t *testing.T) {
	g, err := Load(gateFile(t, "g.toml", "[[assert]]\nmetric = \"judder_mps\"\nmax = 1\nmax_worse = 0.1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Baselines([]*Gate{g}, nil, ""); err == nil || !IsInput(err) || !strings.Contains(err.Error(), "g.toml:1: max_worse on judder_mps needs a baseline") {
		t.Errorf("max_worse without a baseline: %v", err)
	}
}
