package lab

import "jitterlab/sim"

// sentRing bounds how many unacknowledged ticks the input-delay measure
// remembers (204 s at 20 Hz): inputSamples.
const sentRing = 4096

// frameRing bounds how many frames the server input delay remembers
// (8.2 s at client.fps 1000, 137 s at 60): a sample older than that when
// its input is applied is not counted.
const frameRing = 8192

// inputSamples follows every input sample (a frame's reading of the
// controls) to the server: the input that carries it, and whether the
// server applied that input, and when. Tick k's input carries the samples
// of the frames after tick k−1's send up to its own send frame.
type inputSamples struct {
	frameAt      [frameRing]sim.Time // true time of frame i at i%frameRing
	frames       uint64              // frames so far
	endAt        [sentRing]uint64    // tick k's samples end before frame endAt[k%sentRing]
	arrived      [sentRing]bool      // a copy of tick k's input reached the server
	lastAck      uint32
	sentThrottle float64 // the throttle of the latest input sent: what the prediction integrates
}

// frame records a client frame at true time now.
func (in *inputSamples) frame(now sim.Time) {
	in.frameAt[in.frames%frameRing] = now
	in.frames++
}

// sent records tick's input, sent in the latest frame.
func (in *inputSamples) sent(tick uint32, throttle float64) {
	in.endAt[tick%sentRing] = in.frames
	in.arrived[tick%sentRing] = false
	in.sentThrottle = throttle
}

// arrive records that a MoveInput for tick reached the server, with the
// redundant copies of the n inputs before it.
func (in *inputSamples) arrive(tick uint32, n uint8) {
	for i := uint32(0); i <= uint32(n) && i < tick; i++ {
		in.arrived[(tick-i)%sentRing] = true
	}
}

// applied records the server acknowledging ack at true time now: the
// samples of every tick it skipped are lost (no copy arrived) or
// overwritten (one did), those of ack itself applied, unless its input
// never arrived (the server repeated an earlier one: lost). Only samples
// read at or after from count.
func (in *inputSamples) applied(now sim.Time, ack uint32, from sim.Time, card *CardMeter) {
	if ack <= in.lastAck {
		return
	}
	k := in.lastAck + 1
	if ack-in.lastAck > sentRing {
		k = ack - sentRing + 1
	}
	in.lastAck = ack
	for ; k <= ack; k++ {
		end := in.endAt[k%sentRing]
		start := end - 1 // tick 1 carries its send frame's sample
		if k > 1 {
			start = in.endAt[(k-1)%sentRing]
		}
		start = max(start, in.frames-min(in.frames, frameRing))
		if k == ack && in.arrived[k%sentRing] { // applied: each sample's delay
			for i := start; i < end; i++ {
				if at := in.frameAt[i%frameRing]; at >= from {
					card.ServerInputDelay(ms(now.Sub(at)))
				}
			}
			continue
		}
		var n uint64
		for i := start; i < end; i++ {
			if in.frameAt[i%frameRing] >= from {
				n++
			}
		}
		if in.arrived[k%sentRing] { // and k < ack
			card.UnappliedSamples(0, n)
		} else {
			card.UnappliedSamples(n, 0)
		}
	}
}
