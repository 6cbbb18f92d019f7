// Package live runs 'lab proxy': a [jitterlab/proxy.Relay] with its
// conditions ([jitterlab/proxy/control]), captures
// ([jitterlab/proxy/record]), telemetry, timeline and control API, and
// says what it did. [Start] starts a run and writes its first lines;
// [Run.Wait] shows the live screen over [Run.Source] (or prints the
// counter lines) until the run ends and returns the [Result], whose
// [Result.WriteText] is the closing text: the summary, the clients, the
// audit (configured → realised, per period of constant settings) and
// the telemetry's account. [CheckAddrs], [CheckSets], [CheckLimits] and
// [CheckControl] refuse what a run is asked before it starts.
//
// The contract:
//   - Every time the user sees (counter line stamps, change log times,
//     audit periods, snapshot times, a recording's bounds and name) is
//     read from [Options].Clock, so tests drive it ([Clock]); the relay's
//     own I/O loop and its audit's wall time keep the real clock.
//   - A [Source] snapshot hands each delay and each game frame over once.
//   - The change log is bounded: an entry that finds it full is counted,
//     and the next one kept says how many went before it.
//   - The audit keeps at most 20 periods (later changes fold into the
//     last, which says so) and lists at most 8 clients per period.
//
// It imports no screen: the screen ([jitterlab/tui/proxyscreen]) reads
// the plain data of [Snapshot] through [Source].
package live
