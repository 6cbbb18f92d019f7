package live

import (
	"context"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	proxyctl "jitterlab/proxy/control"
)

// The proxy screen's source over the relay: live changes are checked as
// --set checks them and reach the relay, timeline changes show in the
// editor, the counters are the relay's, and its audit and packet events
// give the delays, jitter, bytes and loss bursts.
func TestRelaySourceAppliesLiveAndCounts(t *testing.T) {
	run := screenRun(t, testOptions(t, nil, nil, nil))
	src, r, cond, start := run.Source(), run.r, run.cond, run.start

	if err := src.Apply([][2]string{{"up.latency", "-5ms"}}); err == nil || err.Error() != lab.CheckAssignment("up.latency", "-5ms").Error() {
		t.Fatalf("-5ms: %v; want --set's refusal", err)
	}
	if err := src.Apply([][2]string{{"up.latency", "30ms"}, {"down.loss", "0%"}}); err != nil {
		t.Fatal(err)
	}
	if got := src.Get("up.latency"); got != "30ms" {
		t.Fatalf("up.latency reads %q after setting 30ms", got)
	}
	tl := proxyctl.Timed{After: time.Second, Set: []proxyctl.Assignment{{Key: "link.latency", Value: "0ms"}}, What: "link.latency=0ms"}
	if err := cond.Set(tl.Flow, tl.Set); err != nil {
		t.Fatal(err)
	}
	src.timeline(appliedChange{ch: tl, at: start.Add(time.Second)})
	if got := src.Get("up.latency"); got != "0" {
		t.Fatalf("after the timeline's change up.latency reads %q", got)
	}

	client, err := net.DialUDP("udp", nil, r.Addr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	buf := make([]byte, 64)
	for i := range 5 {
		client.Write([]byte{byte(i)})
		client.SetReadDeadline(time.Now().Add(5 * time.Second)) // a bound on a broken relay
		if _, err := client.Read(buf); err != nil {
			t.Fatalf("echo %d: %v", i, err)
		}
	}
	// The relay counts a write after it returns: the last echo may be back
	// before its count (a bound on a broken relay, not a measurement).
	s := src.Snapshot()
	delays := len(s.Up.DelaysMs)
	for end := time.Now().Add(5 * time.Second); s.Down.Delivered < 5 && time.Now().Before(end); delays += len(s.Up.DelaysMs) {
		time.Sleep(time.Millisecond)
		s = src.Snapshot()
	}
	if s.Up.In != 5 || s.Down.Delivered != 5 || s.Clients != 1 || s.Listen != r.Addr().String() {
		t.Fatalf("snapshot after 5 echoes: %+v", s)
	}
	if s.Down.DelaysMs == nil || math.IsNaN(s.Up.JitterMs) || s.Up.Bytes != 5 || s.Up.LossBursts != 0 || delays != 5 || math.IsNaN(s.Up.ArrivalJitterMs) {
		t.Fatalf("after 5 one-byte echoes (%d delays handed over): %+v", delays, s.Up)
	}
	if len(s.Changes) != 2 || !strings.Contains(s.Changes[0].What, "up.latency=30ms") || s.Changes[1].What != "link.latency=0ms" {
		t.Fatalf("changes %+v", s.Changes)
	}
}

// screenRun starts o with the screen's source (no screen shown), on the
// real clock unless o names one: the relay's packets carry its times. It
// ends with the test.
func screenRun(t *testing.T, o Options) *Run {
	t.Helper()
	o.Screen = true
	if o.Clock == nil {
		o.Clock = System
	}
	if o.Stdout == nil {
		o.Stdout, o.Stderr = io.Discard, io.Discard
	}
	ctx, cancel := context.WithCancel(context.Background())
	run, err := Start(ctx, o)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); run.Wait(quitView{}) })
	return run
}

// The screen's c lists the control API's requests as answered — refused
// ones with the reason — and each client's --flow settings from the start
// (issue 12.4).
func TestProxyScreenLogsAPIAndFlowSettings(t *testing.T) {
	o := testOptions(t, nil, nil, nil)
	flow, err := ParseFlow("127.0.0.1:5001 up.loss=5%")
	if err != nil {
		t.Fatal(err)
	}
	o.Flows = []Flow{flow}
	api := withControl(t, &o)
	run := screenRun(t, o)
	src := run.Source()
	for _, body := range []string{`{"up.loss": "250%"}`, `{"up.loss": "3%"}`} {
		apiCall(t, api, "PUT", "/params", body)
	}
	for range 2 { // as the screen's goroutine hands the log over
		src.timeline(<-run.log.ch)
	}
	got := src.Snapshot().Changes
	refusal := lab.Set(&o.Config, "up.loss", "250%").Error()
	want := []Change{
		{What: "127.0.0.1:5001: up.loss=5%", By: "--flow"},
		{What: "PUT /params: up.loss=250%", By: "API", Refused: refusal},
		{What: "PUT /params: up.loss=3%", By: "API"},
	}
	if len(got) != len(want) {
		t.Fatalf("changes %+v; want %+v", got, want)
	}
	for i := range want {
		got[i].At = 0
		if got[i] != want[i] {
			t.Errorf("change %d: %+v; want %+v", i, got[i], want[i])
		}
	}
}
