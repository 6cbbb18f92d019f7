package main

import (
	"strings"
	"testing"
)

// On a terminal the diagnosis's progress is one line rewritten in place
// and cleared at the end; piped, nothing.
func TestDiagnoseProgressLine(t *testing.T) {
	var b strings.Builder
	p := &diagProgress{w: &b, on: true}
	p.show(10, 40)
	p.clear()
	if got, want := b.String(), "\r\033[Kdiagnose: 10 of 40 runs queued so far (25 %)\r\033[K"; got != want {
		t.Errorf("terminal: %q, want %q", got, want)
	}
	b.Reset()
	p = &diagProgress{w: &b}
	p.show(10, 40)
	p.clear()
	if b.Len() != 0 || p.done != 10 || p.queued != 40 {
		t.Errorf("piped: %q, counted %d of %d", b.String(), p.done, p.queued)
	}
}
