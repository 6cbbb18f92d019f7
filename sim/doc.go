// Package sim is the lab's notion of time and chance.
//
// True time is [Time], int64 nanoseconds since the start of a session; it is
// never accumulated in floating point. [Queue] orders events by (time,
// sequence) so that events at the same instant run in the order they were
// scheduled; a [Timer] keeps a periodic wake-up beside the queue in the same
// order without heap operations; an [Order] draws the sequence numbers
// several queues and timers share, so their events form one order. [Clock] maps true time to an endpoint's drifting local time and
// back, exactly. [NewRand] derives one independent PCG stream per named
// component from the session seed, so changing one knob does not reshuffle
// the others. Nothing here reads the wall clock or the global math/rand.
// docs/explanation/model.md ("Time and determinism") states the rules.
package sim
