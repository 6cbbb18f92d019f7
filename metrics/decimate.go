package metrics

import (
	"math"
	"slices"
)

// Decimator keeps, of a stream of samples, what a chart of cols pixel
// columns draws of them (see [WritePNG], which gives each column a run of
// consecutive samples and draws the span of their values): it groups the
// samples in runs of consecutive ones and keeps of each run, for every
// panel's value, the sample with the least and the one with the most, and
// the run's last sample (the one the next column joins to). While the
// stream holds at most 2×cols samples each run is one sample, so the chart
// is the one of every sample; past that, two runs merge into one whenever
// the runs pass 2×cols, and each pixel column still shows the least and
// the most of its samples (a peak may move by a column; [Decimator.Samples]
// says how the runs keep their share of the width). Memory does not
// grow with the stream: at most 2×cols runs of 2×values+1 samples.
type Decimator struct {
	values []func(*Sample) float64
	cols   int
	per    int   // samples a closed run holds
	runs   []run // closed runs, in order
	open   run
	n      int // samples added
}

// run is what a Decimator keeps of consecutive samples.
type run struct {
	n    int
	keep []Sample // the extremes and the last, in the order they came
	at   []int    // each kept sample's position in the stream, to order and dedupe
}

// NewDecimator decimates for panels (their Value; a panel of Series is
// drawn from its own data and not considered) over cols pixel columns.
func NewDecimator(panels []Panel, cols int) *Decimator {
	d := &Decimator{cols: max(cols, 1), per: 1}
	for _, p := range panels {
		if p.Value != nil {
			d.values = append(d.values, p.Value)
		}
	}
	return d
}

// Add takes the next sample.
func (d *Decimator) Add(x *Sample) {
	d.open.keep = append(d.open.keep, *x)
	d.open.at = append(d.open.at, d.n)
	d.open.n++
	d.n++
	if len(d.open.keep) > 4*len(d.values)+2 {
		d.open = d.reduce(d.open)
	}
	if d.open.n >= d.per {
		d.runs = append(d.runs, d.reduce(d.open))
		d.open = run{}
		if len(d.runs) > 2*d.cols {
			for i := range len(d.runs) / 2 {
				a, b := d.runs[2*i], d.runs[2*i+1]
				d.runs[i] = d.reduce(run{n: a.n + b.n, keep: append(a.keep, b.keep...), at: append(a.at, b.at...)})
			}
			if len(d.runs)%2 == 1 {
				d.runs[len(d.runs)/2] = d.runs[len(d.runs)-1]
			}
			d.runs = d.runs[:(len(d.runs)+1)/2]
			d.per *= 2
		}
	}
}

// reduce keeps of r's samples the least and the most of every value and
// the last, in stream order, each once.
func (d *Decimator) reduce(r run) run {
	if len(r.keep) <= 1 {
		return r
	}
	pick := map[int]bool{len(r.keep) - 1: true}
	for _, v := range d.values {
		lo, hi := -1, -1
		for i := range r.keep {
			x := v(&r.keep[i])
			if math.IsNaN(x) {
				continue
			}
			if lo < 0 || x < v(&r.keep[lo]) {
				lo = i
			}
			if hi < 0 || x > v(&r.keep[hi]) {
				hi = i
			}
		}
		if lo >= 0 {
			pick[lo], pick[hi] = true, true
		}
	}
	idx := make([]int, 0, len(pick))
	for i := range pick {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	out := run{n: r.n}
	for _, i := range idx {
		out.keep = append(out.keep, r.keep[i])
		out.at = append(out.at, r.at[i])
	}
	return out
}

// Len is the number of samples added.
func (d *Decimator) Len() int { return d.n }

// Samples returns what was kept, in stream order: every sample while
// there were at most 2×cols; past that, each run as 2×values+1 samples
// (its first kept one repeated as needed), so that every run takes the
// same share of the chart's width, as its samples took of the time.
func (d *Decimator) Samples() []Sample {
	runs := append(d.runs, d.reduce(d.open))
	var out []Sample
	for _, r := range runs {
		if d.per > 1 && len(r.keep) > 0 {
			for range 2*len(d.values) + 1 - len(r.keep) {
				out = append(out, r.keep[0])
			}
		}
		out = append(out, r.keep...)
	}
	return out
}
