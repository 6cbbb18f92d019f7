package telemetry

import (
	"runtime"
	"strings"
	"testing"

	"jitterlab/motion"
)

// frameJSON is a frame datagram as a game writes it by hand.
const frameJSON = `{"v":1,"kind":"frame","t_s":12.5,"frame":740,"throttle":1,"turn":-0.25,` +
	`"visible_x_m":3.5,"visible_y_m":-2,"visible_rot_deg":90,"predicted_x_m":3.75,"predicted_y_m":-2.125,"predicted_rot_deg":91.5,` +
	`"tick_offset":-3,"send_interval_s":0.015625,"ack_tick":1200,"pending_inputs":4}`

var frameWant = Frame{TS: 12.5, Frame: 740, Input: motion.Input{Throttle: 1, Turn: -0.25},
	Visible: motion.Pose{X: 3.5, Y: -2, Rot: 90}, Predicted: motion.Pose{X: 3.75, Y: -2.125, Rot: 91.5},
	TickOffset: -3, SendIntervalS: 0.015625, AckTick: 1200, PendingInputs: 4}

const tickJSON = `{"v":1,"kind":"tick","t_s":7.25,"tick":448,"applied":440,"overwritten":3,"starved":5,"depth":2}`

var tickWant = Tick{TS: 7.25, Tick: 448, Applied: 440, Overwritten: 3, Starved: 5, Depth: 2}

// with replaces the first occurrence of old in frameJSON.
func with(old, new string) string { return strings.Replace(frameJSON, old, new, 1) }

// Datagrams the decoder accepts, each read field for field.
func TestDecodeAccepts(t *testing.T) {
	cases := []struct {
		name, in string
		want     Datagram
	}{
		{"a frame", frameJSON, Datagram{Kind: KindFrame, Frame: frameWant}},
		{"a tick", tickJSON, Datagram{Kind: KindTick, Tick: tickWant}},
		{"fields in any order, space around", " {\n\t\"kind\" : \"tick\" , \"depth\":2,\"starved\":5,\"overwritten\":3,\"applied\":440,\"tick\":448,\"t_s\":7.25,\"v\":1 }\r\n",
			Datagram{Kind: KindTick, Tick: tickWant}},
		{"unknown fields of any type ignored", strings.Replace(tickJSON, `{"v":1`, `{"build":"1.2 \"beta\" \u00e9","extra":[1,{"a":[true,false,null]},-0.5e-3],"seed":{},"v":1`, 1),
			Datagram{Kind: KindTick, Tick: tickWant}},
		{"the other kind's fields ignored", strings.Replace(tickJSON, `"v":1`, `"v":1,"frame":"not read here","throttle":99`, 1),
			Datagram{Kind: KindTick, Tick: tickWant}},
		{"an escaped key is the key", strings.Replace(tickJSON, `"t_s"`, `"t\u005fs"`, 1), Datagram{Kind: KindTick, Tick: tickWant}},
		{"exponents and negative zero", with(`"visible_x_m":3.5`, `"visible_x_m":3.5E0`),
			Datagram{Kind: KindFrame, Frame: frameWant}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d Datagram
			if err := Decode([]byte(c.in), &d); err != nil {
				t.Fatal(err)
			}
			if d != c.want {
				t.Fatalf("decoded\n%+v\nwant\n%+v", d, c.want)
			}
		})
	}
}

