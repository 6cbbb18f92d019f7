package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// irttStamp is one clock reading of irtt's JSON: wall (Unix ns) and
// monotonic (ns since the process or test started); either may be absent.
type irttStamp struct {
	Wall      *int64 `json:"wall"`
	Monotonic *int64 `json:"monotonic"`
}

type irttPair struct {
	Receive irttStamp `json:"receive"`
	Send    irttStamp `json:"send"`
}

type irttRoundTrip struct {
	Seqno      *uint64         `json:"seqno"`
	Lost       json.RawMessage `json:"lost"`
	Timestamps struct {
		Client irttPair `json:"client"`
		Server irttPair `json:"server"`
	} `json:"timestamps"`
}

// ReadIRTT reads the JSON that `irtt client -o FILE` writes (irtt 0.9,
// json_format 1): every element of round_trips becomes an up packet (client
// send → server receive) and a down packet (server send → client receive).
//
// Times are the wall clocks when both ends give them, else the monotonic
// clocks (whose offset the fit removes with the rest). irtt's "lost" is
// false, true_up (lost on the way up: no down packet was sent), true_down
// (the server received it and its reply was lost: up arrived at an unknown
// time) or true (irtt could not tell: counted as lost up, the first leg).
// A lost down packet's send time is estimated from the latest reply's
// server-minus-client offset. The server needs timestamps (irtt client's
// default --tstamp=both); with a single stamp (send, receive or midpoint)
// it serves as both.
func ReadIRTT(file string, r io.Reader) (*Trace, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > MaxBytes {
		return nil, &Error{File: file, Want: fmt.Sprintf("larger than %d bytes: split the capture", MaxBytes)}
	}
	return readIRTT(file, data)
}

