package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// record runs scenario for d and records it in dir; it returns the path.
func record(t *testing.T, dir, scenario, d string) string {
	t.Helper()
	rec := filepath.Join(dir, scenario+".jlrec")
	if code, _, errOut := runLab(t, "run", "--scenario", scenario, "--duration", d, "--record", rec); code != 0 {
		t.Fatal(errOut)
	}
	return rec
}

// frameSpans lists the byte ranges of a recording's frames (index entry
// and data).
func frameSpans(b []byte) [][2]int {
	var spans [][2]int
	for off := 0; off+40 <= len(b); {
		next := off + 40 + int(binary.LittleEndian.Uint32(b[off+28:]))
		spans = append(spans, [2]int{off, next})
		off = next
	}
	return spans
}

func rows(csv string) int { return strings.Count(csv, "\n") - 1 }

// Issue 15.9: one flipped byte anywhere in an index entry never makes
// export silently return fewer rows: it gives its 21 rows (the frame
// found by a scan, with a warning) or fails; verify does not pass.
func TestIndexChecksum(t *testing.T) {
	dir := t.TempDir()
	rec := record(t, dir, "jitter-fix", "30s")
	b, _ := os.ReadFile(rec)
	entry := frameSpans(b)[1][0] // the frame holding 1 s to 2 s
	bad := filepath.Join(dir, "bad.jlrec")
	for i := 8; i < 40; i++ {
		for _, flip := range []byte{0x01, 0x80} {
			c := append([]byte(nil), b...)
			c[entry+i] ^= flip
			os.WriteFile(bad, c, 0o644)
			code, out, errOut := runLab(t, "export", bad, "--from", "1s", "--to", "2s")
			if code == 0 && (rows(out) != 21 || !strings.Contains(errOut, "warning: "+bad)) {
				t.Errorf("byte %d of the entry ^%#x: exit 0 with %d rows and stderr %q; want 21 rows and a warning, or an error", i, flip, rows(out), errOut)
			}
			if code, out, _ := runLab(t, "replay", bad, "--verify"); code == 0 {
				t.Errorf("byte %d of the entry ^%#x: verified:\n%s", i, flip, out)
			}
		}
	}
}

// Issue 8.10: export of a truncated file warns naming the file and where
// its data ends, and exits with status 5 (issue 27: data was lost); an empty or out-of-range window is an error; a corrupt
// frame in the middle is skipped with a warning and the frames after it
// still export.
func TestSeekAndDamageFailLoudly(t *testing.T) {
	dir := t.TempDir()
	rec := record(t, dir, "jitter-fix", "60s")
	b, _ := os.ReadFile(rec)

	cut := filepath.Join(dir, "cut.jlrec")
	os.WriteFile(cut, b[:len(b)*2/3], 0o644)
	code, out, errOut := runLab(t, "export", cut)
	if code != exitDataLost || !strings.Contains(errOut, "warning: "+cut+": truncated at byte") || !strings.Contains(errOut, "data ends at 00:00:") {
		t.Fatalf("truncated: exit %d, stderr %q", code, errOut)
	}
	if rows(out) < 600 {
		t.Fatalf("truncated: %d rows", rows(out))
	}

	// Cut at a frame boundary: whole frames, but no end record.
	spans := frameSpans(b)
	os.WriteFile(cut, b[:spans[len(spans)-2][1]], 0o644)
	code, _, errOut = runLab(t, "export", cut)
	if code != exitDataLost || !strings.Contains(errOut, "warning: "+cut+": not closed") || !strings.Contains(errOut, "data ends at 00:00:") {
		t.Fatalf("unclosed: exit %d, stderr %q", code, errOut)
	}

	for _, w := range []struct {
		from, to, want string
	}{
		{"30s", "10s", "--from 30s is after --to 10s"},
		{"2m", "0s", "--from 2m0s is past the recording's end 1m0s"},
		{"-1s", "0s", `--from "-1s": allowed 0 or a duration`},
	} {
		for _, cmd := range []string{"export", "replay"} {
			code, out, errOut := runLab(t, cmd, rec, "--from", w.from, "--to", w.to)
			if code == 0 || !strings.Contains(errOut, w.want) {
				t.Errorf("%s --from %s --to %s: exit %d, stdout %d bytes, stderr %q", cmd, w.from, w.to, code, len(out), errOut)
			}
		}
	}

	mid := spans[3] // 20 s to 30 s
	bad := append([]byte(nil), b...)
	bad[mid[0]+40+(mid[1]-mid[0]-40)/2] ^= 0xFF
	corrupt := filepath.Join(dir, "corrupt.jlrec")
	os.WriteFile(corrupt, bad, 0o644)
	code, out, errOut = runLab(t, "export", corrupt)
	if code != exitDataLost || !strings.Contains(errOut, "warning: "+corrupt+": bytes ") || !strings.Contains(errOut, "skipped") {
		t.Fatalf("a corrupt frame: exit %d, stderr %q", code, errOut)
	}
	if rows(out) != 1200-200 || !strings.Contains(out, "\n19.950,") || !strings.Contains(out, "\n30.000,") || strings.Contains(out, "\n25.000,") {
		t.Fatalf("a corrupt frame: %d rows; want the 1000 outside 20–30 s", rows(out))
	}
	if code, _, errOut := runLab(t, "replay", corrupt, "--verify"); code == 0 || !strings.Contains(errOut, "verify FAILED") {
		t.Fatalf("a corrupt frame verified: %q", errOut)
	}
}

