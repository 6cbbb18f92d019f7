package live

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// relayForR is a running relay to an echo server, its conditions and
// capture switch as the proxy wires them, a client, and echoes(n): n
// echoes through it, counted by the relay both ways.
func relayForR(t *testing.T) (r *proxy.Relay, cond *conditions, sw *proxyrec.Switch, client net.Conn, echoes func(n int), echo string) {
	t.Helper()
	o := testOptions(t, nil, nil, nil)
	run := screenRun(t, o)
	r, cond, sw, echo = run.r, run.cond, &run.captures, o.Target
	conn, err := net.Dial("udp", r.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	echoes = func(n int) {
		buf := make([]byte, 64)
		for i := range n {
			conn.Write([]byte{byte(i)})
			conn.SetReadDeadline(time.Now().Add(5 * time.Second)) // a bound on a broken relay
			if _, err := conn.Read(buf); err != nil {
				t.Fatalf("echo %d: %v", i, err)
			}
		}
		// The relay counts a write after it returns (a bound, not a measurement).
		for end := time.Now().Add(5 * time.Second); r.Stats().Down.Delivered < r.Stats().Up.Delivered && time.Now().Before(end); {
			time.Sleep(time.Millisecond)
		}
	}
	return r, cond, sw, conn, echoes, echo
}

// testFile is a File on disk, as lab proxy's outputs are.
type testFile struct{ *os.File }

func (f testFile) Commit() error { return f.Close() }
func (f testFile) Abort()        { f.Close() }

// createIn is Options.Create in dir for the tests: a new file, never one
// that exists.
func createIn(dir string) func(base, ext string) (File, string, error) {
	return func(base, ext string) (File, string, error) {
		for i := 1; ; i++ {
			path := filepath.Join(dir, base+ext)
			if i > 1 {
				path = filepath.Join(dir, fmt.Sprintf("%s-%d%s", base, i, ext))
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return nil, "", err
			}
			return testFile{f}, path, nil
		}
	}
}

// recordingOf reads a proxy recording the test made: what lab replay
// prints of it (without the link line cmd/lab adds), its changes of the
// settings and its header.
func recordingOf(t *testing.T, path string) (replay string, changes []recordings.Change, h recordings.Header) {
	t.Helper()
	var b strings.Builder
	r, f, err := recordings.OpenFile(path)
	if err == nil {
		defer f.Close()
		h = r.Header
		if changes, err = r.Changes(); err == nil {
			err = proxyrec.WriteReplay(&b, r, path, "")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), changes, h
}

// The proxy screen's R (issue 12.4) records the relayed traffic from now
// to a new file, and R again closes it: the recording holds the packets
// relayed in between, the change made meanwhile and the client that was
// already sending, and lab replay reads it. With --record or --pcap
// running, R says so and records nothing.
func TestProxyScreenRecordsOnR(t *testing.T) {
	r, cond, sw, client, echoes, echo := relayForR(t)
	echoes(3) // before R: not in the recording

	dir := t.TempDir()
	rec := &recorder{sw: sw, r: r, cond: cond, clock: System, create: createIn(dir), name: "default", bound: time.Now()}
	msg, err := rec.toggle()
	if err != nil || !strings.Contains(msg, "recording to "+dir) {
		t.Fatalf("first R: %q, %v; want recording to a new file in %s", msg, err, dir)
	}
	src := newSource(r, cond, System, echo, time.Now(), nil)
	src.rec = rec
	if got := src.Snapshot().Recording; !strings.HasPrefix(got, dir) {
		t.Errorf("while R records the screen's snapshot says %q records; want R's file", got)
	}
	if err := cond.Set(netip.AddrPort{}, []proxyctl.Assignment{{Key: "up.latency", Value: "2ms"}}); err != nil {
		t.Fatal(err)
	}
	echoes(5)
	msg, err = rec.toggle()
	if err != nil || !strings.Contains(msg, "recorded ") {
		t.Fatalf("second R: %q, %v; want the file named as recorded", msg, err)
	}
	if got := src.Snapshot().Recording; got != "" {
		t.Errorf("after R closed it the snapshot says %q records", got)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jlrec"))
	if len(files) != 1 {
		t.Fatalf("files %v; want one recording", files)
	}
	out, _, _ := recordingOf(t, files[0])
	for _, want := range []string{"read up 5, down 5", "up.latency = 2ms", "flow 1  " + client.LocalAddr().String()} {
		if !strings.Contains(out, want) {
			t.Errorf("the replay of R's recording lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not closed") {
		t.Errorf("R's recording was not closed:\n%s", out)
	}

	// A second R makes a new file, never overwriting the first.
	if _, err := rec.toggle(); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.toggle(); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jlrec")); len(files) != 2 {
		t.Fatalf("files %v after two R recordings; want two", files)
	}

	// --record running from the start: R names it and records nothing.
	other := &proxyrec.Switch{} // the run's own stops its capture at the end: a stand-in has nothing to stop
	busy := &recorder{sw: other, r: r, cond: cond, clock: System, create: createIn(dir), name: "default", flags: "--record run.jlrec"}
	if err := other.Start(&proxyrec.Capture{}); err != nil {
		t.Fatal(err)
	}
	if msg, err := busy.toggle(); err == nil || !strings.Contains(err.Error(), "--record run.jlrec") {
		t.Fatalf("R with --record running: %q, %v; want an error naming --record", msg, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("R with --record running left %d files; want the 2 from before", len(entries))
	}
}

// A client already sending when R starts, with settings of its own, is
// named with its flow number in the recording before its settings are
// recorded, so export --changes gives its own settings the flow number as
// for a client that sends after R (they had an empty flow column).
func TestScreenRecordingNumbersTheClientsItStartsWith(t *testing.T) {
	r, cond, sw, client, echoes, _ := relayForR(t)
	echoes(2)
	addr := netip.MustParseAddrPort(client.LocalAddr().String())
	if err := cond.Set(addr, []proxyctl.Assignment{{Key: "up.latency", Value: "1ms"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rec := &recorder{sw: sw, r: r, cond: cond, clock: System, create: createIn(dir), name: "default", bound: time.Now()}
	for range 2 {
		if _, err := rec.toggle(); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jlrec"))
	if len(files) != 1 {
		t.Fatalf("files %v; want one recording", files)
	}
	_, all, _ := recordingOf(t, files[0])
	var b strings.Builder
	if err := proxyrec.WriteChangesCSV(&b, all, 0, sim.Time(math.MaxInt64)); err != nil {
		t.Fatal(err)
	}
	want := "," + addr.String() + ",1,up.latency,1ms\n"
	if out := b.String(); !strings.Contains(out, want) {
		t.Errorf("the changes as export --changes writes them:\n%s\nwant a row ending %q", out, want)
	}
}

// R after live edits records the settings in force at its start, and lab
// replay says them: a recording made on a 40 ms uplink set live does not
// read as the defaults with "changes 0".
func TestScreenRecordingSaysTheSettingsInForceAtItsStart(t *testing.T) {
	r, cond, sw, _, echoes, _ := relayForR(t)
	if err := cond.Set(netip.AddrPort{}, []proxyctl.Assignment{{Key: "up.latency", Value: "40ms"}, {Key: "link.loss", Value: "1%"}}); err != nil {
		t.Fatal(err)
	}
	echoes(2)
	dir := t.TempDir()
	rec := &recorder{sw: sw, r: r, cond: cond, clock: System, create: createIn(dir), name: "default", bound: time.Now()}
	if _, err := rec.toggle(); err != nil {
		t.Fatal(err)
	}
	echoes(3)
	if _, err := rec.toggle(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jlrec"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	_, _, h := recordingOf(t, files[0])
	cfg, err := lab.ConfigFromHeader(h, lab.Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Up.Latency != 40*time.Millisecond || cfg.Down.Latency != 0 || cfg.Up.Loss != 0.01 || cfg.Down.Loss != 0.01 {
		t.Errorf("the recording starts with up %+v, down %+v; want the settings in force: 40ms/0 latency, 1%% loss", cfg.Up, cfg.Down)
	}
}
