package live

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
)

// syncBuffer is a writer the run and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testOptions relay 127.0.0.1:0 to an echo server on the default links,
// on clock, writing to stdout and stderr.
func testOptions(t *testing.T, clock Clock, stdout, stderr io.Writer) Options {
	return Options{Listen: "127.0.0.1:0", Target: echoServer(t), Config: lab.DefaultConfig(), Limits: proxy.DefaultLimits(),
		Every: time.Second, Clock: clock, Stdout: stdout, Stderr: stderr}
}

// The counter lines and the change log are stamped by the run's clock,
// from the relay's start (the clock at Start): a line per period, an API
// request at the time it was answered.
func TestCounterLinesKeepTheRunsClock(t *testing.T) {
	o := testOptions(t, nil, nil, nil)
	api := withControl(t, &o)
	c := startCounterRun(t, o)
	clock, stdout := c.clock, c.stdout
	clock.Advance(2500 * time.Millisecond)
	if code, b := apiCall(t, api, "PUT", "/params", `{"up.loss": "3%"}`); code != 200 {
		t.Fatalf("PUT /params: %d %s", code, b)
	}
	for !strings.Contains(stdout.String(), "API PUT") { // printed as the log hands it over (the test's timeout bounds it)
		runtime.Gosched()
	}
	clock.Advance(500 * time.Millisecond)
	for !strings.Contains(stdout.String(), "+3.0s  clients") {
		runtime.Gosched()
	}
	res := c.stop()
	out := stdout.String()
	for _, want := range []string{
		"\n14:00:01.000 +1.0s  clients 0  up in 0 delivered 0 lost 0 dropped 0 dup 0 reordered 0  down in 0 delivered 0 lost 0 dropped 0 dup 0 reordered 0\n",
		"\n14:00:02.000 +2.0s  clients 0  up in 0",
		"\n14:00:02.500 +2.5s  API PUT /params: up.loss=3%\n",
		"\n14:00:03.000 +3.0s  clients 0  up in 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the counter lines lack %q:\n%s", want, out)
		}
	}
	if res.Err != nil || res.Signal != nil || c.stderr.String() != c.bufferWarning() {
		t.Errorf("a run stopped by its context: %v, %v, stderr %q", res.Err, res.Signal, c.stderr.String())
	}
	// The audit's periods split at the change, by the same clock.
	var b strings.Builder
	res.WriteText(&b)
	if want := "period 2: +2.500s to "; !strings.Contains(b.String(), want) {
		t.Errorf("the closing text lacks %q:\n%s", want, b.String())
	}
}

// The screen's source reads the run's clock: a snapshot's wall time and
// a live change's time are the clock's since the start, and R names its
// file by the clock.
func TestSourceKeepsTheRunsClock(t *testing.T) {
	clock := newFakeClock()
	var stdout, stderr syncBuffer
	o := testOptions(t, clock, &stdout, &stderr)
	o.Screen = true
	dir := t.TempDir()
	o.Create = createIn(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	src := run.Source()
	if s := src.Snapshot(); s.Wall != 0 {
		t.Errorf("at the start the snapshot says %v", s.Wall)
	}
	clock.Advance(3 * time.Second)
	if err := src.Apply([][2]string{{"up.latency", "30ms"}}); err != nil {
		t.Fatal(err)
	}
	s := src.Snapshot()
	if s.Wall != 3*time.Second || len(s.Changes) != 1 || s.Changes[0].At != 3*time.Second || s.Changes[0].What != "up.latency=30ms" {
		t.Errorf("3 s in: wall %v, changes %+v", s.Wall, s.Changes)
	}
	msg, err := run.Record()
	if want := "recording to " + dir + "/jitterlab-proxy-20261126-140003.jlrec (R stops)"; err != nil || msg != want {
		t.Errorf("R: %q, %v; want %q", msg, err, want)
	}
	res := run.Wait(quitView{})
	if res.Err != nil || res.Signal != nil {
		t.Errorf("q: %v, %v", res.Err, res.Signal)
	}
	if want := fmt.Sprintf("lab proxy: the recording R started, %s/jitterlab-proxy-20261126-140003.jlrec, is closed with the proxy\n", dir); stderr.String() != want {
		t.Errorf("stderr %q; want %q", stderr.String(), want)
	}
}

// quitView is a screen the user quits at once (q).
type quitView struct{}

func (quitView) Run() error        { return nil }
func (quitView) Signal() os.Signal { return nil }
func (quitView) Stop()             {}
