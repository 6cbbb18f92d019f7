package main

import (
	"flag"
)

// telemetryFlag registers lab proxy's --telemetry.
func telemetryFlag(fs *flag.FlagSet) *string {
	return fs.String("telemetry", "", "receive the game's telemetry (docs/reference/telemetry.md) on this `host:port`, e.g. 127.0.0.1:7790; the screen charts the game's tick offset, send interval and visible error, and the summary counts the frames and server ticks decoded and the datagrams refused, by class")
}
