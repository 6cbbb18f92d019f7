// Package axis chooses round chart ticks (1, 2 or 5 × 10^k) and writes
// their labels, for the HTML pages of report/ and fit/. Powers of ten come
// from exact multiplications and divisions, not math.Pow and math.Log10,
// whose bits differ between machines, so the pages are the same bytes
// everywhere.
package axis
