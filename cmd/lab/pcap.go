package main

import (
	"fmt"
	"time"

	"jitterlab/capture"
	"jitterlab/lab"
	"jitterlab/netem"
)

// simSides describe a simulated session's two capture interfaces.
var simSides = [2]string{
	fmt.Sprintf("the game client's end of the simulated link (%v)", capture.SimClient),
	fmt.Sprintf("the game server's end of the simulated link (%v)", capture.SimServer),
}

// captureSession writes every datagram of s to w: on the sender's side
// when sent (with the fate of each copy), on the receiver's side when a
// copy arrives. Both come in true-time order, so the file is in time
// order. The first write error goes to *werr.
func captureSession(s *lab.Session, w *capture.Writer, werr *error) {
	sizes := map[string]int{} // wire size by message kind, from the sends
	dir := func(d string) capture.Dir {
		if d == "up" {
			return capture.Up
		}
		return capture.Down
	}
	s.OnSend = func(r *lab.SendRecord) {
		sizes[r.Kind] = r.Size
		e := capture.Event{At: time.Duration(r.SentAt), Dir: dir(r.Dir), Seq: r.Seq, Kind: r.Kind, Size: r.Size}
		for c, f := range r.Fate {
			e.Copies[c] = capture.Copy{Fate: simFates[f]}
			if f == netem.FateScheduled {
				e.Copies[c].Delay = r.At[c].Sub(r.SentAt)
			}
		}
		if *werr == nil {
			*werr = w.Write(&e)
		}
	}
	prev := s.OnPacket
	s.OnPacket = func(p *lab.PacketRecord) {
		if prev != nil {
			prev(p)
		}
		if p.Status != "delivered" || *werr != nil {
			return
		}
		e := capture.Event{Arrived: true, At: time.Duration(p.At), Dir: dir(p.Dir), Seq: p.Seq, Kind: p.Kind, Size: sizes[p.Kind],
			Delay: p.At.Sub(p.SentAt), Duplicate: p.Copy == 1, Reordered: p.Reordered}
		*werr = w.Write(&e)
	}
}

var simFates = [...]capture.Fate{netem.FateNone: capture.NoCopy, netem.FateScheduled: capture.Delivered,
	netem.FateLost: capture.Lost, netem.FateQueueDropped: capture.QueueDropped}
