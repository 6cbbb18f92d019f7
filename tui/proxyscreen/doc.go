// Package proxyscreen is the live screen of 'lab proxy' ([View]): the
// relay's charts, the links as configured beside what the relay realised
// (delay percentiles over a window of delays cut at the latest change,
// loss, bursts, rates), each client's own link, the link editor and the
// change log. It reads the relay through [Source], a small interface
// over the plain data of [jitterlab/proxy/live] ([Snapshot] is
// live.Snapshot), which a live run's Source implements; it draws and
// edits the link with [jitterlab/tui/widget] (its [widget.Editor] over the
// lab registry's link keys) and binds the presets of [jitterlab/tui/preset].
package proxyscreen