// readIRTT is ReadIRTT on the file's bytes.
func readIRTT(file string, data []byte) (*Trace, error) {
	// at turns a byte offset into the error's line and column.
	at := func(off int64, field, value, want string) error {
		off = min(max(off, 0), int64(len(data)))
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		col := int(off) - bytes.LastIndexByte(data[:off], '\n')
		return &Error{File: file, Line: line, Column: col, Field: field, Value: value, Want: want}
	}
	// jsonErr places a decoding error; base is where the value being
	// decoded starts (the decoder's offsets are relative to it).
	jsonErr := func(dec *json.Decoder, err error, base int64) error {
		off := dec.InputOffset()
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			return at(base+te.Offset, te.Field, te.Value, "a JSON "+te.Type.String())
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return at(off, "", "", "irtt's JSON ends early: truncated?")
		}
		return at(off, "", "", "not irtt's JSON: "+err.Error())
	}
	// A syntax error first, with its offset from the file's start (the
	// streaming decoder's offsets are not); into an empty struct, so the
	// check copies nothing.
	var whole struct{}
	if err := json.Unmarshal(data, &whole); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			if se.Offset >= int64(len(data)) {
				return nil, at(se.Offset, "", "", "irtt's JSON ends early: truncated?")
			}
			return nil, at(se.Offset-1, "", "", "not irtt's JSON: "+err.Error())
		}
		return nil, at(0, "", "", "not irtt's JSON (irtt client -o FILE writes an object): "+err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	expect := func(want json.Delim, what string) error {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return jsonErr(dec, err, 0)
		}
		if d, ok := tok.(json.Delim); !ok || d != want {
			return at(off, what, fmt.Sprint(tok), string(want)+" (the JSON of irtt client -o FILE)")
		}
		return nil
	}
	if err := expect('{', "document"); err != nil {
		return nil, err
	}
	b := newBuilder(file)
	found := false
	var offset int64 // server send minus client send of the latest reply
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(dec, err, 0)
		}
		key, _ := tok.(string)
		if key != "round_trips" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, jsonErr(dec, err, skipSpace(data, dec.InputOffset()))
			}
			continue
		}
		found = true
		if err := expect('[', "round_trips"); err != nil {
			return nil, err
		}
		for dec.More() {
			start := skipSpace(data, dec.InputOffset())
			var rt irttRoundTrip
			if err := dec.Decode(&rt); err != nil {
				return nil, jsonErr(dec, err, start)
			}
			bad := func(field, value, want string) error { return at(start, field, value, want) }
			if rt.Seqno == nil {
				return nil, bad("seqno", "", "every round trip has a seqno")
			}
			seq := *rt.Seqno
			lost := string(rt.Lost)
			if s, err := strconv.Unquote(lost); err == nil {
				lost = s
			}
			cs, sr, ss, cr := irttTimes(&rt)
			up, down := Packet{Seq: seq}, Packet{Seq: seq}
			hasDown := true
			switch lost {
			case "false":
				if cs == nil || sr == nil || ss == nil || cr == nil {
					return nil, bad("timestamps", "", "client send and receive and a server timestamp (irtt client --tstamp=both, the default)")
				}
				up.Send, down.Send = *cs, *ss
				var ok1, ok2 bool
				up.Delay, ok1 = diff(*sr, *cs)
				down.Delay, ok2 = diff(*cr, *ss)
				_, ok3 := diff(*ss, *cs)
				if !ok1 || !ok2 || !ok3 {
					return nil, bad("timestamps", "", "client and server times within 1000 h of each other")
				}
				offset = *ss - *cs
			case "true", "true_up", "true_down":
				if cs == nil {
					return nil, bad("timestamps.client.send", "", "the client's send time")
				}
				up.Send = *cs
				up.Status = Lost
				hasDown = false
				if lost == "true_down" {
					up.Status = Unmeasured
					hasDown = true
					down.Send, down.Status = *cs+offset, Lost
				}
			default:
				return nil, bad("lost", string(rt.Lost), "false, true, true_down or true_up")
			}
			if err := b.add(0, up, 0); err != nil {
				return nil, relocate(err, bad)
			}
			if hasDown {
				if err := b.add(1, down, 0); err != nil {
					return nil, relocate(err, bad)
				}
			}
		}
		if err := expect(']', "round_trips"); err != nil {
			return nil, err
		}
	}
	if err := expect('}', "document"); err != nil {
		return nil, err
	}
	if !found {
		return nil, &Error{File: file, Want: "no round_trips: not the JSON of `irtt client -o FILE`"}
	}
	return b.trace("irtt", twoClocks)
}

// skipSpace moves off past white space and a comma: to the next value.
func skipSpace(data []byte, off int64) int64 {
	for off >= 0 && off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,:"), data[off]) >= 0 {
		off++
	}
	return off
}

// relocate gives a builder's error the round trip's position.
func relocate(err error, bad func(field, value, want string) error) error {
	var e *Error
	if errors.As(err, &e) {
		return bad(e.Field, e.Value, e.Want)
	}
	return err
}

// irttTimes returns client send, server receive, server send and client
// receive, all wall or all monotonic (nil where absent).
func irttTimes(rt *irttRoundTrip) (cs, sr, ss, cr *int64) {
	c, s := &rt.Timestamps.Client, &rt.Timestamps.Server
	pick := func(wall bool) (cs, sr, ss, cr *int64) {
		get := func(st irttStamp) *int64 {
			if wall {
				return st.Wall
			}
			return st.Monotonic
		}
		cs, cr = get(c.Send), get(c.Receive)
		sr, ss = get(s.Receive), get(s.Send)
		if sr == nil {
			sr = ss
		}
		if ss == nil {
			ss = sr
		}
		return
	}
	// Wall clocks unless the server stamped monotonic time only.
	serverStamped := s.Receive != (irttStamp{}) || s.Send != (irttStamp{})
	serverWall := s.Receive.Wall != nil || s.Send.Wall != nil
	return pick(c.Send.Wall != nil && (serverWall || !serverStamped))
}

// diff is a − b when it lies within maxDelay.
func diff(a, b int64) (int64, bool) {
	d := a - b
	if (a > b) != (d > 0) || d > maxDelay || d < -maxDelay {
		return 0, false
	}
	return d, true
}
