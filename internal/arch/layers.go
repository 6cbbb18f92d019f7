package arch

// A Layer is a floor of the project: its packages may import packages of
// their own layer and of the layers below, never above.
type Layer struct {
	Name, What string
	Packages   []string // import paths without the module's "jitterlab/"
}

// Layers lists the floors from the ground up.
var Layers = []Layer{
	{"foundations", "values, statistics and helpers with no model in them",
		[]string{"detmath", "param", "stats", "capture", "internal/axis", "internal/clip", "internal/files", "internal/plural",
			"internal/progress", "internal/buildinfo", "internal/israce", "internal/golden", "internal/testmem", "internal/testtool", "internal/arch"}},
	{"virtual time", "time and chance: the event queue, drifting clocks, seeded streams",
		[]string{"sim"}},
	{"the model", "the game and the network as pure steps over virtual time",
		[]string{"motion", "proto", "netem", "server", "client", "observer", "metrics"}},
	{"inputs and files", "what comes from outside: scenarios, recordings, captures, a real game's telemetry",
		[]string{"scenarios", "recordings", "trace", "fit", "telemetry"}},
	{"the session", "a client, a server and two links in one order of events; the parameter registry; the report card",
		[]string{"lab"}},
	{"comparisons", "many sessions over seeds: A/B, sweeps, diagnose, gates, reports",
		[]string{"batch", "diagnose", "check", "report"}},
	{"the real network", "the link model and the reference game on real UDP, in wall time; a real game beside the model",
		[]string{"proxy", "proxy/control", "proxy/record", "proxy/live", "game", "compare"}},
	{"screens", "the terminal screens of the lab, the replay viewer and the proxy",
		[]string{"tui/widget", "tui/preset", "tui", "tui/proxyscreen"}},
	{"commands", "flags, one call into the packages below, printing",
		[]string{"cmd/lab", "cmd/proxybench"}},
}
