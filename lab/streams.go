package lab

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"jitterlab/capture"
	"jitterlab/metrics"
	"jitterlab/netem"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// Streams are the files a session writes as it runs ('lab run --csv,
// --record, --packets, --pcap'), each row or frame whole: the timeline as
// CSV (one row a sample), the recording, the packets as CSV (one row a
// packet, [PacketsCSVHeader]) and every datagram as pcapng. A nil writer
// is not written. Name is the session's name in the recording's header
// and the pcapng's comment.
type Streams struct {
	Timeline, Recording, Packets, Pcap io.Writer
	Name                               string
}

// Streaming is a session writing its [Streams] ([Streams.Start]).
type Streaming struct {
	err    error          // the first write error
	closes []func() error // in the order of Streams' fields
}

// Start sets s's callbacks (OnSample, OnChange, OnPacket, OnSend) so that
// its run writes the streams; call it before the run. The recording's
// header holds s's initial settings and sample period.
func (st Streams) Start(s *Session) (*Streaming, error) {
	w := &Streaming{}
	if st.Timeline != nil {
		csv, err := metrics.NewCSVWriter(st.Timeline)
		if err != nil {
			return nil, err
		}
		s.OnSample = func(smp *metrics.Sample) {
			if w.err == nil {
				w.err = csv.Write(smp)
			}
		}
		w.closes = append(w.closes, csv.Flush)
	}
	if st.Recording != nil {
		rw, err := recordings.NewWriter(st.Recording, HeaderOf(s.Initial(), st.Name, s.Every()))
		if err != nil {
			return nil, err
		}
		rec := Record(s, rw, nil)
		s.OnChange = rec.Change
		prev := s.OnSample
		s.OnSample = func(x *metrics.Sample) {
			rec.Sample(x)
			if prev != nil {
				prev(x)
			}
		}
		w.closes = append(w.closes, rec.Close)
	}
	if st.Packets != nil {
		bw := bufio.NewWriterSize(st.Packets, 64<<10)
		bw.WriteString(PacketsCSVHeader)
		b := make([]byte, 0, 96)
		s.OnPacket = func(p *PacketRecord) {
			if w.err == nil {
				_, w.err = bw.Write(p.AppendCSV(b[:0]))
			}
		}
		w.closes = append(w.closes, bw.Flush)
	}
	if st.Pcap != nil {
		cw, err := capture.NewWriter(st.Pcap, capture.Options{Epoch: time.Unix(0, 0), Sides: SimSides,
			Application: "jitterlab lab run", Comment: fmt.Sprintf("lab run %s, seed %d: timestamps are true (simulated) time from 0", st.Name, s.Initial().Seed)})
		if err != nil {
			return nil, err
		}
		Capture(s, cw, &w.err)
		w.closes = append(w.closes, cw.Close)
	}
	return w, nil
}

// Err is the first write error of any stream: the run should end.
func (w *Streaming) Err() error { return w.err }

// Close flushes and closes every stream, in the order of Streams' fields,
// even after one failed (a closed pipe on the timeline still leaves a
// closed recording). It returns the first write error, or else the first
// error of a flush or close.
func (w *Streaming) Close() error {
	err := w.err
	for _, c := range w.closes {
		if e := c(); err == nil {
			err = e
		}
	}
	return err
}

// PacketsCSVHeader is the first line of the packets CSV, one column per
// field [PacketRecord.AppendCSV] writes.
const PacketsCSVHeader = "dir,seq,kind,sent_s,status,delivered_s,delay_ms,duplicate,reordered\n"

// AppendCSV appends p as one line of the packets CSV: times in seconds
// with 6 decimals, the delay in ms with 3, empty when not delivered;
// booleans true or false.
func (p *PacketRecord) AppendCSV(b []byte) []byte {
	b = append(b, p.Dir...)
	b = append(b, ',')
	b = strconv.AppendUint(b, p.Seq, 10)
	b = append(b, ',')
	b = append(b, p.Kind...)
	b = append(b, ',')
	b = strconv.AppendFloat(b, p.SentAt.Seconds(), 'f', 6, 64)
	b = append(b, ',')
	b = append(b, p.Status...)
	b = append(b, ',')
	if p.Status == "delivered" {
		b = strconv.AppendFloat(b, p.At.Seconds(), 'f', 6, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, float64(p.At-p.SentAt)/1e6, 'f', 3, 64)
	} else {
		b = append(b, ',')
	}
	b = append(b, ',')
	b = strconv.AppendBool(b, p.Copy == 1) // booleans are true/false in every CSV
	b = append(b, ',')
	b = strconv.AppendBool(b, p.Reordered)
	return append(b, '\n')
}

// SimSides describe a simulated session's two capture interfaces.
var SimSides = [2]string{
	fmt.Sprintf("the game client's end of the simulated link (%v)", capture.SimClient),
	fmt.Sprintf("the game server's end of the simulated link (%v)", capture.SimServer),
}

// Capture writes every datagram of s to w: on the sender's side when
// sent (with the fate of each copy), on the receiver's side when a copy
// arrives. Both come in true-time order, so the file is in time order.
// It chains after an OnPacket already set. The first write error goes to
// *werr, and nothing is written after it.
func Capture(s *Session, w *capture.Writer, werr *error) {
	sizes := map[string]int{} // wire size by message kind, from the sends
	dir := func(d string) capture.Dir {
		if d == "up" {
			return capture.Up
		}
		return capture.Down
	}
	s.OnSend = func(r *SendRecord) {
		sizes[r.Kind] = r.Size
		e := capture.Event{At: time.Duration(r.SentAt), Dir: dir(r.Dir), Seq: r.Seq, Kind: r.Kind, Size: r.Size}
		for c, f := range r.Fate {
			e.Copies[c] = capture.Copy{Fate: simFates[f]}
			if f == netem.FateScheduled {
				e.Copies[c].Delay = r.At[c].Sub(r.SentAt)
			}
		}
		if *werr == nil {
			*werr = w.Write(&e)
		}
	}
	prev := s.OnPacket
	s.OnPacket = func(p *PacketRecord) {
		if prev != nil {
			prev(p)
		}
		if p.Status != "delivered" || *werr != nil {
			return
		}
		e := capture.Event{Arrived: true, At: time.Duration(p.At), Dir: dir(p.Dir), Seq: p.Seq, Kind: p.Kind, Size: sizes[p.Kind],
			Delay: p.At.Sub(p.SentAt), Duplicate: p.Copy == 1, Reordered: p.Reordered}
		*werr = w.Write(&e)
	}
}

var simFates = [...]capture.Fate{netem.FateNone: capture.NoCopy, netem.FateScheduled: capture.Delivered,
	netem.FateLost: capture.Lost, netem.FateQueueDropped: capture.QueueDropped}

// ProgressText is a run's progress for a terminal's progress line,
// "00:01:00.000 / 00:10:00.000 simulated  10%  ETA 9s": at of total
// simulated in elapsed wall time (which the caller measures).
func ProgressText(at, total sim.Time, elapsed time.Duration) string {
	frac := float64(at) / float64(max(total, 1))
	text := fmt.Sprintf("%v / %v simulated  %3.0f%%", at, total, 100*frac)
	if frac > 0 {
		eta := time.Duration(float64(elapsed) * (1 - frac) / frac)
		text += fmt.Sprintf("  ETA %v", eta.Round(time.Second))
	}
	return text
}
