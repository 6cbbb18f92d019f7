// Package recordings is the recording file format: a zstd stream of typed
// records (header, samples, parameter changes, index frames) with a writer,
// a reader that seeks, and a replay source.
package recordings
