package telemetry

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"jitterlab/motion"
)

// FuzzDecode: Decode never panics; it accepts only JSON (encoding/json
// agrees on every field it read), and what it accepts the encoder writes
// back to a datagram that decodes to the same bits; what it refuses gets an
// error of a known class in one short line, whatever the input's size (so
// its memory is bounded by the datagram's limit, not the input).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(frameJSON))
	f.Add([]byte(tickJSON))
	f.Add([]byte(`{"v":1,"kind":"tick","t\u005fs":1,"tick":2,"applied":0,"overwritten":0,"starved":0,"depth":0,"x":[{"y":null}]}`))
	f.Add([]byte(with(`"turn":-0.25`, `"turn":NaN`)))
	f.Add([]byte(with(`"frame":740`, `"frame":1e3`)))
	f.Add([]byte(strings.Repeat("[", 100)))
	for _, bad := range badOfEachClass {
		f.Add([]byte(bad))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Datagram
		err := Decode(data, &d)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Class >= NumClasses || e.Class == ClassOverRate {
				t.Fatalf("error %v (%T) of no decoder class", err, err)
			}
			if msg := e.Error(); strings.Contains(msg, "\n") || len(msg) > 300 {
				t.Fatalf("not one short line (%d bytes): %q", len(msg), msg)
			}
			return
		}
		if len(data) > MaxSize {
			t.Fatalf("accepted %d bytes", len(data))
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		var vals values
		switch d.Kind {
		case KindFrame:
			vals = frameValues(&d.Frame)
		case KindTick:
			vals = tickValues(&d.Tick)
		}
		if m["v"] != float64(Version) || m["kind"] != d.Kind.String() {
			t.Fatalf("v %v kind %v, decoded %s", m["v"], m["kind"], d.Kind)
		}
		for i, fl := range kindFields(d.Kind) {
			if m[fl.name] != vals[i] {
				t.Fatalf("%s: encoding/json reads %v, Decode %v", fl.name, m[fl.name], vals[i])
			}
		}
		roundTrip(t, &d)
	})
}

// roundTrip encodes d and checks it decodes to the same bits.
func roundTrip(t *testing.T, d *Datagram) {
	t.Helper()
	var b []byte
	var err error
	switch d.Kind {
	case KindFrame:
		b, err = AppendFrame(nil, &d.Frame)
	case KindTick:
		b, err = AppendTick(nil, &d.Tick)
	}
	if err != nil {
		t.Fatalf("encoding %+v: %v", d, err)
	}
	if len(b) > MaxSize {
		t.Fatalf("encoded %d bytes", len(b))
	}
	var back Datagram
	if err := Decode(b, &back); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	if !sameBits(d, &back) {
		t.Fatalf("round trip\n%+v\n%s\n%+v", *d, b, back)
	}
}

// sameBits compares two datagrams' fields bit for bit (so -0 ≠ 0).
func sameBits(a, b *Datagram) bool {
	if a.Kind != b.Kind {
		return false
	}
	va, vb := frameValues(&a.Frame), frameValues(&b.Frame)
	if a.Kind == KindTick {
		va, vb = tickValues(&a.Tick), tickValues(&b.Tick)
	}
	for i := range va {
		if math.Float64bits(va[i]) != math.Float64bits(vb[i]) {
			return false
		}
	}
	return true
}

// FuzzRoundTrip: decode∘encode is the identity on every datagram the
// encoder accepts; what it refuses, Decode refuses too.
func FuzzRoundTrip(f *testing.F) {
	f.Add(12.5, uint64(740), 1.0, -0.25, 3.5, -2.0, 90.0, 3.75, -2.125, 91.5, int64(-3), 0.015625, uint32(1200), int64(4), false)
	f.Add(7.25, uint64(448), 440.0, 3.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, int64(2), 0.0, uint32(0), int64(0), true)
	f.Add(math.Copysign(0, -1), uint64(1)<<53, math.NaN(), math.Inf(-1), 1e300, -1e-300, 5e-324, 0.1, 0.2, 0.30000000000000004, int64(-1e6), 60.0, uint32(math.MaxUint32), int64(1e6), false)
	f.Fuzz(func(t *testing.T, ts float64, n uint64, a, b, c, d, e, g, h, i float64, off int64, si float64, ack uint32, pend int64, tick bool) {
		var dg Datagram
		var enc []byte
		var err error
		if tick {
			dg = Datagram{Kind: KindTick, Tick: Tick{TS: ts, Tick: ack, Applied: n, Overwritten: uint64(off), Starved: uint64(pend), Depth: pend}}
			enc, err = AppendTick(nil, &dg.Tick)
		} else {
			dg = Datagram{Kind: KindFrame, Frame: Frame{TS: ts, Frame: n, Input: motion.Input{Throttle: a, Turn: b},
				Visible: motion.Pose{X: c, Y: d, Rot: e}, Predicted: motion.Pose{X: g, Y: h, Rot: i},
				TickOffset: off, SendIntervalS: si, AckTick: ack, PendingInputs: pend}}
			enc, err = AppendFrame(nil, &dg.Frame)
		}
		if err == nil {
			roundTrip(t, &dg)
			return
		}
		// Refused: write the same fields without the encoder's check and
		// ask the decoder.
		vals := frameValues(&dg.Frame)
		if tick {
			vals = tickValues(&dg.Tick)
		}
		raw := []byte(`{"v":1,"kind":"` + dg.Kind.String() + `"`)
		for k, fl := range kindFields(dg.Kind) {
			raw = append(raw, `,"`+fl.name+`":`...)
			switch x := vals[k]; {
			case math.IsNaN(x):
				raw = append(raw, "NaN"...)
			case math.IsInf(x, 0):
				raw = append(raw, fmtInf(x)...)
			default:
				b, _ := json.Marshal(x)
				raw = append(raw, b...)
			}
		}
		raw = append(raw, '}')
		var back Datagram
		derr := Decode(raw, &back)
		if derr == nil {
			t.Fatalf("the encoder refused %+v (%v); the decoder, given %s: %v", dg, err, raw, derr)
		}
		if enc != nil {
			t.Fatalf("refused, yet wrote %q", enc)
		}
	})
}

func fmtInf(x float64) string {
	if x > 0 {
		return "Infinity"
	}
	return "-Infinity"
}
