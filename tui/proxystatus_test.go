package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// QA: on the proxy's screen a status wider than the screen (an API
// change of many keys) keeps to its one row, cut with "…", so the charts
// keep their rows; the changes panel (c) still has its full text.
func TestProxyStatusKeepsToOneRow(t *testing.T) {
	f := newFakeProxy(t)
	v, screen := openProxy(f, ProxyOptions{}, 80, 24, 10)
	before := rows(screenOf(v, screen))
	what := "PUT /params: up.loss=20% down.latency=80ms up.latency=30ms up.jitter=5ms down.jitter=7ms down.loss=1%"
	f.snap.Changes = append(f.snap.Changes, ProxyChange{At: 1500 * time.Millisecond, What: what, By: "API"})
	f.tick()
	v.advance(0)
	after := rows(screenOf(v, screen))
	if len(after) != 24 {
		t.Fatalf("%d rows", len(after))
	}
	status := strings.TrimSpace(after[22])
	if !strings.HasPrefix(status, "API +00:00:01.5 PUT /params: up.loss=20%") || !strings.HasSuffix(status, "…") {
		t.Errorf("status row %q; want the change cut with …", status)
	}
	for y := range 22 { // the header, the charts and the box stay where they were
		if before[y][:2] != after[y][:2] {
			t.Errorf("row %d moved: %q, was %q", y, after[y], before[y])
		}
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	drawProxy(v, screen)
	if log := untagged(v.log.text); !strings.Contains(log, "+00:00:01.5 API "+what) {
		t.Errorf("the changes panel lacks the whole change %q:\n%s", what, log)
	}
}

func screenOf(v *ProxyView, s tcell.SimulationScreen) tcell.SimulationScreen {
	drawProxy(v, s)
	return s
}

// cutToWidth keeps colour tags whole: a cut never leaves half a tag on
// screen as text.
func TestCutToWidthKeepsTagsWhole(t *testing.T) {
	for _, c := range []struct {
		text string
		w    int
		want string
	}{
		{"[red]abc[-]def", 6, "[red]abc[-]def"},
		{"[red]abc[-]def", 4, "[red]abc[-]…"},
		{"ab[yellow]cdef[-]", 4, "ab[yellow]c…"},
		{"abc", 0, "…"},
	} {
		if got := cutToWidth(c.text, c.w); got != c.want {
			t.Errorf("cutToWidth(%q, %d) = %q; want %q", c.text, c.w, got, c.want)
		}
	}
}

// A change of 500 KB (a value sent to the API, refused with an error that
// quotes it) reaches the screen bounded (issue 27.3): the status keeps to
// its row, the changes panel shows each change's first maxChangeText
// bytes and how many it left out, and drawing takes one pass.
func TestProxyScreenBoundsAHugeChange(t *testing.T) {
	f := newFakeProxy(t)
	v, screen := openProxy(f, ProxyOptions{}, 80, 24, 10)
	huge := strings.Repeat("9", 500_000)
	f.snap.Changes = append(f.snap.Changes, ProxyChange{At: time.Second, What: "PUT /params: up.latency=" + huge, By: "API",
		Refused: `up.latency: bad value "` + huge + `"`})
	f.tick()
	v.advance(0)
	if n := len(v.statusText); n > 2*maxChangeText+200 {
		t.Fatalf("status text of %d bytes; want at most about %d", n, 2*maxChangeText)
	}
	status := strings.TrimSpace(rows(screenOf(v, screen))[22])
	if !strings.HasPrefix(status, "API refused +00:00:01.0 PUT /params: up.latency=999") || !strings.HasSuffix(status, "…") {
		t.Errorf("status row %q", status)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	drawProxy(v, screen)
	log := untagged(v.log.text)
	if len(log) > 4*maxChangeText || !strings.Contains(log, "bytes more)") {
		t.Errorf("changes panel of %d bytes; want each change cut to %d bytes saying how much more:\n%.300s", len(log), maxChangeText, log)
	}
}

// cutToWidth takes one pass over what it keeps: a megabyte of text is cut
// as a short one is (it was quadratic, and ran in every draw).
func TestCutToWidthOfAMegabyte(t *testing.T) {
	text := "[red]API refused[-] " + strings.Repeat("é9[", 1<<18)
	got := cutToWidth(text, 40)
	if w := tview.TaggedStringWidth(got); w > 40 || !strings.HasPrefix(got, "[red]API refused[-] é9[é9[") || !strings.HasSuffix(got, "…") {
		t.Fatalf("cutToWidth(1 MB, 40) = %q (width %d)", got, w)
	}
}

// Whatever the text, the cut fits the width, keeps a prefix of the text
// (tags whole) and is the text itself when that fits.
func FuzzCutToWidth(f *testing.F) {
	for _, s := range []string{"[red]abc[-]def", "ab[yellow]cdef[-]", "[foo[]bar", "日本語テキスト", "a\u0301b[red]c", "🇫🇷🇩🇪x", "[::b]bold[::-] [\"r\"]x[\"\"]"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, text string, w int) {
		w = w%200 + 1
		if w < 1 {
			w += 200
		}
		got := cutToWidth(text, w)
		if tview.TaggedStringWidth(text) <= w {
			if got != text {
				t.Fatalf("cutToWidth(%q, %d) = %q; it fits", text, w, got)
			}
			return
		}
		kept, ok := strings.CutSuffix(got, "…")
		if !ok || !strings.HasPrefix(text, kept) {
			t.Fatalf("cutToWidth(%q, %d) = %q: not a prefix and …", text, w, got)
		}
		if gw := tview.TaggedStringWidth(got); gw > w {
			t.Fatalf("cutToWidth(%q, %d) = %q: %d columns", text, w, got, gw)
		}
	})
}

// BenchmarkCutToWidth: a status of 1 KiB and one of 1 MiB cost the same,
// the columns kept.
func BenchmarkCutToWidth(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		text := strings.Repeat("up.latency=9 ", n/13)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cutToWidth(text, 80)
			}
		})
	}
}
