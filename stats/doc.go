// Package stats is the statistics that compare runs over seeds: a mean with
// its 95 % confidence interval (Student t; [TTwoSided] for another level),
// the paired difference of two
// variants on the same seeds with its interval and whether it is
// significant (the interval excludes 0), percentages only on bases clearly
// away from zero, and [Parallel], which runs one job per seed on several
// workers and places each result by its index, so the output does not
// depend on the number of workers.
package stats
