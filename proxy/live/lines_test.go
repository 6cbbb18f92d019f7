package live

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/scenarios"
)

// counterRun is a run printing counter lines (Wait running), on a fake
// clock unless its options name one; stop ends it and returns its result.
type counterRun struct {
	*Run
	clock          *fakeClock // nil: the options' clock
	stdout, stderr *syncBuffer
	results        chan Result
	cancel         context.CancelFunc
}

// startCounterRun starts o (Stdout and Stderr set here; a fake clock if
// o has none, and then waits until the counter line's ticker and the
// audit's are pending).
func startCounterRun(t *testing.T, o Options) *counterRun {
	t.Helper()
	c := &counterRun{stdout: &syncBuffer{}, stderr: &syncBuffer{}, results: make(chan Result, 1)}
	if o.Clock == nil {
		c.clock = newFakeClock()
		o.Clock = c.clock
	}
	o.Stdout, o.Stderr = c.stdout, c.stderr
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	t.Cleanup(cancel)
	run, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	c.Run = run
	go func() { c.results <- run.Wait(nil) }()
	if c.clock != nil {
		c.clock.waitTimers(t, 2)
	}
	return c
}

// bufferWarning is what the run says on standard error when the kernel
// granted its relay less receive buffer than asked ("" when it granted
// all: the warning depends on the machine's net.core.rmem_max).
func (c *counterRun) bufferWarning() string {
	if w := c.r.ReceiveBufferWarning(); w != "" {
		return "lab proxy: warning: " + w + "\n"
	}
	return ""
}

// withControl gives o a control API on loopback, closed with the test,
// and returns its address.
func withControl(t *testing.T, o *Options) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	o.Control, o.ControlHost = ln, "127.0.0.1"
	return ln.Addr().String()
}

// tick moves the clock one counter period on and waits for its line.
func (c *counterRun) tick(t *testing.T) {
	t.Helper()
	n := strings.Count(c.stdout.String(), "  clients ")
	c.clock.Advance(c.o.Every)
	for strings.Count(c.stdout.String(), "  clients ") == n { // the test's timeout bounds a run that never prints
		runtime.Gosched()
	}
}

func (c *counterRun) stop() Result {
	c.cancel()
	return <-c.results
}

