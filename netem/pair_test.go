package netem

import (
	"testing"
	"time"
)

func TestPairKeys(t *testing.T) {
	if got, want := len(PairKeys()), 3*len(Keys()); got != want {
		t.Fatalf("%d pair keys, want %d (up, down and link of each of Keys)", got, want)
	}
	for _, tc := range []struct {
		key, value string
		up, down   time.Duration
		get        string // link.latency after the set
	}{
		{"up.latency", "20ms", 20 * time.Millisecond, 0, "20ms/0"},
		{"down.latency", "30ms", 0, 30 * time.Millisecond, "0/30ms"},
		{"link.latency", "40ms", 40 * time.Millisecond, 40 * time.Millisecond, "40ms"},
	} {
		var p Pair
		k, ok := LookupPairKey(tc.key)
		if !ok {
			t.Fatalf("%s: not found", tc.key)
		}
		if err := p.Set(k, tc.value); err != nil {
			t.Fatalf("%s=%s: %v", tc.key, tc.value, err)
		}
		if p.Up.Latency != tc.up || p.Down.Latency != tc.down {
			t.Errorf("%s=%s: up %v down %v, want %v %v", tc.key, tc.value, p.Up.Latency, p.Down.Latency, tc.up, tc.down)
		}
		link, _ := LookupPairKey("link.latency")
		if got := link.Get(&p); got != tc.get {
			t.Errorf("%s=%s: link.latency reads %q, want %q", tc.key, tc.value, got, tc.get)
		}
	}
}

func TestPairSetIsAllOrNothing(t *testing.T) {
	var p Pair
	p.Up.Latency = 5 * time.Millisecond
	before := p
	k, _ := LookupPairKey("link.latency")
	if err := p.Set(k, "-5ms"); err == nil {
		t.Fatal("link.latency=-5ms taken")
	}
	if p != before {
		t.Errorf("a refused value changed the pair: %+v, want %+v", p, before)
	}
	// A value its key takes in a pair that Validate refuses: the error is
	// Validate's and nothing changes.
	p.Down.Jitter = MaxJitter + 1
	if err := p.Set(k, "1ms"); err == nil || err.Error() != (&Pair{Down: p.Down}).Validate().Error() {
		t.Errorf("a pair with a bad down.jitter took link.latency: %v", err)
	}
	if p.Up.Latency != 5*time.Millisecond {
		t.Errorf("the refused set changed up.latency to %v", p.Up.Latency)
	}
}

func TestIsPairKey(t *testing.T) {
	for key, want := range map[string]bool{"up.latency": true, "down.nothing": true, "link.x": true, "up": false, "client.fps": false, "upx.latency": false} {
		if got := IsPairKey(key); got != want {
			t.Errorf("IsPairKey(%q) = %v, want %v", key, got, want)
		}
	}
}
