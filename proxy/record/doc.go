// Package record writes and reads a proxy recording: the relayed
// datagrams of a [jitterlab/proxy.Relay], in the [jitterlab/recordings]
// file format with header kind [recordings.KindProxy]. A [Capture],
// behind the relay's hook ([Switch] starts and stops one mid-run), writes
// it and, if asked, a pcapng capture of the same events; [WriteReplay],
// [WritePacketsCSV], [WriteChangesCSV] and [Plot] read it back.
//
// The format is a contract: what a proxy recording holds.
//   - The header ([Header]) holds the links the relay started with, as
//     up.* and down.* parameters, and nothing of a game.
//   - One packet record per copy of a datagram, with its fate: lost or
//     dropped on arrival (At = In, when it was read), or written or
//     refused by the socket (Out, when; Scheduled, the delay the link
//     drew). Times are wall time from the relay's start (or from the
//     capture's, for one started mid-run), never before it; At never goes
//     back from one record to the next.
//   - Change records say who had which settings and when, in this grammar
//     ([Setting], [ParseChange], [Setting.Change]):
//     KEY = VALUE is everybody's setting of KEY;
//     "client ADDR KEY" = VALUE is client ADDR's own setting of KEY;
//     "client ADDR" = "cleared" puts client ADDR back on everybody's;
//     "flow N" = ADDR says client ADDR is flow N (N ≥ 1, decimal, no
//     leading zero), from its first datagram.
//     ADDR holds no space. Any other record reads as everybody's setting
//     of its key. At most [recordings.MaxChanges] records, each key and
//     value at most [recordings.MaxChangeText] bytes: the changes beyond
//     are counted, not recorded.
//   - With lab proxy --telemetry, a telemetry record per datagram the
//     proxy decoded ([Capture.Telemetry], through [Switch.Telemetry]), at
//     its arrival or the last record's time if later; [WriteReplay]
//     prints their counts and the report card of the frames
//     ([ReadTelemetry]), [WriteTelemetryCSV] writes them.
//   - The end record's summary is an [EndSummary] in JSON: the relay's
//     counters and the events the capture dropped, so a reader can say a
//     recording is short. A recording without one was not closed.
//
// ParseChange reads every record as one Setting, and a Setting it read
// spells a record it reads back the same (FuzzChangeGrammar); the
// readers take any file without panicking, and export's CSV keeps to its
// columns (FuzzReadRecording).
package record
