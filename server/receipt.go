package server

// receiptWindow is how far behind the newest tick received a tick's
// receipt is still told apart: an input arriving later than that after a
// newer one stays counted as lost.
const receiptWindow = 256

// receipts tracks which client ticks have reached the server, in their own
// packet or as a redundant copy, whatever became of them: Counters.Lost is
// the ticks up to the newest received that never did.
type receipts struct {
	newest  uint32
	bits    [receiptWindow / 64]uint64 // tick t at bit t % receiptWindow, for t in (newest − window, newest]
	missing uint64
}

// see marks tick t received and reports whether it was the first time.
func (r *receipts) see(t uint32) bool {
	if t == 0 {
		return false
	}
	if t > r.newest {
		gap := t - r.newest - 1
		r.missing += uint64(gap)
		for k := range min(uint64(gap)+1, receiptWindow) {
			r.clear(t - uint32(k))
		}
		r.newest = t
		r.set(t)
		return true
	}
	if r.newest-t >= receiptWindow || r.has(t) {
		return false
	}
	r.set(t)
	r.missing--
	return true
}

func (r *receipts) has(t uint32) bool { return r.bits[t%receiptWindow/64]&(1<<(t%64)) != 0 }
func (r *receipts) set(t uint32)      { r.bits[t%receiptWindow/64] |= 1 << (t % 64) }
func (r *receipts) clear(t uint32)    { r.bits[t%receiptWindow/64] &^= 1 << (t % 64) }
