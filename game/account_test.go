package game

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
)

// The account of endpoints that did nothing, known by hand.
func TestAccountOfEndpointsThatDidNothing(t *testing.T) {
	cl, sv := endpoints(t, lab.DefaultConfig())
	for _, c := range []struct {
		e    Endpoint
		want string
	}{
		{cl, "0 frames in 1.5s, logged in false, 0 inputs sent, last acknowledged tick 0\n"},
		{sv, "0 steps in 1.5s, 0 logins; inputs arrived 0, applied 0, overwritten 0, late 0, starved 0\n"},
	} {
		var b bytes.Buffer
		if err := c.e.WriteAccount(&b, 1500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if want := c.want + "datagrams: 0 datagrams received, 0 malformed, 0 foreign; 0 sent, 0 failed\n"; b.String() != want {
			t.Errorf("got %q, want %q", b.String(), want)
		}
	}
}

// The account of a game played says what its endpoints counted.
func TestAccountOfAGamePlayed(t *testing.T) {
	p := play(t, lab.DefaultConfig(), 2*time.Second, 20*time.Millisecond)
	var b bytes.Buffer
	if err := p.cl.WriteAccount(&b, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d frames in 2.0s, logged in true, ", p.cl.Frames()); p.cl.Frames() == 0 || !strings.HasPrefix(b.String(), want) {
		t.Fatalf("client: %q, want it to start %q", b.String(), want)
	}
	b.Reset()
	if err := p.sv.WriteAccount(&b, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d steps in 2.0s, 1 logins; ", p.sv.Model().Tick()); !strings.HasPrefix(b.String(), want) {
		t.Fatalf("server: %q, want it to start %q", b.String(), want)
	}
}
