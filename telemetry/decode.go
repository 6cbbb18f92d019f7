package telemetry

import (
	"bytes"
	"math"
	"strconv"
)

// names are the keys the decoder knows: "v", "kind", then every field's
// name once; nameIndex is the inverse, and fieldName[k][i] is the index of
// the name of kind k's i-th field.
var names, nameIndex, fieldName = func() ([]string, map[string]int, [3][]int) {
	ns := []string{"v", "kind"}
	idx := map[string]int{"v": nameV, "kind": nameKind}
	var byKind [3][]int
	for _, k := range []Kind{KindFrame, KindTick} {
		for _, f := range kindFields(k) {
			if _, ok := idx[f.name]; !ok {
				idx[f.name] = len(ns)
				ns = append(ns, f.name)
			}
			byKind[k] = append(byKind[k], idx[f.name])
		}
	}
	return ns, idx, byKind
}()

// The indexes of "v" and "kind" in names.
const (
	nameV    = 0
	nameKind = 1
)

// maxNames bounds the known keys (the decoder's array of spans).
const maxNames = 32

// maxDepth bounds how deep an ignored value may nest.
const maxDepth = 32

// span is where a known key's value lies in the datagram, and its JSON type
// ('"' string, '0' number, 'l' true/false/null, '{' object, '[' array).
type span struct {
	start, end int
	typ        byte
	set        bool
}

// Decode reads one datagram into d, which it leaves as it was on error.
// It refuses, with an [*Error], a datagram over [MaxSize] bytes, one that is
// not a single JSON object, a "v" other than [Version], a "kind" other than
// "frame" or "tick", and a field of the kind that is missing, given twice,
// of the wrong type, not finite (NaN, Infinity, as some writers emit them)
// or outside its range. Keys it does not know are ignored, whatever their
// value, once checked as JSON.
func Decode(b []byte, d *Datagram) error {
	if len(b) > MaxSize {
		return errorf(ClassTooLong, "", "datagram of %d bytes or more: at most %d", len(b), MaxSize)
	}
	var spans [maxNames]span
	s := scanner{b: b}
	if err := s.object(&spans); err != nil {
		return err
	}
	v := spans[nameV]
	switch raw := b[v.start:v.end]; {
	case !v.set:
		return errorf(ClassMissing, "v", `no "v": every datagram says its version, "v":%d`, Version)
	case v.typ != '0' || string(raw) != strconv.Itoa(Version):
		return errorf(ClassVersion, "v", `"v" %s: this lab reads version %d`, quote(raw), Version)
	}
	k := spans[nameKind]
	var kind Kind
	switch raw := b[k.start:k.end]; {
	case !k.set:
		return errorf(ClassMissing, "kind", `no "kind": "frame" or "tick"`)
	case string(raw) == `"frame"`:
		kind = KindFrame
	case string(raw) == `"tick"`:
		kind = KindTick
	default:
		return errorf(ClassKind, "kind", `"kind" %s: "frame" or "tick"`, quote(raw))
	}
	var vals values
	for i, f := range kindFields(kind) {
		sp := spans[fieldName[kind][i]]
		if !sp.set {
			return errorf(ClassMissing, f.name, "no %q: a %s datagram of version %d carries every one of its fields (docs/reference/telemetry.md)", f.name, kind, Version)
		}
		x, err := f.parse(b[sp.start:sp.end], sp.typ)
		if err != nil {
			return err
		}
		vals[i] = x
	}
	d.Kind = kind
	switch kind {
	case KindFrame:
		d.Frame = vals.frame()
	case KindTick:
		d.Tick = vals.tick()
	}
	return nil
}

// notFinite reports whether a string value's text, quotes included, is
// one of the spellings of NaN and the infinities.
func notFinite(raw []byte) bool {
	raw = bytes.Trim(raw, `"`)
	for _, p := range nonFinite {
		if string(raw) == p {
			return true
		}
	}
	return false
}

