package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCSVToClosedPipe (issue 8 item 2): 'lab run --csv /dev/stdout | head -1'
// and the same for export end, quietly, when the reader closes the pipe. The
// output is a real pipe whose reader takes one line and closes it; the
// deadline only turns a hang into a failure.
func TestCSVToClosedPipe(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "ten-minutes.jlrec")
	if code, _, errOut := runLab(t, "run", "--duration", "10m", "--record", rec); code != 0 {
		t.Fatal(errOut)
	}
	for _, c := range []struct {
		name  string
		args  []string
		first string // how the output starts
	}{
		{"run --csv", []string{"run", "--duration", "10m", "--csv"}, "t_s,"},
		{"run --packets", []string{"run", "--duration", "10m", "--packets"}, "dir,"},
		// A recording compresses well: 10h on a jittery link is far more than
		// a pipe holds, so the command cannot finish before the reader closes.
		{"run --record", []string{"run", "--duration", "10h", "--set", "link.jitter=20ms", "--record"}, "\x5a\x2a\x4d\x18"},
		{"export --csv", []string{"export", rec, "--csv"}, "t_s,"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			path := fmt.Sprintf("/dev/fd/%d", w.Fd())
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errOut := runLab(t, append(c.args, path)...)
				done <- result{code, out, errOut}
			}()
			first := make([]byte, len(c.first))
			_, err = io.ReadFull(r, first)
			r.Close()
			if err != nil || string(first) != c.first {
				t.Fatalf("output starts %q, %v: want %q", first, err, c.first)
			}
			select {
			case res := <-done:
				if res.code != exitClosedPipe || res.stderr != "" {
					t.Fatalf("exit %d, stderr %q: want exit %d and no message", res.code, res.stderr, exitClosedPipe)
				}
			case <-time.After(time.Minute):
				t.Fatal("the command still runs a minute after its reader closed the pipe")
			}
		})
	}
}

