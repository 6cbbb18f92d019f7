package control

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"jitterlab/netem"
	"jitterlab/proxy"
)

// A caller's link key (Extra) is taken, printed and refused as netem's
// are: set through PUT /params all or none, read back by GET /params, and
// its value in /counters' configured links.
func TestRegistryExtraKeys(t *testing.T) {
	refused := errors.New("up.color: allowed red")
	reg := testRegistry
	reg.Extra = []netem.PairKey{{Name: "up.color",
		Get: func(p *netem.Pair) string {
			if p.Up.KeepOrder {
				return "red"
			}
			return "none"
		},
		Set: func(p *netem.Pair, v string) error {
			if v != "red" {
				return refused
			}
			p.Up.KeepOrder = true
			return nil
		}}}
	r := &fakeRelay{flows: map[netip.AddrPort][2]netem.Params{}}
	c := New(reg, netem.Pair{}, r, nil)
	if err := c.Set(netip.AddrPort{}, []Assignment{{"up.latency", "5ms"}, {"up.color", "blue"}}); err != refused {
		t.Fatalf("up.color=blue: %v; want the key's own error", err)
	}
	if r.up.Latency != 0 {
		t.Fatal("a refused change applied in part")
	}
	if err := c.Set(netip.AddrPort{}, []Assignment{{"up.color", "red"}}); err != nil || !r.up.KeepOrder {
		t.Fatalf("up.color=red: %v, relay's up %+v", err, r.up)
	}
	if got := reg.Get(&netem.Pair{}, "up.color"); got != "none" {
		t.Errorf("up.color of no settings reads %q", got)
	}
	srv := httptest.NewServer(Handler(c, fakeSource{au: proxy.Audit{Dirs: [2]proxy.DirAudit{{Configured: r.up}}}}))
	defer srv.Close()
	var params ParamsReply
	getJSON(t, srv.URL+"/params", &params)
	if params.Params["up.color"] != "red" || params.Params["up.latency"] != "0" || params.Params["down.latency"] != "0" || len(params.Params) != 2*len(netem.Keys())+1 {
		t.Errorf("GET /params: %v", params.Params)
	}
	var counters CountersReply
	getJSON(t, srv.URL+"/counters", &counters)
	if got := counters.Up.Configured["color"]; got != "red" {
		t.Errorf("/counters up configured color %q; want red", got)
	}
	if _, ok := counters.Up.Configured["latency"]; !ok || len(counters.Up.Configured) != len(netem.Keys())+1 {
		t.Errorf("/counters up configured %v: want each of netem's keys and color", counters.Up.Configured)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