// parse reads a field's value: raw is its JSON text, typ its JSON type.
func (f *field) parse(raw []byte, typ byte) (float64, error) {
	if typ == '"' && notFinite(raw) {
		return 0, errorf(ClassNotFinite, f.name, "%q %s: not a finite number; %s", f.name, quote(raw), f.allowed())
	}
	if typ != '0' {
		return 0, errorf(ClassType, f.name, "%q %s: %s", f.name, quote(raw), f.allowed())
	}
	var x float64
	if f.integer {
		if bytes.ContainsAny(raw, ".eE") {
			return 0, errorf(ClassType, f.name, "%q %s: %s, in digits", f.name, quote(raw), f.allowed())
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil { // beyond int64
			return 0, errorf(ClassRange, f.name, "%q %s: %s", f.name, quote(raw), f.allowed())
		}
		x = float64(n)
	} else {
		var err error
		if x, err = strconv.ParseFloat(string(raw), 64); err != nil { // beyond a float64: ±Inf
			return 0, errorf(ClassRange, f.name, "%q %s: %s", f.name, quote(raw), f.allowed())
		}
	}
	if err := f.check(x, raw); err != nil {
		return 0, err
	}
	return x, nil
}

// check refuses a value the field does not allow; raw is its text, or nil
// to format x.
func (f *field) check(x float64, raw []byte) *Error {
	if raw == nil {
		raw = strconv.AppendFloat(nil, x, 'g', -1, 64)
		if f.integer && math.Abs(x) < 1e21 {
			raw = strconv.AppendFloat(raw[:0], x, 'f', -1, 64)
		}
	}
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return errorf(ClassNotFinite, f.name, "%q %s: not a finite number; %s", f.name, quote(raw), f.allowed())
	case f.integer && x != math.Trunc(x):
		return errorf(ClassType, f.name, "%q %s: %s", f.name, quote(raw), f.allowed())
	case x < f.min || x > f.max:
		return errorf(ClassRange, f.name, "%q %s: %s", f.name, quote(raw), f.allowed())
	}
	return nil
}

// scanner reads one JSON object strictly (RFC 8259: no trailing commas,
// no leading zeros, no bare NaN), noting where the known keys' values lie.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) fail(what string) *Error {
	at := s.b[min(s.i, len(s.b)):]
	if len(at) == 0 {
		return errorf(ClassNotJSON, "", "not JSON: it ends early, %s", what)
	}
	return errorf(ClassNotJSON, "", "not JSON at byte %d (%s): %s", s.i, quote(at), what)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object reads the datagram: one object and nothing after it but space.
func (s *scanner) object(spans *[maxNames]span) *Error {
	s.ws()
	if s.peek() != '{' {
		return s.fail("a datagram is one JSON object, {...}")
	}
	s.i++
	s.ws()
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			s.ws()
			if s.peek() != '"' {
				return s.fail("expected a key in double quotes")
			}
			kstart := s.i
			if err := s.str(); err != nil {
				return err
			}
			key := s.b[kstart+1 : s.i-1]
			s.ws()
			if s.peek() != ':' {
				return s.fail("expected ':' after the key")
			}
			s.i++
			s.ws()
			idx, known := lookup(key)
			if known && idx >= 2 && s.bareNotFinite() {
				name := names[idx]
				return errorf(ClassNotFinite, name, "%q %s: not a finite number (JSON has no NaN or Infinity)", name, quote(s.token()))
			}
			vstart := s.i
			typ, err := s.value(0)
			if err != nil {
				return err
			}
			if known {
				if spans[idx].set {
					return errorf(ClassDuplicate, names[idx], "%q given twice: once each", names[idx])
				}
				spans[idx] = span{start: vstart, end: s.i, typ: typ, set: true}
			}
			s.ws()
			if s.peek() == ',' {
				s.i++
				continue
			}
			if s.peek() != '}' {
				return s.fail("expected ',' or '}' after a value")
			}
			s.i++
			break
		}
	}
	s.ws()
	if s.i != len(s.b) {
		return s.fail("something follows the object")
	}
	return nil
}

