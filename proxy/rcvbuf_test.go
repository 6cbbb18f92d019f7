package proxy

import (
	"strings"
	"testing"
)

// The warning is given only when the kernel gave less than asked, and
// says how much it gave, what was asked, the cap and how to raise it.
// By hand for 4 MiB asked under the usual cap of 212,992 bytes: the
// kernel grants 212,992 and reports 425,984 (416 KiB); 425,984 bytes of
// about 830 a small datagram are 513 of them, 51 ms at 10 a millisecond.
func TestReceiveBufferWarning(t *testing.T) {
	for _, c := range []struct {
		name       string
		got, asked int
		want       []string // "" none
	}{
		{"granted in full", 8 << 20, 4 << 20, nil},
		{"granted more (rmem_default above the ask)", 16 << 20, 4 << 20, nil},
		{"not known", 0, 4 << 20, nil},
		{"capped at the usual rmem_max", 425984, 4 << 20, []string{
			"a receive buffer of 416 KiB, not the 8 MiB asked for (SO_RCVBUF 4 MiB, which the kernel doubles)",
			"net.core.rmem_max caps what it grants",
			"about 51 ms at 10,000 small datagrams a second",
			"sudo sysctl -w net.core.rmem_max=4194304"}},
		{"one byte short", 8<<20 - 1, 4 << 20, []string{"8 MiB asked for", "sysctl -w net.core.rmem_max=4194304"}},
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
