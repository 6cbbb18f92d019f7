package server

import "testing"

// Lost counts the ticks up to the newest received that never arrived;
// one arriving late (within the window) is no longer lost.
func TestReceiptsCountTheTicksNeverReceived(t *testing.T) {
	var r receipts
	for _, c := range []struct {
		tick    uint32
		first   bool
		missing uint64
	}{
		{1, true, 0}, {2, true, 0}, {5, true, 2}, // 3 and 4 missing
		{4, true, 1}, {4, false, 1}, {2, false, 1}, // 4 arrives late; duplicates
		{5 + receiptWindow, true, 1 + receiptWindow - 1}, // a jump of a whole window
		{3, false, receiptWindow},                        // too old to tell: stays lost
		{6, true, receiptWindow - 1},                     // within the window still
	} {
		if first := r.see(c.tick); first != c.first || r.missing != c.missing {
			t.Fatalf("tick %d: first %v missing %d, want %v %d", c.tick, first, r.missing, c.first, c.missing)
		}
	}
}
