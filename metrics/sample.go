package metrics

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// Sample is one row of the timeline, every 50 ms of true time by default.
// Field order is the CSV column order (docs/reference/metrics.md). A float field that is
// NaN has no data (no packet delivered in the window, say): the CSV writes
// an empty field, never 0.
//
// The delay columns are statistics of the packets delivered in the sample
// window (the time since the previous sample, up to and including the
// sample's instant): the mean one-way delay of the copies delivered each
// way, and the mean round-trip time of the downlink copies delivered, where
// a downlink packet's round trip is its own one-way delay plus that of the
// latest uplink packet sent before it (and delivered).
type Sample struct {
	TS              float64 // true time, seconds
	ServerTick      uint32  // the server's own step counter
	ClientTick      uint32  // MoveInputs the client has sent
	AckTick         uint32  // last acknowledged tick the client has seen
	TickOffset      int     // server_tick_seen − client_tick − start_tick
	SendIntervalS   float64
	PendingInputs   int
	RTTMs           float64 // mean round trip of the downlink copies delivered in the window
	UpOWDMs         float64 // mean one-way delay of the uplink copies delivered in the window
	DownOWDMs       float64 // the same downlink
	UpJitterMs      float64 // RFC 3550 estimator; NaN until two packets
	DownJitterMs    float64
	PDVMs           float64 // mean of the downlink copies' delay minus the minimum so far, in the window
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

// Same reports whether a and b are the same sample, field for field, with
// no data (NaN) equal to no data (== on Samples says NaN ≠ NaN).
func Same(a, b *Sample) bool {
	x, y := *a, *b
	for _, p := range [...][2]*float64{{&x.RTTMs, &y.RTTMs}, {&x.UpOWDMs, &y.UpOWDMs}, {&x.DownOWDMs, &y.DownOWDMs},
		{&x.UpJitterMs, &y.UpJitterMs}, {&x.DownJitterMs, &y.DownJitterMs}, {&x.PDVMs, &y.PDVMs}} {
		if math.IsNaN(*p[0]) && math.IsNaN(*p[1]) {
			*p[0], *p[1] = 0, 0
		}
	}
	return x == y
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

// Write appends one row. t_s has as many decimals as its nanoseconds need
// (at least 3), so rows a sample period apart never print the same time; a
// NaN (no data) is an empty field.
func (c *CSVWriter) Write(s *Sample) error {
	b := c.buf[:0]
	f := func(v float64, prec int) {
		if !math.IsNaN(v) {
			b = strconv.AppendFloat(b, v, 'f', prec, 64)
		}
		b = append(b, ',')
	}
	u := func(v uint64) { b = strconv.AppendUint(b, v, 10); b = append(b, ',') }
	b = appendSeconds(b, s.TS)
	b = append(b, ',')
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

// appendSeconds writes t seconds with the decimals its nanoseconds need,
// at least 3: 1.05 is "1.050", 1.0001 is "1.0001".
func appendSeconds(b []byte, t float64) []byte {
	if math.IsNaN(t) || math.Abs(t) >= 9e6 { // beyond exact nanoseconds in a float64
		return strconv.AppendFloat(b, t, 'f', 3, 64)
	}
	ns := int64(math.Round(t * 1e9))
	dec, frac := 9, ns%1e9
	if frac < 0 {
		frac = -frac
	}
	for dec > 3 && frac%10 == 0 {
		frac /= 10
		dec--
	}
	return strconv.AppendFloat(b, float64(ns)/1e9, 'f', dec, 64)
}
