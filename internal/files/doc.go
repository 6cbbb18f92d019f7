// Package files opens the files a user names (scenarios, recordings,
// captures, traces, shards) so that a named pipe, a device or a directory
// is refused at once with its kind in words, instead of blocking until a
// writer comes or reading garbage.
package files
