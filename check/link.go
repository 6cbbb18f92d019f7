package check

import (
	"jitterlab/batch"
	"jitterlab/lab"
)

// LinkFigures are the link's counters a gate may assert on besides the
// table's figures ([batch.Metrics]): each direction's counters as 'lab
// run --json' prints them under "up" and "down", named with the
// direction first (up_lost is "up": {"lost": …}). They are counts per run.
var LinkFigures = func() []batch.Metric {
	var out []batch.Metric
	for _, dir := range []struct {
		name string
		get  func(*lab.Summary) *lab.LinkSummary
	}{
		{"up", func(s *lab.Summary) *lab.LinkSummary { return &s.Up }},
		{"down", func(s *lab.Summary) *lab.LinkSummary { return &s.Down }},
	} {
		for _, c := range []struct {
			name string
			get  func(*lab.LinkSummary) uint64
		}{
			{"sent", func(l *lab.LinkSummary) uint64 { return l.Sent }},
			{"delivered", func(l *lab.LinkSummary) uint64 { return l.Delivered }},
			{"lost", func(l *lab.LinkSummary) uint64 { return l.Lost }},
			{"queue_dropped", func(l *lab.LinkSummary) uint64 { return l.QueueDropped }},
			{"duplicated", func(l *lab.LinkSummary) uint64 { return l.Duplicated }},
			{"reordered", func(l *lab.LinkSummary) uint64 { return l.Reordered }},
		} {
			out = append(out, batch.Metric{Name: dir.name + "_" + c.name, Prec: 1, Count: true,
				Get: func(s *lab.Summary) float64 { return float64(c.get(dir.get(s))) }})
		}
	}
	return out
}()
