package recordings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"jitterlab/metrics"
	"jitterlab/sim"
)

// without returns b with frame i (its index entry and its data) cut out:
// whole frames missing, every byte left intact.
func without(b []byte, r *Reader, i int) []byte {
	e := r.frames[i]
	out := append([]byte(nil), b[:e.offset-entryLen]...)
	return append(out, b[e.offset+int64(e.compLen):]...)
}

// Issue 27 item 11: frames missing whole (entry and data, from the
// middle) are damage every reader sees at once, with the times lost; the
// reader goes on with the frames that are there.
func TestMissingFramesAreSeen(t *testing.T) {
	b := write(t, 1200, true) // 60 s in 7 frames
	r := open(t, b)
	if r.Frames() < 5 {
		t.Fatalf("%d frames; the test needs 5", r.Frames())
	}
	cut := without(without(b, r, 3), r, 2) // frames 2 and 3, the later first
	r2 := open(t, cut)
	if len(r2.Damage) != 1 || r2.Damage[0].Missing != 2 {
		t.Fatalf("two frames cut out: damage %v; want one place of 2 missing frames", r2.Damage)
	}
	d := r2.Damage[0]
	if d.From != r.frames[1].end || d.To != r.frames[4].start || !strings.Contains(d.Error(), "2 whole frames are missing") {
		t.Fatalf("damage %v: want frames 2 and 3 lost between %v and %v", d, r.frames[1].end, r.frames[4].start)
	}
	n := 0
	if err := r2.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { n++; return nil }, nil); err != nil || n >= 1200 {
		t.Fatalf("what is left: %d samples, %v", n, err)
	}
}

// Recordings the lab shipped in version 2 still read whole,
// their end records' counts agree, and they have no sequence numbers. A
// frame cut out whole, which no number shows there, is seen by a scan of
// the whole file from the end record's counts: an error, or with
// OnDamage set, damage reported.
func TestShippedVersion2RecordingsRead(t *testing.T) {
	// testdata/v2-*.jlrec are recordings the lab shipped in version 2
	// (examples/ holds today's version).
	paths, _ := filepath.Glob("testdata/v2-*.jlrec")
	if len(paths) == 0 {
		t.Fatal("no version 2 recordings in testdata/")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r := open(t, b)
		if r.Header.Version != 2 || r.frames[0].seq != -1 || len(r.Damage) != 0 {
			t.Fatalf("%s: version %d, first frame numbered %d, damage %v", p, r.Header.Version, r.frames[0].seq, r.Damage)
		}
		end, err := r.End()
		if err != nil || end == nil {
			t.Fatalf("%s: end %v %v", p, end, err)
		}
		if n := count(t, r); int64(n) != end.Samples {
			t.Fatalf("%s: %d samples; the end record says %d", p, n, end.Samples)
		}
		cut := without(b, r, 2)
		r2 := open(t, cut)
		err = r2.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { return nil }, nil)
		if err == nil || !strings.Contains(err.Error(), "the end record counts") {
			t.Fatalf("%s without its frame 2: %v; want the end record's count to disagree", p, err)
		}
		var reported []*DamageError
		r3 := open(t, cut)
		r3.OnDamage = func(d *DamageError) { reported = append(reported, d) }
		if err := r3.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { return nil }, nil); err != nil || len(reported) != 1 {
			t.Fatalf("%s without its frame 2, OnDamage set: %v, reported %v", p, err, reported)
		}
	}
}
