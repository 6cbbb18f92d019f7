// Package tui is the lab's terminal user interface (tview/tcell): the live
// lab ([App]) and the replay viewer ([Replay]), with the parameter editor
// (its rows: every key of the registry that can change during a run), the
// presets and the status line. It holds no model logic; it drives a
// lab.Session and draws its Samples, and runs diagnose.Run on the settings
// in force in a goroutine of its own (the d key). The widgets it shares
// with the proxy's screen (the editor's core among them) are in
// [jitterlab/tui/widget], the presets in [jitterlab/tui/preset]; the
// proxy's screen is [jitterlab/tui/proxyscreen].
package tui