// lookup is a key's index in names, unescaping it if it has to.
func lookup(key []byte) (int, bool) {
	if bytes.IndexByte(key, '\\') >= 0 {
		var buf [32]byte
		k, ok := unescapeASCII(buf[:0], key)
		if !ok {
			return 0, false
		}
		key = k
	}
	i, ok := nameIndex[string(key)]
	return i, ok
}

// unescapeASCII decodes a checked string's escapes into dst; false when
// the result is not short ASCII (so no known key).
func unescapeASCII(dst, s []byte) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			i++
			switch s[i] {
			case 'u':
				n, _ := strconv.ParseUint(string(s[i+1:i+5]), 16, 16)
				if n >= 0x80 {
					return nil, false
				}
				c = byte(n)
				i += 4
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			default: // " \ /
				c = s[i]
			}
		}
		if c >= 0x80 || len(dst) == cap(dst) {
			return nil, false
		}
		dst = append(dst, c)
	}
	return dst, true
}

// nonFinite are the spellings of NaN and the infinities that writers emit
// for want of JSON ones (C#'s double.ToString, JavaScript, C's printf).
var nonFinite = [...]string{"NaN", "nan", "Infinity", "-Infinity", "+Infinity", "inf", "-inf", "+inf", "∞", "-∞"}

// bareNotFinite reports whether an unquoted NaN or infinity starts here.
func (s *scanner) bareNotFinite() bool {
	for _, p := range nonFinite {
		if bytes.HasPrefix(s.b[s.i:], []byte(p)) {
			return true
		}
	}
	return false
}

// token is the text from here to the next delimiter, for an error.
func (s *scanner) token() []byte {
	end := s.i
	for end < len(s.b) && bytes.IndexByte([]byte(",}] \t\r\n"), s.b[end]) < 0 {
		end++
	}
	return s.b[s.i:end]
}

// value reads any JSON value and returns its type.
func (s *scanner) value(depth int) (byte, *Error) {
	if depth > maxDepth {
		return 0, s.fail("nested deeper than " + strconv.Itoa(maxDepth))
	}
	switch c := s.peek(); {
	case c == '"':
		return '"', s.str()
	case c == '-' || '0' <= c && c <= '9':
		return '0', s.number()
	case c == '{':
		return '{', s.nested('}', depth)
	case c == '[':
		return '[', s.nested(']', depth)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
			s.i += len(lit)
			return 'l', nil
		}
	}
	return 0, s.fail("expected a value: a number, a string, an object, an array, true, false or null")
}

// nested reads an object (close '}') or an array (close ']') inside an
// ignored value.
func (s *scanner) nested(close byte, depth int) *Error {
	s.i++
	s.ws()
	if s.peek() == close {
		s.i++
		return nil
	}
	for {
		s.ws()
		if close == '}' {
			if s.peek() != '"' {
				return s.fail("expected a key in double quotes")
			}
			if err := s.str(); err != nil {
				return err
			}
			s.ws()
			if s.peek() != ':' {
				return s.fail("expected ':' after the key")
			}
			s.i++
			s.ws()
		}
		if _, err := s.value(depth + 1); err != nil {
			return err
		}
		s.ws()
		switch s.peek() {
		case ',':
			s.i++
		case close:
			s.i++
			return nil
		default:
			return s.fail("expected ',' or '" + string(close) + "'")
		}
	}
}

// str reads a string, quotes included.
func (s *scanner) str() *Error {
	s.i++ // the opening quote
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c < 0x20:
			return s.fail("a control character in a string")
		case c == '\\':
			s.i++
			switch s.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 1; k <= 4; k++ {
					if s.i+k >= len(s.b) || !isHex(s.b[s.i+k]) {
						return s.fail(`\u takes four hex digits`)
					}
				}
				s.i += 4
			default:
				return s.fail("an unknown escape in a string")
			}
		}
		s.i++
	}
	return s.fail("a string is not closed")
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() *Error {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		s.digits()
	default:
		return s.fail("a number needs a digit")
	}
	if s.peek() == '.' {
		s.i++
		if s.digits() == 0 {
			return s.fail("a decimal point needs a digit after it")
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if s.digits() == 0 {
			return s.fail("an exponent needs a digit")
		}
	}
	return nil
}
