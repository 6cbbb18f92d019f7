package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"jitterlab/internal/files"
	"jitterlab/param"
)

// Assignment is one parameter setting, key=value in the registry's
// spelling, with the line it came from (0 if unknown).
type Assignment struct {
	Key, Value string
	Line       int
}

// Join writes assignments as a command line does: "key=value key=value".
func Join(set []Assignment) string {
	words := make([]string, len(set))
	for i, a := range set {
		words[i] = a.Key + "=" + a.Value
	}
	return strings.Join(words, " ")
}

// Change is one timeline entry: assignments applied at a time after start.
type Change struct {
	At   time.Duration
	Set  []Assignment
	Line int
	File string // the file the entry is in (a base's, for inherited entries)
}

// Scenario is parameters, a timeline of changes, an input script, a
// duration and a seed. Zero Duration and HasSeed false leave the caller's.
type Scenario struct {
	Name        string
	Description string
	Source      string // where the numbers come from
	File        string // the file it was read from, or "builtin/NAME.toml"
	Base        string // the scenario it extends, already merged in
	// Files are the files read for it: its own (not a built-in) and its
	// bases', in the order read.
	Files []string

	Params   []Assignment // base's first, then this file's, in order
	Timeline []Change     // sorted by At (stable)
	Script   string       // a built-in script name, or "" when Segments are set
	Segments []Segment    // a custom script
	Duration time.Duration
	Seed     uint64
	HasSeed  bool

	// Oscillators and Flaps vary parameters periodically (timevary.go);
	// [Scenario.Generated] expands them into changes.
	Oscillators []Oscillator
	Flaps       []Flap

	// Seeds are the seeds 'lab check' runs the file on, as written
	// (seeds = "1-20"; "" leaves the default) on line SeedsLine, and
	// Asserts its [[assert]] entries in file order (assert.go). Neither is
	// inherited from a base: a gate belongs to its file.
	Seeds     string
	SeedsLine int
	Asserts   []Assert

	// Pinned are the keys that overrides (--set) pin for the whole run: the
	// lab drops the timeline's and the generators' changes to them.
	Pinned []string
}

// DefaultName is a scenario's name when its file gives none: the file's
// base name without its extension.
func DefaultName(file string) string {
	return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
}

// Checker validates one assignment against the parameter registry (the lab
// provides it; this package does not know the keys). Its error names the
// key, the value and what is allowed.
type Checker func(key, value string) error

// reserved top-level keys; every other key is a parameter.
var reserved = []string{"name", "description", "source", "base", "duration", "seed", "script", "segments", "timeline", "oscillate", "flap", "seeds", "assert"}

// maxFileSize bounds a scenario file.
const maxFileSize = 1 << 20

