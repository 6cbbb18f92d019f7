package proxyscreen

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"jitterlab/internal/golden"
)

// A chart column's figures are the lab's sample's: the latest frame's
// tick offset and send interval, the largest visible error of the
// column's frames; without a frame, not measured.
func TestGameFiguresOfAColumn(t *testing.T) {
	var g gameFigures
	for _, p := range []GamePoint{
		{TickOffset: 1, SendIntervalS: 0.05, VisibleErrorM: 0.1},
		{TickOffset: 2, SendIntervalS: 0.05, VisibleErrorM: 0.4},
		{TickOffset: 3, SendIntervalS: 0.033, VisibleErrorM: 0.2},
	} {
		g.add(p)
	}
	if got := g.figures(); got != (gameFigures{frames: 3, offset: 3, interval: 0.033, visErr: 0.4}) {
		t.Fatalf("figures %+v; want offset 3, interval 0.033 (the latest), visible error 0.4 (the largest)", got)
	}
	var none gameFigures
	if got := none.figures(); !math.IsNaN(got.offset) || !math.IsNaN(got.interval) || !math.IsNaN(got.visErr) {
		t.Fatalf("no frame: %+v, want NaN each", got)
	}
	// A negative offset and a zero error are figures, not "none".
	var one gameFigures
	one.add(GamePoint{TickOffset: -4, SendIntervalS: 0.02})
	if got := one.figures(); got != (gameFigures{frames: 1, offset: -4, interval: 0.02, visErr: 0}) {
		t.Fatalf("one frame: %+v", got)
	}
}

// gameProxy is fakeProxy with the game's telemetry: 60 frames/s (6 a
// tick). Its tick offset is +1 for the first 20 s, then +3; its send
// interval 0.050 s, then 0.033 s; its visible error a saw from 0 to
// 0.25 m over each second, 0.75 m once at 30 s.
type gameProxy struct {
	*fakeProxy
	frames uint64
}

func (g *gameProxy) tick() {
	g.fakeProxy.tick()
	game := &Game{Frames: g.frames, Refused: 0}
	for range 6 {
		g.frames++
		at := time.Duration(g.frames) * time.Second / 60
		p := GamePoint{At: at, TickOffset: 1, SendIntervalS: 0.05, VisibleErrorM: float64(g.frames%60) / 240}
		if at > 20*time.Second {
			p.TickOffset, p.SendIntervalS = 3, 0.033
		}
		if g.frames == 30*60 {
			p.VisibleErrorM = 0.75
		}
		game.Points = append(game.Points, p)
	}
	game.Frames = g.frames
	g.snap.Game = game
}

func gameAt(t *testing.T, w, h int) (*View, *gameProxy, string) {
	t.Helper()
	g := &gameProxy{fakeProxy: newFakeProxy(t)}
	v, screen := openProxy(g, Options{}, w, h, 400)
	return v, g, drawProxy(v, screen)
}

// With the game's telemetry the screen charts its tick offset, send
// interval and visible error, as the lab does, the latest in the titles;
// at 120×40 beside the link's three charts, at 80×24 in their place (the
// box below keeps the link's figures).
func TestProxyScreenChartsTheGame(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v, _, out := gameAt(t, sz.w, sz.h)
			// The latest column (39.9–40.0 s): frames 2395–2400, errors
			// 55/240 … 59/240 and 0: the largest 59/240 = 0.246 m.
			for _, want := range []string{"tick offset ─ +3", "send interval (s) ─ 0.033", "visible error (m) ─ 0.25",
				"    real        55.0   70.0    8.2   2.0%   1.0", "q quit"} {
				if !strings.Contains(out, want) {
					t.Errorf("the screen lacks %q:\n%s", want, out)
				}
			}
			links := strings.Contains(out, "added delay (ms)") && strings.Contains(out, "packets/s in") && strings.Contains(out, "jitter in (ms)")
			if links != (sz.h >= 40) {
				t.Errorf("the link's charts shown: %v at %d rows:\n%s", links, sz.h, out)
			}
			if x := v.samples[len(v.samples)-1].game; x.offset != 3 || x.interval != 0.033 || x.visErr != 59.0/240 || x.frames != 6 {
				t.Errorf("the latest column's figures %+v", x)
			}
			// The 0.75 m spike at 30 s is on the chart: its top label.
			if !strings.Contains(out, "0.82") {
				t.Errorf("the visible error chart's range does not reach the 0.75 m spike:\n%s", out)
			}
			golden.Check(t, filepath.Join("testdata", fmt.Sprintf("proxy-game-%dx%d.txt", sz.w, sz.h)), []byte(out))
		})
	}
}

// Telemetry on and no frame yet: the game's charts show, their figures
// not measured ("–").
func TestProxyScreenGameWithoutFrames(t *testing.T) {
	f := newFakeProxy(t)
	f.snap.Game = &Game{}
	v, screen := openProxy(f, Options{}, 80, 24, 20)
	out := drawProxy(v, screen)
	for _, want := range []string{"tick offset ─ –", "send interval (s) ─ –", "visible error (m) ─ –"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screen lacks %q:\n%s", want, out)
		}
	}
}

// g on a short terminal puts the link's charts in place of the game's,
// and back; on a tall one both show whatever g says; without telemetry g
// is no key of the screen's.
func TestProxyGSwapsTheChartsOnAShortTerminal(t *testing.T) {
	g := &gameProxy{fakeProxy: newFakeProxy(t)}
	v, screen := openProxy(g, Options{}, 80, 24, 50)
	shows := func() (game, link bool) {
		out := drawProxy(v, screen)
		return strings.Contains(out, "tick offset ─"), strings.Contains(out, "added delay (ms) ─")
	}
	for i, want := range [][2]bool{{true, false}, {false, true}, {true, false}} {
		if i > 0 {
			proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'g', 0))
		}
		if game, link := shows(); game != want[0] || link != want[1] {
			t.Fatalf("80×24 after %d g: game's charts %v, link's %v; want %v", i, game, link, want)
		}
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'g', 0))
	screen.SetSize(120, 40)
	if game, link := shows(); !game || !link {
		t.Fatalf("120×40 after g: game's charts %v, link's %v; want both", game, link)
	}

	f := newFakeProxy(t)
	plain, _ := openProxy(f, Options{}, 80, 24, 5)
	if ev := plain.onKey(tcell.NewEventKey(tcell.KeyRune, 'g', 0)); ev == nil || plain.linkCharts {
		t.Fatal("without telemetry g was taken")
	}
}

// The game's three charts sit above the link's three from gameScreenRows
// rows up (the help and the guide say 34), in their place below.
func TestProxyGameChartsBesideTheLinksFrom34Rows(t *testing.T) {
	if gameScreenRows != 34 {
		t.Fatalf("gameScreenRows %d: the guide and the CHANGELOG say 34", gameScreenRows)
	}
	g := &gameProxy{fakeProxy: newFakeProxy(t)}
	v, screen := openProxy(g, Options{}, 100, gameScreenRows, 50)
	for _, h := range []int{gameScreenRows - 1, gameScreenRows, gameScreenRows + 7} {
		screen.SetSize(100, h)
		out := drawProxy(v, screen)
		game, link := strings.Contains(out, "tick offset ─"), strings.Contains(out, "added delay (ms) ─")
		if !game || link != (h >= gameScreenRows) {
			t.Errorf("%d rows: game's charts %v, link's %v:\n%s", h, game, link, out)
		}
	}
}
