package lab

import (
	"fmt"
	"strings"

	"jitterlab/netem"
	"jitterlab/param"
)

// DescribeLinks writes the links of cfg as the lab applies them: one-way
// per direction, then what that makes for a round trip, so that a value
// read from a source in the other unit cannot be mistaken. For example:
//
//	one-way up 66ms ± 11ms uniform, loss 3%; down 66ms ± 11ms uniform, loss 3%; round trip 132ms before jitter, a round trip loses 5.91%
func DescribeLinks(cfg Config) string {
	lossOf := func(p netem.Params) float64 {
		switch {
		case p.Blackout:
			return 1
		case p.LossModelString() == "random":
			return p.Loss
		case strings.HasPrefix(p.LossModelString(), "state"):
			return p.GI.LossRate()
		}
		return p.GE.LossRate()
	}
	rtLoss := 1 - float64((1-lossOf(cfg.Up))*(1-lossOf(cfg.Down)))
	return fmt.Sprintf("one-way up %s; down %s; round trip %s before jitter, a round trip loses %s",
		describeLink(cfg.Up), describeLink(cfg.Down), param.FormatDuration(cfg.Up.Latency+cfg.Down.Latency), pct(rtLoss))
}

func pct(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.3g", f*100), ".0") + "%" }

func describeLink(p netem.Params) string {
	s := param.FormatDuration(p.Latency)
	if p.Jitter > 0 {
		switch p.JitterDist {
		case netem.Uniform:
			s += " ± " + param.FormatDuration(p.Jitter) + " uniform"
		case netem.Exponential:
			s += " + exponential of mean " + param.FormatDuration(p.Jitter)
		default:
			s += " + " + p.JitterDist.String() + " of σ " + param.FormatDuration(p.Jitter)
		}
	}
	switch m := p.LossModelString(); {
	case p.Blackout:
		s += ", blackout"
	case m != "random":
		s += ", loss " + m
	case p.LossBurst >= 1:
		s += fmt.Sprintf(", loss %s in bursts of %g", param.FormatFraction(p.Loss), p.LossBurst)
	default:
		s += ", loss " + param.FormatFraction(p.Loss)
	}
	if p.Rate > 0 {
		s += ", rate " + param.FormatRate(p.Rate)
	}
	if p.ShapeRate > 0 {
		s += ", shaped to " + param.FormatRate(p.ShapeRate)
	}
	return s
}
