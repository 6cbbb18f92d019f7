// Package progress draws what a long command has done on one line of a
// terminal ([Line]): "lab sweep: 12 of 40 runs  30%  ETA 9s", redrawn in
// place at most twice a second once two seconds have passed, erased at the
// end, and on anything that is not a terminal (a pipe, a file) nothing at
// all. Its wall clock is injected, so tests advance time instead of
// sleeping. [Line.Canceled] says what a signal stopped.
package progress
