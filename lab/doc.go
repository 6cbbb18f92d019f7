// Package lab wires a server, a client and two links into a Session driven
// by one event queue in virtual time, applies parameter changes from the
// registry (one dotted key per knob, DESIGN.md §7) and emits Samples.
// Same seed, same scenario and same changes give byte-identical output.
package lab
