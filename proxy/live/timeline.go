package live

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"jitterlab/lab"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/scenarios"
)

// Timeline is what 'lab run' schedules for the scenario (its
// timeline and the changes its oscillators and flaps make, see
// [lab.TimelineOf]) as changes in wall time from the start; changes at one
// time apply together, in order. Keys that are not link settings are left
// out with a note. With a run of wall time (--duration, > 0), the
// timeline's changes it does not reach are returned as warnings; without
// (0), the oscillators and flaps run over the scenario's duration, as in
// 'lab run', said in a warning.
func Timeline(cfg lab.Config, sc *scenarios.Scenario, wall time.Duration) (out []proxyctl.Timed, warn []string, err error) {
	if sc == nil {
		return nil, nil, nil
	}
	changes, _, err := scenarios.TimelineOf(sc, cfg.Duration) // without pinned keys, as in every command
	if err != nil {
		return nil, nil, err
	}
	if wall > 0 {
		for _, ch := range sc.Timeline {
			if ch.At >= wall {
				warn = append(warn, fmt.Sprintf("%s:%d: timeline change at %v (%s) not reached: --duration %v stops the proxy first", ch.File, ch.Line, ch.At, scenarios.Join(ch.Set), wall))
			}
		}
	} else if len(sc.Oscillators)+len(sc.Flaps) > 0 {
		warn = append(warn, fmt.Sprintf("the oscillators and flaps of %s run for its %v, as in 'lab run'; give --duration to run them longer", sc.Name, cfg.Duration))
	}
	var what []string
	for _, ch := range changes {
		if wall > 0 && ch.At >= wall {
			continue
		}
		if len(out) == 0 || out[len(out)-1].After != ch.At {
			if len(out) > 0 {
				out[len(out)-1].What = strings.Join(what, " ")
			}
			out, what = append(out, proxyctl.Timed{After: ch.At}), nil
		}
		t := &out[len(out)-1]
		for _, a := range ch.Set {
			p, ok := lab.Lookup(a.Key)
			if ok && !p.Live {
				return nil, nil, fmt.Errorf("%s:%d: %s cannot change during a run", ch.File, a.Line, a.Key)
			}
			if err := lab.Set(&cfg, a.Key, a.Value); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w", ch.File, a.Line, err)
			}
			w := a.Key + "=" + a.Value
			if !proxyctl.IsLinkKey(a.Key) {
				w += " (not a link setting: ignored)"
			} else {
				t.Set = append(t.Set, proxyctl.Assignment{Key: a.Key, Value: a.Value})
			}
			what = append(what, w)
		}
	}
	if len(out) > 0 {
		out[len(out)-1].What = strings.Join(what, " ")
	}
	return out, warn, nil
}

// Flow is one --flow: a client address and its own assignments.
type Flow struct {
	Arg  string // as given
	Addr netip.AddrPort
	Set  []proxyctl.Assignment
}

// ParseFlow reads --flow 'ADDR KEY=VALUE ...': the address first, then
// at least one link assignment, separated by spaces or commas.
func ParseFlow(v string) (Flow, error) {
	f := Flow{Arg: v}
	fields := lab.SplitAssignments(v)
	if len(fields) < 2 {
		return f, fmt.Errorf("want the client's address and its settings in one value, e.g. --flow '127.0.0.1:5001 up.loss=5%%'")
	}
	addr, err := proxyctl.ParseFlow(fields[0])
	if err != nil {
		return f, err
	}
	f.Addr = addr
	for _, a := range fields[1:] {
		k, val, err := lab.ParseAssignment(a)
		if err != nil {
			return f, err
		}
		if err := registry.CheckLinkKey(k); err != nil {
			return f, err
		}
		if err := lab.CheckAssignment(k, val); err != nil {
			return f, err
		}
		f.Set = append(f.Set, proxyctl.Assignment{Key: k, Value: val})
	}
	return f, nil
}