// Every malformed class: a clear one-line error of that class naming the
// field and the value, and the datagram it was given left as it was.
func TestDecodeRefuses(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		class Class
		field string
		says  string // in the message
	}{
		{"too long", `{"v":1,"pad":"` + strings.Repeat("x", MaxSize) + `"}`, ClassTooLong, "", "1216 bytes or more: at most 1200"},
		{"empty", ``, ClassNotJSON, "", "ends early"},
		{"not an object", `[1,2]`, ClassNotJSON, "", `byte 0 ("[1,2]")`},
		{"a trailing comma", strings.Replace(tickJSON, `}`, `,}`, 1), ClassNotJSON, "", "expected a key"},
		{"two objects", tickJSON + tickJSON, ClassNotJSON, "", "something follows"},
		{"cut short", tickJSON[:40], ClassNotJSON, "", "ends early"},
		{"a leading zero", strings.Replace(tickJSON, `"depth":2`, `"depth":02`, 1), ClassNotJSON, "", `("2}")`},
		{"a bad escape in an ignored string", strings.Replace(tickJSON, `"v":1`, `"v":1,"x":"\q"`, 1), ClassNotJSON, "", "unknown escape"},
		{"a control character", strings.Replace(tickJSON, `"v":1`, "\"v\":1,\"x\":\"a\nb\"", 1), ClassNotJSON, "", "control character"},
		{"nested too deep", strings.Replace(tickJSON, `"v":1`, `"v":1,"x":`+strings.Repeat("[", 40)+strings.Repeat("]", 40), 1), ClassNotJSON, "", "deeper than 32"},
		{"no version", strings.Replace(tickJSON, `"v":1,`, ``, 1), ClassMissing, "v", `no "v"`},
		{"version 2", strings.Replace(tickJSON, `"v":1`, `"v":2`, 1), ClassVersion, "v", `"v" "2": this lab reads version 1`},
		{"version as a string", strings.Replace(tickJSON, `"v":1`, `"v":"1"`, 1), ClassVersion, "v", `"v" "\"1\""`},
		{"version 1.0", strings.Replace(tickJSON, `"v":1`, `"v":1.0`, 1), ClassVersion, "v", `"1.0"`},
		{"no kind", strings.Replace(tickJSON, `"kind":"tick",`, ``, 1), ClassMissing, "kind", `no "kind"`},
		{"an unknown kind", strings.Replace(tickJSON, `"tick",`, `"snapshot",`, 1), ClassKind, "kind", `"kind" "\"snapshot\"": "frame" or "tick"`},
		{"a missing field", strings.Replace(frameJSON, `"pending_inputs":4`, `"pendingInputs":4`, 1), ClassMissing, "pending_inputs",
			`no "pending_inputs": a frame datagram of version 1 carries every one of its fields`},
		{"a field twice", strings.Replace(tickJSON, `"depth":2`, `"depth":2,"depth":3`, 1), ClassDuplicate, "depth", `"depth" given twice`},
		{"a string for a number", with(`"throttle":1`, `"throttle":"1"`), ClassType, "throttle", `"throttle" "\"1\"": a number from -1 to 1`},
		{"null for a number", with(`"turn":-0.25`, `"turn":null`), ClassType, "turn", `"turn" "null"`},
		{"a fraction for a whole number", with(`"frame":740`, `"frame":740.5`), ClassType, "frame", `"frame" "740.5": a whole number from 0 to 9007199254740991, in digits`},
		{"an exponent for a whole number", with(`"frame":740`, `"frame":7.4e2`), ClassType, "frame", `in digits`},
		{"bare NaN", with(`"visible_x_m":3.5`, `"visible_x_m":NaN`), ClassNotFinite, "visible_x_m", `"visible_x_m" "NaN": not a finite number`},
		{"bare -Infinity", with(`"predicted_y_m":-2.125`, `"predicted_y_m":-Infinity`), ClassNotFinite, "predicted_y_m", `"-Infinity"`},
		{"quoted NaN", with(`"send_interval_s":0.015625`, `"send_interval_s":"NaN"`), ClassNotFinite, "send_interval_s", `"\"NaN\""`},
		{"C#'s infinity sign", with(`"turn":-0.25`, `"turn":∞`), ClassNotFinite, "turn", `"turn" "∞"`},
		{"beyond a double", with(`"visible_rot_deg":90`, `"visible_rot_deg":1e999`), ClassRange, "visible_rot_deg", `"1e999": a number from -1e+07 to 1e+07`},
		{"throttle beyond full", with(`"throttle":1`, `"throttle":7`), ClassRange, "throttle", `"throttle" "7": a number from -1 to 1`},
		{"a negative time", with(`"t_s":12.5`, `"t_s":-1`), ClassRange, "t_s", `"t_s" "-1": a number from 0 to 1e+09`},
		{"a position beyond the map", with(`"visible_y_m":-2`, `"visible_y_m":-2e6`), ClassRange, "visible_y_m", `"-2e6"`},
		{"a negative frame", with(`"frame":740`, `"frame":-1`), ClassRange, "frame", `"frame" "-1"`},
		{"a frame beyond 2^53", with(`"frame":740`, `"frame":9007199254740992`), ClassRange, "frame", `"9007199254740992"`},
		{"a frame beyond int64", with(`"frame":740`, `"frame":99999999999999999999`), ClassRange, "frame", `"99999999999999999999"`},
		{"an ack tick beyond uint32", with(`"ack_tick":1200`, `"ack_tick":4294967296`), ClassRange, "ack_tick", `from 0 to 4294967295`},
		{"a send interval of a minute and more", with(`"send_interval_s":0.015625`, `"send_interval_s":61`), ClassRange, "send_interval_s", `from 0 to 60`},
		{"a depth of millions", strings.Replace(tickJSON, `"depth":2`, `"depth":5000000`, 1), ClassRange, "depth", `"depth" "5000000": a whole number from 0 to 1000000`},
		{"a long bad value is cut", with(`"throttle":1`, `"throttle":"`+strings.Repeat("9", 100)+`"`), ClassType, "throttle", `9999"…: a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Datagram{Kind: KindTick, Tick: tickWant}
			err := Decode([]byte(c.in), &d)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("Decode(%s) = %v, want an *Error of class %s", c.in, err, c.class)
			}
			if e.Class != c.class || e.Field != c.field || !strings.Contains(e.Error(), c.says) {
				t.Fatalf("got class %q field %q: %v\nwant class %q field %q saying %s", e.Class, e.Field, e, c.class, c.field, c.says)
			}
			if strings.Contains(e.Error(), "\n") || len(e.Error()) > 200 {
				t.Fatalf("not one short line: %q", e)
			}
			if d != (Datagram{Kind: KindTick, Tick: tickWant}) {
				t.Fatalf("the datagram changed on error: %+v", d)
			}
		})
	}
	// Every class but the receiver's own is one a datagram can be refused in.
	seen := map[Class]bool{}
	for _, c := range cases {
		seen[c.class] = true
	}
	for cl := range Class(NumClasses) {
		if !seen[cl] && cl != ClassOverRate {
			t.Errorf("no case of class %q", cl)
		}
	}
}

// An accepted datagram costs no allocation; a refused one a few (its
// error), whatever its size.
func TestDecodeAllocations(t *testing.T) {
	var d Datagram
	for _, in := range [][]byte{[]byte(frameJSON), []byte(tickJSON)} {
		if n := testing.AllocsPerRun(100, func() { Decode(in, &d) }); n != 0 {
			t.Errorf("%d allocations decoding %s", int(n), in)
		}
	}
	// The error quotes at most 40 bytes of the value: refusing a value of
	// 1,000 bytes allocates no more than one of 50, and less than the value.
	refuse := func(size int) (allocs, bytes float64) {
		bad := []byte(strings.Replace(tickJSON, `"depth":2`, `"depth":"`+strings.Repeat("9", size)+`"`, 1))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		allocs = testing.AllocsPerRun(100, func() { Decode(bad, &d) })
		runtime.ReadMemStats(&after)
		return allocs, float64(after.TotalAlloc-before.TotalAlloc) / 101
	}
	shortAllocs, shortBytes := refuse(50)
	longAllocs, longBytes := refuse(1000)
	if longAllocs > 16 || longBytes >= 1000 || longBytes > shortBytes+100 {
		t.Errorf("refusing a value of 50 bytes: %v allocations, %.0f bytes; of 1,000: %v, %.0f (want at most 16, and fewer bytes than the value)",
			shortAllocs, shortBytes, longAllocs, longBytes)
	}
}
