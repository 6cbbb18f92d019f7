// Package widget holds what the lab's screen (package tui) and the
// proxy's (package proxyscreen) both draw with: the braille [Chart], the
// scrolling [ScrollText], the parameter [Editor] (its link rows:
// [LinkRows]), the one-row [FitLine] that drops its least
// important [Segment]s to fit, [Layers] and the [SizeGuard] that says when
// the terminal is too small, the help box ([ShowHelp], [KeyLines]), the
// prompt ([OpenPrompt]) and the [Clock], the one goroutine of a screen that
// reads wall time. It knows no model: text and numbers in, cells out.
package widget
