// Package stats is the statistics that compare runs over seeds: a mean with
// its 95 % confidence interval (Student t; [TTwoSided] for another level),
// the paired difference of two variants on the same seeds with its
// interval and whether it is significant (the interval excludes 0), and
// percentages only on bases clearly away from zero. Running the seeds is
// batch's (batch.Each).
package stats
