package proxyscreen

import (
	"regexp"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// A link whose clients went quiet shows no loss burst (qa2): after 10 s
// with no datagram its real row read "–" for the loss and "0" for the
// mean burst, as if a burst length of 0 had been measured. Every figure of
// a quiet link but the rates (0 packets/s) is a dash.
func TestQuietLinkShowsNoBurst(t *testing.T) {
	p := newTwoLinkProxy(t)
	v, screen := openProxy(p, Options{}, 80, 24, 100)
	for range 120 { // 12 s without a datagram
		p.snap.Wall += 100 * time.Millisecond
		for i := range p.groups {
			p.groups[i].Up.DelaysMs = []float64{}
		}
		v.advance(0)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'f', 0)) // the client's own link, which lost some before
	out := drawProxy(v, screen)
	realUp := regexp.MustCompile(`│    real\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)`)
	m := realUp.FindStringSubmatch(out)
	if m == nil || m[4] != "–" || m[5] != "–" || m[8] != "0" {
		t.Errorf("quiet link: want loss and burst – and 0 packets/s; got %q:\n%s", m, out)
	}
}
