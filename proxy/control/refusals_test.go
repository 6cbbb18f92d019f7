package control

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/proxy"
)

// PUT /params reads one JSON object and nothing after it: a second
// object, a stray word or a half-pasted body is refused, all or none,
// and no assignment of the first object applies.
func TestPutParamsRefusesTrailingData(t *testing.T) {
	c, r := newConditions(t)
	srv := httptest.NewServer(Handler(c, nil))
	defer srv.Close()
	for _, body := range []string{
		`{"up.loss": "1%"} trailing`,
		`{"up.loss": "1%"} {"up.loss": "50%"}`,
		`{"up.loss": "1%"}}`,
		`{"up.loss": "1%"} 5`,
	} {
		code, e := apiCall(t, srv, http.MethodPut, "/params", body)
		if code != 400 || !strings.Contains(e, "after the JSON object") {
			t.Errorf("PUT /params %q: %d %q; want 400 saying what follows the object is refused", body, code, e)
		}
		if r.up.Loss != 0 {
			t.Fatalf("PUT /params %q applied up.loss %v", body, r.up.Loss)
		}
	}
	for _, body := range []string{`{"up.loss": "1%"}`, "{\"up.loss\": \"1%\"}\n", " {\"up.loss\": \"1%\"} \r\n\t"} {
		if code, e := apiCall(t, srv, http.MethodPut, "/params", body); code != 200 {
			t.Errorf("PUT /params %q: %d %q; want 200 (white space after the object is fine)", body, code, e)
		}
	}
}

// Every endpoint names the query parameters it takes and refuses others:
// a misspelt ?flow= (?flw=, ?Flow=) must not change everybody's settings
// in place of one client's, a ?flow= on /counters must not be silently
// ignored, and a flow given twice is ambiguous. A refused change is in
// the proxy's log like any other.
func TestUnknownQueryParameterIsRefused(t *testing.T) {
	c, r := newConditions(t)
	defer c.Stop()
	var logged []string
	srv := httptest.NewServer(NewHandler(c, fakeSource{}, Options{Log: func(what string, err error) { logged = append(logged, what+" — "+err.Error()) }}))
	defer srv.Close()
	for _, tc := range []struct{ method, path, body, want string }{
		{http.MethodPut, "/params?flw=127.0.0.1:5001", `{"up.loss": "5%"}`, `?flw=: not a parameter of PUT /params; allowed ?flow=ADDR`},
		{http.MethodPut, "/params?Flow=127.0.0.1:5001", `{"up.loss": "5%"}`, `?Flow=: not a parameter of PUT /params; allowed ?flow=ADDR`},
		{http.MethodPut, "/params?flow=127.0.0.1:5001&flow=127.0.0.1:5002", `{"up.loss": "5%"}`, `?flow= given 2 times`},
		{http.MethodGet, "/params?foo=1", "", `?foo=: not a parameter of GET /params; allowed ?flow=ADDR`},
		{http.MethodDelete, "/params?flow=127.0.0.1:5001&x=1", "", `?x=: not a parameter of DELETE /params; allowed ?flow=ADDR`},
		{http.MethodPost, "/timeline?flw=127.0.0.1:5001", "[[timeline]]\nat = \"1s\"\nup.loss = \"5%\"\n", `?flw=: not a parameter of POST /timeline; allowed ?flow=ADDR`},
		{http.MethodGet, "/counters?flow=127.0.0.1:5001", "", `?flow=: not a parameter of GET /counters; it takes none (every client is in "flows")`},
		{http.MethodGet, "/metrics?x=1", "", `?x=: not a parameter of GET /metrics; it takes none`},
	} {
		code, e := apiCall(t, srv, tc.method, tc.path, tc.body)
		if code != 400 || !strings.Contains(e, tc.want) {
			t.Errorf("%s %s: %d %q; want 400 saying %q", tc.method, tc.path, code, e, tc.want)
		}
		// A refused change is logged as the others are, with its reason.
		if tc.method != http.MethodGet && (len(logged) == 0 || !strings.Contains(logged[len(logged)-1], tc.want)) {
			t.Errorf("%s %s: the log's last line %q; want the refusal", tc.method, tc.path, logged)
		}
	}
	if r.up.Loss != 0 || len(r.flows) != 0 || c.Pending() != 0 {
		t.Errorf("a refused request changed something: defaults' up loss %v, clients %v, %d pending", r.up.Loss, r.flows, c.Pending())
	}
	for _, path := range []string{"/params", "/params?flow=127.0.0.1:5001", "/counters", "/metrics"} {
		if code, e := apiCall(t, srv, http.MethodGet, path, ""); code != 200 {
			t.Errorf("GET %s: %d %q; want 200", path, code, e)
		}
	}
}

