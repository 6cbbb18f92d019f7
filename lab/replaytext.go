package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"jitterlab/internal/plural"
	"jitterlab/recordings"
)

// WriteRecording writes what 'lab replay' says of a session recording r
// (the file name): its scenario, seed and sample period, its length in
// frames (and whether it was cut short or not closed), its changes, and
// the end record's summary when it is this session's
// ([RecordedSummary]).
func WriteRecording(w io.Writer, r *recordings.Reader, name string) error {
	h := r.Header
	changes, err := r.Changes()
	if err != nil {
		return err
	}
	end, err := r.End()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "recording  %s\nscenario   %s, seed %d, sample every %v\n", name, h.Scenario, h.Seed, time.Duration(h.EveryNs))
	fmt.Fprintf(w, "length     %v in %d frames", r.Duration(), r.Frames())
	if r.Truncated {
		fmt.Fprintf(w, " (truncated at byte %d: read up to the last whole frame)", r.TruncatedAt)
	} else if end == nil {
		fmt.Fprint(w, " (not closed: the session did not finish)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "changes    %d\n", len(changes))
	for _, c := range changes {
		fmt.Fprintf(w, "  at %v  %s = %s\n", c.At, c.Key, c.Value)
	}
	if end == nil || len(end.Summary) == 0 {
		return nil
	}
	sum, ok := RecordedSummary(end, h.Seed)
	if !ok {
		_, err := fmt.Fprintln(w, "summary    not shown: the end record's summary is not this session's (its fields, seed or length disagree)")
		return err
	}
	fmt.Fprintln(w)
	return sum.WriteText(w)
}

// RecordedSummary is the end record's summary when it is this session's:
// a [Summary] and nothing else, of the header's seed, as long as the
// recording. Anything else (another program's end record) would print as
// a summary of zeros.
func RecordedSummary(end *recordings.End, seed uint64) (Summary, bool) {
	var sum Summary
	dec := json.NewDecoder(bytes.NewReader(end.Summary))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sum); err != nil || dec.More() {
		return sum, false
	}
	return sum, sum.Seed == seed && math.Abs(sum.SimS-time.Duration(end.At).Seconds()) < 1e-6
}

// WriteText writes the verification's line, as 'lab replay --verify'
// ends: how many samples and changes it proved, and took, the wall time
// it took.
func (v Verification) WriteText(w io.Writer, took time.Duration) error {
	summary := "no summary recorded"
	if v.HasSummary {
		summary = "summary identical"
	}
	_, err := fmt.Fprintf(w, "\nverified: %s identical to a re-simulation of %v from the header and %s, every sample from %v to the end present; %s (%v)\n",
		plural.Of(v.Samples, "sample"), v.Until, plural.Of(v.Changes, "change"), v.From, summary, took.Round(time.Millisecond))
	return err
}
