package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The pin rule: an override (lab's --set key=value) pins its key for the
// whole run, so a timeline's change to that key is dropped, and said to
// be. Every command that runs a scenario (lab run, diagnose, ab, sweep,
// check, the proxy) schedules what TimelineOf gives and shows what it
// dropped.

// Overridden lists what sc.Pinned drops from a run of dur, as
// [Unpinned] says it: what every command's header shows as "timeline
// entries overridden by --set".
func Overridden(sc *Scenario, dur time.Duration) ([]string, error) {
	_, dropped, err := TimelineOf(sc, dur)
	return dropped, err
}

// Pinned reports whether the pins hold key: the key itself, or link.X
// for up.X and down.X.
func Pinned(pins []string, key string) bool {
	for _, p := range pins {
		if p == key || (isDirKey(key) && p == "link."+key[strings.IndexByte(key, '.')+1:]) {
			return true
		}
	}
	return false
}

func isDirKey(key string) bool {
	return strings.HasPrefix(key, "up.") || strings.HasPrefix(key, "down.")
}

// Unpinned returns the changes without their assignments to pinned keys
// (a link.X change of which one direction is pinned keeps the other
// direction's half), and what it dropped, per key in order of first drop:
// "AT key=value" each for up to three changes, "key: N changes AT1 … ATn"
// for more (an oscillator makes thousands). Changes left with no assignment are left out.
func Unpinned(pins []string, changes []Change) (keep []Change, dropped []string) {
	type drop struct {
		first, last time.Duration
		each        []string // the first three, "AT key=value"
		n           int
	}
	var order []string
	drops := map[string]*drop{}
	note := func(at time.Duration, key, value string) {
		d, ok := drops[key]
		if !ok {
			d = &drop{first: at}
			drops[key] = d
			order = append(order, key)
		}
		d.n, d.last = d.n+1, at
		if d.n <= 3 {
			d.each = append(d.each, fmt.Sprintf("%v %s=%s", at, key, value))
		}
	}
	for _, ch := range changes {
		var set []Assignment
		for _, a := range ch.Set {
			x, isLink := strings.CutPrefix(a.Key, "link.")
			switch {
			case Pinned(pins, a.Key):
				note(ch.At, a.Key, a.Value)
			case isLink && (Pinned(pins, "up."+x) || Pinned(pins, "down."+x)):
				for _, dir := range []string{"up.", "down."} {
					if Pinned(pins, dir+x) {
						note(ch.At, dir+x, a.Value)
					} else {
						set = append(set, Assignment{Key: dir + x, Value: a.Value, Line: a.Line})
					}
				}
			default:
				set = append(set, a)
			}
		}
		if len(set) > 0 {
			ch.Set = set
			keep = append(keep, ch)
		}
	}
	dropped = []string{}
	for _, k := range order {
		d := drops[k]
		if d.n <= 3 {
			dropped = append(dropped, d.each...)
		} else {
			dropped = append(dropped, fmt.Sprintf("%s: %d changes %v … %v", k, d.n, d.first, d.last))
		}
	}
	return keep, dropped
}

// TimelineOf is what lab's Session.ScheduleTimeline schedules for a run of
// length until: the scenario's timeline and the changes its oscillators
// and flaps make up to until, in time order (at one time, the timeline's
// first, then the generated ones in their order), without the assignments
// to keys sc.Pinned pins, which it lists in dropped ([Unpinned]). The proxy
// schedules the same changes in wall time.
func TimelineOf(sc *Scenario, until time.Duration) (changes []Change, dropped []string, err error) {
	gen, err := sc.Generated(until)
	if err != nil {
		return nil, nil, err
	}
	all := slices.Concat(sc.Timeline, gen)
	slices.SortStableFunc(all, func(a, b Change) int { return cmp.Compare(a.At, b.At) })
	changes, dropped = Unpinned(sc.Pinned, all)
	return changes, dropped, nil
}