// A client's address is where its datagrams come from: the unspecified
// address (0.0.0.0, ::), a multicast group or the broadcast address is
// never a datagram's source, so a --flow or ?flow= naming one would
// silently never apply; it is refused, naming the address.
func TestFlowRefusesAnAddressNoClientSendsFrom(t *testing.T) {
	for _, s := range []string{"0.0.0.0:5001", "[::]:5001", "224.0.0.1:5001", "[ff02::1]:5001", "255.255.255.255:5001", "[::ffff:0.0.0.0]:5001"} {
		_, err := ParseFlow(s)
		if err == nil || !strings.Contains(err.Error(), "no datagram comes from") {
			t.Errorf("ParseFlow(%q): %v; want an error saying no datagram comes from it", s, err)
		}
	}
	for _, s := range []string{"127.0.0.1:5001", "[::1]:5001", "192.168.1.20:40000", "[fe80::1%eth0]:5001", "[::ffff:127.0.0.1]:5001"} {
		if _, err := ParseFlow(s); err != nil {
			t.Errorf("ParseFlow(%q): %v", s, err)
		}
	}
}

// A test script that scheduled changes with POST /timeline can take them
// back before they apply (the next test case must not inherit them):
// DELETE /timeline cancels every change POST /timeline scheduled, and
// DELETE /timeline?flow=ADDR that client's; a scenario's own timeline is
// the run's and stays. The reply says how many were cancelled and how
// many are pending; the request is logged.
func TestDeleteTimelineCancelsWhatPostScheduled(t *testing.T) {
	c, r := newConditions(t)
	defer c.Stop()
	var logged []string
	srv := httptest.NewServer(NewHandler(c, fakeSource{}, Options{Log: func(what string, err error) { logged = append(logged, what) }}))
	defer srv.Close()
	if err := c.Schedule([]Timed{{After: time.Hour, Set: []Assignment{{"up.loss", "9%"}}}}); err != nil { // the scenario's
		t.Fatal(err)
	}
	later := "[[timeline]]\nat = \"1h\"\nup.loss = \"5%\"\n[[timeline]]\nat = \"2h\"\ndown.loss = \"5%\"\n"
	for _, path := range []string{"/timeline", "/timeline?flow=127.0.0.1:5001", "/timeline?flow=127.0.0.1:5002"} {
		if code, e := apiCall(t, srv, http.MethodPost, path, later); code != 200 {
			t.Fatalf("POST %s: %d %q", path, code, e)
		}
	}
	if c.Pending() != 7 {
		t.Fatalf("%d pending; want 7", c.Pending())
	}
	reply := func(path string) (code int, v struct{ Cancelled, Pending int }, e string) {
		req, _ := http.NewRequest(http.MethodDelete, srv.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		json.Unmarshal(b, &v)
		return resp.StatusCode, v, string(b)
	}
	if code, v, body := reply("/timeline?flow=127.0.0.1:5001"); code != 200 || v.Cancelled != 2 || v.Pending != 5 {
		t.Errorf("DELETE /timeline?flow=127.0.0.1:5001: %d %s; want 2 cancelled, 5 pending", code, body)
	}
	if code, v, body := reply("/timeline"); code != 200 || v.Cancelled != 4 || v.Pending != 1 {
		t.Errorf("DELETE /timeline: %d %s; want 4 cancelled (everybody's and 127.0.0.1:5002's), the scenario's 1 pending", code, body)
	}
	if code, v, body := reply("/timeline"); code != 200 || v.Cancelled != 0 || v.Pending != 1 {
		t.Errorf("DELETE /timeline again: %d %s; want 0 cancelled, 1 pending", code, body)
	}
	if code, _, body := reply("/timeline?flow=bogus"); code != 400 {
		t.Errorf("DELETE /timeline?flow=bogus: %d %s; want 400", code, body)
	}
	if want := "DELETE /timeline?flow=127.0.0.1:5001: 2 changes cancelled, 5 pending"; !slices.Contains(logged, want) {
		t.Errorf("log %q; want %q", logged, want)
	}
	if r.up.Loss != 0 || len(r.flows) != 0 {
		t.Errorf("cancelling changed the links: up loss %v, clients %v", r.up.Loss, r.flows)
	}
}

// Settings of one's own are kept per client address, and the API takes
// any address: a script (or any local program: the API has no
// authentication) putting settings on a million addresses must not grow
// the proxy's memory without bound. Past MaxOwnSettings clients with
// settings of their own, a new one is refused naming the bound; the
// clients already there can still change theirs.
func TestOwnSettingsAreBounded(t *testing.T) {
	c, _ := newConditions(t)
	for i := range MaxOwnSettings {
		a := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 5000)
		if err := c.Set(a, []Assignment{{"up.loss", "1%"}}); err != nil {
			t.Fatalf("client %d of %d: %v", i+1, MaxOwnSettings, err)
		}
	}
	err := c.Set(netip.MustParseAddrPort("192.0.2.1:5000"), []Assignment{{"up.loss", "1%"}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("at most %d", MaxOwnSettings)) || !strings.Contains(err.Error(), "192.0.2.1:5000") {
		t.Errorf("client %d: %v; want a refusal naming it and the bound", MaxOwnSettings+1, err)
	}
	if len(c.Flows()) != MaxOwnSettings {
		t.Errorf("%d clients with settings of their own; want %d", len(c.Flows()), MaxOwnSettings)
	}
	first := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, 0}), 5000)
	if err := c.Set(first, []Assignment{{"up.loss", "2%"}}); err != nil {
		t.Errorf("a client already with settings of its own: %v", err)
	}
	c.Clear(first)
	if err := c.Set(netip.MustParseAddrPort("192.0.2.1:5000"), []Assignment{{"up.loss", "1%"}}); err != nil {
		t.Errorf("after one is cleared: %v", err)
	}
}

