package lab

import (
	"fmt"
	"io"
	"strings"
)

// WriteParamHelp lists the registry's keys that keep takes with their
// defaults and help (up.* standing for up|down.*; link.* and down.* are
// not repeated), then how values are written: the parameters part of a
// command's -h.
func WriteParamHelp(w io.Writer, keep func(key string) bool) {
	fmt.Fprintln(w, "\nparameters (--set key=value; link.* sets up.* and down.*):")
	def := DefaultConfig()
	for _, p := range Params() {
		if strings.HasPrefix(p.Key, "down.") || strings.HasPrefix(p.Key, "link.") || !keep(p.Key) {
			continue
		}
		key := p.Key
		if strings.HasPrefix(key, "up.") {
			key = "up|down." + strings.TrimPrefix(key, "up.")
		}
		fmt.Fprintf(w, "  %-24s %-10s %s\n", key, p.Get(&def), p.Help)
	}
	fmt.Fprint(w, `
values: durations with a unit (80ms, 1.5s, 1m30s: each unit once, largest first);
  fractions 2% or 0.02; rates in tc(8)'s units: bit (or a bare number), kbit, mbit,
  gbit = bits per second; bps, kbps, mbps, gbps = BYTES per second (1mbps = 8mbit);
  kibit, mibps, ... = powers of 1024.
`)
}
