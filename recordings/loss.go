package recordings

import "fmt"

// Loss counts the places a recording lost data as it is read: a file cut
// inside a frame (truncated) or after one (not closed: no end record),
// damaged bytes or missing frames that [Open] stepped over, and damaged
// frames as a read skips them (each place once, however many times it is
// read). A repaired index entry lost nothing and is not counted.
type Loss struct {
	places int
	seen   map[int64]bool // the damaged frames counted, by offset
}

// WatchLoss counts what r lost and tells warn of each place in words: at
// once the places found when r opened, then each damaged frame as a read
// skips it (it sets r.OnDamage). Its error is r.End's.
func WatchLoss(r *Reader, warn func(msg string)) (*Loss, error) {
	l := &Loss{seen: map[int64]bool{}}
	if r.Truncated {
		l.places++
		warn(fmt.Sprintf("truncated at byte %d: data ends at %v (the last whole frame); what came after is lost", r.TruncatedAt, r.Duration()))
	}
	for _, d := range r.Damage {
		warn(d.Error())
		if !d.Repaired { // a repaired frame was recovered: nothing lost
			l.places++
		}
	}
	r.OnDamage = func(d *DamageError) {
		if !l.seen[d.Offset] {
			l.seen[d.Offset] = true
			l.places++
			warn(d.Error() + "; skipped")
		}
	}
	if !r.Truncated {
		before := l.places
		end, err := r.End()
		if err != nil {
			return nil, err
		}
		if end == nil && l.places == before { // a damaged last frame is its own warning
			l.places++
			warn(fmt.Sprintf("not closed (no end record: the recorder stopped without closing it, or is still writing it): data ends at %v (byte %d); what came after is not in the file",
				r.Duration(), r.DataEnd()))
		}
	}
	return l, nil
}

// Places is how many places lost data so far; a nil Loss lost nothing.
func (l *Loss) Places() int {
	if l == nil {
		return 0
	}
	return l.places
}