// ParseError is a problem in a scenario file, with its place.
type ParseError struct {
	File string
	Line int // 0 if unknown
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Parse reads a scenario from TOML text. file names it in errors; base
// scenarios are resolved with resolve (nil: none allowed).
//
//	name = "my-handover"            # optional; defaults to the file name
//	description = "…"
//	source = "…"                    # where the numbers come from
//	base = "mobile-4g"              # optional: start from another scenario
//	duration = "60s"
//	seed = 42
//	seeds = "1-20"                  # lab check: the seeds a gate runs
//	script = "zigzag"               # or [[segments]] below
//	link.latency = "100ms"          # any registry key, dotted or as tables
//	[client]
//	sender = "accumulator"
//	[[segments]]
//	duration = "2s"
//	turn = 0.5
//	throttle = 1
//	[[timeline]]
//	at = "30s"
//	up.latency = "300ms"
//	[[assert]]                      # lab check: a bound on a figure ([Assert])
//	metric = "judder_mps"
//	max = 0.30
func Parse(file string, data []byte, check Checker) (*Scenario, error) {
	return parse(file, data, check, 0, true)
}

// ParseInline is [Parse] for text that is not a file of the user's (a
// request's body): a base is not resolved, so the text never makes the
// lab open a file. The Scenario's Base says what the text named; its
// parameters and timeline are the text's own.
func ParseInline(file string, data []byte, check Checker) (*Scenario, error) {
	return parse(file, data, check, 0, false)
}

// parse reads a scenario; resolveBase says whether its base is read.
func parse(file string, data []byte, check Checker, depth int, resolveBase bool) (*Scenario, error) {
	perr := func(line int, format string, a ...any) error {
		return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	if len(data) > maxFileSize {
		return nil, perr(0, "file is %d bytes; allowed at most %d", len(data), maxFileSize)
	}
	if err := guard(file, data); err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var te toml.ParseError
		if errors.As(err, &te) {
			return nil, perr(te.Position.Line, "%s", te.Message)
		}
		return nil, perr(0, "%v", err)
	}
	lines := indexLines(string(data))
	sc := &Scenario{Name: DefaultName(file), File: file}

	str := func(key string) (string, error) {
		v, ok := raw[key]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", perr(lines.line(key), "%s: want a string, got %v", key, v)
		}
		return s, nil
	}
	var err error
	if s, err := str("name"); err != nil {
		return nil, err
	} else if s != "" {
		sc.Name = s
	}
	if sc.Description, err = str("description"); err != nil {
		return nil, err
	}
	if sc.Source, err = str("source"); err != nil {
		return nil, err
	}
	if sc.Base, err = str("base"); err != nil {
		return nil, err
	}
	if s, err := str("duration"); err != nil {
		return nil, err
	} else if s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, perr(lines.line("duration"), "duration %q: allowed a duration > 0 such as 60s or 10m", s)
		}
		sc.Duration = d
	}
	if v, ok := raw["seed"]; ok {
		n, ok := v.(int64)
		if !ok || n < 0 {
			return nil, perr(lines.line("seed"), "seed %v: allowed an integer ≥ 0", v)
		}
		sc.Seed, sc.HasSeed = uint64(n), true
	}
	if sc.Script, err = str("script"); err != nil {
		return nil, err
	}
	if sc.Script != "" && !slices.Contains(ScriptNames, sc.Script) {
		return nil, perr(lines.line("script"), "script %q: allowed one of %s, or [[segments]]", sc.Script, strings.Join(ScriptNames, ", "))
	}
	if v, ok := raw["segments"]; ok {
		if sc.Script != "" {
			return nil, perr(lines.line("segments"), "both script and [[segments]]: choose one")
		}
		if sc.Segments, err = parseSegments(v, lines, perr); err != nil {
			return nil, err
		}
	}

	// Parameters: every other key, flattened to its dotted registry key.
	var params []Assignment
	for _, k := range sortedKeys(raw) {
		if slices.Contains(reserved, k) {
			continue
		}
		if _, isTable := raw[k].(map[string]any); !isTable {
			// Every parameter is dotted (link.latency), so an undotted
			// top-level key is a misspelt reserved one or no key at all.
			line := lines.line(k)
			if line == 0 {
				line = lines.table(k, 0)
			}
			if similar := param.Similar(k, reserved); len(similar) > 0 {
				return nil, perr(line, "unknown key %q; did you mean %s?", k, strings.Join(similar, " or "))
			}
			return nil, perr(line, "unknown key %q: allowed %s, or a parameter such as link.latency = \"80ms\"", k, strings.Join(reserved, ", "))
		}
		if err := flatten(k, raw[k], "", lines, &params, perr); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(params, func(i, j int) bool { return params[i].Line < params[j].Line })
	for _, a := range params {
		if err := check(a.Key, a.Value); err != nil {
			return nil, perr(a.Line, "%v", err)
		}
	}

	var timeline []Change
	if v, ok := raw["timeline"]; ok {
		entries, ok := v.([]map[string]any)
		if !ok {
			return nil, perr(lines.line("timeline"), "timeline: want [[timeline]] entries, each with at = \"30s\" and parameters")
		}
		for i, e := range entries {
			prefix := fmt.Sprintf("timeline[%d].", i)
			line := lines.line(prefix + "at")
			raw, given := e["at"]
			at, ok := raw.(string)
			if !ok && given {
				return nil, perr(line, "timeline entry %d: at = %v: allowed a duration in quotes such as at = \"30s\"", i+1, raw)
			}
			if !ok {
				return nil, perr(lines.table("timeline", i), "timeline entry %d: want at = \"30s\"", i+1)
			}
			d, err := time.ParseDuration(at)
			if err != nil || d < 0 {
				return nil, perr(line, "timeline entry %d: at %q: allowed a duration ≥ 0 such as 30s", i+1, at)
			}
			if len(timeline) > 0 && d < timeline[len(timeline)-1].At {
				return nil, perr(line, "timeline entry %d at %v comes before the previous one at %v: entries must be in time order", i+1, d, timeline[len(timeline)-1].At)
			}
			ch := Change{At: d, Line: line, File: file}
			for _, k := range sortedKeys(e) {
				if k == "at" {
					continue
				}
				if err := flatten(k, e[k], prefix, lines, &ch.Set, perr); err != nil {
					return nil, err
				}
			}
			if len(ch.Set) == 0 {
				return nil, perr(line, "timeline entry %d at %v changes nothing", i+1, d)
			}
			sort.SliceStable(ch.Set, func(i, j int) bool { return ch.Set[i].Line < ch.Set[j].Line })
			for _, a := range ch.Set {
				if err := check(a.Key, a.Value); err != nil {
					return nil, perr(a.Line, "%v", err)
				}
			}
			timeline = append(timeline, ch)
		}
	}

	sc.Params, sc.Timeline = params, timeline
	if v, ok := raw["seeds"]; ok {
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, perr(lines.line("seeds"), "seeds = %v: allowed seeds in quotes written like \"1-20\" or \"1,4,9\"", v)
		}
		sc.Seeds, sc.SeedsLine = s, lines.line("seeds")
	}
	if sc.Asserts, err = parseAsserts(raw, file, lines, perr); err != nil {
		return nil, err
	}
	if err := parseTimeVarying(sc, raw, file, lines, check, perr); err != nil {
		return nil, err
	}
	if sc.Base != "" && resolveBase {
		if err := sc.mergeBase(file, check, depth); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// mergeBase puts the base scenario's parameters before this one's, merges
// the timelines by time, and inherits what this one leaves unset.
func (sc *Scenario) mergeBase(file string, check Checker, depth int) error {
	if depth >= 8 {
		return &ParseError{File: file, Msg: fmt.Sprintf("base %q: bases nest more than 8 deep (a cycle?)", sc.Base)}
	}
	var base *Scenario
	var err error
	if data, ok := builtinText(sc.Base); ok {
		base, err = parse("builtin/"+sc.Base+".toml", data, check, depth+1, true)
	} else if strings.HasSuffix(sc.Base, ".toml") {
		path := sc.Base
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(file), path)
		}
		base, err = loadFile(path, check, depth+1)
	} else {
		return &ParseError{File: file, Msg: fmt.Sprintf("base %q: no such built-in scenario and not a .toml file%s ('lab scenarios' lists them)", sc.Base, param.DidYouMean(sc.Base, builtinOrder))}
	}
	if err != nil {
		return err
	}
	sc.Files = append(sc.Files, base.Files...)
	sc.Params = append(slices.Clone(base.Params), sc.Params...)
	tl := append(slices.Clone(base.Timeline), sc.Timeline...)
	sort.SliceStable(tl, func(i, j int) bool { return tl[i].At < tl[j].At })
	sc.Timeline = tl
	sc.Oscillators = append(slices.Clone(base.Oscillators), sc.Oscillators...)
	sc.Flaps = append(slices.Clone(base.Flaps), sc.Flaps...)
	if sc.Script == "" && sc.Segments == nil {
		sc.Script, sc.Segments = base.Script, base.Segments
	}
	if sc.Duration == 0 {
		sc.Duration = base.Duration
	}
	if !sc.HasSeed {
		sc.Seed, sc.HasSeed = base.Seed, base.HasSeed
	}
	if sc.Source == "" {
		sc.Source = base.Source
	}
	return nil
}

