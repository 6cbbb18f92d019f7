package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/recordings"
	"jitterlab/sim"
)

// writeProxyRecordingEndingAt writes a proxy recording of one client whose
// one packet goes through at 1 s and whose session closes at end.
func writeProxyRecordingEndingAt(t *testing.T, end sim.Time) string {
	t.Helper()
	w, path := newProxyRecording(t, "one-client")
	if err := w.Change(recordings.Change{At: 0, Key: "flow 1", Value: "127.0.0.1:5001"}); err != nil {
		t.Fatal(err)
	}
	in := sim.Time(time.Second)
	delay := 20 * time.Millisecond
	p := recordings.Packet{At: in + sim.Time(delay), In: in, Out: in + sim.Time(delay), Scheduled: delay,
		Fate: recordings.PacketDelivered, Flow: 1, Size: 40}
	if err := w.Packet(&p); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recordings.End{At: end}); err != nil {
		t.Fatal(err)
	}
	return path
}

// QA: a window past the end of a proxy recording names the end as people
// write a duration, to the millisecond ("4.006s"), not to the nanosecond
// ("4.00603274s"), in replay, export and plot alike.
func TestWindowPastTheEndSaysTheEndToTheMillisecond(t *testing.T) {
	rec := writeProxyRecordingEndingAt(t, sim.Time(4006032740))
	png := filepath.Join(t.TempDir(), "p.png")
	for _, args := range [][]string{
		{"replay", rec, "--from", "10s"},
		{"export", rec, "--from", "10s"},
		{"plot", rec, "--from", "10s", "--out", png},
	} {
		code, _, errOut := runLab(t, args...)
		if code == 0 || !strings.Contains(errOut, "4.006s") || strings.Contains(errOut, "4.00603274s") {
			t.Errorf("lab %s: exit %d, stderr %q; want the end as 4.006s", strings.Join(args, " "), code, errOut)
		}
	}
	// A window with no packets in it says its bounds as they were given.
	if code, _, errOut := runLab(t, "plot", rec, "--from", "3s", "--to", "10s", "--out", png); code == 0 || !strings.Contains(errOut, "between 3s and 10s") {
		t.Errorf("lab plot --from 3s --to 10s: exit %d, stderr %q; want \"between 3s and 10s\"", code, errOut)
	}
}

// QA: lab plot of a recording cut to its header (no samples, no packets)
// says the file holds nothing to plot, naming it, instead of an empty
// window between --from 0s and --to 0s the user never gave.
func TestPlotOfAHeaderOnlyRecordingSaysItHoldsNothing(t *testing.T) {
	dir := t.TempDir()
	session := record(t, dir, "jitter-fix", "5s")
	proxy := writeProxyRecordingEndingAt(t, sim.Time(3*time.Second))
	for _, rec := range []string{session, proxy} {
		b, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		cut := strings.TrimSuffix(rec, ".jlrec") + "-header.jlrec"
		if err := os.WriteFile(cut, b[:frameSpans(b)[0][1]], 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runLab(t, "plot", cut, "--out", filepath.Join(dir, "p.png"))
		if code == 0 || !strings.Contains(errOut, cut+" holds nothing to plot") || strings.Contains(errOut, "empty window") {
			t.Errorf("plot of %s: exit %d, stderr %q; want %q", cut, code, errOut, cut+" holds nothing to plot")
		}
	}
}

// QA: lab proxy says its addresses as the user gave them and, where that
// differs, what they became: --listen 0.0.0.0:PORT stays 0.0.0.0:PORT
// (not the [::]:PORT it binds), port 0 becomes the port it got, and
// --to localhost:PORT shows the address it resolved to; addresses given
// as they are stay exactly as before.
func TestProxySaysItsAddressesAsGivenAndWhatTheyBecame(t *testing.T) {
	relaying := regexp.MustCompile(`(?m)^relaying (.*?) → (.*?): up `)
	for _, c := range []struct {
		listen, to    string
		wantL, wantTo *regexp.Regexp
	}{
		{"127.0.0.1:0", "127.0.0.1:9", regexp.MustCompile(`^127\.0\.0\.1:[1-9]\d*$`), regexp.MustCompile(`^127\.0\.0\.1:9$`)},
		{"0.0.0.0:0", "localhost:9", regexp.MustCompile(`^0\.0\.0\.0:[1-9]\d*$`), regexp.MustCompile(`^localhost:9 \((127\.0\.0\.1|\[::1\]):9\)$`)},
		{"localhost:0", "127.0.0.1:9", regexp.MustCompile(`^localhost:([1-9]\d*) \((127\.0\.0\.1|\[::1\]):[1-9]\d*\)$`), regexp.MustCompile(`^127\.0\.0\.1:9$`)},
	} {
		code, out, errOut := runLab(t, "proxy", "--listen", c.listen, "--to", c.to, "--duration", "100ms", "--every", "100ms")
		m := relaying.FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Errorf("--listen %s --to %s: exit %d, stdout %q, stderr %q", c.listen, c.to, code, out, errOut)
			continue
		}
		if !c.wantL.MatchString(m[1]) || !c.wantTo.MatchString(m[2]) {
			t.Errorf("--listen %s --to %s: relaying %q → %q; want %v → %v", c.listen, c.to, m[1], m[2], c.wantL, c.wantTo)
		}
	}
}
