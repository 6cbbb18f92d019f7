package game

import (
	"fmt"
	"io"
	"time"
)

// WriteAccount writes what the client did in wall time wall, as lab game
// client ends: its frames, whether it logged in, the inputs it sent, the
// last tick the server acknowledged, telemetry it could not send, and its
// datagrams ([Counts.Summary]).
func (c *Client) WriteAccount(w io.Writer, wall time.Duration) error {
	m := c.cl
	fmt.Fprintf(w, "%d frames in %.1fs, logged in %v, %d inputs sent, last acknowledged tick %d\n", c.frames, wall.Seconds(), m.LoggedIn(), m.Counters().Sent, m.AckTick())
	if c.telErr != nil {
		fmt.Fprintf(w, "telemetry frames not sent: %v\n", c.telErr)
	}
	_, err := fmt.Fprintf(w, "datagrams: %s\n", c.counts.Summary())
	return err
}

// WriteAccount writes what the server did in wall time wall, as lab game
// server ends: its steps, the logins, what became of the inputs that
// arrived, and its datagrams ([Counts.Summary]).
func (s *Server) WriteAccount(w io.Writer, wall time.Duration) error {
	c := s.sv.Counters()
	fmt.Fprintf(w, "%d steps in %.1fs, %d logins; inputs arrived %d, applied %d, overwritten %d, late %d, starved %d\n",
		s.sv.Tick(), wall.Seconds(), s.logins, c.Arrived, c.Applied, c.Overwritten, c.LateDropped, c.Starved)
	_, err := fmt.Fprintf(w, "datagrams: %s\n", s.counts.Summary())
	return err
}