// client dials the run's relay.
func (c *counterRun) client(t *testing.T) net.Conn {
	t.Helper()
	conn, err := net.Dial("udp", c.r.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// waitFor waits until the relay's counters satisfy ok (a relay that never
// does is bounded by the test's timeout).
func (c *counterRun) waitFor(ok func() bool) {
	for !ok() {
		time.Sleep(time.Millisecond) // real datagrams on loopback: the relay's goroutine reads them
	}
}

// silentServer is a UDP socket that reads nothing and answers nothing.
func silentServer(t *testing.T) string {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.LocalAddr().String()
}

// More clients than --max-clients evict one another on every datagram;
// the counter line says so as it happens, naming the flag, with the
// clients evicted since the line before: two clients taking turns at a
// table of one evict 19 times in 20 datagrams (a server that never
// answers: no conversation to protect).
func TestCounterLineSaysWhenClientsEvictOneAnother(t *testing.T) {
	o := testOptions(t, nil, nil, nil)
	o.Target, o.Limits.MaxFlows, o.Every = silentServer(t), 1, 200*time.Millisecond
	c := startCounterRun(t, o)
	a, b := c.client(t), c.client(t)
	for range 10 {
		a.Write([]byte("a"))
		b.Write([]byte("b"))
	}
	c.waitFor(func() bool { return c.r.Stats().Up.Received == 20 })
	c.tick(t)
	c.tick(t) // nothing more: no word of evictions
	c.stop()
	lines := strings.Split(c.stdout.String(), "\n")
	var ticks []string
	for _, l := range lines {
		if strings.Contains(l, "  clients ") {
			ticks = append(ticks, l)
		}
	}
	if len(ticks) != 2 || !strings.HasSuffix(ticks[0], "  evicted 19 clients: more than --max-clients 1 send") ||
		!strings.Contains(ticks[0], "  clients 1  up in 20 ") || strings.Contains(ticks[1], "evicted") {
		t.Errorf("counter lines %q; want the first to say 19 evicted, the second nothing of it", ticks)
	}
}

// A server that is down makes every relayed datagram fail: the error is
// printed once on standard error, then counted on the counter lines and
// in the closing summary (15.13).
func TestCounterLinesPrintEachErrorOnce(t *testing.T) {
	o := testOptions(t, nil, nil, nil)
	// A port closed before the relay starts: it answers ICMP port
	// unreachable to every datagram.
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	o.Target = srv.LocalAddr().String()
	srv.Close()
	c := startCounterRun(t, o)
	client := c.client(t)
	errors := func() (n uint64) {
		for _, e := range c.r.Errors() {
			n += e.Count
		}
		return n
	}
	for round := range 2 {
		for range 5 {
			client.Write([]byte("x"))
		}
		c.waitFor(func() bool { return errors() > 0 && c.r.Stats().Up.Received == uint64(5*(round+1)) })
		c.tick(t)
	}
	res := c.stop()
	var b strings.Builder
	res.WriteText(&b)
	if n := strings.Count(c.stderr.String(), "not answering"); n != 1 {
		t.Errorf("the refusal printed %d times:\n%s", n, c.stderr.String())
	}
	if !regexp.MustCompile(`(?m)  clients 1 .*  errors \d+$`).MatchString(c.stdout.String()) {
		t.Errorf("no error count on the counter lines:\n%s", c.stdout.String())
	}
	if want := fmt.Sprintf("error ×%d: the server %s is not answering", errors(), o.Target); !strings.Contains(b.String(), want) {
		t.Errorf("the summary lacks %q:\n%s", want, b.String())
	}
}

// A refused API request whose error runs over several lines (POST
// /timeline's example) is logged on one counter line, as every other,
// so a script reading the log line by line sees it whole (issue 12).
func TestAPIRefusalIsLoggedOnOneLine(t *testing.T) {
	o := testOptions(t, nil, nil, nil)
	api := withControl(t, &o)
	c := startCounterRun(t, o)
	if code, _ := apiCall(t, api, "POST", "/timeline", ""); code != 400 {
		t.Fatalf("an empty timeline: status %d; want 400", code)
	}
	for !strings.Contains(c.stdout.String(), "API POST") {
		runtime.Gosched()
	}
	c.stop()
	out := c.stdout.String()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "[") || strings.HasPrefix(line, "at = ") || strings.HasPrefix(line, "up.loss") {
			t.Fatalf("a log line broken over several lines: %q in\n%s", line, out)
		}
	}
	if want := "\n14:00:00.000 +0.0s  API POST /timeline — refused: POST /timeline: no [[timeline]] entries, e.g. [[timeline]] at = "; !strings.Contains(out, want) {
		t.Errorf("the refusal is not on its line:\n%s", out)
	}
}

// The first lines count the timeline in English: "1 change", "2 changes".
func TestFirstLinesCountTheTimeline(t *testing.T) {
	for n, want := range map[int]string{1: "timeline of counted: 1 change, at wall time from now\n", 2: "timeline of counted: 2 changes, at wall time from now\n"} {
		text := "name = \"counted\"\n"
		for i := range n {
			text += fmt.Sprintf("[[timeline]]\nat = \"%ds\"\nup.loss = \"1%%\"\n", 10*(i+1))
		}
		sc, err := scenarios.Parse("counted.toml", []byte(text), lab.CheckAssignment)
		if err != nil {
			t.Fatal(err)
		}
		o := testOptions(t, nil, nil, nil)
		if err := lab.ApplyScenario(&o.Config, sc); err != nil {
			t.Fatal(err)
		}
		o.Scenario = sc
		if o.Timeline, _, err = Timeline(o.Config, sc, 0); err != nil {
			t.Fatal(err)
		}
		c := startCounterRun(t, o)
		c.stop()
		if !strings.Contains(c.stdout.String(), want) {
			t.Errorf("%d changes: %q; want %q", n, c.stdout.String(), want)
		}
	}
}
