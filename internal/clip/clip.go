package clip

import "fmt"

// String is s cut to at most n bytes, at a rune boundary, followed by
// "… (N bytes more)" when anything was cut.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && s[cut]&0xC0 == 0x80 { // inside a rune: back to its start
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes more)", s[:cut], len(s)-cut)
}
