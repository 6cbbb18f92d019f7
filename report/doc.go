// Package report writes a diagnosis as one self-contained HTML file: the
// conditions, the findings, the ranked changes, per-seed dot plots and the
// reference-versus-recommended timelines of a representative seed, drawn
// as inline SVG. It references nothing outside the file (no scripts, fonts,
// images or style sheets), so it opens offline and can be attached to a bug
// report; the same diagnosis gives the same bytes.
package report
