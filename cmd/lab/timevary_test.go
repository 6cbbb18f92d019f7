package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Oscillator and flap timing is exact in the per-packet CSV: an uplink
// packet sent after a square edge has the edge's latency, a downlink packet
// sent while the flap is down is lost. Rows within the CSV's 1 µs print
// precision of an edge may show either side.
func TestOscillatorAndFlapTimingInPacketsCSV(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "osc.toml")
	if err := os.WriteFile(scen, []byte(`
duration = "12s"
up.latency = "40ms"
down.latency = "30ms"

[[oscillate]]
key = "up.latency"
period = "2s"
low = "40ms"
high = "114ms"
shape = "square"
start = "1s"
duty = 0.25

[[flap]]
dir = "down"
period = "3s"
down = "500ms"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "packets.csv")
	if code, _, errOut := runLab(t, "run", "--scenario", scen, "--packets", out); code != 0 {
		t.Fatalf("lab run: %d %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// window reports whether t (s) is after an edge start + k·period and at
	// most width later, and whether it is within 1 µs of an edge.
	window := func(t, start, period, width float64) (in, near bool) {
		d := t - start
		if d < -1e-6 {
			return false, false
		}
		k := math.Floor(d / period)
		phase := d - k*period
		near = math.Abs(phase) <= 1e-6 || math.Abs(phase-width) <= 1e-6 || math.Abs(phase-period) <= 1e-6
		return phase > 0 && phase <= width, near
	}
	var ups, downLost, downs int
	for _, r := range rows[1:] { // dir,seq,kind,sent_s,status,delivered_s,delay_ms,...
		sent, _ := strconv.ParseFloat(r[3], 64)
		switch r[0] {
		case "up":
			delay, _ := strconv.ParseFloat(r[6], 64)
			high, near := window(sent, 1, 2, 0.5)
			want := 40.0
			if high {
				want = 114
			}
			if delay != want && !(near && (delay == 40 || delay == 114)) {
				t.Fatalf("up packet sent at %ss took %v ms, want %v", r[3], delay, want)
			}
			ups++
		case "down":
			down, near := window(sent, 2.5, 3, 0.5)
			if lost := r[4] == "lost"; lost != down && !near {
				t.Fatalf("down packet sent at %ss: %s, flap down %v", r[3], r[4], down)
			}
			if down {
				downLost++
			}
			downs++
		}
	}
	if ups < 200 || downLost < 30 || downs-downLost < 150 {
		t.Fatalf("too few packets: %d up, %d of %d down in a flap", ups, downLost, downs)
	}
}
