package proxy

import (
	"strings"
	"testing"
)

// The warning is given only when the kernel granted less than asked, and
// says how much it granted, what was asked, the cap and how to raise it.
// By hand for 4 MiB asked under the usual cap of 212,992 bytes (208 KiB):
// the kernel keeps twice that, 425,984 bytes, about 830 a small datagram:
// 513 of them, 51 ms at 10 a millisecond.
func TestReceiveBufferWarning(t *testing.T) {
	for _, c := range []struct {
		name       string
		got, asked int
		want       []string // none: no warning
	}{
		{"granted in full", 4 << 20, 4 << 20, nil},
		{"granted more (rmem_default above the ask)", 8 << 20, 4 << 20, nil},
		{"not known", 0, 4 << 20, nil},
		{"capped at the usual rmem_max", 212992, 4 << 20, []string{
			"a receive buffer of 208 KiB, not the 4 MiB asked for: net.core.rmem_max caps it",
			"about 51 ms at 10,000 small datagrams a second",
			"sudo sysctl -w net.core.rmem_max=4194304"}},
		{"one byte short", 4<<20 - 1, 4 << 20, []string{"4 MiB asked for", "sysctl -w net.core.rmem_max=4194304"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := receiveBufferWarning(c.got, c.asked)
			if len(c.want) == 0 && w != "" {
				t.Fatalf("warning %q, want none", w)
			}
			if len(c.want) > 0 && w == "" {
				t.Fatal("no warning")
			}
			for _, s := range c.want {
				if !strings.Contains(w, s) {
					t.Errorf("warning %q\nlacks %q", w, s)
				}
			}
		})
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int]string{425984: "416 KiB", 212992: "208 KiB", 100000: "97.66 KiB", 4 << 20: "4 MiB", 8 << 20: "8 MiB", 6<<20 + 1<<19: "6.5 MiB"} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