// Issue 15.14: a FIFO (or any file that is not a regular file) given as a
// recording is refused at once instead of waiting for a writer.
func TestRecordingFIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.jlrec")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, cmd := range []string{"replay", "export", "plot"} {
		args := []string{cmd, fifo}
		if cmd == "plot" {
			args = append(args, "--out", filepath.Join(t.TempDir(), "p.png"))
		}
		code, _, errOut := runLab(t, args...)
		if code == 0 || !strings.Contains(errOut, "is a named pipe (FIFO), not a recording") {
			t.Errorf("%s of a FIFO: exit %d, %q", cmd, code, errOut)
		}
	}
	if code, _, errOut := runLab(t, "export", t.TempDir()); code == 0 || !strings.Contains(errOut, "is a directory, not a recording") {
		t.Errorf("export of a directory: exit %d, %q", code, errOut)
	}
}

// TestPlotRecordingRefusesRunFlags (issue 8, QA item 4): the flags of a
// simulated run (--scenario, --set, --seed, --duration) say nothing about a
// recording; 'lab plot RECORDING' refuses them rather than ignoring them.
func TestPlotRecordingRefusesRunFlags(t *testing.T) {
	rec := "../../recordings/examples/jitter-fix.jlrec"
	png := filepath.Join(t.TempDir(), "p.png")
	for _, c := range [][]string{
		{"--scenario", "handover"},
		{"--set", "link.jitter=20ms"},
		{"--seed", "3"},
		{"--duration", "10s"},
	} {
		args := append([]string{"plot", rec, "--out", png, "--to", "5s"}, c...)
		code, out, errOut := runLab(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c[0]+" "+c[1]) || !strings.Contains(errOut, "a recording is plotted as recorded") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s %s", args, code, errOut, c[0], c[1])
		}
		if _, err := os.Stat(png); err == nil {
			t.Fatalf("%v wrote %s", args, png)
		}
	}
	if code, _, errOut := runLab(t, "plot", rec, "--out", png, "--to", "5s", "--width", "300"); code != 0 {
		t.Fatalf("plot of the recording alone: %s", errOut)
	}
}

// TestToZeroMeansTheEnd (issue 8, QA item 5): --to 0 is the end of the
// recording (or run), the same as no --to, in export, replay and plot, and
// every -h says so; giving --from or --to to replay prints that window.
func TestToZeroMeansTheEnd(t *testing.T) {
	rec := "../../recordings/examples/jitter-fix.jlrec"
	same := func(a, b []string) {
		t.Helper()
		ca, oa, ea := runLab(t, a...)
		cb, ob, eb := runLab(t, b...)
		if ca != 0 || cb != 0 || oa != ob || oa == "" {
			t.Errorf("%v (exit %d, %s) and %v (exit %d, %s) differ", a, ca, ea, b, cb, eb)
		}
	}
	same([]string{"export", rec, "--to", "0"}, []string{"export", rec})
	same([]string{"export", rec, "--from", "30s", "--to", "0"}, []string{"export", rec, "--from", "30s"})
	same([]string{"replay", rec, "--from", "59s", "--to", "0"}, []string{"replay", rec, "--from", "59s"})
	same([]string{"replay", rec, "--to", "0"}, []string{"replay", rec, "--from", "0"})
	_, out, _ := runLab(t, "replay", rec, "--to", "0")
	if !strings.Contains(out, "\n60.000,") || !strings.Contains(out, "\n0.050,") {
		t.Errorf("replay --to 0 does not print the timeline to the end:\n%.300s", out)
	}
	for _, cmd := range []string{"export", "replay", "plot"} {
		_, help, _ := runLab(t, cmd, "-h")
		if !strings.Contains(help, "0 or unset: the end") || !strings.Contains(help, "0 or unset: the start") {
			t.Errorf("lab %s -h does not say what --from 0 and --to 0 mean:\n%s", cmd, help)
		}
	}
}
