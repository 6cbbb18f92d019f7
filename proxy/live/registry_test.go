package live

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"jitterlab/lab"
	"jitterlab/netem"
	proxyctl "jitterlab/proxy/control"
)

// The proxy's registry is the lab's, for every link key: the same keys,
// the same values printed, the same settings and the same errors word for
// word (--set's), whatever the key and value; any other key is the lab's
// unknown key, with its suggestions, or not a link setting.
func TestRegistryIsTheLabs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "game.csv")
	if err := os.WriteFile(file, []byte("dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,\nup,3,100000000,130000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var labKeys, keys []string
	for _, p := range lab.Params() {
		if proxyctl.IsLinkKey(p.Key) {
			labKeys = append(labKeys, p.Key)
		}
	}
	for _, k := range registry.Keys() {
		keys = append(keys, k.Name)
	}
	slices.Sort(labKeys)
	slices.Sort(keys)
	if !slices.Equal(keys, labKeys) {
		t.Fatalf("the proxy's link keys:\n%v\nthe lab's:\n%v", keys, labKeys)
	}
	// A starting point where the directions differ and a trace plays.
	base := lab.DefaultConfig()
	for _, kv := range [][2]string{{"up.latency", "20ms"}, {"down.latency", "30ms"}, {"down.trace", file}, {"up.loss_model", "gemodel 1% 10%"}} {
		if err := lab.Set(&base, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	values := []string{"", "0", "1", "-1", "5%", "200%", "20ms", "-5ms", "2h", "1.5mbit", "true", "no", "pareto", "gemodel 1% 10%", "none", file, file + ".missing", "1e99", "NaN"}
	for _, key := range keys {
		for _, v := range values {
			want := base
			wantErr := lab.Set(&want, key, v)
			links := netem.Pair{Up: base.Up, Down: base.Down}
			err := registry.Set(&links, key, v)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Errorf("%s=%q: %v; the lab says %v", key, v, err, wantErr)
			}
			got := base
			got.Up, got.Down = links.Up, links.Down
			if !got.Equal(&want) {
				t.Errorf("%s=%q: the links differ from the lab's", key, v)
			}
			for _, k := range registry.Keys() {
				if q, _ := lab.Lookup(k.Name); k.Get(&links) != q.Get(&want) {
					t.Errorf("after %s=%q: %s reads %q, the lab %q", key, v, k.Name, k.Get(&links), q.Get(&want))
				}
			}
			if err, want := registry.Check(key, v), lab.CheckAssignment(key, v); (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
				t.Errorf("check %s=%q: %v; the lab says %v", key, v, err, want)
			}
		}
	}
	for _, key := range []string{"up.los", "link.latncy", "clinet.fps", "nothing"} {
		cfg := base
		links := netem.Pair{Up: base.Up, Down: base.Down}
		if err, want := registry.Set(&links, key, "1"), lab.Set(&cfg, key, "1"); err == nil || err.Error() != want.Error() {
			t.Errorf("unknown key %s: %v; the lab says %v", key, err, want)
		}
	}
	const want = "client.fps is not a link setting: the proxy takes up.*, down.* and link.* keys"
	if err := registry.CheckLinkKey("client.fps"); err == nil || err.Error() != want {
		t.Errorf("client.fps: %v; want %q", err, want)
	}
}
