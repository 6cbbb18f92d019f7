// Package recordings is the recording file format: a zstd stream of typed
// records (header, parameter changes, column-coded samples or, in a proxy
// recording, column-coded relayed packets, end) in frames
// indexed by checksummed skippable frames, with a [Writer], a [Reader]
// that seeks, steps over damage and stays within [MemoryBound] for any
// file, [WatchLoss], which counts and tells the places a file lost data,
// and [Same], the comparison verify uses. The layout is described
// in format.go, the sample coding in samples.go, the packet coding in
// packets.go.
package recordings