func parseSegments(v any, lines lineIndex, perr func(int, string, ...any) error) ([]Segment, error) {
	entries, ok := v.([]map[string]any)
	if !ok || len(entries) == 0 {
		return nil, perr(lines.line("segments"), "segments: want [[segments]] entries with duration, turn and throttle")
	}
	var segs []Segment
	for i, e := range entries {
		line := lines.table("segments", i)
		var g Segment
		for k, val := range e {
			switch k {
			case "duration":
				s, _ := val.(string)
				d, err := time.ParseDuration(s)
				if err != nil || d <= 0 {
					return nil, perr(line, "segment %d: duration %v: allowed a duration > 0 such as 2s", i+1, val)
				}
				g.Dur = d
			case "turn", "throttle":
				f, ok := number(val)
				if !ok || f < -1 || f > 1 {
					return nil, perr(line, "segment %d: %s %v: allowed a number in [-1, 1]", i+1, k, val)
				}
				if k == "turn" {
					g.Turn = f
				} else {
					g.Throttle = f
				}
			default:
				return nil, perr(line, "segment %d: unknown key %q: allowed duration, turn, throttle", i+1, k)
			}
		}
		if g.Dur == 0 {
			return nil, perr(line, "segment %d: missing duration", i+1)
		}
		segs = append(segs, g)
	}
	if _, err := NewSegments(segs); err != nil {
		return nil, perr(lines.line("segments"), "%v", err)
	}
	return segs, nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// flatten turns a TOML value under key into dotted assignments.
func flatten(key string, v any, prefix string, lines lineIndex, out *[]Assignment, perr func(int, string, ...any) error) error {
	line := lines.line(prefix + key)
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if err := flatten(key+"."+k, x[k], prefix, lines, out, perr); err != nil {
				return err
			}
		}
		return nil
	case string:
		*out = append(*out, Assignment{Key: key, Value: x, Line: line})
	case int64:
		*out = append(*out, Assignment{Key: key, Value: strconv.FormatInt(x, 10), Line: line})
	case float64:
		*out = append(*out, Assignment{Key: key, Value: strconv.FormatFloat(x, 'g', -1, 64), Line: line})
	case bool:
		*out = append(*out, Assignment{Key: key, Value: strconv.FormatBool(x), Line: line})
	default:
		return perr(line, "%s: a %T is not a parameter value; write a string such as \"80ms\", a number or a boolean", key, v)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lineIndex maps dotted keys to the line that assigns them. Keys inside the
// i-th [[timeline]] are stored as "timeline[i].key" (of [[assert]],
// "assert[i].key"); table headers as
// "[name]" and "[[name]]#i".
type lineIndex map[string]int

var (
	reTable    = regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9_.\-"]+)\s*\]`)
	reArray    = regexp.MustCompile(`^\s*\[\[\s*([A-Za-z0-9_.\-"]+)\s*\]\]`)
	reKeyValue = regexp.MustCompile(`^\s*([A-Za-z0-9_.\-"]+)\s*=`)
)

func indexLines(text string) lineIndex {
	idx := lineIndex{}
	table, arrayCount := "", map[string]int{}
	for n, l := range strings.Split(text, "\n") {
		line := n + 1
		if m := reArray.FindStringSubmatch(l); m != nil {
			name := strings.ReplaceAll(m[1], `"`, "")
			i := arrayCount[name]
			arrayCount[name]++
			idx[fmt.Sprintf("[[%s]]#%d", name, i)] = line
			if name == "timeline" || name == "assert" {
				table = fmt.Sprintf("%s[%d].", name, i)
			} else {
				table = name + "."
			}
			continue
		}
		if m := reTable.FindStringSubmatch(l); m != nil {
			table = strings.ReplaceAll(m[1], `"`, "") + "."
			continue
		}
		if m := reKeyValue.FindStringSubmatch(l); m != nil {
			k := table + strings.ReplaceAll(m[1], `"`, "")
			if _, ok := idx[k]; !ok {
				idx[k] = line
			}
		}
	}
	return idx
}

func (idx lineIndex) line(key string) int { return idx[key] }

func (idx lineIndex) table(name string, i int) int { return idx[fmt.Sprintf("[[%s]]#%d", name, i)] }

//go:embed builtin/*.toml
var builtinFS embed.FS

func builtinText(name string) ([]byte, bool) {
	if strings.ContainsAny(name, "/\\") {
		return nil, false
	}
	b, err := builtinFS.ReadFile("builtin/" + name + ".toml")
	return b, err == nil
}

// BuiltinText returns the TOML text of a built-in scenario.
func BuiltinText(name string) ([]byte, bool) { return builtinText(name) }

// BuiltinNames lists the built-in scenarios in listing order: link presets
// by source, then the lab scenarios.
func BuiltinNames() []string { return slices.Clone(builtinOrder) }

var builtinOrder = []string{
	"perfect", "lan",
	"home-fiber", "home-cable", "home-dsl", "home-broadband", "home-satellite", "home-congested",
	"mobile-2g", "mobile-2.5g", "mobile-2.75g", "mobile-3g", "mobile-3.5g", "mobile-3.75g", "mobile-4g", "mobile-4.5g", "mobile-5g",
	"unreal-average", "unreal-bad",
	"lightyear-good", "lightyear-average", "lightyear-poor",
	"unity-regional-p50", "unity-regional-p95", "unity-international-p50", "unity-international-p95",
	"starlink", "campus-wifi", "inflight-wifi",
	"jitter-fix", "drift", "latency-spike", "loss-burst", "handover", "reorder",
}

// Builtins parses every built-in scenario.
func Builtins(check Checker) ([]*Scenario, error) {
	var out []*Scenario
	for _, n := range BuiltinNames() {
		sc, err := Load(n, check)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// Load returns the built-in scenario called nameOrFile, or else reads the
// TOML file at that path.
func Load(nameOrFile string, check Checker) (*Scenario, error) {
	if data, ok := builtinText(nameOrFile); ok {
		return parse("builtin/"+nameOrFile+".toml", data, check, 0, true)
	}
	if !strings.HasSuffix(nameOrFile, ".toml") {
		if _, err := os.Stat(nameOrFile); err != nil {
			return nil, fmt.Errorf("scenario %q: no such built-in scenario and no such file%s ('lab scenarios' lists them)", nameOrFile, param.DidYouMean(nameOrFile, builtinOrder))
		}
	}
	return loadFile(nameOrFile, check, 0)
}

func loadFile(path string, check Checker, depth int) (*Scenario, error) {
	// A named pipe is refused at once instead of waiting for a writer.
	f, _, err := files.OpenRegular(path)
	var nr *files.NotRegularError
	if errors.As(err, &nr) {
		return nil, fmt.Errorf("scenario %s: is %s, not a regular file; give a .toml file", path, files.Kind(nr.Mode))
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", path, err)
	}
	sc, err := parse(path, data, check, depth, true)
	if err != nil {
		return nil, err
	}
	sc.Files = append([]string{path}, sc.Files...)
	return sc, nil
}
