package live

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"jitterlab/lab"
	"jitterlab/proxy"
)

// The proxy's first line says the jitter's distribution and correlation
// when they are not the default (qa2): --set link.jitter=10ms --set
// link.jitter_dist=pareto --set link.jitter_corr=0.5 read "jitter 10ms",
// as uniform independent jitter would.
func TestProxyHeaderSaysTheJittersKind(t *testing.T) {
	cfg := lab.DefaultConfig()
	for _, kv := range [][2]string{{"link.latency", "40ms"}, {"link.jitter", "10ms"}, {"up.jitter_dist", "pareto"}, {"up.jitter_corr", "0.5"}} {
		if err := lab.Set(&cfg, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string]string{
		"up":   "latency 40ms jitter 10ms pareto correlation 0.5 loss 0% duplicate 0% reorder 0% rate 0",
		"down": "latency 40ms jitter 10ms loss 0% duplicate 0% reorder 0% rate 0",
	} {
		if got := linkText(&cfg, dir); got != want {
			t.Errorf("%s: %q; want %q", dir, got, want)
		}
	}
}

// The proxy's first line says what each direction runs: a trace names its
// file and how it plays, a 4-state loss its model — not "latency 0 jitter
// 0 loss 0%", which is what the parametric link it replaces would do.
func TestProxyLinkLineNamesATraceAndALossModel(t *testing.T) {
	cfg := lab.DefaultConfig()
	relay := filepath.Join("..", "..", "trace", "testdata", "relay.jlrec")
	for k, v := range map[string]string{"up.trace": relay, "down.loss_model": "state 1% 30% 20% 30% 2%"} {
		if err := lab.Set(&cfg, k, v); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := linkText(&cfg, "up"), "trace "+relay+" (1951 packets over 30.623s, looping) duplicate 0% rate 0"; got != want {
		t.Errorf("up: %q\nwant %q", got, want)
	}
	if got, want := linkText(&cfg, "down"), "latency 0 jitter 0 loss model state 1% 30% 20% 30% 2% duplicate 0% reorder 0% rate 0"; got != want {
		t.Errorf("down: %q\nwant %q", got, want)
	}
}

// The proxy's first line says the receive buffer the kernel granted each
// of the relay's sockets (Linux), and standard error warns, once, only
// when it granted less than the relay asked for.
func TestProxyFirstLineSaysTheReceiveBuffer(t *testing.T) {
	c := startCounterRun(t, testOptions(t, nil, nil, nil))
	got := c.r.ReceiveBuffer()
	res := c.stop()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	first, _, _ := strings.Cut(c.stdout.String(), "\n")
	want := " (seed 1); receive buffer " + proxy.ByteSize(got) + " a socket; Ctrl-C stops"
	switch {
	case runtime.GOOS == "linux" && got == 0:
		t.Fatal("the relay does not say what receive buffer the kernel gave it")
	case got == 0:
		want = " (seed 1); Ctrl-C stops"
	}
	if !strings.HasSuffix(first, want) {
		t.Errorf("first line %q\nwant it to end %q", first, want)
	}
	if wantErr := c.bufferWarning(); c.stderr.String() != wantErr {
		t.Errorf("standard error %q, want %q", c.stderr.String(), wantErr)
	}
}
