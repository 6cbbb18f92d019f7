package lab

import (
	"strings"
	"testing"
)

// WriteParamHelp lists each key keep takes once, up.X as up|down.X with
// its default, and never link.* or down.*.
func TestWriteParamHelp(t *testing.T) {
	var b strings.Builder
	WriteParamHelp(&b, func(key string) bool {
		return strings.HasPrefix(key, "up.") || key == "server.tick" || strings.HasPrefix(key, "link.")
	})
	text := b.String()
	var keys []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], ".") {
				keys = append(keys, f[0])
			}
		}
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "up|down.") && k != "server.tick" {
			t.Errorf("listed %s, which keep does not take or another key stands for", k)
		}
	}
	if !strings.Contains(text, "  up|down.latency ") || !strings.Contains(text, "server.tick") || strings.Count(text, "up|down.latency ") != 1 {
		t.Errorf("want up|down.latency once and server.tick:\n%s", text)
	}
	if !strings.Contains(text, "\nvalues: durations with a unit") {
		t.Errorf("no values paragraph:\n%s", text)
	}
}
