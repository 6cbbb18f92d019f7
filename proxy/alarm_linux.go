package proxy

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// alarm wakes Run's goroutine at a release time. On Linux it is a timerfd
// read through Go's network poller: the kernel's high-resolution timer
// (no timer slack) makes the poller's epoll_wait return on time, where a Go
// timer's wake-up would be rounded up to the millisecond; and no thread
// blocks while it waits.
type alarm struct {
	f *os.File
}

const (
	clockMonotonic = 1
	tfdNonblock    = syscall.O_NONBLOCK
	tfdCloexec     = syscall.O_CLOEXEC
)

type itimerspec struct {
	interval, value syscall.Timespec
}

func newAlarm() (*alarm, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, tfdNonblock|tfdCloexec, 0)
	if errno != 0 {
		return nil, os.NewSyscallError("timerfd_create", errno)
	}
	return &alarm{f: os.NewFile(fd, "timerfd")}, nil
}

// set makes wait return after d (at once when d ≤ 0), replacing any time
// set before.
func (a *alarm) set(d time.Duration) {
	spec := itimerspec{value: syscall.NsecToTimespec(int64(max(d, 1)))}
	raw, err := a.f.SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	})
}

// wait blocks until the time set comes or the alarm is closed.
func (a *alarm) wait() error {
	var buf [8]byte
	_, err := a.f.Read(buf[:])
	return err
}

// close ends a wait in progress.
func (a *alarm) close() { a.f.Close() }
