package proxy

import (
	"encoding/binary"
	"testing"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

// FuzzCore drives the core with a random sequence of arrivals, time steps,
// expiries and parameter changes, four bytes an operation, and checks its
// contract after every step:
//
//   - every datagram handed in is released at most once per copy the link
//     made, to the flow and direction it came in on, or counted dropped;
//     the counters balance;
//   - what the core holds stays within the limits: flows, datagrams and
//     bytes per flow and direction, bytes in all, and the queue holds only
//     live copies plus a bounded number of removed flows' entries;
//   - once everything is due, nothing is held.
func FuzzCore(f *testing.F) {
	f.Add([]byte{1, 0, 10, 0, 0, 50, 0, 0, 3, 0, 0, 0})
	f.Add([]byte{5, 40, 10, 30, 1, 1, 200, 0, 1, 2, 255, 0, 2, 1, 3, 0, 0, 255, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0})
	f.Add([]byte{1, 0, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1, 3, 1, 0, 1, 4, 1, 0, 1, 5, 1, 0, 0, 255, 3, 0, 4, 0, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		l := Limits{MaxFlows: 4, IdleTimeout: 200 * time.Millisecond, FlowPackets: 8, FlowBytes: MaxPacket, TotalBytes: 2 * MaxPacket}
		c, err := NewCore(7, netem.Params{Latency: 20 * time.Millisecond}, netem.Params{}, l)
		if err != nil {
			t.Fatal(err)
		}
		type sent struct {
			flow      FlowID
			dir       Dir
			delivered int
		}
		pkts := map[uint64]*sent{}
		var now sim.Time
		var seq uint64
		var out []Delivery
		send := func(id FlowID, d Dir, size int) {
			seq++
			p := make([]byte, max(size, 8))
			binary.BigEndian.PutUint64(p, seq)
			pkts[seq] = &sent{flow: id, dir: d}
			c.Send(now, id, d, p)
		}
		check := func() {
			for _, dl := range out {
				s := pkts[binary.BigEndian.Uint64(dl.Payload)]
				if s == nil || s.flow != dl.Flow || s.dir != dl.Dir {
					t.Fatalf("released %+v, which was not sent to that flow and direction", dl)
				}
				if s.delivered++; s.delivered > 2 {
					t.Fatalf("packet released %d times", s.delivered)
				}
			}
			out = out[:0]
			st := c.Stats()
			for _, cn := range []Counters{st.Up, st.Down} {
				in := cn.Received + cn.Duplicated
				fates := cn.Overflow + cn.Lost + cn.QueueDropped + cn.Discarded + cn.Released + cn.InFlight
				if in != fates {
					t.Fatalf("counters do not balance: %d in, %d accounted: %+v", in, fates, cn)
				}
			}
			if st.Flows > l.MaxFlows || st.HeldBytes > l.TotalBytes || st.HeldBytes < 0 {
				t.Fatalf("beyond the limits: %+v", st)
			}
			for _, f := range c.flows {
				for _, s := range f.sides {
					if len(s.payloads) > l.FlowPackets || s.bytes > l.FlowBytes {
						t.Fatalf("a flow holds %d datagrams, %d bytes", len(s.payloads), s.bytes)
					}
				}
			}
			if live := int(st.Up.InFlight + st.Down.InFlight); c.q.Len() != live+c.stale || c.stale > max(1024, c.q.Len()/2) {
				t.Fatalf("queue %d entries for %d live copies and %d stale", c.q.Len(), live, c.stale)
			}
		}
		for len(ops) >= 4 {
			op, a, b, x := ops[0], ops[1], ops[2], ops[3]
			ops = ops[4:]
			switch op % 6 {
			case 0:
				now = now.Add(time.Duration(a)*time.Millisecond + time.Duration(b)*10*time.Millisecond)
			case 1:
				id, _, err := c.Flow(now, port(5000+uint16(a%8)))
				if err != nil {
					t.Fatal(err)
				}
				send(id, Up, min(int(b)*300, MaxPacket))
			case 2:
				send(FlowID(a%16), Down, min(int(b)*300, MaxPacket)) // possibly removed or never made
			case 3:
				out = c.Due(now, out)
			case 4:
				c.Expire(now)
			case 5:
				p := netem.Params{Latency: time.Duration(a) * time.Millisecond, Jitter: time.Duration(b) * time.Millisecond,
					Loss: float64(x&3) / 4, Duplicate: float64(x>>2&3) / 4, Reorder: float64(x>>4&3) / 4, Queue: int(x >> 6)}
				if err := c.SetParams(p, p); err != nil {
					t.Fatal(err)
				}
			}
			c.TakeRemoved(nil)
			check()
		}
		out = c.Due(sim.Time(1<<62), out)
		check()
		if st := c.Stats(); st.HeldBytes != 0 || st.Up.InFlight+st.Down.InFlight != 0 {
			t.Fatalf("held after everything was due: %+v", st)
		}
	})
}
