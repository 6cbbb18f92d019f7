package widget

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rivo/tview"
)

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
		if got := CutToWidth(c.text, c.w); got != c.want {
			t.Errorf("cutToWidth(%q, %d) = %q; want %q", c.text, c.w, got, c.want)
		}
	}
}

// cutToWidth takes one pass over what it keeps: a megabyte of text is cut
// as a short one is (it was quadratic, and ran in every draw).
func TestCutToWidthOfAMegabyte(t *testing.T) {
	text := "[red]API refused[-] " + strings.Repeat("é9[", 1<<18)
	got := CutToWidth(text, 40)
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
		got := CutToWidth(text, w)
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
				CutToWidth(text, 80)
			}
		})
	}
}
