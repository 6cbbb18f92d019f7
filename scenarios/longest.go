package scenarios

import "time"

// LongestRun is the longest run up to limit, to the minute, over which
// sc's oscillators and flaps make at most n changes ([Scenario.Generated]):
// limit when they never make more (starlink's two every 15 s make 20000 in
// 41 h 40 min). Finding it costs at most about twice n changes, not a
// whole limit's worth: it doubles up from a minute, then halves.
func (sc *Scenario) LongestRun(limit time.Duration, n int) time.Duration {
	fits := func(d time.Duration) bool {
		gen, err := sc.Generated(d)
		return err == nil && len(gen) <= n
	}
	lo, hi := time.Duration(0), time.Minute // fits, does not (yet to see)
	for fits(hi) {
		if hi >= limit {
			return limit
		}
		lo, hi = hi, min(2*hi, limit)
	}
	for hi-lo > time.Minute {
		mid := (lo + (hi-lo)/2).Truncate(time.Minute)
		if mid <= lo {
			mid = lo + time.Minute
		}
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
