// Package files opens the files a user names (scenarios, recordings,
// captures, traces, shards) so that a named pipe, a device or a directory
// is refused at once with its kind in words, instead of blocking until a
// writer comes or reading garbage. It writes the files a command outputs
// ([Output]): a whole output replaces an existing file only when complete,
// and [Temps] notes the temporary files so that a signal that ends the
// process can remove them; [CheckOutputs] refuses outputs that are one
// file or one of the inputs.
package files
