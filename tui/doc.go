// Package tui is the terminal user interface (tview/tcell): charts drawn with
// a braille primitive, the parameter editor and the status line. It holds no
// model logic; it drives a lab.Session and draws its Samples, runs
// diagnose.Run on the settings in force in a goroutine of its own (the d
// key), and draws the proxy's live screen (ProxyView) from a ProxySource, a
// small interface of plain data that the relay's adapter implements.
package tui