// TestDashIsStandardOutput (issue 8 item 2): '-' is standard output for
// every output flag.
func TestDashIsStandardOutput(t *testing.T) {
	code, out, errOut := runLab(t, "run", "--duration", "1s", "--csv", "-")
	if code != 0 || !strings.HasPrefix(out, "t_s,") || strings.Count(out, "\n") != 1+20 {
		t.Fatalf("run --csv -: %d %q\n%s", code, errOut, out)
	}
	if !strings.Contains(errOut, "judder") {
		t.Fatalf("with the CSV on standard output the summary goes to standard error; stderr %q", errOut)
	}
	code, out, errOut = runLab(t, "export", "../../recordings/examples/jitter-fix.jlrec", "--csv", "-", "--to", "1s")
	if code != 0 || !strings.HasPrefix(out, "t_s,") {
		t.Fatalf("export --csv -: %d %q %q", code, errOut, out)
	}
	code, out, errOut = runLab(t, "sweep", "--over", "link.loss=0%,1%", "--seeds", "1", "--duration", "1s", "--csv", "-")
	if code != 0 || !strings.HasPrefix(out, "link.loss,seed,") || strings.Count(out, "\n") != 3 || !strings.Contains(errOut, "means over seeds") {
		t.Fatalf("sweep --csv -: %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	code, out, errOut = runLab(t, "plot", "--duration", "2s", "--out", "-", "--width", "300")
	if code != 0 || !strings.HasPrefix(out, "\x89PNG") {
		t.Fatalf("plot --out -: %d %q %.20q", code, errOut, out)
	}
}

// TestPlotBadWidthKeepsExistingFile (issue 8 item 7): a refused plot leaves
// the file it would have replaced as it was.
func TestPlotBadWidthKeepsExistingFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.png")
	for _, args := range [][]string{
		{"plot", "--duration", "2s", "--width", "10", "--out", existing},
		{"plot", "--duration", "2s", "--from", "5s", "--out", existing},
		{"sweep", "--over", "link.jitter=0ms,fast", "--duration", "1s", "--csv", existing},
	} {
		os.WriteFile(existing, []byte("my old plot"), 0o644)
		code, _, errOut := runLab(t, args...)
		if b, _ := os.ReadFile(existing); code == 0 || string(b) != "my old plot" {
			t.Errorf("%v: exit %d (%s), the file now holds %q", args, code, errOut, b)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// A plot that succeeds replaces it whole; through a symbolic link, the
	// file it points to.
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink("existing.png", link); err == nil {
		existing = link
	}
	if code, _, errOut := runLab(t, "plot", "--duration", "2s", "--width", "300", "--out", existing); code != 0 {
		t.Fatal(errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "existing.png")); !strings.HasPrefix(string(b), "\x89PNG") {
		t.Fatal("the plot did not replace the file")
	}
	if st, err := os.Lstat(link); err == nil && st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the plot replaced the symbolic link instead of the file it points to")
	}
	if code, _, errOut := runLab(t, "plot", "--duration", "2s", "--out", filepath.Join(dir, "no-such-folder", "p.png")); code != 1 || !strings.Contains(errOut, "no-such-folder/p.png: no such file") {
		t.Fatalf("a plot into a missing folder: %d %q", code, errOut)
	}
}

// TestTwoOutputsOnOneFile (issue 8, QA item 1): two output flags that name
// one file by different names — a symbolic link, /dev/stdout and '-' — are
// refused like the same name twice: their bytes would interleave.
func TestTwoOutputsOnOneFile(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(b, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("b.csv", link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	subLink := filepath.Join(dir, "sublink")
	if err := os.Symlink("sub", subLink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ a, b string }{
		{b, link},
		{"/dev/stdout", "-"},
		{"/proc/self/fd/1", "-"},
		{"/dev/fd/1", "/dev/stdout"},
		{filepath.Join(sub, "new.csv"), filepath.Join(subLink, "new.csv")}, // not there yet, one folder
	} {
		code, out, errOut := runLab(t, "run", "--duration", "1s", "--csv", c.a, "--packets", c.b)
		if code == 0 || out != "" || !strings.Contains(errOut, "--csv "+c.a) || !strings.Contains(errOut, "--packets "+c.b) || !strings.Contains(errOut, "the same output") {
			t.Errorf("--csv %s --packets %s: exit %d, stderr %q; want both named as one output", c.a, c.b, code, errOut)
		}
	}
	// Two different files, and /dev/null twice (nothing is kept), are fine.
	for _, c := range []struct{ a, b string }{
		{b, filepath.Join(dir, "c.csv")},
		{"/dev/null", "/dev/null"},
	} {
		if code, _, errOut := runLab(t, "run", "--duration", "1s", "--csv", c.a, "--packets", c.b); code != 0 {
			t.Errorf("--csv %s --packets %s: exit %d, %s", c.a, c.b, code, errOut)
		}
	}
}

// lab plot writes PNG only: a file named for another format is refused
// before anything is simulated or written, naming what is allowed.
func TestPlotRefusesAnotherImageFormat(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"r.svg", "r.jpg", "r.PDF"} {
		out := filepath.Join(dir, name)
		code, _, errOut := runLab(t, "plot", "--duration", "2s", "--out", out)
		if code != 2 || !strings.Contains(errOut, "--out") || !strings.Contains(errOut, name) || !strings.Contains(errOut, ".png") {
			t.Errorf("plot --out %s: exit %d, %q: want exit 2 naming --out, the file and .png", name, code, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("plot --out %s wrote the file", name)
		}
	}
	for _, name := range []string{"r.png", "r.PNG", "plot"} { // no extension: the user's choice
		if code, _, errOut := runLab(t, "plot", "--duration", "2s", "--out", filepath.Join(dir, name)); code != 0 {
			t.Errorf("plot --out %s: exit %d: %s", name, code, errOut)
		}
	}
}
