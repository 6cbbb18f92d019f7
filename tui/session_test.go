package tui

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"jitterlab/lab"
)

// scenarioLab is the lab on the built-in scenario name, with the short
// diagnosis, on an 80×24 screen.
func scenarioLab(t *testing.T, name string) (*App, tcell.SimulationScreen) {
	t.Helper()
	cfg, sc := scenarioConfig(t, name)
	cfg.Duration = 24 * time.Hour
	a, err := New(Options{Config: cfg, Scenario: sc, Name: sc.Name, Dir: t.TempDir(),
		Diagnose: DiagnoseOptions{Seeds: diagSeeds, Duration: diagDuration, Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	a.app.SetScreen(screen)
	screen.SetSize(80, 24)
	return a, screen
}

// countKey counts the changes to key.
func countKey(changes []lab.Change, key string) int {
	n := 0
	for _, c := range changes {
		if c.Key == key {
			n++
		}
	}
	return n
}

// Issue 22, bug 1: R on starlink keeps the scenario's oscillator. Its
// square wave raises link.latency at 15 s for 300 ms: by t 20 s the run
// has made 2 latency changes, whether R was pressed at t 6 s or not, and
// the recording holds them.
func TestRecordKeepsTheOscillatorsChanges(t *testing.T) {
	run := func(record bool) *App {
		a, _ := scenarioLab(t, "starlink")
		a.advance(5 * time.Second)
		if err := a.set("up.jitter", "6ms"); err != nil {
			t.Fatal(err)
		}
		a.advance(time.Second)
		if record {
			press(a, 'R')
			if a.rec == nil {
				t.Fatalf("R did not start a recording: %s", a.status)
			}
		}
		a.advance(14 * time.Second)
		return a
	}
	plain, recorded := run(false), run(true)
	if n := countKey(plain.s.Changes(), "link.latency"); n != 2 {
		t.Fatalf("starlink made %d latency changes by t 20 s, want 2 (15 s and 15.3 s)", n)
	}
	if !slices.Equal(recorded.s.Changes(), plain.s.Changes()) {
		t.Fatalf("recording changed the run: with R %v\nwithout %v", recorded.s.Changes(), plain.s.Changes())
	}
	path := recorded.rec.path
	press(recorded, 'R')
	changes, err := openRecording(t, path).Changes()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range changes {
		if c.Key == "link.latency" {
			n++
		}
	}
	if n != 2 || len(changes) != len(plain.s.Changes()) {
		t.Fatalf("the recording holds %d changes, %d to link.latency; the run made %d, 2 to link.latency", len(changes), n, len(plain.s.Changes()))
	}
}

// Issue 22, bug 2: d on a scenario with a timeline is 'lab diagnose
// --scenario' on it, timeline included, byte for byte: on latency-spike
// at t 14 s (before the spike) the diagnosis names the spike.
func TestDiagnosisKeepsTheTimeline(t *testing.T) {
	a, _ := scenarioLab(t, "latency-spike")
	a.advance(14 * time.Second)
	press(a, 'd')
	waitDiagnosis(t, a)
	if a.diag.err != nil {
		t.Fatal(a.diag.err)
	}
	want := cliDiagnosis(t, "latency-spike")
	if a.diag.text != want {
		t.Fatalf("the lab's diagnosis differs from lab diagnose --scenario latency-spike:\nlab:\n%s\nlab diagnose:\n%s", a.diag.text, want)
	}
	if !strings.Contains(want, "spike") {
		t.Fatalf("lab diagnose --scenario latency-spike does not name the spike:\n%s", want)
	}
	if cmd := "lab diagnose --scenario latency-spike --seeds 1-5 --duration 30s"; a.diag.command != cmd {
		t.Errorf("the box names %q, want %q", a.diag.command, cmd)
	}
	// The oscillating timeline does not make every d a new diagnosis.
	d := a.diag
	press(a, 'd') // hide
	a.advance(10 * time.Second)
	press(a, 'd')
	if a.diag != d {
		t.Error("d after the timeline's changes diagnosed again: the settings diagnosed did not change")
	}
}

// Issue 22, bug 2 with live edits: the live edits are --set overrides on
// top of the scenario, as the command line the box names says.
func TestDiagnosisOfLiveEditsOnATimeline(t *testing.T) {
	a, _ := scenarioLab(t, "latency-spike")
	a.advance(21 * time.Second) // in the spike
	if err := a.set("up.jitter", "40ms"); err != nil {
		t.Fatal(err)
	}
	press(a, 'd')
	waitDiagnosis(t, a)
	if a.diag.err != nil {
		t.Fatal(a.diag.err)
	}
	if want := cliDiagnosis(t, "latency-spike", "up.jitter=40ms"); a.diag.text != want {
		t.Fatalf("the lab's diagnosis differs from lab diagnose --scenario latency-spike --set up.jitter=40ms:\nlab:\n%s\nlab diagnose:\n%s", a.diag.text, want)
	}
}

// Issue 22, bug 3: B starts from the settings in force, not from the
// edit history: after a 360 ms excursion and back, B with the queue server
// is the session started on the settings in force with the queue server,
// sample for sample; and A's column is the same settings without it.
func TestABStartsFromTheSettingsInForce(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.advance(2 * time.Second)
	for _, v := range []string{"360ms", "50ms"} {
		if err := a.set("up.latency", v); err != nil {
			t.Fatal(err)
		}
		a.advance(3 * time.Second)
	}
	if err := a.set("up.jitter", "30ms"); err != nil {
		t.Fatal(err)
	}
	a.advance(time.Second)
	if err := a.startAB("server.inputs=queue"); err != nil {
		t.Fatal(err)
	}
	a.advance(5 * time.Second)
	fresh := func(sets ...string) *lab.Session {
		cfg := a.s.Config()
		for _, kv := range sets {
			k, v, _ := lab.ParseAssignment(kv)
			if err := lab.Set(&cfg, k, v); err != nil {
				t.Fatal(err)
			}
		}
		s, err := lab.New(cfg, a.opts.Every)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Run(a.s.Now()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if n := countKey(a.ab.s.Changes(), "up.latency"); n != 0 {
		t.Errorf("B replayed %d up.latency changes of A's history", n)
	}
	b, ref := fresh("server.inputs=queue"), fresh()
	if got, want := a.ab.s.Summary(), b.Summary(); !sameSummary(got, want) {
		t.Errorf("B is not the settings in force with server.inputs=queue from t 0:\n got %+v\nwant %+v", got, want)
	}
	out := draw(a, screen)
	if a.ab.ref == nil || !sameSummary(a.ab.ref.S.Summary(), ref.Summary()) {
		t.Errorf("A's column is not the settings in force from t 0")
	}
	if !strings.Contains(out, "A now") {
		t.Errorf("the A/B box does not name A's column A now:\n%s", out)
	}
}

// sameSummary reports whether two summaries are the same, figure for figure.
func sameSummary(a, b lab.Summary) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
