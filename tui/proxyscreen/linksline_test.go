package proxyscreen

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// The line listing the links fits the box (qa2): with two clients on
// links of their own at 80×24 it ran off the box's edge, so the second
// client, and which link the box showed when it was that one, could not
// be seen, nor at 120 with settings as long as these. Every link is
// listed, whole, its address at least: the settings give way when they do
// not fit (the set rows give the shown link's; two links with short
// settings keep them, TestProxyScreenShowsEachClientsOwnLink).
func TestProxyLinksLineFitsTheBox(t *testing.T) {
	for _, w := range []int{80, 120} {
		p := newTwoLinkProxy(t)
		v, screen := openProxy(p, Options{}, w, 24, 50)
		third := p.groups[1]
		third.Addr, third.Own = "127.0.0.1:5002", "down.jitter=8ms down.jitter_dist=normal"
		p.groups = append(p.groups, third)
		v.advance(0)
		drawProxy(v, screen)
		for range 2 {
			proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'f', 0))
		}
		out := drawProxy(v, screen)
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, " f shows ") {
				line = l
			}
		}
		if !strings.Contains(out, " 127.0.0.1:5002's own link: ") {
			t.Fatalf("%d columns: f twice does not show the third link:\n%s", w, out)
		}
		for _, want := range []string{"everybody's 1 client", "127.0.0.1:5001", "127.0.0.1:5002"} {
			if !strings.Contains(line, want) {
				t.Errorf("%d columns: the links line lacks %q: %q", w, want, line)
			}
		}
		if !strings.HasSuffix(strings.TrimRight(line, " "), "│") {
			t.Errorf("%d columns: the links line runs off the box: %q", w, line)
		}
	}
}
