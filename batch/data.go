package batch

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"

	"jitterlab/stats"
)

// WriteCSV writes one row per run: the sweep's axis values (or A/B's arm
// "a" or "b"), the seed and every metric (six decimals; no data is an
// empty field). Column names are snake_case with units as suffixes.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	var head []string
	if r.Def.Kind == "ab" {
		head = append(head, "arm")
	} else {
		for _, a := range r.Def.Axes {
			head = append(head, a.Key)
		}
	}
	head = append(head, "seed")
	for _, m := range Metrics {
		head = append(head, m.Name)
	}
	cw.Write(head)
	for i := range r.Runs {
		run := &r.Runs[i]
		var rec []string
		if r.Def.Kind == "ab" {
			rec = append(rec, [...]string{"a", "b"}[run.Arm])
		} else {
			for _, s := range run.Sets {
				_, v, _ := strings.Cut(s, "=")
				rec = append(rec, v)
			}
		}
		rec = append(rec, strconv.FormatUint(run.Seed, 10))
		for _, m := range Metrics {
			v := float64(run.Metrics[m.Name])
			if math.IsNaN(v) {
				rec = append(rec, "")
			} else {
				prec := m.Prec // the table's decimals; a count is an integer
				if m.Count {
					prec = 0
				}
				rec = append(rec, strconv.FormatFloat(v, 'f', prec, 64))
			}
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL writes runs as JSON lines, one run a line.
func WriteJSONL(w io.Writer, runs []Run) error {
	return writeLines(w, nil, runs)
}

// WriteShard writes a shard: its header line, then its runs.
func WriteShard(w io.Writer, h ShardHeader, runs []Run) error {
	return writeLines(w, &h, runs)
}

func writeLines(w io.Writer, h *ShardHeader, runs []Run) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if h != nil {
		if err := enc.Encode(h); err != nil {
			return err
		}
	}
	for i := range runs {
		if err := enc.Encode(&runs[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// MetricStat is one metric of one arm over the seeds: its value on every
// seed, in seed order, and their mean with its 95 % interval. A batch's
// JSON and a diagnosis's arms both state their metrics so.
type MetricStat struct {
	Name    string
	PerSeed []float64
	Mean    stats.Interval
}

// NewMetricStat is metric name over perSeed (kept, not copied), with its
// mean.
func NewMetricStat(name string, perSeed []float64) MetricStat {
	return MetricStat{Name: name, PerSeed: perSeed, Mean: stats.Mean(perSeed)}
}

// MarshalJSON writes name, mean and per_seed as a batch's JSON has them,
// a seed without data (NaN) as null ([Value]).
func (s MetricStat) MarshalJSON() ([]byte, error) {
	per := make([]Value, len(s.PerSeed))
	for i, v := range s.PerSeed {
		per[i] = Value(v)
	}
	return json.Marshal(struct {
		Name    string         `json:"name"`
		Mean    stats.Interval `json:"mean"`
		PerSeed []Value        `json:"per_seed"`
	}{s.Name, s.Mean, per})
}

// ArmJSON is one arm of the JSON output.
type ArmJSON struct {
	Label   string       `json:"label"`
	Sets    []string     `json:"sets"`
	Metrics []MetricStat `json:"metrics"`
}

// DiffJSON is one metric's paired difference B − A.
type DiffJSON struct {
	Name      string     `json:"name"`
	BMinusA   stats.Diff `json:"b_minus_a"`
	ChangePct *float64   `json:"change_pct"` // null where a percentage says nothing
}

// ResultJSON is the JSON output of lab ab, lab sweep and lab merge.
type ResultJSON struct {
	Schema    int        `json:"schema"`
	Kind      string     `json:"kind"`
	BatchHash string     `json:"batch_hash"`
	Batch     Definition `json:"batch"`
	Arms      []ArmJSON  `json:"arms"`
	Diffs     []DiffJSON `json:"diffs,omitempty"` // A/B only
}

// JSON is the result as [ResultJSON].
func (r *Result) JSON() ResultJSON {
	j := ResultJSON{Schema: Schema, Kind: r.Def.Kind, BatchHash: r.Def.Hash(), Batch: r.Def}
	for a, sets := range r.Def.Arms() {
		arm := ArmJSON{Label: r.ArmLabel(a), Sets: sets}
		for _, m := range Metrics {
			arm.Metrics = append(arm.Metrics, NewMetricStat(m.Name, r.PerSeed(a, m)))
		}
		j.Arms = append(j.Arms, arm)
	}
	if r.Def.Kind == "ab" {
		for _, m := range Metrics {
			d := DiffJSON{Name: m.Name, BMinusA: r.Paired(0, 1, m)}
			if p, ok := r.Percent(0, 1, m); ok {
				d.ChangePct = &p
			}
			j.Diffs = append(j.Diffs, d)
		}
	}
	return j
}

// WriteJSON writes the result as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}
