package trace

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"jitterlab/recordings"
	"jitterlab/sim"
)

// IsRecording says whether data starts like a lab recording (.jlrec): a
// zstd skippable frame, the first index entry.
func IsRecording(data []byte) bool {
	return len(data) >= 4 && data[0] == 0x5a && data[1] == 0x2a && data[2] == 0x4d && data[3] == 0x18
}

// AnyFlow asks [ReadRecording] to take the recording's only flow (the
// relay numbers its flows from 1).
const AnyFlow = 0

// ReadRecording reads a proxy recording (`lab proxy --record FILE`): the
// packets of one flow (a client of the relay; flow, or with AnyFlow the
// only one), per direction in the order the relay read them. A packet's
// send time is when the relay read it, its delay how long the relay held
// it (written minus read): what the proxy's link added, not the path
// beyond it; with scheduled, the delay the link drew for it instead (the
// proxy's settings, without what a busy host added to its timers). Both
// are the relay's clock, so the clocks are synchronised.
// A copy the link lost or dropped at its queue, or the relay at its
// in-flight limit or at a failed write, is lost; a copy discarded because
// its flow was gone is not counted; the link's duplicate counts as a
// duplicate. A session recording (`lab run --record`) holds samples, not
// packets: it is refused, naming `lab run --packets`.
func ReadRecording(file string, r *recordings.Reader, flow uint64, scheduled bool) (*Trace, []string, error) {
	if r.Header.Kind != recordings.KindProxy {
		return nil, nil, &Error{File: file, Want: "a session recording (lab run --record) stores samples, not packets, so it cannot be fitted; 'lab run --packets FILE' (with the same scenario and seed) writes the session's packets, which lab fit reads"}
	}
	if flow == AnyFlow {
		counts, list, err := flowCounts(file, r)
		if err != nil {
			return nil, nil, err
		}
		if len(counts) != 1 {
			if len(counts) == 0 && r.Truncated {
				return nil, nil, &Error{File: file, Want: fmt.Sprintf("no packets: it is cut short at byte %d, inside its first frame of packets (the proxy killed before it closed the file, or a partial copy)", r.TruncatedAt)}
			}
			if len(counts) == 0 {
				return nil, nil, &Error{File: file, Want: "no packets: no client sent through the proxy while it recorded"}
			}
			return nil, nil, &Error{File: file, Want: fmt.Sprintf("the relay recorded %d clients: name one with --flow N: %s", len(counts), list)}
		}
		for f := range counts {
			flow = f
		}
	}
	type copy0 struct {
		in, out sim.Time
		sched   time.Duration
		fate    recordings.PacketFate
	}
	var pk [2][]copy0
	var dups [2]int // delivered duplicates
	discarded, total, others := 0, 0, 0
	err := r.ScanPackets(0, math.MaxInt64, func(p *recordings.Packet) error {
		if p.Flow != flow {
			others++
			return nil
		}
		if total >= MaxPackets {
			return &Error{File: file, Want: fmt.Sprintf("more than %d packets in the flow", MaxPackets)}
		}
		total++
		switch {
		case p.Fate == recordings.PacketDiscarded:
			discarded++
		case p.Copy == 1:
			if p.Fate == recordings.PacketDelivered {
				dups[p.Dir]++
			}
		default:
			pk[p.Dir] = append(pk[p.Dir], copy0{p.In, p.Out, p.Scheduled, p.Fate})
		}
		return nil
	})
	if err != nil {
		return nil, nil, recordingErr(file, err)
	}
	if total == 0 {
		_, list, err := flowCounts(file, r)
		if err != nil {
			return nil, nil, err
		}
		if list == "" {
			list = "it has no packets"
		}
		return nil, nil, &Error{File: file, Field: "--flow", Value: fmt.Sprint(flow), Want: "a flow the recording has: " + list}
	}
	b := newBuilder(file)
	for d := range 2 {
		slices.SortStableFunc(pk[d], func(x, y copy0) int { return cmp.Compare(x.in, y.in) })
		for i, c := range pk[d] {
			p := Packet{Seq: uint64(i), Send: int64(c.in), Status: Lost}
			if c.fate == recordings.PacketDelivered {
				p.Status, p.Delay = Delivered, int64(c.out-c.in)
				if scheduled {
					p.Delay = int64(c.sched)
				}
			}
			if err := b.add(d, p, 0); err != nil {
				return nil, nil, err
			}
		}
		b.dups[d] = dups[d]
	}
	t, err := b.trace("proxy recording", oneMachine)
	if err != nil {
		return nil, nil, err
	}
	what := "delays are what the proxy's link added (read to written)"
	if scheduled {
		what = "delays are what the proxy's link scheduled (--scheduled: without the host's lateness)"
	}
	sum := []string{fmt.Sprintf("%s: flow %d of the relay: up %d packets, down %d; %s", file, flow, len(pk[0]), len(pk[1]), what)}
	if others > 0 {
		sum = append(sum, fmt.Sprintf("%s: %d packets of other flows skipped", file, others))
	}
	if discarded > 0 {
		sum = append(sum, fmt.Sprintf("%s: %d copies discarded when their flow was gone, not counted", file, discarded))
	}
	if r.Truncated {
		sum = append(sum, fmt.Sprintf("%s: cut short at byte %d (the proxy killed before it closed the file, or a partial copy): the packets up to its last whole frame, %v in, are fitted", file, r.TruncatedAt, time.Duration(r.Duration()).Round(time.Millisecond)))
	}
	return t, sum, nil
}

// flowCounts counts the packets of each flow of a proxy recording (at
// most maxFlows) and lists them, the busiest first (at most listFlows).
func flowCounts(file string, r *recordings.Reader) (map[uint64]int, string, error) {
	counts := map[uint64]int{}
	err := r.ScanPackets(0, math.MaxInt64, func(p *recordings.Packet) error {
		if _, ok := counts[p.Flow]; !ok && len(counts) >= maxFlows {
			return &Error{File: file, Want: fmt.Sprintf("more than %d flows: name one with --flow N", maxFlows)}
		}
		counts[p.Flow]++
		return nil
	})
	if err != nil {
		return nil, "", recordingErr(file, err)
	}
	flows := make([]uint64, 0, len(counts))
	for f := range counts {
		flows = append(flows, f)
	}
	slices.SortFunc(flows, func(a, b uint64) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	var l []string
	for i, f := range flows {
		if i == listFlows {
			l = append(l, fmt.Sprintf("and %d more", len(flows)-i))
			break
		}
		l = append(l, fmt.Sprintf("flow %d (%d packets)", f, counts[f]))
	}
	return counts, strings.Join(l, ", "), nil
}

// recordingErr names the file in a recording's read error.
func recordingErr(file string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{File: file, Want: "not a readable proxy recording: " + err.Error()}
}
