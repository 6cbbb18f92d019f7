package widget

import (
	"errors"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"jitterlab/param"
)

// testRows are a link group of two knobs and a group of one key each.
func testRows() []EditorRow {
	return append(LinkRows([]string{"up.latency", "up.jitter_dist"}),
		EditorRow{Label: "client", Heading: true},
		EditorRow{Label: "fps", Keys: []string{"client.fps"}},
		EditorRow{Label: "band", Keys: []string{"client.band"}})
}

func TestLinkRows(t *testing.T) {
	rows := LinkRows([]string{"up.latency", "up.jitter_dist", "up.spike_delay"})
	want := []EditorRow{{Label: "link", Heading: true, Columns: []string{"up", "down"}},
		{Label: "latency", Keys: []string{"up.latency", "down.latency"}},
		{Label: "distribution", Keys: []string{"up.jitter_dist", "down.jitter_dist"}},
		{Label: "spike delay", Keys: []string{"up.spike_delay", "down.spike_delay"}}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if r := rows[i]; r.Label != want[i].Label || r.Heading != want[i].Heading || strings.Join(r.Keys, " ") != strings.Join(want[i].Keys, " ") || strings.Join(r.Columns, " ") != strings.Join(want[i].Columns, " ") {
			t.Errorf("row %d: %+v, want %+v", i, r, want[i])
		}
	}
}

// The cursor starts on the first key, moves over the data rows only,
// stops at the ends, and keeps its column within the row's keys.
func TestEditorCursor(t *testing.T) {
	e := NewEditor(testRows())
	var keys []string
	for range 6 {
		keys = append(keys, e.Key())
		e.Move(1, 0)
	}
	if got, want := strings.Join(keys, " "), "up.latency up.jitter_dist client.fps client.band client.band client.band"; got != want {
		t.Errorf("down from the top: %s; want %s", got, want)
	}
	e.Move(-1, 1) // fps, down column: a one-key row has its key in every column
	if e.Key() != "client.fps" {
		t.Errorf("up and right from band: %s", e.Key())
	}
	e.Move(-1, 0)
	if e.Key() != "down.jitter_dist" {
		t.Errorf("up from fps in the down column: %s", e.Key())
	}
	e.Move(-10, 5)
	if e.Key() != "down.latency" || e.Row().Heading {
		t.Errorf("PgUp from the top knob: %s (row %+v)", e.Key(), e.Row())
	}
	if !e.Select("client.band") || e.Key() != "client.band" || e.Select("nothing") {
		t.Errorf("Select: cursor on %s", e.Key())
	}
	if !e.MoveKey(tcell.KeyUp) || e.Key() != "client.fps" || e.MoveKey(tcell.KeyEnter) {
		t.Errorf("MoveKey: cursor on %s", e.Key())
	}
}

// Step sets the value the key's step gives; a key without a step, or a
// step that refuses, sets nothing and says why.
func TestEditorStep(t *testing.T) {
	e := NewEditor(testRows())
	values := map[string]string{"up.latency": "20ms"}
	e.Get = func(key string) string { return values[key] }
	e.Set = func(key, value string) error { values[key] = value; return nil }
	e.Steps = func(key string) param.Step {
		if key == "up.latency" {
			return param.Ladder("10ms", "20ms", "30ms")
		}
		return nil
	}
	if err := e.Step(1); err != nil || values["up.latency"] != "30ms" {
		t.Fatalf("+ on 20ms: %v, %s", err, values["up.latency"])
	}
	e.Move(1, 0)
	if err := e.Step(1); err == nil || err.Error() != "up.jitter_dist has no step; press Enter to type a value" {
		t.Errorf("+ on a key without a step: %v", err)
	}
	refused := errors.New("no")
	if _, err := StepValue(func(string, string, int) (string, error) { return "", refused }, "k", "v", 1); err != refused {
		t.Errorf("a refusing step: %v", err)
	}
}

// Drawn on a short screen the editor scrolls with the cursor, keeps the
// group's heading above its first row and names the rows it shows.
func TestEditorDraw(t *testing.T) {
	screen := tcell.NewSimulationScreen("")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	defer screen.Fini()
	screen.SetSize(40, 5)
	e := NewEditor(testRows())
	e.Get = func(key string) string { return strings.ToUpper(key[strings.Index(key, ".")+1:]) }
	e.SetRect(0, 0, 40, 5) // three rows inside the border
	text := func() string {
		screen.Clear()
		e.Draw(screen)
		screen.Show()
		cells, w, h := screen.GetContents()
		var b strings.Builder
		for y := range h {
			for x := range w {
				b.WriteString(string(cells[y*w+x].Runes))
				if len(cells[y*w+x].Runes) == 0 {
					b.WriteByte(' ')
				}
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	out := text()
	for _, want := range []string{"parameters 1–3 of 6", "── link        up           down", " latency       LATENCY      LATENCY", " distribution  JITTER_DIST  JITTER_DIS│"} {
		if !strings.Contains(out, want) {
			t.Errorf("at the top, no %q:\n%s", want, out)
		}
	}
	e.Select("client.band")
	out = text()
	for _, want := range []string{"parameters 4–6 of 6", "── client", " fps           FPS", " band          BAND"} {
		if !strings.Contains(out, want) {
			t.Errorf("at the bottom, no %q:\n%s", want, out)
		}
	}
	e.Select("client.fps")
	if out = text(); !strings.Contains(out, "── client") {
		t.Errorf("back on fps, its heading is gone:\n%s", out)
	}
}
