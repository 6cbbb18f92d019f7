// Package lab wires a server, a client and two links into a Session driven
// by one order of events in virtual time, applies parameter changes from the
// registry (one dotted key per knob, docs/explanation/model.md) and emits Samples. A
// change at time T applies after every event at T, however it was made, so
// a recording's header and change log re-simulate a live session exactly
// ([Verify]). Same seed, scenario and changes give byte-identical output.
// The Session holds the model's state; a meter beside its loop
// (lab/meter.go) observes it and keeps what the Samples, the Summary and
// its report card are computed from, changing nothing it observes.
// A run writes its timeline, packets, recording and pcapng as it goes
// through [Streams]; [Plot] charts a window of it or of a recording,
// [WriteRecording] says what a recording holds, [WriteScenarios] lists the
// built-in scenarios.
package lab
