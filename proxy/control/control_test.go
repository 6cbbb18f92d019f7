package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/netem"
	"jitterlab/proxy"
)

// fakeRelay records what Conditions push.
type fakeRelay struct {
	up, down netem.Params
	flows    map[netip.AddrPort][2]netem.Params
}

func (f *fakeRelay) SetParams(up, down netem.Params) error { f.up, f.down = up, down; return nil }
func (f *fakeRelay) SetFlowParams(a netip.AddrPort, up, down netem.Params) error {
	f.flows[a] = [2]netem.Params{up, down}
	return nil
}
func (f *fakeRelay) ClearFlowParams(a netip.AddrPort) { delete(f.flows, a) }

// testRegistry takes netem's link keys. The caller's registry it stands
// for knows the keys of the model's client, server and session, which are
// not link settings; any other key is unknown, with the error it gives
// here.
var testRegistry = Registry{
	Unknown: func(key string) error {
		for _, known := range []string{"client.", "server.", "sim.", "input.", "view."} {
			if strings.HasPrefix(key, known) {
				return nil
			}
		}
		return fmt.Errorf("the caller knows no %q", key)
	},
	MaxAt: 1000 * time.Hour,
}

func newConditions(t *testing.T) (*Conditions, *fakeRelay) {
	t.Helper()
	r := &fakeRelay{flows: map[netip.AddrPort][2]netem.Params{}}
	return New(testRegistry, netem.Pair{}, r, nil), r
}

// pairError is the error of setting key=value on links alone.
func pairError(key, value string) error {
	k, _ := netem.LookupPairKey(key)
	return new(netem.Pair).Set(k, value)
}

var client = netip.MustParseAddrPort("127.0.0.1:5001")

