package record

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// telemetryEvent is a telemetry datagram the proxy decoded, queued for
// the recording.
type telemetryEvent struct {
	at time.Time
	d  telemetry.Datagram
}

// Telemetry queues a telemetry datagram decoded at wall time at for the
// recording (lab proxy --telemetry's listener hands over each one it
// decodes; use it through [Switch.Telemetry], which a capture's Close
// does not race). A full queue drops it and counts it, as a packet event.
func (c *Capture) Telemetry(at time.Time, d *telemetry.Datagram) {
	if c.rec == nil {
		return
	}
	select {
	case c.events <- event{telemetry: &telemetryEvent{at: at, d: *d}}:
	default:
		c.dropped.Add(1)
	}
}

// recordTelemetry records a telemetry datagram at its arrival, or the
// last record's time if later: a recording's times never go back.
func (c *Capture) recordTelemetry(e *telemetryEvent) error {
	c.last = max(c.last, c.since(e.at))
	return c.rec.Telemetry(c.last, &e.d)
}

// Telemetry hands a telemetry datagram decoded at wall time at to the
// running capture, if any.
func (s *Switch) Telemetry(at time.Time, d *telemetry.Datagram) {
	s.mu.RLock()
	if s.cur != nil {
		s.cur.Telemetry(at, d)
	}
	s.mu.RUnlock()
}

// TelemetryColumns is the header of [WriteTelemetryCSV].
var TelemetryColumns = "at_s,kind," + strings.Join(telemetry.Columns(), ",") + "\n"

// WriteTelemetryCSV writes a proxy recording's telemetry with from ≤ at ≤
// to, one datagram a row: when it arrived (s since the relay started, to
// the nanosecond), its kind (frame or tick) and its fields as the game
// sent them (docs/reference/telemetry.md), a column of the other kind
// empty.
func WriteTelemetryCSV(w io.Writer, r *recordings.Reader, from, to sim.Time) error {
	bw := csv.NewWriter(w)
	if _, err := io.WriteString(w, TelemetryColumns); err != nil {
		return err
	}
	row := make([]string, 0, 2+len(telemetry.Columns()))
	err := r.ScanTelemetry(from, to, func(at sim.Time, d *telemetry.Datagram) error {
		row = append(row[:0], string(appendNs(nil, int64(at), 9)), d.Kind.String())
		row = append(row, telemetry.Cells(d)...)
		return bw.Write(row)
	})
	if err != nil {
		return err
	}
	bw.Flush()
	return bw.Error()
}

// TelemetryAccount is what a proxy recording's telemetry says: its counts,
// and the report card of its frames computed as the lab computes a
// session's ([lab.TelemetryMeter]), for a game with the model's settings
// cfg (its speed and snap distance).
type TelemetryAccount struct {
	Frames, Ticks uint64
	Skipped       uint64 // frames not later than the one before
	Card          lab.ReportCard
	// LastTick is the server's latest tick: its counters are cumulative,
	// so it holds the run's account (valid when Ticks > 0).
	LastTick telemetry.Tick
}

// ReadTelemetry reads every telemetry datagram of r into an account.
func ReadTelemetry(r *recordings.Reader, cfg *lab.Config) (TelemetryAccount, error) {
	var a TelemetryAccount
	m := lab.NewTelemetryMeter(cfg)
	err := r.ScanTelemetry(0, sim.Time(1<<62), func(_ sim.Time, d *telemetry.Datagram) error {
		switch d.Kind {
		case telemetry.KindFrame:
			a.Frames++
			m.Frame(&d.Frame)
		case telemetry.KindTick:
			a.Ticks++
			a.LastTick = d.Tick
		}
		return nil
	})
	a.Card, a.Skipped = m.Card(), m.Skipped()
	return a, err
}

// writeTelemetryAccount prints a recording's telemetry, if it has any:
// the counts, then the report card of its frames.
func writeTelemetryAccount(w io.Writer, r *recordings.Reader) error {
	cfg := lab.DefaultConfig()
	a, err := ReadTelemetry(r, &cfg)
	if err != nil || a.Frames+a.Ticks == 0 {
		return err
	}
	fmt.Fprintf(w, "\ntelemetry  %d frames and %d server ticks (lab proxy --telemetry)", a.Frames, a.Ticks)
	if a.Skipped > 0 {
		fmt.Fprintf(w, "; %d frames not later than the one before, skipped", a.Skipped)
	}
	if t := &a.LastTick; a.Ticks > 0 {
		fmt.Fprintf(w, "\nserver     at tick %d: %d steps applied an input, %d inputs overwritten, %d steps starved; depth %d", t.Tick, t.Applied, t.Overwritten, t.Starved, t.Depth)
	}
	fmt.Fprintf(w, "\nthe game's report card from its frames, with the model's client.move_speed %s m/s and client.snap %s m (no data: telemetry does not carry it):\n",
		strconv.FormatFloat(cfg.Client.Tuning.MoveSpeed, 'g', -1, 64), strconv.FormatFloat(cfg.Client.Snap, 'g', -1, 64))
	return a.Card.WriteText(w)
}
