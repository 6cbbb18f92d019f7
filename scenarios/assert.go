package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"jitterlab/param"
)

// Assert is one [[assert]] entry of a scenario file as written: a figure
// named as 'lab run --json' names it and its bounds. This package checks
// the entry's shape; the check package gives the figure and the bounds
// their meaning (which figures exist, their units, the verdicts).
//
//	[[assert]]
//	metric = "judder_mps"
//	max = 0.30                # or min = …; a string may carry the unit: "120ms"
//	max_worse = 0.02          # B − baseline, paired over the same seeds
type Assert struct {
	Metric     string
	MetricLine int
	Bounds     []Bound // in the order of BoundKeys
	Line       int     // the [[assert]] header's line
	File       string
}

// Bound is one bound of an [[assert]]: its key (one of [BoundKeys]), its
// number, the unit written after it ("" for a bare number) and its line.
type Bound struct {
	Key   string
	Value float64
	Unit  string
	Line  int
}

// BoundKeys are the bounds an [[assert]] may give: max and min bound the
// figure's mean over the seeds, max_worse its paired increase over a
// baseline's.
var BoundKeys = []string{"max", "min", "max_worse"}

// assertKeys are every key an [[assert]] entry may hold.
var assertKeys = append([]string{"metric"}, BoundKeys...)

// reBound reads a bound written as a string: a number, then a unit.
var reBound = regexp.MustCompile(`^\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(\S*)\s*$`)

// parseAsserts reads the [[assert]] entries of raw.
func parseAsserts(raw map[string]any, file string, lines lineIndex, perr func(int, string, ...any) error) ([]Assert, error) {
	v, ok := raw["assert"]
	if !ok {
		return nil, nil
	}
	entries, ok := v.([]map[string]any)
	if !ok {
		return nil, perr(lines.line("assert"), "assert: want [[assert]] entries, each with metric = \"judder_mps\" and max = or min =")
	}
	var out []Assert
	for i, e := range entries {
		prefix := fmt.Sprintf("assert[%d].", i)
		a := Assert{Line: lines.table("assert", i), File: file}
		for _, k := range sortedKeys(e) {
			if !slices.Contains(assertKeys, k) {
				line := lines.line(prefix + k)
				if line == 0 {
					line = a.Line
				}
				if similar := param.Similar(k, assertKeys); len(similar) > 0 {
					return nil, perr(line, "assert entry %d: unknown key %q; did you mean %s?", i+1, k, strings.Join(similar, " or "))
				}
				return nil, perr(line, "assert entry %d: unknown key %q: allowed %s", i+1, k, strings.Join(assertKeys, ", "))
			}
		}
		m, given := e["metric"]
		name, isString := m.(string)
		switch {
		case !given:
			return nil, perr(a.Line, "assert entry %d: want metric = \"judder_mps\" (a figure as 'lab run --json' names it)", i+1)
		case !isString || name == "":
			return nil, perr(lines.line(prefix+"metric"), "assert entry %d: metric = %v: allowed a figure's name in quotes such as \"judder_mps\"", i+1, m)
		}
		a.Metric, a.MetricLine = name, lines.line(prefix+"metric")
		for _, k := range BoundKeys {
			x, ok := e[k]
			if !ok {
				continue
			}
			line := lines.line(prefix + k)
			b := Bound{Key: k, Line: line}
			switch x := x.(type) {
			case int64:
				b.Value = float64(x)
			case float64:
				b.Value = x
			case string:
				m := reBound.FindStringSubmatch(x)
				if m == nil {
					return nil, perr(line, "assert entry %d: %s = %q: allowed a number, or a number and the figure's unit such as \"120ms\"", i+1, k, x)
				}
				b.Value, _ = strconv.ParseFloat(m[1], 64)
				b.Unit = m[2]
			default:
				return nil, perr(line, "assert entry %d: %s = %v: allowed a number, or a number and the figure's unit such as \"120ms\"", i+1, k, x)
			}
			if b.Value != b.Value || b.Value > 1e300 || b.Value < -1e300 {
				return nil, perr(line, "assert entry %d: %s = %v: allowed a finite number", i+1, k, x)
			}
			a.Bounds = append(a.Bounds, b)
		}
		if len(a.Bounds) == 0 {
			return nil, perr(a.Line, "assert entry %d (%s): no bound; give max =, min = or max_worse =", i+1, a.Metric)
		}
		out = append(out, a)
	}
	return out, nil
}
