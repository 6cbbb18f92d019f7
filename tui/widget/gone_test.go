package widget

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// A terminal that goes away (its tmux session or ssh connection closed)
// ends the screen as a hangup, whichever error its read gives: EOF, or
// EIO when the pseudo-terminal's other side closed first (under load the
// proxy then exited 1 with "read /dev/tty: input/output error" instead of
// 129). Any other error stays itself.
func TestATerminalThatWentAwayIsAHangup(t *testing.T) {
	other := tcell.NewEventError(errors.New("read /dev/tty: something else"))
	for _, c := range []struct {
		err, want error
	}{
		{tcell.NewEventError(io.EOF), io.EOF},
		{tcell.NewEventError(&os.PathError{Op: "read", Path: "/dev/tty", Err: syscall.EIO}), io.EOF},
		{other, other},
		{nil, nil},
	} {
		if got := TerminalGone(c.err); got != c.want {
			t.Errorf("TerminalGone(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