// A client's own settings keep one assignment per key, the latest, in
// the order they were last given: a script changing a client's loss
// every frame for an hour must not grow them (and GET /params's "own"
// list) without bound, and what the client gets is the same as applying
// every assignment in order.
func TestOwnSettingsKeepOneAssignmentPerKey(t *testing.T) {
	c, r := newConditions(t)
	for i := range 10000 {
		if err := c.Set(client, []Assignment{{"up.loss", fmt.Sprintf("%d%%", i%50)}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, as := range [][]Assignment{{{"link.latency", "50ms"}}, {{"up.latency", "70ms"}}, {{"link.latency", "60ms"}}, {{"down.jitter", "5ms"}}} {
		if err := c.Set(client, as); err != nil {
			t.Fatal(err)
		}
	}
	_, own := c.Config(client)
	want := []Assignment{{"up.loss", "49%"}, {"up.latency", "70ms"}, {"link.latency", "60ms"}, {"down.jitter", "5ms"}}
	if !slices.Equal(own, want) {
		t.Errorf("own settings: %d assignments, the last %v; want %v", len(own), own[max(len(own)-5, 0):], want)
	}
	got := r.flows[client]
	if got[proxy.Up].Loss != 0.49 || got[proxy.Up].Latency != 60*time.Millisecond || got[proxy.Down].Latency != 60*time.Millisecond || got[proxy.Down].Jitter != 5*time.Millisecond {
		t.Errorf("the client's links %+v; want up loss 49%%, 60ms both ways (link.latency last), down jitter 5ms", got)
	}
}

// A request body over MaxBody is refused saying so and naming the bound,
// not as a malformed JSON object (PUT) or in net/http's words (POST).
func TestOversizedBodyIsRefusedAsSuch(t *testing.T) {
	c, _ := newConditions(t)
	defer c.Stop()
	srv := httptest.NewServer(Handler(c, nil))
	defer srv.Close()
	want := fmt.Sprintf("the body is over %d bytes (1 MiB), the most the API reads", MaxBody)
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodPut, "/params", `{"up.loss": "` + strings.Repeat("x", 2*MaxBody) + `"}`},
		{http.MethodPut, "/params", `{` + strings.Repeat(`"up.loss": "1%", `, MaxBody/16) + `"up.loss": "1%"}`},
		{http.MethodPost, "/timeline", "[[timeline]]\nat = \"1s\"\nup.loss = \"1%\"\n" + strings.Repeat("# padding\n", MaxBody/10+1)},
	} {
		code, e := apiCall(t, srv, tc.method, tc.path, tc.body)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(e, want) || !strings.HasPrefix(e, tc.method+" "+tc.path+": ") {
			t.Errorf("%s %s of %d bytes: %d %q; want 413 saying %q", tc.method, tc.path, len(tc.body), code, e, want)
		}
	}
}
