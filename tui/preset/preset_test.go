package preset

import (
	"strings"
	"testing"

	"jitterlab/lab"
)

// Changes of lan from a link with 80 ms up and 5% loss down: the link
// becomes lan's on the perfect link, and only the keys whose value
// changes come back, per direction (never link.*), in registry order.
func TestChangesAreTheWholeLinksDifference(t *testing.T) {
	cur := lab.DefaultConfig()
	for _, kv := range [][2]string{{"up.latency", "80ms"}, {"down.loss", "5%"}, {"client.fps", "30"}} {
		if err := lab.Set(&cur, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	changes, desc, err := Changes(cur, "lan")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c[0]+"="+c[1])
	}
	// lan.toml: link.latency 500us, link.jitter 200us, link.loss 0%.
	want := "up.latency=500µs up.jitter=200µs down.latency=500µs down.jitter=200µs down.loss=0%"
	if strings.Join(got, " ") != want || !strings.HasPrefix(desc, "Wired LAN") {
		t.Errorf("lan from 80ms up, 5%% loss down:\n%s\nwant\n%s (description %q)", strings.Join(got, " "), want, desc)
	}
	if _, _, err := Changes(cur, "no-such-preset"); err == nil || !strings.Contains(err.Error(), "no-such-preset") {
		t.Errorf("an unknown preset: %v", err)
	}
	for _, name := range Keys {
		if _, _, err := Changes(lab.DefaultConfig(), name); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}
