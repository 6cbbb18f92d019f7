// Package tui is the terminal user interface (tview/tcell): charts drawn with
// a braille primitive, the parameter editor and the status line. It holds no
// model logic; it drives a lab.Session and draws its Samples.
package tui
