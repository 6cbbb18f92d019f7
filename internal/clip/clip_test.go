package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc… (1 bytes more)"},
		{"aé", 2, "a… (2 bytes more)"}, // é is 2 bytes: not cut in half
		{"abc", 0, "… (3 bytes more)"},
	} {
		if got := String(c.s, c.n); got != c.want {
			t.Errorf("String(%q, %d) = %q; want %q", c.s, c.n, got, c.want)
		}
	}
}

// Whatever the input, the result keeps at most n bytes of it, valid
// UTF-8 stays valid, and nothing is cut from what fits.
func FuzzString(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 1000
		got := String(s, n)
		if len(s) <= n {
			if got != s {
				t.Fatalf("%q fits in %d bytes; got %q", s, n, got)
			}
			return
		}
		kept, _, ok := strings.Cut(got, "… (")
		if !ok || !strings.HasPrefix(s, kept) || len(kept) > max(n, 0) {
			t.Fatalf("String(%q, %d) = %q", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("String(%q, %d) = %q: not UTF-8", s, n, got)
		}
	})
}
