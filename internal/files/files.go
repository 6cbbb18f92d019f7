package files

import (
	"fmt"
	"os"
	"syscall"
)

// Kind names the kind of file m is, in words: "a named pipe (FIFO)",
// "a directory", "a device", "a socket", "a symbolic link" or "a regular
// file".
func Kind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m.IsDir():
		return "a directory"
	case m&(os.ModeDevice|os.ModeCharDevice) != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// NotRegularError is what OpenRegular returns for a path that is not a
// regular file.
type NotRegularError struct {
	Path string
	Mode os.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file", e.Path, Kind(e.Mode))
}

// OpenRegular opens path for reading if it is a regular file. It opens
// without blocking (a named pipe with no writer would otherwise wait
// forever) and checks the kind of what it opened, so a path that changes in
// between cannot slip through. Errors from the file system come back as they
// are; anything but a regular file is a *NotRegularError.
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, st, nil
}
