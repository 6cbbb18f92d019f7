// Package server models the game's authoritative server: a fixed-tick
// accumulator loop on its own drifting clock, input acceptance rules
// (variants "latest", "queue" and "buffer", the buffer's depth fixed or
// set from the arrival jitter), and the PlayerState broadcast. It is a
// pure step function over virtual time; it never touches a socket or a
// wall clock. The rules are written down in docs/explanation/model.md ("Server").
package server