// A client's own settings sit on top of the defaults: it keeps its own
// keys when the defaults change and follows the defaults in the others.
func TestFlowKeepsItsOwnKeysWhenDefaultsChange(t *testing.T) {
	c, r := newConditions(t)
	if err := c.Set(client, []Assignment{{"up.loss", "5%"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(netip.AddrPort{}, []Assignment{{"up.loss", "1%"}, {"link.latency", "80ms"}}); err != nil {
		t.Fatal(err)
	}
	own := r.flows[client]
	if own[proxy.Up].Loss != 0.05 || own[proxy.Up].Latency != 80*time.Millisecond || own[proxy.Down].Latency != 80*time.Millisecond {
		t.Fatalf("client's links %+v; want its own 5%% loss and the defaults' 80ms", own)
	}
	if r.up.Loss != 0.01 {
		t.Fatalf("defaults: up loss %v", r.up.Loss)
	}
	c.Clear(client)
	if _, ok := r.flows[client]; ok {
		t.Fatal("cleared client still has its own links")
	}
}

// A change is all or none, and its error is the link key's, word for word
// (proxy/live's TestRegistryIsTheLabs: --set's); an unknown key's is the
// registry's.
func TestSetErrorsAreTheKeysErrors(t *testing.T) {
	c, r := newConditions(t)
	err := c.Set(netip.AddrPort{}, []Assignment{{"up.latency", "70ms"}, {"up.loss", "200%"}})
	want := pairError("up.loss", "200%")
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("error %v; the key says %v", err, want)
	}
	if r.up.Latency == 70*time.Millisecond {
		t.Fatal("the first assignment applied although the second failed")
	}
	if err := c.Set(client, []Assignment{{"client.fps", "30"}}); err == nil || !strings.Contains(err.Error(), "not a link setting") {
		t.Fatalf("a non-link key for a client: %v", err)
	}
	for _, key := range []string{"up.los", "clinet.fps"} {
		err := c.Set(netip.AddrPort{}, []Assignment{{key, "1%"}})
		if want := testRegistry.Unknown(key); err == nil || err.Error() != want.Error() {
			t.Fatalf("unknown key %s: %v; want the registry's %v", key, err, want)
		}
	}
}

// Scheduled changes are checked when scheduled, apply at their time, and
// are bounded in number.
func TestScheduleChecksThenApplies(t *testing.T) {
	applied := make(chan Timed, 1)
	r := &fakeRelay{flows: map[netip.AddrPort][2]netem.Params{}}
	c := New(testRegistry, netem.Pair{}, r, func(ch Timed, err error) {
		if err != nil {
			t.Error(err)
		}
		applied <- ch
	})
	defer c.Stop()
	if err := c.Schedule([]Timed{{After: time.Millisecond, Set: []Assignment{{"up.loss", "2"}}}}); err == nil {
		t.Fatal("a bad value was scheduled")
	}
	if err := c.Schedule([]Timed{{After: time.Millisecond, Flow: client, Set: []Assignment{{"up.loss", "7%"}}, What: "up.loss=7%"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case ch := <-applied:
		if ch.What != "up.loss=7%" {
			t.Fatalf("applied %+v", ch)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the change never applied")
	}
	if c.Pending() != 0 || r.flows[client][proxy.Up].Loss != 0.07 {
		t.Fatalf("pending %d, client %+v", c.Pending(), r.flows[client])
	}
	many := make([]Timed, MaxPending+1)
	for i := range many {
		many[i] = Timed{After: time.Hour, Set: []Assignment{{"up.loss", "1%"}}}
	}
	if err := c.Schedule(many); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("%d changes scheduled: %v", len(many), err)
	}
}

// PUT /params takes the keys in the order given, like repeated --set.
func TestPutParamsKeepsOrder(t *testing.T) {
	c, r := newConditions(t)
	srv := httptest.NewServer(Handler(c, nil))
	defer srv.Close()
	put := func(path, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPut, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := put("/params", `{"link.latency": "50ms", "up.latency": "70ms"}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if r.up.Latency != 70*time.Millisecond || r.down.Latency != 50*time.Millisecond {
		t.Fatalf("up %v down %v: want the later key to win", r.up.Latency, r.down.Latency)
	}
	code, body := put("/params?flow=127.0.0.1:5001", `{"up.loss": "150%"}`)
	var e struct{ Error string }
	json.Unmarshal([]byte(body), &e)
	if want := pairError("up.loss", "150%"); code != 400 || e.Error != want.Error() {
		t.Fatalf("%d %q; want 400 and %q", code, e.Error, want)
	}
	for _, bad := range []string{``, `[]`, `{"up.loss": true}`, `{"up.loss"`, `{}`} {
		if code, body := put("/params", bad); code != 400 || !strings.Contains(body, "error") {
			t.Errorf("body %q: %d %s", bad, code, body)
		}
	}
	if code, _ := put("/params?flow=nonsense", `{"up.loss": "1%"}`); code != 400 {
		t.Errorf("a bad flow: %d", code)
	}
}

// FuzzReadAssignments: whatever the body, reading it either fails or
// gives assignments that, written back as a JSON object, read the same.
func FuzzReadAssignments(f *testing.F) {
	f.Add(`{"up.loss": "5%", "down.latency": "80ms"}`)
	f.Add(`{"a": 1.5}`)
	f.Add(`{"x": "y", "x": "z"}`)
	f.Fuzz(func(t *testing.T, body string) {
		as, err := readAssignments(strings.NewReader(body))
		if err != nil {
			return
		}
		var b bytes.Buffer
		b.WriteByte('{')
		for i, a := range as {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(a.Key)
			v, _ := json.Marshal(a.Value)
			b.Write(k)
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
		again, err := readAssignments(&b)
		if err != nil || len(again) != len(as) {
			t.Fatalf("%q → %+v → %q: %v", body, as, b.String(), err)
		}
		for i := range as {
			if again[i] != as[i] {
				t.Fatalf("%+v became %+v", as[i], again[i])
			}
		}
	})
}

// /metrics is valid Prometheus text: Debian's promtool accepts it.
func TestMetricsPassPromtool(t *testing.T) {
	st := proxy.Stats{Flows: 1, FlowsSeen: 2, Up: proxy.Counters{Received: 10, Sent: 10, Lost: 1, Released: 9, Delivered: 9}}
	au := proxy.Audit{Wall: time.Second, Flows: []proxy.FlowAudit{{ID: 1, Addr: "[::1]:5001"}}}
	au.Dirs[proxy.Up].DelayP50 = 20 * time.Millisecond
	var b bytes.Buffer
	if err := WriteMetrics(&b, st, au); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `jitterlab_proxy_copies_total{direction="up",fate="lost"} 1`) ||
		!strings.Contains(b.String(), `jitterlab_proxy_added_delay_p50_seconds{direction="up"} 0.02`) ||
		!strings.Contains(b.String(), `jitterlab_proxy_flow_written_total{flow="[::1]:5001",direction="down"} 0`) {
		t.Fatalf("missing samples:\n%s", b.String())
	}
	promtool(t, b.Bytes())
}

// promtool runs `promtool check metrics` on a page.
func promtool(t *testing.T, page []byte) {
	t.Helper()
	cmd := exec.Command(testtool.Need(t, "promtool", "prometheus"), "check", "metrics")
	cmd.Stdin = bytes.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s\npage:\n%s", err, out, page)
	}
}

// A boolean key takes a JSON boolean as --set takes true/false (a test
// script's natural {"up.keep_order": true}); a value that is no scalar is
// refused naming the key.
func TestPutParamsTakesJSONBooleans(t *testing.T) {
	as, err := readAssignments(strings.NewReader(`{"up.keep_order": true, "down.keep_order": false}`))
	if err != nil || len(as) != 2 || as[0] != (Assignment{Key: "up.keep_order", Value: "true"}) || as[1] != (Assignment{Key: "down.keep_order", Value: "false"}) {
		t.Fatalf("booleans read as %+v, %v", as, err)
	}
	for _, body := range []string{`{"up.loss": null}`, `{"up.loss": [1]}`, `{"up.loss": {"a": 1}}`} {
		if _, err := readAssignments(strings.NewReader(body)); err == nil || !strings.Contains(err.Error(), "up.loss") {
			t.Errorf("%s: %v; want an error naming up.loss", body, err)
		}
	}
}
