package plural

import "testing"

func TestOf(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{{Of(0, "frame"), "0 frames"}, {Of(1, "scenario"), "1 scenario"}, {Of(uint64(3), "tick"), "3 ticks"}} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
