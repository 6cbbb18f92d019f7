package widget

import (
	"errors"
	"io"
	"strings"
	"syscall"

	"github.com/gdamore/tcell/v2"
)

// TerminalGone is io.EOF for the error a screen's read of a terminal that
// went away gives (its tmux session or ssh connection closed): EOF, or EIO
// when the pseudo-terminal's other side closed first (tcell's error event
// carries only the text). Any other error is itself.
func TerminalGone(err error) error {
	if ev, ok := errors.AsType[*tcell.EventError](err); ok {
		if msg := ev.Error(); msg == io.EOF.Error() || strings.HasSuffix(msg, ": "+syscall.EIO.Error()) {
			return io.EOF
		}
	}
	return err
}
