package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	proxyrec "jitterlab/proxy/record"
)

// A proxy recording is read by replay (its packets' fates and the delay
// added, agreeing with the proxy's summary), export --packets (one CSV row
// a packet) and plot (the delay added); what only applies to a session is
// refused, naming the flag.
func TestProxyRecordingReplayExportPlot(t *testing.T) {
	t.Parallel() // long and independent of the others
	out, _, rec, _ := runProxyWithCaptures(t)
	sum := proxySummaryRows(t, out)

	code, replay, errOut := runLab(t, "replay", rec)
	if code != 0 {
		t.Fatal(errOut)
	}
	if want := fmt.Sprintf("relay      read up %d, down %d;", sum["up"].in-sum["up"].kernel, sum["down"].in-sum["down"].kernel); !strings.Contains(replay, want) {
		t.Errorf("replay does not say %q:\n%s", want, replay)
	}
	for _, d := range []string{"up", "down"} {
		m := regexp.MustCompile(`(?m)^\s*` + d + `\s+(\d+)\s+(\d+)\s`).FindStringSubmatch(replay)
		if m == nil || m[1] != strconv.Itoa(sum[d].delivered) || m[2] != strconv.Itoa(sum[d].lost) {
			t.Errorf("replay's %s row %q; the proxy said delivered %d, lost %d:\n%s", d, m, sum[d].delivered, sum[d].lost, replay)
		}
		if !regexp.MustCompile(`(?m)^\s*` + d + ` delay added\s+\d+\.\d{3}\s+\d+\.\d{3}\s+\d+\.\d{3}\s*$`).MatchString(replay) {
			t.Errorf("replay has no %s delay added line:\n%s", d, replay)
		}
	}
	// A window of a second: the relay's traffic is wall-clock, and a
	// loaded host (the race detector on 2 cores) stalled it for over 100 ms,
	// leaving a 100 ms window empty.
	if code, window, errOut := runLab(t, "replay", rec, "--from", "200ms", "--to", "1200ms"); code != 0 {
		t.Fatal(errOut)
	} else if _, csvPart, ok := strings.Cut(window, "\n"+proxyrec.PacketColumns); !ok || strings.Count(csvPart, "\n") == 0 {
		t.Errorf("replay --from --to prints no packets CSV:\n%s", window)
	} else {
		for _, line := range strings.Split(strings.TrimSpace(csvPart), "\n") {
			at, _, _ := strings.Cut(line, ",")
			if v, err := strconv.ParseFloat(at, 64); err != nil || v < 0.2 || v > 1.2 {
				t.Errorf("replay --from 200ms --to 1200ms printed a packet at %s s", at)
			}
		}
	}
	if code, _, errOut := runLab(t, "replay", rec, "--verify"); code == 0 || !strings.Contains(errOut, "--verify: a proxy recording") {
		t.Errorf("replay --verify of a proxy recording: %d %q", code, errOut)
	}

	code, export, errOut := runLab(t, "export", rec)
	if code != 0 {
		t.Fatal(errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(export)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",")+"\n" != proxyrec.PacketColumns {
		t.Fatalf("export header %v", rows[0])
	}
	delivered := map[string]int{}
	for _, r := range rows[1:] {
		if r[4] == "delivered" {
			delivered[r[1]]++
		}
	}
	if delivered["up"] != sum["up"].delivered || delivered["down"] != sum["down"].delivered {
		t.Errorf("export: %v delivered; the proxy said %+v", delivered, sum)
	}
	file := filepath.Join(t.TempDir(), "p.csv")
	if code, _, errOut := runLab(t, "export", rec, "--packets", file); code != 0 {
		t.Fatal(errOut)
	} else if b, _ := os.ReadFile(file); string(b) != export {
		t.Error("export --packets FILE differs from export to standard output")
	}
	if code, _, errOut := runLab(t, "export", rec, "--csv", file); code == 0 || !strings.Contains(errOut, "--csv") {
		t.Errorf("export --csv of a proxy recording: %d %q", code, errOut)
	}
	if code, _, errOut := runLab(t, "export", "../../recordings/examples/jitter-fix.jlrec", "--packets", "-"); code == 0 || !strings.Contains(errOut, "--packets") {
		t.Errorf("export --packets of a session recording: %d %q", code, errOut)
	}

	code, plotOut, errOut := runLab(t, "plot", rec, "--out", "-", "--width", "400")
	if code != 0 {
		t.Fatal(errOut)
	}
	if _, err := png.Decode(bytes.NewReader([]byte(plotOut))); err != nil || !strings.Contains(errOut, "delivered packets") {
		t.Fatalf("plot: %v, %q", err, errOut)
	}
}

// A proxy recording keeps the timeline's link changes, at the wall time
// they applied; replay lists them.
func TestProxyRecordingKeepsTheTimeline(t *testing.T) {
	dir := t.TempDir()
	scen, rec := filepath.Join(dir, "s.toml"), filepath.Join(dir, "r.jlrec")
	os.WriteFile(scen, []byte("[[timeline]]\nat = \"100ms\"\nlink.latency = \"300ms\"\nclient.fps = 30\n"), 0o644)
	if code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--scenario", scen,
		"--duration", "300ms", "--every", "100ms", "--record", rec); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := runLab(t, "replay", rec)
	if code != 0 {
		t.Fatal(errOut)
	}
	if !regexp.MustCompile(`changes    1\n  at 00:00:00\.1\d\d  link\.latency = 300ms\n`).MatchString(out) {
		t.Fatalf("replay does not list the change:\n%s", out)
	}
}
