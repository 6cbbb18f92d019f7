package server

import (
	"time"

	"jitterlab/sim"
)

// BufferMode is how the Buffer mode's depth target is set, registry key
// server.buffer_mode.
type BufferMode uint8

const (
	// BufferFixed (reference): the target is Config.Buffer.
	BufferFixed BufferMode = iota
	// BufferAuto: the target follows the arrival jitter of the inputs
	// (depthEstimator), starting from Config.Buffer.
	BufferAuto
)

// BufferModes are the accepted names, in BufferMode order.
var BufferModes = []string{"fixed", "auto"}

// Auto depth: the window of arrivals the quantile is taken over, the
// quantile (as a fraction 19/20), and the window the fastest arrival is
// the base of.
const (
	AutoWindow     = 200 // arrivals: 10 s at 20 Hz
	autoQuantNum   = 19
	autoQuantDen   = 20
	AutoBaseWindow = 500 * time.Millisecond
	autoBaseCap    = 64 // fastest-arrival candidates kept (a monotonic queue)
)

// depthEstimator sets the auto depth target, as adaptive playout buffers
// do (WebRTC NetEq's delay manager): each input's relative arrival delay
// ρ is its transit (local arrival time − tick·step, up to a constant)
// less the smallest transit of the arrivals of the last AutoBaseWindow;
// the depth it needs is ⌈ρ/step − ½⌉ (at least 0): a depth D leaves on
// average D + ½ steps between an arrival and its step, the arrival phase
// being anywhere within the step; the target is the 95th percentile of
// the needed depth over the last AutoWindow arrivals. A burst of late
// arrivals raises it while it is more than 5 % of the window and leaves
// the window AutoWindow arrivals later: the target shrinks back after a
// spike. The short base window makes a lasting latency step, and a client
// sending up to 5 % slower or faster (time dilation: 25 ms over 500 ms,
// half a step), no jitter. Fixed arrays: no allocation.
type depthEstimator struct {
	base     [autoBaseCap]transit // ascending transit, ascending time
	baseHead int
	baseN    int
	need     [AutoWindow]uint8
	needPos  int
	needN    int
	hist     [MaxBuffer + 1]int
	target   int
}

type transit struct {
	at sim.Time
	r  int64
}

// reset forgets every arrival; the target is start until the first.
func (e *depthEstimator) reset(start int) { *e = depthEstimator{target: start} }

// add records tick's input arriving at local time at, with steps of
// step, and updates the target.
func (e *depthEstimator) add(at sim.Time, tick uint32, step time.Duration) {
	r := int64(at) - int64(tick)*int64(step)
	for e.baseN > 0 && (e.base[e.baseHead].at < at-sim.Time(AutoBaseWindow) || e.baseN == autoBaseCap) {
		e.baseHead, e.baseN = (e.baseHead+1)%autoBaseCap, e.baseN-1
	}
	for e.baseN > 0 && e.base[(e.baseHead+e.baseN-1)%autoBaseCap].r >= r {
		e.baseN--
	}
	e.base[(e.baseHead+e.baseN)%autoBaseCap] = transit{at, r}
	e.baseN++
	// ⌈ρ/step − ½⌉ = ⌈(2ρ − step) / 2·step⌉, 0 for ρ ≤ step/2.
	d := int64(0)
	if x := 2*(r-e.base[e.baseHead].r) - int64(step); x > 0 {
		d = min((x+2*int64(step)-1)/(2*int64(step)), MaxBuffer)
	}

	if e.needN == AutoWindow {
		e.hist[e.need[e.needPos]]--
	} else {
		e.needN++
	}
	e.need[e.needPos] = uint8(d)
	e.hist[d]++
	e.needPos = (e.needPos + 1) % AutoWindow
	sum := 0
	for k, c := range e.hist {
		if sum += c; sum*autoQuantDen >= autoQuantNum*e.needN {
			e.target = k
			return
		}
	}
}
