package telemetry

import (
	"strings"
	"testing"

	"jitterlab/motion"
)

// A table of both kinds: every field once, and each datagram's cells in
// its own columns, as the encoder writes them.
func TestCells(t *testing.T) {
	cols := strings.Join(Columns(), ",")
	if want := "t_s,frame,throttle,turn,visible_x_m,visible_y_m,visible_rot_deg,predicted_x_m,predicted_y_m,predicted_rot_deg,tick_offset,send_interval_s,ack_tick,pending_inputs,tick,applied,overwritten,starved,depth"; cols != want {
		t.Fatalf("columns %s\nwant    %s", cols, want)
	}
	f := Datagram{Kind: KindFrame, Frame: Frame{TS: 1.5, Frame: 7, Input: motion.Input{Throttle: 1, Turn: -0.25}, Visible: motion.Pose{Y: 0.1}, TickOffset: -2, SendIntervalS: 0.048, AckTick: 3, PendingInputs: 2}}
	if got := strings.Join(Cells(&f), ","); got != "1.5,7,1,-0.25,0,0.1,0,0,0,0,-2,0.048,3,2,,,,," {
		t.Errorf("frame cells %s", got)
	}
	k := Datagram{Kind: KindTick, Tick: Tick{TS: 2, Tick: 40, Applied: 38, Overwritten: 1, Starved: 2, Depth: 0}}
	if got := strings.Join(Cells(&k), ","); got != "2,,,,,,,,,,,,,,40,38,1,2,0" {
		t.Errorf("tick cells %s", got)
	}
}
