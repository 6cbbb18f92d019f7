package widget

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func render(c *Chart, w, h int) string {
	var b strings.Builder
	for _, row := range c.Render(w, h) {
		b.WriteString(strings.TrimRight(string(row), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestBrailleBits(t *testing.T) {
	// Dots 1,2,3,7 are the left column, 4,5,6,8 the right (Unicode order).
	want := [2][4]uint8{{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}
	for x := range 2 {
		for y := range 4 {
			if got := brailleBit(x, y); got != want[x][y] {
				t.Errorf("dot (%d,%d) = %#x, want %#x", x, y, got, want[x][y])
			}
		}
	}
}

func TestChartRendersARampAndReferenceLines(t *testing.T) {
	c := NewChart("t")
	c.Min, c.Max = 0, 7
	c.Values = []float64{0, 1, 2, 3, 4, 5, 6, 7}
	got := render(c, labelWidth+4, 2)
	// 8 values on 8 dot columns and 8 dot rows: a diagonal from the bottom
	// left to the top right.
	// The range is labelled at the top and bottom.
	want := "     7   ⡠⠊\n     0 ⡠⠊\n"
	if got != want {
		t.Fatalf("ramp:\n%s\nwant:\n%s", got, want)
	}

	c = NewChart("offset")
	c.Min, c.Max = -4, 4
	c.Refs = []RefLine{{2, "+2"}, {-2, "-2"}}
	c.Values = []float64{0, 0, 0, 0}
	out := render(c, labelWidth+6, 6)
	lines := strings.Split(out, "\n")
	find := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		return -1
	}
	plus, minus := find("    +2 ┈"), find("    -2 ┈")
	if plus < 0 || minus < 0 || plus >= minus {
		t.Fatalf("reference lines missing or misplaced:\n%s", out)
	}
	zero := -1
	for i, l := range lines {
		if strings.ContainsAny(l, "⠉⠒⠤⣀") {
			zero = i
		}
	}
	if zero <= plus || zero >= minus {
		t.Fatalf("the zero line (row %d) is not between +2 (row %d) and -2 (row %d):\n%s", zero, plus, minus, out)
	}
}

func TestChartBucketsKeepSpikes(t *testing.T) {
	c := NewChart("err")
	c.Min, c.Max = 0, 1
	c.Per = 10
	c.Values = make([]float64, 100)
	c.Values[55] = 1 // one spike among zeros
	out := render(c, labelWidth+5, 2)
	top := []rune(strings.Split(out, "\n")[0])
	spike := false
	for _, r := range top[labelWidth:] {
		spike = spike || r != ' '
	}
	if !spike {
		t.Fatalf("a spike averaged away by downsampling:\n%s", out)
	}
}

// The labelled window spans the box: a full window of values fills every
// dot column, however many values each column holds.
func TestChartsFillTheirWidth(t *testing.T) {
	for _, n := range []int{100, 600, 2400, 57} {
		c := NewChart("w")
		c.Min, c.Max = 0, 1
		c.Window = n
		c.Values = make([]float64, n)
		for plotW := 10; plotW <= 160; plotW += 7 {
			grid := c.Render(labelWidth+plotW, 1)
			for x := labelWidth; x < labelWidth+plotW; x++ {
				if r := grid[0][x]; r < 0x2800 || r > 0x28FF || (r-0x2800)&0xC0 != 0xC0 {
					t.Fatalf("window %d on %d columns: column %d is %q, not both bottom dots:\n%s", n, plotW, x-labelWidth, r, string(grid[0]))
				}
			}
		}
	}
}

// A half-full window fills the right half: the time axis does not stretch.
func TestChartHalfWindowFillsTheRightHalf(t *testing.T) {
	c := NewChart("w")
	c.Min, c.Max = 0, 1
	c.Window = 200
	c.Values = make([]float64, 100)
	row := string(c.Render(labelWidth+40, 1)[0][labelWidth:])
	if want := strings.Repeat(" ", 20) + strings.Repeat("⣀", 20); row != want {
		t.Fatalf("half a window:\n%q\nwant\n%q", row, want)
	}
}

// Marks sit on the time axis at the column of the value they name.
func TestChartMarksChangesOnTheTimeAxis(t *testing.T) {
	c := NewChart("w")
	c.Window = 100
	c.Values = make([]float64, 100)
	c.Marks = []int{0, 50, 99}
	got := c.markColumns(40)
	if want := []int{0, 20, 39}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("marks at columns %v, want %v", got, want)
	}
}

func TestWindowSpanLabels(t *testing.T) {
	for _, c := range []struct {
		span  int
		every time.Duration
		want  string
	}{{200, 50 * time.Millisecond, "10s"}, {600, 50 * time.Millisecond, "30s"}, {2400, 50 * time.Millisecond, "2m"}, {10, 100 * time.Microsecond, "1ms"}} {
		if got := FmtSpan(c.span, c.every); got != c.want {
			t.Errorf("%d × %v = %q, want %q", c.span, c.every, got, c.want)
		}
	}
}

// A chart with reference lines labels the data beyond them too: the tick
// offset reaching +5 past its ±2 band shows +5 on the axis, not only in
// the title; data within the band add no label.
func TestChartLabelsTheDataBeyondItsReferences(t *testing.T) {
	c := NewChart("tick offset")
	c.Format = "%+.0f"
	c.Refs = []RefLine{{2, "+2"}, {-2, "-2"}}
	c.Values = []float64{0, 1, 5, 3, 0, -1}
	out := render(c, labelWidth+6, 3)
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "    +5 ") {
		t.Errorf("the top value +5 is not on the axis:\n%s", out)
	}
	if !strings.Contains(out, "    +2 ┈") || !strings.Contains(out, "    -2 ┈") {
		t.Errorf("the band's labels are gone:\n%s", out)
	}
	c.Values = []float64{0, 1, 2, 1, 0, -1}
	if out := render(c, labelWidth+6, 3); strings.Contains(out, "+1") || strings.Contains(out, "-1 ") {
		t.Errorf("data within the band labelled:\n%s", out)
	}
}

// A title too wide for its chart keeps its value: the short name, then
// the short note, before anything is cut.
func TestChartTitleKeepsItsValue(t *testing.T) {
	c := NewChart("rtt (ms)")
	c.Short = "rtt ms"
	c.SetNotes("111, jitter 11.0/11.0", "111")
	for _, tc := range []struct {
		w    int
		want string
	}{
		{40, " rtt (ms) ─ 111, jitter 11.0/11.0 "},
		{34, " rtt ms ─ 111, jitter 11.0/11.0 "},
		{20, " rtt ms ─ 111 "},
		{8, " 111 "},
	} {
		if got := c.titleFor(tc.w); got != tc.want {
			t.Errorf("width %d: %q, want %q", tc.w, got, tc.want)
		}
	}
}
