package control

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/netem"
	"jitterlab/proxy"
)

// fakeSource serves fixed counters.
type fakeSource struct {
	st proxy.Stats
	au proxy.Audit
}

func (f fakeSource) Stats() proxy.Stats { return f.st }
func (f fakeSource) Audit() proxy.Audit { return f.au }

// getCounters is GET /counters of src, decoded generically.
func getCounters(t *testing.T, src Source) map[string]any {
	t.Helper()
	c, _ := newConditions(t)
	srv := httptest.NewServer(Handler(c, src))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/counters")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkNames fails on any object key that is not snake_case, at any depth.
func checkNames(t *testing.T, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if !snakeCase.MatchString(k) {
				t.Errorf("%s.%s: want snake_case names", path, k)
			}
			checkNames(t, path+"."+k, x)
		}
	case []any:
		for _, x := range v {
			checkNames(t, path+"[]", x)
		}
	}
}

// GET /counters has one shape: snake_case names, times in ms under _ms
// names, the configured link as key → string everywhere (per client too),
// and "flows": [] with no clients, never null.
func TestCountersOneShape(t *testing.T) {
	empty := getCounters(t, fakeSource{})
	if f, ok := empty["flows"].([]any); !ok || len(f) != 0 {
		t.Errorf(`no clients: "flows" is %#v; want []`, empty["flows"])
	}
	checkNames(t, "counters", empty)

	link := netem.Params{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}
	au := proxy.Audit{Wall: time.Second, Flows: []proxy.FlowAudit{{ID: 1, Addr: "127.0.0.1:5001"}}}
	au.Dirs[proxy.Up].Configured = link
	au.Flows[0].Dirs[proxy.Up] = proxy.FlowDirAudit{Configured: link, Received: 10, Written: 9, Lost: 1, DelayMean: 12500 * time.Microsecond, Jitter: 1500 * time.Microsecond, Bytes: 900}
	out := getCounters(t, fakeSource{st: proxy.Stats{Flows: 1}, au: au})
	checkNames(t, "counters", out)
	flows, _ := out["flows"].([]any)
	if len(flows) != 1 {
		t.Fatalf(`"flows": %#v; want one client`, out["flows"])
	}
	f, _ := flows[0].(map[string]any)
	up, _ := f["up"].(map[string]any)
	top, _ := out["up"].(map[string]any)
	if f["flow"] != "127.0.0.1:5001" || up["delay_mean_ms"] != 12.5 || up["jitter_ms"] != 1.5 || up["received"] != 10.0 || up["written"] != 9.0 {
		t.Errorf("the client's up direction: %v (flow %v); want delay_mean_ms 12.5, jitter_ms 1.5, received 10, written 9", up, f["flow"])
	}
	for name, dir := range map[string]map[string]any{"up": top, "flows[0].up": up} {
		cfg, ok := dir["configured"].(map[string]any)
		if !ok || cfg["latency"] != "20ms" || cfg["jitter"] != "5ms" || cfg["loss"] != "5%" {
			t.Errorf("%s.configured: %#v; want key → string, latency 20ms, jitter 5ms, loss 5%%", name, dir["configured"])
		}
		for k, v := range cfg {
			if _, ok := v.(string); !ok {
				t.Errorf("%s.configured.%s: %#v; want a string", name, k, v)
			}
		}
	}
}

// The datagrams of new clients refused at a table of active conversations
// (proxy.ErrFull) are in GET /counters and /metrics, as the evictions are.
func TestCountersNameTheRefused(t *testing.T) {
	st := proxy.Stats{Evicted: 2, Refused: 7}
	out := getCounters(t, fakeSource{st: st})
	if out["refused"] != 7.0 || out["evicted"] != 2.0 {
		t.Errorf("GET /counters: refused %v, evicted %v; want 7 and 2", out["refused"], out["evicted"])
	}
	var b strings.Builder
	if err := WriteMetrics(&b, st, proxy.Audit{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\njitterlab_proxy_refused_total 7\n") {
		t.Errorf("/metrics has no jitterlab_proxy_refused_total 7:\n%s", b.String())
	}
}
