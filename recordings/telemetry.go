package recordings

import (
	"encoding/binary"
	"errors"
	"fmt"

	"jitterlab/sim"
	"jitterlab/telemetry"
)

// Telemetry coding. A proxy recording with --telemetry holds one record
// per telemetry datagram the proxy decoded: its arrival (ns since the
// relay started, 8 bytes little-endian), then the datagram as
// telemetry.AppendFrame or AppendTick writes it (docs/reference/telemetry.md,
// at most telemetry.MaxSize bytes). The datagram carries its own protocol
// version; a reader decodes it with telemetry.Decode. A recording written
// before telemetry records existed has none; a reader from before them
// reports a frame holding one as damaged ("unknown record type 6").

// Telemetry records one telemetry datagram that arrived at at (a proxy
// recording). Telemetry goes forward in at.
func (w *Writer) Telemetry(at sim.Time, d *telemetry.Datagram) error {
	if w.err != nil {
		return w.err
	}
	switch {
	case at < 0 || at >= maxAt:
		return fmt.Errorf("recording: telemetry at %v: allowed 0 to %v", at, sim.Time(maxAt))
	case at < w.lastTel || at < w.floor:
		return fmt.Errorf("recording: telemetry at %v after a record at %v: telemetry goes forward in time", at, max(w.lastTel, w.floor))
	}
	// Roll first: a flush writes its blocks through w.scratch.
	if w.roll(at); w.err != nil {
		return w.err
	}
	b := binary.LittleEndian.AppendUint64(w.scratch[:0], uint64(at))
	var err error
	switch d.Kind {
	case telemetry.KindFrame:
		b, err = telemetry.AppendFrame(b, &d.Frame)
	case telemetry.KindTick:
		b, err = telemetry.AppendTick(b, &d.Tick)
	default:
		err = fmt.Errorf("a telemetry datagram of kind %d", d.Kind)
	}
	w.scratch = b
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	w.lastTel = at
	w.ntel++
	w.record(recTelemetry, at, b)
	return nil
}

// decodeTelemetry reads a telemetry record into d and returns its time.
func decodeTelemetry(b []byte, d *telemetry.Datagram) (sim.Time, error) {
	if len(b) < 8 {
		return 0, errors.New("short telemetry record")
	}
	at := sim.Time(binary.LittleEndian.Uint64(b))
	if at < 0 || at >= maxAt {
		return 0, errors.New("telemetry record time out of range")
	}
	*d = telemetry.Datagram{} // Decode sets only its kind's fields
	if err := telemetry.Decode(b[8:], d); err != nil {
		return 0, fmt.Errorf("telemetry record: %v", err)
	}
	return at, nil
}
