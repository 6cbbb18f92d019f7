package trace

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"jitterlab/internal/files"
	"jitterlab/netem"
	"jitterlab/param"
	"jitterlab/recordings"
	"slices"
	"strings"
	"sync"
	"time"
)

// A Loader reads the captures trace mode replays (up.trace = FILE: the
// link's delays and losses from a capture instead of its model), keeping
// each one read by file, size, modification time and direction. Its zero
// value is ready; it is safe for concurrent use.
type Loader struct {
	mu sync.Mutex
	m  map[string]*netem.Trace
}

// Load reads "none" (nil), "FILE" or "FILE@sha256:HEX" for key, the
// direction dir ("up" or "down") of the capture. The value the registry
// gives back, and so the one a recording stores, is FILE@sha256:HEX: set
// again (replay, --verify) it loads FILE and refuses it if its bytes
// changed.
func (l *Loader) Load(key, dir, v string) (*netem.Trace, error) {
	if v == "" || v == "none" {
		return nil, nil
	}
	file, want, pinned := v, "", false
	if i := strings.LastIndex(v, "@sha256:"); i >= 0 {
		file, want, pinned = v[:i], v[i+1:], true
	}
	f, st, err := files.OpenRegular(file) // a named pipe is refused, not waited on
	if err != nil {
		return nil, &param.Error{Key: key, Value: v, Allowed: "a capture file that exists (" + err.Error() + ")"}
	}
	defer f.Close()
	// The size and the first bytes first: a huge file or one of garbage is
	// refused before it is read.
	if st.Size() > MaxBytes {
		return nil, &param.Error{Key: key, Value: v, Allowed: fmt.Sprintf("a capture of at most %d bytes; %s is %d", MaxBytes, file, st.Size())}
	}
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, &param.Error{Key: key, Value: v, Allowed: "a readable capture file (" + err.Error() + ")"}
	}
	if err := CheckHead(file, head[:n]); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	ck := fmt.Sprint(file, "\x00", st.Size(), "\x00", st.ModTime().UnixNano(), "\x00", dir)
	l.mu.Lock()
	t, ok := l.m[ck]
	l.mu.Unlock()
	if !ok {
		// The hash and the trace each stream the file: memory does not
		// grow with its size beyond the packets kept.
		h := sha256.New()
		_, err := f.Seek(0, io.SeekStart)
		if err == nil {
			_, err = io.Copy(h, io.LimitReader(f, MaxBytes))
		}
		if err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			return nil, &param.Error{Key: key, Value: v, Allowed: "a readable capture file (" + err.Error() + ")"}
		}
		if t, err = traceFrom(file, "sha256:"+hex.EncodeToString(h.Sum(nil)), dir, f, st.Size()); err != nil {
			return nil, fmt.Errorf("%s: %w", key, unquoted(err))
		}
		l.mu.Lock()
		if l.m == nil {
			l.m = map[string]*netem.Trace{}
		}
		l.m[ck] = t
		l.mu.Unlock()
	}
	if pinned && t.Hash != want {
		return nil, &param.Error{Key: key, Value: v, Allowed: "the trace recorded; " + file + " has changed since (its bytes are now " + t.Hash + ")"}
	}
	return t, nil
}

// readTrace reads a capture in any format lab fit reads: a proxy
// recording of one client as it is; a pcap is refused, since only
// --seq says where its sequence numbers are, naming the conversion.
func readTrace(file string, f io.ReadSeeker, size int64) (*Trace, error) {
	head := make([]byte, HeadSize)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	switch {
	case IsRecording(head):
		ra, ok := f.(io.ReaderAt)
		if !ok {
			return nil, fmt.Errorf("%s: a recording is read from a file", file)
		}
		r, err := recordings.Open(ra, size)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		// A recording cut short replays only with the user's word: lab fit
		// writes what it holds (and says what it lost).
		cut := ""
		switch {
		case r.Header.Kind != recordings.KindProxy: // ReadRecording says what it is
		case r.Truncated:
			cut = fmt.Sprintf("cut short at byte %d", r.TruncatedAt)
		default:
			end, err := r.End()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if end == nil {
				cut = "not closed (no end record)"
			}
		}
		if cut != "" {
			return nil, &Error{File: file, Want: fmt.Sprintf("a proxy recording %s: the relay's session after %v is lost; trace mode replays a whole recording: write what it holds with `lab fit %s --csv FILE.csv` and replay FILE.csv",
				cut, time.Duration(r.Duration()).Round(time.Millisecond), file)}
		}
		tr, _, err := ReadRecording(file, r, AnyFlow, false)
		// Several clients: lab run has no --flow; lab fit --csv writes one.
		var te *Error
		if errors.As(err, &te) {
			if head, flows, ok := strings.Cut(te.Want, ": name one with --flow N: "); ok {
				e := *te
				e.Want = head + ": " + flows + "; trace mode replays one: write its packets with `lab fit " + file + " --flow N --csv FILE.csv` and replay FILE.csv"
				return nil, &e
			}
		}
		return tr, err
	case IsPcap(head):
		return nil, &Error{File: file, Want: "a pcap capture, whose sequence numbers only lab fit's --seq finds: write its packets as the generic CSV with `lab fit " +
			file + " --seq OFFSET:WIDTH:ORDER --csv FILE.csv` (and --client, --server as for its fit) and replay FILE.csv"}
	}
	return Read(file, f, "auto")
}

// unquoted is err without the bad value a capture reader quotes: a trace's
// path may come from a file someone else made (a recording's header), and
// what the lab says of it must not show another file's content. The line
// and column stay; `lab fit FILE` shows the value.
func unquoted(err error) error {
	var te *Error
	if !errors.As(err, &te) || te.Field == "" {
		return err
	}
	e := *te
	e.Want = e.Field + ": want " + e.Want + " (`lab fit " + e.File + "` shows the value)"
	e.Field, e.Value = "", ""
	return &e
}

// traceFrom converts a capture's direction dir (the other one if dir has
// no packets) to a netem trace: send offsets from its first packet, delays
// as measured, an unmeasured packet with the delay of the one before.
func traceFrom(file, hash, dir string, f io.ReadSeeker, size int64) (*netem.Trace, error) {
	tr, err := readTrace(file, f, size)
	if err != nil {
		return nil, err
	}
	d := &tr.Up
	if dir == "down" {
		d = &tr.Down
	}
	if len(d.Packets) == 0 {
		d = &tr.Up
		if dir == "up" {
			d = &tr.Down
		}
	}
	pk := slices.Clone(d.Packets)
	slices.SortStableFunc(pk, func(a, b Packet) int { return cmp.Compare(a.Send, b.Send) })
	at, delay := make([]time.Duration, len(pk)), make([]time.Duration, len(pk))
	prev := time.Duration(0)
	for i, p := range pk {
		at[i] = time.Duration(p.Send - pk[0].Send)
		switch p.Status {
		case Lost:
			delay[i] = -1
		case Unmeasured:
			delay[i] = prev
		default:
			if p.Delay < 0 || time.Duration(p.Delay) > netem.MaxDelay {
				return nil, fmt.Errorf("%s: %s packet %d: one-way delay %v: want 0 to %v; the two ends' clocks are not synchronised: `lab fit %s --csv FILE.csv` writes the delays with their offset split and drift removed, as the fit sees them",
					file, d.Name, p.Seq, time.Duration(p.Delay), netem.MaxDelay, file)
			}
			delay[i] = time.Duration(p.Delay)
			prev = delay[i]
		}
	}
	return netem.NewTrace(file, hash, at, delay)
}
