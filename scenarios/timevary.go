package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"jitterlab/detmath"
)

// Oscillator varies one parameter periodically ([[oscillate]] in a
// scenario file):
//
//	[[oscillate]]
//	key = "up.latency"
//	period = "15s"
//	low = "40ms"            # sine and saw: numbers in the same unit; square: any two values
//	high = "114ms"
//	shape = "square"        # sine, square or saw
//	start = "12s"           # optional: the first period's start (default 0)
//	duty = 0.1              # square only: share of the period at high (default 0.5)
//	step = "100ms"          # sine and saw only: resolution (default period/50)
//
// At phase φ = ((t − start) mod period)/period the value is: sine,
// low + (high−low)·(1 − cos 2πφ)/2 (low at the start of each period, high
// at its middle); square, high for φ < duty, else low; saw,
// low + (high−low)·φ. A square wave changes exactly at start + k·period
// and start + (k + duty)·period; sine and saw are applied at every step
// from start (step divides the period), each only when the written value
// changes (3 decimals of the unit; integers stay integers). Before start
// the parameter keeps its other value.
type Oscillator struct {
	Key       string
	Period    time.Duration
	Low, High string
	Shape     string
	Start     time.Duration
	Duty      float64
	Step      time.Duration
	Line      int
	File      string

	low, high float64
	unit      string
	integer   bool
}

// Flap takes a direction down periodically ([[flap]]): the link loses
// every packet (dir.blackout = true) for down at start + k·period, then
// comes back. start defaults to period − down (up first); dir is link
// (both directions, the default), up or down.
//
//	[[flap]]
//	period = "30s"
//	down = "2s"
type Flap struct {
	Period, Down, Start time.Duration
	Dir                 string
	Line                int
	File                string
}

// OscillatorShapes lists the accepted shapes.
var OscillatorShapes = []string{"sine", "square", "saw"}

// MaxGenerated bounds the changes oscillators and flaps make over one run.
const MaxGenerated = 200000

// MinStep is the finest oscillator resolution.
const MinStep = time.Millisecond

var reNumber = regexp.MustCompile(`^([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))\s*([^0-9\s.+-]\S*)?$`)

// parseTimeVarying reads [[oscillate]] and [[flap]] entries into sc.
func parseTimeVarying(sc *Scenario, raw map[string]any, file string, lines lineIndex, check Checker, perr func(int, string, ...any) error) error {
	tables := func(name string) ([]map[string]any, error) {
		v, ok := raw[name]
		if !ok {
			return nil, nil
		}
		e, ok := v.([]map[string]any)
		if !ok {
			return nil, perr(lines.line(name), "%s: want [[%s]] entries", name, name)
		}
		return e, nil
	}
	entries, err := tables("oscillate")
	if err != nil {
		return err
	}
	for i, e := range entries {
		o, err := parseOscillator(e, check)
		line := lines.table("oscillate", i)
		if err != nil {
			return perr(line, "[[oscillate]] entry %d: %v", i+1, err)
		}
		o.Line, o.File = line, file
		sc.Oscillators = append(sc.Oscillators, o)
	}
	if entries, err = tables("flap"); err != nil {
		return err
	}
	for i, e := range entries {
		f, err := parseFlap(e)
		line := lines.table("flap", i)
		if err != nil {
			return perr(line, "[[flap]] entry %d: %v", i+1, err)
		}
		f.Line, f.File = line, file
		sc.Flaps = append(sc.Flaps, f)
	}
	return nil
}

