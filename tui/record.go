package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rivo/tview"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
)

// recording is the open recording of the live session.
type recording struct {
	rec  *lab.Recorder
	f    *os.File
	path string
}

// startRecording records the whole session from t 0, whatever the lab
// still keeps of it: a twin session re-simulates it from its lab.Setup
// (the initial settings, the scenario's timeline and every live change)
// into the recording (same seed, same changes at the same times: the same
// samples), then takes over as the live session, recording as it goes.
func (a *App) startRecording() error {
	f, path, err := createUnique(a.opts.Dir, a.fileBase(), ".jlrec")
	if err != nil {
		return err
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(path)
		return err
	}
	w, err := recordings.NewWriter(f, lab.HeaderOf(a.s.Initial(), a.opts.Name, a.s.Every()))
	if err != nil {
		return fail(err)
	}
	var rec *lab.Recorder
	twin, err := lab.Rerun(a.s, func(twin *lab.Session) {
		rec = lab.Record(twin, w, nil) // twin at t 0 has no changes yet: writes nothing
		twin.OnSample, twin.OnChange = rec.Sample, rec.Change
	})
	if err != nil {
		return fail(fmt.Errorf("%w; nothing recorded", err))
	}
	twin.OnSample = func(x *metrics.Sample) {
		a.record(x)
		rec.Sample(x)
	}
	a.s = twin
	a.rec = &recording{rec: rec, f: f, path: path}
	return nil
}

// stopRecording closes the open recording (if any) with the summary so far.
func (a *App) stopRecording() error {
	r := a.rec
	if r == nil {
		return nil
	}
	a.rec = nil
	a.s.OnSample, a.s.OnChange = a.record, nil
	err := r.rec.Close()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording %s: %w", r.path, err)
	}
	a.written = append(a.written, r.path)
	return nil
}

// exportCSV writes the kept samples (the last hour at most) to a new file.
func (a *App) exportCSV() (string, error) {
	f, path, err := createUnique(a.opts.Dir, a.fileBase(), ".csv")
	if err != nil {
		return "", err
	}
	return path, writeCSV(f, a.samples())
}

// writeCSV writes samples to f and closes it.
func writeCSV(f *os.File, samples []metrics.Sample) error {
	w, err := metrics.NewCSVWriter(f)
	if err == nil {
		for i := range samples {
			if err = w.Write(&samples[i]); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fileBase names the lab's files: scenario, seed and the session's time.
func (a *App) fileBase() string {
	return fmt.Sprintf("jitterlab-%s-seed%d-%s", safe(a.opts.Name), a.s.Config().Seed, strings.ReplaceAll(a.s.Now().String(), ":", ""))
}

// CreateUnique creates dir/base+ext, or base-2, base-3, … when that
// exists: an export or a recording never overwrites a file.
func CreateUnique(dir, base, ext string) (*os.File, string, error) {
	return createUnique(dir, base, ext)
}

// createUnique creates dir/base+ext, or base-2, base-3, … when that exists:
// an export or a recording never overwrites a file.
func createUnique(dir, base, ext string) (*os.File, string, error) {
	for i := 1; i <= 1000; i++ {
		name := base + ext
		if i > 1 {
			name = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", fmt.Errorf("%s: a thousand files named %s-N%s exist already", dir, base, ext)
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, strings.TrimSuffix(filepath.Base(s), ".toml"))
}

func (a *App) export() {
	path, err := a.exportCSV()
	if err != nil {
		a.status = "[red]export: " + tview.Escape(err.Error())
		return
	}
	a.status = "[green]wrote " + tview.Escape(path)
}

// closeRecording closes the open recording and names it, with its
// length, on the status line: R and r say the same.
func (a *App) closeRecording() {
	path, length := a.rec.path, a.s.Now()
	if err := a.stopRecording(); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return
	}
	a.status = fmt.Sprintf("[green]recording closed: %s (%.0f s)[-]; lab replay FILE --verify checks it", tview.Escape(path), length.Seconds())
}

// toggleRecord starts recording the whole session or closes the recording.
func (a *App) toggleRecord() {
	if a.rec != nil {
		a.closeRecording()
		return
	}
	if err := a.startRecording(); err != nil {
		a.status = "[red]recording: " + tview.Escape(err.Error())
		return
	}
	a.status = "[red]●[-] recording the whole session from t 0 to " + tview.Escape(a.rec.path) + "; R stops"
}
