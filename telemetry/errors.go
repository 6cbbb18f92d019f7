package telemetry

import (
	"fmt"
	"strconv"
)

// Class is why a datagram was refused. Each has a short name the counts
// print under.
type Class uint8

const (
	ClassTooLong   Class = iota // more than MaxSize bytes
	ClassNotJSON                // not one JSON object
	ClassVersion                // a "v" this package does not read
	ClassKind                   // a "kind" other than "frame" or "tick"
	ClassMissing                // a field the kind requires is absent
	ClassDuplicate              // a field given twice
	ClassType                   // a string where a number goes, a fraction where a whole number goes
	ClassNotFinite              // NaN or ±Infinity
	ClassRange                  // a number outside what the field allows
	ClassOverRate               // more datagrams than the receiver decodes per second (not decoded)
	NumClasses     = iota
)

var classNames = [NumClasses]string{"too long", "not JSON", "version", "kind", "missing field", "field twice",
	"wrong type", "not finite", "out of range", "over the rate"}

func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return "class " + strconv.Itoa(int(c))
}

// Error is a refused datagram: its class, the field (if one is to blame),
// and a one-line message naming the value and what is allowed.
type Error struct {
	Class Class
	Field string // "" when no one field is to blame (too long, not JSON)
	Msg   string
}

func (e *Error) Error() string { return "telemetry: " + e.Msg }

// maxQuoted bounds how much of a bad value an error quotes.
const maxQuoted = 40

// quote is a value as an error shows it: Go-quoted, cut at maxQuoted bytes.
func quote(b []byte) string {
	if len(b) > maxQuoted {
		return strconv.Quote(string(b[:maxQuoted])) + "…"
	}
	return strconv.Quote(string(b))
}

func errorf(c Class, field, format string, args ...any) *Error {
	return &Error{Class: c, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// allowed says what a field takes, as its errors and the reference say it.
func (f *field) allowed() string {
	if f.integer {
		return fmt.Sprintf("a whole number from %.0f to %.0f", f.min, f.max)
	}
	return fmt.Sprintf("a number from %g to %g", f.min, f.max)
}
