package metrics

import (
	"bufio"
	"io"
	"strconv"
)

// Sample is one row of the timeline, every 50 ms of true time by default.
// Field order is the CSV column order (docs/model.md, "What is measured").
type Sample struct {
	TS              float64 // true time, seconds
	ServerTick      uint32  // the server's own step counter
	ClientTick      uint32  // MoveInputs the client has sent
	AckTick         uint32  // last acknowledged tick the client has seen
	TickOffset      int     // server_tick_seen − client_tick − start_tick
	SendIntervalS   float64
	PendingInputs   int
	RTTMs           float64 // up_owd_ms + down_owd_ms
	UpOWDMs         float64 // one-way delay of the latest delivered uplink packet
	DownOWDMs       float64
	UpJitterMs      float64 // RFC 3550 estimator
	DownJitterMs    float64
	PDVMs           float64 // downlink one-way delay minus the minimum so far
	VisibleErrorM   float64 // max |visible − predicted| in the window
	VisibleErrorDeg float64
	CorrectionM     float64 // max reconciliation correction in the window
	VisibleSpeedMPS float64 // visible distance moved in the window ÷ window
	Snaps           uint64  // cumulative counters from here on
	UpLost          uint64
	DownLost        uint64
	LateDropped     uint64
	Overwritten     uint64
	Starved         uint64
}

// Columns are the CSV header names, in Sample field order.
var Columns = []string{"t_s", "server_tick", "client_tick", "ack_tick", "tick_offset", "send_interval_s",
	"pending_inputs", "rtt_ms", "up_owd_ms", "down_owd_ms", "up_jitter_ms", "down_jitter_ms", "pdv_ms",
	"visible_error_m", "visible_error_deg", "correction_m", "visible_speed_mps", "snaps", "up_lost",
	"down_lost", "late_dropped", "overwritten", "starved"}

// CSVWriter writes Samples as CSV with a fixed number of decimals per
// column, so the same samples give the same bytes on every machine.
type CSVWriter struct {
	w   *bufio.Writer
	buf []byte
}

// NewCSVWriter writes the header to w.
func NewCSVWriter(w io.Writer) (*CSVWriter, error) {
	c := &CSVWriter{w: bufio.NewWriterSize(w, 64<<10), buf: make([]byte, 0, 512)}
	for i, col := range Columns {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf = append(c.buf, col...)
	}
	c.buf = append(c.buf, '\n')
	_, err := c.w.Write(c.buf)
	return c, err
}

// Write appends one row.
func (c *CSVWriter) Write(s *Sample) error {
	b := c.buf[:0]
	f := func(v float64, prec int) { b = strconv.AppendFloat(b, v, 'f', prec, 64); b = append(b, ',') }
	u := func(v uint64) { b = strconv.AppendUint(b, v, 10); b = append(b, ',') }
	f(s.TS, 3)
	u(uint64(s.ServerTick))
	u(uint64(s.ClientTick))
	u(uint64(s.AckTick))
	b = strconv.AppendInt(b, int64(s.TickOffset), 10)
	b = append(b, ',')
	f(s.SendIntervalS, 6)
	u(uint64(s.PendingInputs))
	f(s.RTTMs, 3)
	f(s.UpOWDMs, 3)
	f(s.DownOWDMs, 3)
	f(s.UpJitterMs, 3)
	f(s.DownJitterMs, 3)
	f(s.PDVMs, 3)
	f(s.VisibleErrorM, 4)
	f(s.VisibleErrorDeg, 3)
	f(s.CorrectionM, 4)
	f(s.VisibleSpeedMPS, 4)
	u(s.Snaps)
	u(s.UpLost)
	u(s.DownLost)
	u(s.LateDropped)
	u(s.Overwritten)
	u(s.Starved)
	b[len(b)-1] = '\n'
	c.buf = b
	_, err := c.w.Write(b)
	return err
}

// Flush writes buffered rows to the underlying writer.
func (c *CSVWriter) Flush() error { return c.w.Flush() }
