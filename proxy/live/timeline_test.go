package live

import "testing"

// FuzzParseFlow: a --flow value that parses, written back as the address
// and its assignments, parses to the same client and settings.
func FuzzParseFlow(f *testing.F) {
	f.Add("127.0.0.1:5001 up.loss=5%")
	f.Add("[::1]:7 link.latency=80ms,down.jitter=5ms")
	f.Add("127.0.0.1:0 up.loss=1%")
	f.Fuzz(func(t *testing.T, v string) {
		a, err := ParseFlow(v)
		if err != nil {
			return
		}
		again := a.Addr.String()
		for _, s := range a.Set {
			again += " " + s.Key + "=" + s.Value
		}
		b, err := ParseFlow(again)
		if err != nil || b.Addr != a.Addr || len(b.Set) != len(a.Set) {
			t.Fatalf("%q → %q: %+v, %v", v, again, b, err)
		}
		for i := range a.Set {
			if a.Set[i] != b.Set[i] {
				t.Fatalf("%q → %q: %+v became %+v", v, again, a.Set[i], b.Set[i])
			}
		}
	})
}
