package scenarios

import (
	"bytes"
	"fmt"
)

// Limits the guard checks before the TOML decoder sees a file: deeply
// nested tables, arrays, inline tables or dotted keys make the decoder use
// memory or stack without bound (BurntSushi/toml issues 496 and 497), long
// before the 1 MB size limit. A real scenario file has a few dozen keys
// and nests three or four levels.
const (
	maxNesting   = 16    // brackets ([ and {) open at once
	maxKeyParts  = 16    // parts of one dotted key or table name: a.b.c is 3
	maxGuardKeys = 10000 // key = value pairs in a file
)

// guard scans TOML text (strings and comments skipped) and refuses it, with
// the line, when it nests deeper or holds more keys than the limits above.
// It only counts: the decoder still checks the syntax.
func guard(file string, data []byte) error {
	perr := func(line int, format string, a ...any) error {
		return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	depth, keys, dots, line := 0, 0, 0, 1
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
			dots = 0
		case '#':
			if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
				i += j - 1
			} else {
				i = len(data)
			}
		case '"', '\'':
			end, newlines := skipString(data, i)
			i, line = end, line+newlines
		case '[', '{':
			depth++
			dots = 0
			if depth > maxNesting {
				return perr(line, "tables, arrays and inline tables nest more than %d deep: at most %d allowed", maxNesting, maxNesting)
			}
		case ']', '}':
			depth = max(depth-1, 0)
			dots = 0
		case '=':
			keys++
			dots = 0
			if keys > maxGuardKeys {
				return perr(line, "more than %d key = value pairs (each timeline entry's at = is one): at most %d allowed in a file", maxGuardKeys, maxGuardKeys)
			}
		case ',':
			dots = 0
		case '.':
			dots++
			if dots >= maxKeyParts {
				return perr(line, "a dotted key or table name with more than %d parts: at most %d allowed", maxKeyParts, maxKeyParts)
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string that starts
// at data[i] (a quote), and the newlines inside it. Basic strings ("…",
// """…""") have backslash escapes; literal strings ('…', ”'…”') do not.
// An unterminated string runs to the end of its line (single) or of the
// data (multi-line); the decoder reports it.
func skipString(data []byte, i int) (end, newlines int) {
	q := data[i]
	basic := q == '"'
	triple := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	for ; j < len(data); j++ {
		switch c := data[j]; {
		case c == '\\' && basic:
			if j+1 < len(data) && data[j+1] == '\n' {
				newlines++
			}
			j++
		case c == '\n':
			if !triple {
				return j - 1, newlines
			}
			newlines++
		case c == q && !triple:
			return j, newlines
		case c == q && j+2 < len(data) && data[j+1] == q && data[j+2] == q:
			// A closing """ may be preceded by one or two quotes of
			// the content: the string ends at the last quote of the run.
			end := j + 2
			for k := 0; k < 2 && end+1 < len(data) && data[end+1] == q; k++ {
				end++
			}
			return end, newlines
		}
	}
	return len(data) - 1, newlines
}
