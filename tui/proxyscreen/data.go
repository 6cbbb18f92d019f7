package proxyscreen

import "jitterlab/proxy/live"

// The data the screen reads are the live relay's (package
// [jitterlab/proxy/live] builds them): one definition, named here as the
// screen has always named them.
type (
	Snapshot  = live.Snapshot
	Group     = live.Group
	Change    = live.Change
	Dir       = live.Dir
	Game      = live.Game
	GamePoint = live.GamePoint
)
