package lab

import (
	"fmt"
	"strconv"
)

// Trust says whether settings read from a file someone else may have made
// (a recording's header and change log, a sweep shard's overrides) may
// open the files they name. A recording that says up.trace=/etc/passwd
// must not make `lab replay --verify` read that file, nor a 2 GB file:
// the user allows it with a flag. Settings the user gives (--set, a
// scenario file) are the user's own and are not checked.
type Trust bool

const (
	// Untrusted refuses a setting that names a file, without opening it.
	Untrusted Trust = false
	// OpenFiles opens the files the settings name (the user said so).
	OpenFiles Trust = true
)

// OpenFilesFlag is the flag by which the user allows it, for messages.
const OpenFilesFlag = "--open-files"

// Check refuses key=value, read from where ("recording header", "a
// recorded change at 3s"), when the key names a file (see
// opensFile) and t does not allow opening it. The file is not
// touched; its name is quoted, cut short, as the recording holds it.
func (t Trust) Check(where, key, value string) error {
	if t == OpenFiles || !opensFile(key) || value == "" || value == "none" {
		return nil
	}
	name := value
	if len(name) > 80 {
		name = name[:80] + "…"
	}
	return fmt.Errorf("%s: %s names a file, %s: the lab opens a file that another file names only when you allow it with %s (read it first: is it yours?)",
		where, key, strconv.Quote(name), OpenFilesFlag)
}