// field reads a string, or a number written as a string.
func field(e map[string]any, k string) (string, bool) {
	switch x := e[k].(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}

func durationField(e map[string]any, k string, required bool, example string) (time.Duration, error) {
	s, ok := field(e, k)
	if !ok {
		if _, present := e[k]; present || required {
			return 0, fmt.Errorf("%s: want a duration such as %q", k, example)
		}
		return 0, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if s == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s %q: allowed a duration ≥ 0 such as %q", k, s, example)
	}
	return d, nil
}

func unknownKeys(e map[string]any, allowed ...string) error {
	for _, k := range sortedKeys(e) {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("unknown key %q: allowed %s", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func parseOscillator(e map[string]any, check Checker) (Oscillator, error) {
	var o Oscillator
	if err := unknownKeys(e, "key", "period", "low", "high", "shape", "start", "duty", "step"); err != nil {
		return o, err
	}
	var ok bool
	if o.Key, ok = e["key"].(string); !ok || o.Key == "" {
		return o, fmt.Errorf("key: want the parameter to vary, e.g. key = \"up.latency\"")
	}
	var err error
	if o.Period, err = durationField(e, "period", true, "15s"); err != nil {
		return o, err
	}
	if o.Period < 2*MinStep {
		return o, fmt.Errorf("period %v: allowed ≥ %v", o.Period, 2*MinStep)
	}
	if o.Start, err = durationField(e, "start", false, "12s"); err != nil {
		return o, err
	}
	if o.Shape, ok = e["shape"].(string); !ok || !slices.Contains(OscillatorShapes, o.Shape) {
		return o, fmt.Errorf("shape %v: allowed one of %s", e["shape"], strings.Join(OscillatorShapes, ", "))
	}
	for _, k := range []string{"low", "high"} {
		s, ok := field(e, k)
		if !ok {
			return o, fmt.Errorf("%s: want a value of %s such as \"40ms\"", k, o.Key)
		}
		if err := check(o.Key, s); err != nil {
			return o, fmt.Errorf("%s: %v", k, err)
		}
		if k == "low" {
			o.Low = s
		} else {
			o.High = s
		}
	}
	if o.Shape != "square" { // a square wave alternates any two values, numbers or not
		if o.low, o.high, o.unit, o.integer, err = numbers(o.Low, o.High); err != nil {
			return o, err
		}
	}
	o.Duty = 0.5
	if v, present := e["duty"]; present {
		d, isNum := number(v)
		if !isNum || !(d > 0 && d < 1) || o.Shape != "square" {
			return o, fmt.Errorf("duty %v: allowed a number in (0, 1), for shape = \"square\" only", v)
		}
		o.Duty = d
	}
	if o.Step, err = durationField(e, "step", false, "100ms"); err != nil {
		return o, err
	}
	if o.Shape == "square" {
		if o.Step != 0 {
			return o, fmt.Errorf("step: a square wave changes only at its edges; remove step")
		}
		return o, nil
	}
	if o.Step == 0 {
		o.Step = o.Period / 50
	}
	if o.Step < MinStep || o.Period%o.Step != 0 {
		return o, fmt.Errorf("step %v: allowed a duration ≥ %v that divides the period %v", o.Step, MinStep, o.Period)
	}
	return o, nil
}

// numbers splits "40ms" and "114ms" into their numbers and common unit.
func numbers(low, high string) (lo, hi float64, unit string, integer bool, err error) {
	var units [2]string
	var vals [2]float64
	integer = true
	for i, s := range []string{low, high} {
		m := reNumber.FindStringSubmatch(strings.TrimSpace(s))
		if m == nil {
			return 0, 0, "", false, fmt.Errorf("%q: an oscillator needs a number with an optional unit, such as 40ms, 2%% or 1.5mbit", s)
		}
		vals[i], _ = strconv.ParseFloat(m[1], 64)
		units[i] = m[2]
		if strings.Contains(m[1], ".") {
			integer = false
		}
	}
	switch {
	case units[0] == units[1]:
	case vals[0] == 0 && units[0] == "":
		units[0] = units[1]
	case vals[1] == 0 && units[1] == "":
		units[1] = units[0]
	default:
		return 0, 0, "", false, fmt.Errorf("low %q and high %q: write both in the same unit", low, high)
	}
	return vals[0], vals[1], units[0], integer, nil
}

func parseFlap(e map[string]any) (Flap, error) {
	var f Flap
	if err := unknownKeys(e, "period", "down", "start", "dir"); err != nil {
		return f, err
	}
	var err error
	if f.Period, err = durationField(e, "period", true, "30s"); err != nil {
		return f, err
	}
	if f.Down, err = durationField(e, "down", true, "2s"); err != nil {
		return f, err
	}
	if f.Down <= 0 || f.Down >= f.Period {
		return f, fmt.Errorf("down %v: allowed a duration in (0, period %v)", f.Down, f.Period)
	}
	f.Start = f.Period - f.Down
	if _, ok := e["start"]; ok {
		if f.Start, err = durationField(e, "start", true, "28s"); err != nil {
			return f, err
		}
	}
	f.Dir = "link"
	if v, ok := e["dir"]; ok {
		s, _ := v.(string)
		if s != "link" && s != "up" && s != "down" {
			return f, fmt.Errorf("dir %v: allowed link, up or down", v)
		}
		f.Dir = s
	}
	return f, nil
}

// value is the oscillator's value at t ≥ Start, as written to the key.
func (o Oscillator) value(t time.Duration) string {
	phase := float64((t-o.Start)%o.Period) / float64(o.Period)
	var v float64
	switch o.Shape {
	case "sine":
		_, cos := detmath.Sincos(2 * math.Pi * phase)
		v = o.low + float64((o.high-o.low)*(1-cos)/2)
	case "saw":
		v = o.low + float64((o.high-o.low)*phase)
	}
	var s string
	if o.integer {
		s = strconv.FormatInt(int64(math.Round(v)), 10)
	} else {
		s = strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 3, 64), "0"), ".")
	}
	return s + o.unit
}

// Generated expands the oscillators and flaps into timeline changes from 0
// to until (inclusive), merged by time with oscillators first, then flaps,
// each in file order. It fails when they would make more than MaxGenerated
// changes.
func (sc *Scenario) Generated(until time.Duration) ([]Change, error) {
	var out []Change
	add := func(at time.Duration, key, value string, line int, file string) error {
		if len(out) >= MaxGenerated {
			return &ParseError{File: file, Line: line, Msg: fmt.Sprintf("oscillators and flaps make more than %d changes over %v: lengthen their periods or steps, or shorten the run", MaxGenerated, until)}
		}
		out = append(out, Change{At: at, Set: []Assignment{{Key: key, Value: value, Line: line}}, Line: line, File: file})
		return nil
	}
	for _, o := range sc.Oscillators {
		if o.Shape == "square" {
			high := time.Duration(math.Round(o.Duty * float64(o.Period)))
			for t := o.Start; t <= until; t += o.Period {
				if err := add(t, o.Key, o.High, o.Line, o.File); err != nil {
					return nil, err
				}
				if t+high <= until {
					if err := add(t+high, o.Key, o.Low, o.Line, o.File); err != nil {
						return nil, err
					}
				}
			}
			continue
		}
		last := ""
		for t := o.Start; t <= until; t += o.Step {
			if v := o.value(t); v != last {
				if err := add(t, o.Key, v, o.Line, o.File); err != nil {
					return nil, err
				}
				last = v
			}
		}
	}
	for _, f := range sc.Flaps {
		key := f.Dir + ".blackout"
		for t := f.Start; t <= until; t += f.Period {
			if err := add(t, key, "true", f.Line, f.File); err != nil {
				return nil, err
			}
			if t+f.Down <= until {
				if err := add(t+f.Down, key, "false", f.Line, f.File); err != nil {
					return nil, err
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, nil
}

// String describes the oscillator in one line, as `lab scenarios -v` shows it.
func (o Oscillator) String() string {
	s := fmt.Sprintf("oscillate %s %s %s..%s, period %v from %v", o.Key, o.Shape, o.Low, o.High, o.Period, o.Start)
	if o.Shape == "square" {
		return s + fmt.Sprintf(", high for %v of each period", time.Duration(math.Round(o.Duty*float64(o.Period))))
	}
	return s + fmt.Sprintf(", step %v", o.Step)
}

// String describes the flap in one line.
func (f Flap) String() string {
	return fmt.Sprintf("flap %s: down %v every %v from %v", f.Dir, f.Down, f.Period, f.Start)
}
