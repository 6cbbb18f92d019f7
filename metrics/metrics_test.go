package metrics

import (
	"bytes"
	"encoding/csv"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"jitterlab/sim"
)

func TestJitterRFC3550(t *testing.T) {
	var j Jitter
	// Constant transit: no jitter.
	for i := range 10 {
		j.Add(sim.Time(i*20e6), sim.Time(i*20e6+50e6))
	}
	if j.Value() != 0 {
		t.Fatalf("constant delay gave jitter %v", j.Value())
	}
	// Transit alternating 50/60 ms: |D| = 10 ms each packet; J converges
	// to 10 ms as J_n = 10·(1 − (15/16)^n).
	var k Jitter
	for i := range 200 {
		d := int64(50e6)
		if i%2 == 1 {
			d = 60e6
		}
		k.Add(sim.Time(int64(i)*20e6), sim.Time(int64(i)*20e6+d))
	}
	want := 10 * (1 - math.Pow(15.0/16, 199))
	if math.Abs(k.Ms()-want) > 1e-9 {
		t.Fatalf("jitter %v ms, want %v", k.Ms(), want)
	}
	// One step of the formula by hand: J=0, D=16ms → J=1ms.
	var h Jitter
	h.Add(0, 10e6)
	h.Add(20e6, 46e6)
	if h.Value() != time.Millisecond {
		t.Fatalf("J after |D|=16ms is %v, want 1ms", h.Value())
	}
}

func TestPDV(t *testing.T) {
	var p PDV
	for _, c := range []struct{ owd, want time.Duration }{{50, 0}, {70, 20}, {40, 0}, {45, 5}} {
		if got := p.Add(c.owd); got != c.want {
			t.Fatalf("PDV(%v) = %v, want %v", c.owd, got, c.want)
		}
	}
}

func TestHistogramQuantilesWithinResolution(t *testing.T) {
	h := NewHistogram(1e-3)
	r := rand.New(rand.NewPCG(1, 1))
	vals := make([]float64, 100000)
	for i := range vals {
		vals[i] = r.ExpFloat64() * 0.3
		h.Add(vals[i])
	}
	sort.Float64s(vals)
	for _, q := range []float64{0.5, 0.95, 0.99, 1} {
		exact := vals[int(math.Ceil(q*float64(len(vals))))-1]
		got := h.Quantile(q)
		if math.Abs(got-exact) > max(exact/128, 1e-3/2)+1e-12 {
			t.Errorf("q%v = %v, exact %v", q, got, exact)
		}
	}
	if h.Max() != vals[len(vals)-1] || h.Count() != 100000 {
		t.Fatal("max or count wrong")
	}
	allocs := testing.AllocsPerRun(100, func() { h.Add(1.234) })
	if allocs != 0 {
		t.Fatalf("Add allocates %v", allocs)
	}
}

func TestWelford(t *testing.T) {
	var w Welford
	for _, x := range []float64{2, 4, 4, 4, 5, 5, 7, 9} {
		w.Add(x)
	}
	if w.Mean() != 5 || math.Abs(w.SD()-math.Sqrt(32.0/7)) > 1e-12 {
		t.Fatalf("mean %v sd %v", w.Mean(), w.SD())
	}
}

// The running mean and SD are as accurate as Welford's update (mean +=
// d/n), against the exact values (big floats), on data built to hurt a
// shifted sum: a large common offset, a first value far from the rest, a
// drift, a constant.
func TestWelfordIsAsAccurateAsWelfordsUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	cases := map[string]func(i int) float64{
		"offset 1e9, sd 1":         func(int) float64 { return 1e9 + r.NormFloat64() },
		"first value 1000, then 5": func(i int) float64 { return map[bool]float64{true: 1000, false: 5 + r.NormFloat64()}[i == 0] },
		"ramp 0..1e4":              func(i int) float64 { return float64(i) + r.Float64() },
		"constant 0.1":             func(int) float64 { return 0.1 },
		"speeds, a snap first":     func(i int) float64 { return map[bool]float64{true: 120, false: 4.8 + 0.3*r.Float64()}[i == 0] },
	}
	for name, gen := range cases {
		for _, n := range []int{2, 3, 1000, 10000} {
			xs := make([]float64, n)
			var w Welford
			var wn, wmean, wm2 float64 // Welford's update
			for i := range xs {
				xs[i] = gen(i)
				w.Add(xs[i])
				wn++
				d := xs[i] - wmean
				wmean += d / wn
				wm2 += d * (xs[i] - wmean)
			}
			mean, sd := exactMeanSD(xs)
			wsd := math.Sqrt(wm2 / (wn - 1))
			ulp := func(x float64) float64 { return math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x) }
			if e, we := math.Abs(w.Mean()-mean), math.Abs(wmean-mean); e > max(4*we, 4*ulp(mean)) {
				t.Errorf("%s, n=%d: mean off by %g, Welford's update by %g", name, n, e, we)
			}
			if e, we := math.Abs(w.SD()-sd), math.Abs(wsd-sd); e > max(4*we, 1e-12*sd, 4*ulp(mean)) {
				t.Errorf("%s, n=%d: sd off by %g, Welford's update by %g (sd %g)", name, n, e, we, sd)
			}
		}
	}
}

// exactMeanSD is the mean and sample SD of xs in 256-bit arithmetic,
// rounded to float64.
func exactMeanSD(xs []float64) (mean, sd float64) {
	const prec = 256
	sum := new(big.Float).SetPrec(prec)
	for _, x := range xs {
		sum.Add(sum, big.NewFloat(x))
	}
	m := new(big.Float).SetPrec(prec).Quo(sum, big.NewFloat(float64(len(xs))))
	m2 := new(big.Float).SetPrec(prec)
	for _, x := range xs {
		d := new(big.Float).SetPrec(prec).Sub(big.NewFloat(x), m)
		m2.Add(m2, d.Mul(d, d))
	}
	v := m2.Quo(m2, big.NewFloat(float64(len(xs)-1)))
	mean, _ = m.Float64()
	vf, _ := v.Sqrt(v).Float64()
	return mean, vf
}

func TestCSVWriterHeaderAndRows(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := Sample{TS: 1.05, ServerTick: 21, TickOffset: -3, SendIntervalS: 0.052, RTTMs: 101.5, VisibleErrorM: 0.31234, Starved: 7}
	if err := w.Write(&s); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	recs, err := csv.NewReader(strings.NewReader(buf.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs[0], Columns) || len(recs[1]) != len(Columns) {
		t.Fatalf("header %v, row %v", recs[0], recs[1])
	}
	if got := reflect.TypeOf(Sample{}).NumField(); got != len(Columns) {
		t.Fatalf("Sample has %d fields, %d columns", got, len(Columns))
	}
	row := map[string]string{}
	for i, c := range Columns {
		row[c] = recs[1][i]
	}
	for c, want := range map[string]string{"t_s": "1.050", "server_tick": "21", "tick_offset": "-3", "send_interval_s": "0.052000",
		"rtt_ms": "101.500", "visible_error_m": "0.3123", "starved": "7"} {
		if row[c] != want {
			t.Errorf("%s = %q, want %q", c, row[c], want)
		}
	}
}

func TestWritePNG(t *testing.T) {
	var samples []Sample
	for i := range 400 {
		samples = append(samples, Sample{TS: float64(i) * 0.05, TickOffset: i%9 - 4, SendIntervalS: 0.048, VisibleErrorM: 0.2, RTTMs: 100})
	}
	panels := StandardPanels(2, 0.048, 0.052, 0.5)
	var a, b bytes.Buffer
	if err := WritePNG(&a, samples, panels, 800, "test"); err != nil {
		t.Fatal(err)
	}
	WritePNG(&b, samples, panels, 800, "test")
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same samples gave different images")
	}
	img, err := png.Decode(&a)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 800 || h != marginTop+4*panelH+footerH {
		t.Fatalf("image %d×%d", w, h)
	}
	// The offset series (−4..4, refs ±2) colours pixels in the first panel.
	colored := 0
	for y := marginTop; y < marginTop+panelH; y++ {
		for x := marginL; x < 800-marginR; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 == 0 && g>>8 == 150 && bl>>8 == 200 {
				colored++
			}
		}
	}
	if colored < 700 {
		t.Fatalf("only %d pixels of the offset series", colored)
	}
	if err := WritePNG(&b, nil, panels, 800, "x"); err == nil {
		t.Fatal("no samples accepted")
	}
}

// csvRows writes samples and returns the rows after the header as maps.
func csvRows(t *testing.T, samples ...Sample) []map[string]string {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewCSVWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range samples {
		if err := w.Write(&samples[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, c := range Columns {
			row[c] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// Issue 15.14: --every 100us gives rows 0.1 ms apart, and each prints its
// own time; the default 50 ms keeps three decimals.
func TestCSVTimeHasDigitsForThePeriod(t *testing.T) {
	var samples []Sample
	for k := int64(1); k <= 30; k++ {
		samples = append(samples, Sample{TS: sim.Time(k * 100_000).Seconds()})
	}
	samples = append(samples, Sample{TS: sim.Time(3_600_000_000_001).Seconds()}, Sample{TS: 1.05})
	seen := map[string]bool{}
	rows := csvRows(t, samples...)
	for _, row := range rows {
		if seen[row["t_s"]] {
			t.Fatalf("time %s printed twice", row["t_s"])
		}
		seen[row["t_s"]] = true
	}
	for i, want := range map[int]string{0: "0.0001", 9: "0.001", 10: "0.0011", 30: "3600.000000001", 31: "1.050"} {
		if got := rows[i]["t_s"]; got != want {
			t.Errorf("row %d: t_s %q, want %q", i, got, want)
		}
	}
}

// Issue 8.8: a value with no data (NaN) is an empty field, never 0.
func TestCSVMissingIsEmpty(t *testing.T) {
	nan := math.NaN()
	row := csvRows(t, Sample{TS: 0.05, RTTMs: nan, UpOWDMs: 12.5, DownOWDMs: nan, UpJitterMs: nan, DownJitterMs: nan, PDVMs: nan})[0]
	for c, want := range map[string]string{"rtt_ms": "", "up_owd_ms": "12.500", "down_owd_ms": "", "up_jitter_ms": "", "pdv_ms": "", "visible_error_m": "0.0000"} {
		if row[c] != want {
			t.Errorf("%s = %q, want %q", c, row[c], want)
		}
	}
}

func TestSameTreatsNoDataAsEqual(t *testing.T) {
	a := Sample{TS: 1, RTTMs: math.NaN(), UpOWDMs: 3}
	b := a
	if !Same(&a, &b) {
		t.Fatal("a sample is not the same as its copy")
	}
	b.UpOWDMs = 4
	if Same(&a, &b) {
		t.Fatal("different samples are the same")
	}
}

func TestHistogramHugeValuesGoToTheLastBucket(t *testing.T) {
	h := NewHistogram(0.01)
	for _, v := range []float64{1e300, math.Inf(1), 50} {
		h.Add(v)
	}
	if p := h.Quantile(0.2); h.Count() != 3 || math.Abs(p-50) > 0.4 {
		t.Fatalf("count %d, p20 %v, want 3 and 50 within a bucket", h.Count(), p)
	}
}

// The bucket of a value is the documented one: for x = v·(1/Unit), below 128 it is the
// whole number of units; above, the power of two (from Frexp) and its 128
// linear sub-buckets; from 2^48·128 units on, the last bucket. Checked at
// every bucket boundary, a value either side of it, and random values.
func TestHistogramIndexIsLogLinear(t *testing.T) {
	h := NewHistogram(0.01)
	want := func(v float64) int {
		x := v * (1 / h.Unit)
		if x < subBuckets {
			return int(x)
		}
		frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
		e := exp - subBits - 1     // x in [128·2^e, 256·2^e)
		if e >= octaves || math.IsInf(x, 1) {
			return nBuckets - 1
		}
		return subBuckets*(e+1) + int(frac*2*subBuckets) - subBuckets
	}
	check := func(v float64) {
		if got, w := h.index(v), want(v); got != w {
			t.Fatalf("index(%v) = %d, want %d", v, got, w)
		}
	}
	for i := range nBuckets + 1 {
		lo, _ := h.bounds(min(i, nBuckets-1))
		if i == nBuckets {
			lo *= 2
		}
		check(lo)
		check(math.Nextafter(lo, 0))
		check(math.Nextafter(lo, math.Inf(1)))
	}
	r := rand.New(rand.NewPCG(5, 5))
	for range 100000 {
		check(math.Exp2(r.Float64()*70 - 10))
	}
	check(math.MaxFloat64)
	check(math.Inf(1))
}

// Ticks fall on a 1-2-5 step at least gap pixels apart, every multiple of
// the step in range and nothing else.
func TestTicksOnA125Step(t *testing.T) {
	cases := []struct {
		lo, hi  float64
		px, gap int
		step    float64
		ticks   []float64
	}{
		{0, 100, 170, 28, 20, []float64{0, 20, 40, 60, 80, 100}}, // 16.5 → 20
		{-4.6, 4.6, 144, 28, 2, []float64{-4, -2, 0, 2, 4}},      // 1.79 → 2
		{0.045, 0.055, 144, 28, 0.002, []float64{0.046, 0.048, 0.05, 0.052, 0.054}},
		{0, 3.3, 1110, 110, 0.5, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3}}, // 0.327 → 0.5
	}
	for _, c := range cases {
		step, ticks := Ticks(c.lo, c.hi, c.px, c.gap)
		if math.Abs(step-c.step) > 1e-12 || len(ticks) != len(c.ticks) {
			t.Errorf("Ticks(%v, %v) = %v %v, want %v %v", c.lo, c.hi, step, ticks, c.step, c.ticks)
			continue
		}
		for i := range ticks {
			if math.Abs(ticks[i]-c.ticks[i]) > 1e-9 {
				t.Errorf("Ticks(%v, %v) = %v, want %v", c.lo, c.hi, ticks, c.ticks)
				break
			}
		}
		if px := step / (c.hi - c.lo) * float64(c.px); px < float64(c.gap) {
			t.Errorf("Ticks(%v, %v): %v px apart, want ≥ %d", c.lo, c.hi, px, c.gap)
		}
	}
}

// No two labels of a panel's axis overlap: references first (one too
// close to another is left out, its line stays), then the ticks.
func TestPanelLabelsDoNotOverlap(t *testing.T) {
	r := image.Rect(70, 40, 780, 184)
	for _, p := range []struct {
		refs   []float64
		lo, hi float64
	}{
		{[]float64{0.048, 0.052}, 0, 0.3},    // the send interval's two levels 2 px apart
		{[]float64{2, -2}, -40, 40},          // the tick offset far outside its band
		{[]float64{0.5}, 0, 0.6},             // the snap line near the top tick
		{nil, 18.2, 1234.5},                  // an RTT
		{[]float64{1, 1.01, 1.02}, 0.9, 1.1}, // three references on one label's height
	} {
		yOf := func(v float64) int { return r.Min.Y + int(math.Round((p.hi-v)/(p.hi-p.lo)*float64(r.Dy()-1))) }
		labels := panelLabels(Panel{Refs: p.refs}, p.lo, p.hi, r, yOf)
		ticks := 0
		for i, a := range labels {
			if a.tick {
				ticks++
			}
			for _, b := range labels[i+1:] {
				if a.box.Overlaps(b.box) {
					t.Errorf("refs %v over %v..%v: %q and %q overlap", p.refs, p.lo, p.hi, a.text, b.text)
				}
			}
		}
		if ticks < 2 {
			t.Errorf("refs %v over %v..%v: %d ticks", p.refs, p.lo, p.hi, ticks)
		}
		if len(p.refs) > 0 && labels[0].text != trimFloat(p.refs[0]) {
			t.Errorf("the first reference %v is not labelled first: %+v", p.refs[0], labels[0])
		}
	}
}

// The plots' font has lower and upper case: "ms" is not drawn as "MS".
func TestPlotTextIsMixedCase(t *testing.T) {
	draw := func(s string) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 40, 20))
		text(img, 0, 0, s, color.RGBA{0, 0, 0, 255})
		return img
	}
	if bytes.Equal(draw("ms").Pix, draw("MS").Pix) {
		t.Error("ms and MS draw the same pixels")
	}
	if textWidth("(ms)") != 4*charW {
		t.Errorf("textWidth(\"(ms)\") = %d", textWidth("(ms)"))
	}
}

// A histogram holds the buckets up to the highest its values landed in:
// values from 1 to 1000 units fill the buckets below 128 units and the
// three powers of two 128–256, 256–512 and 512–1024 units, at most 4 KB.
func TestHistogramHoldsOnlyTheBucketsItUses(t *testing.T) {
	h := NewHistogram(0.5)
	for v := 0.5; v <= 500; v += 0.25 {
		h.Add(v)
	}
	if n := len(h.counts); n != h.index(500)+1 || n > 4*subBuckets {
		t.Fatalf("%d buckets held, want %d (the highest used), within 4 powers of two (%d)", n, h.index(500)+1, 4*subBuckets)
	}
}

// Reset empties a histogram: afterwards it reads as a new one, gives the
// same quantiles for the same values, and refilling it allocates nothing.
func TestHistogramResetIsANewHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	vals := make([]float64, 5000)
	for i := range vals {
		vals[i] = r.ExpFloat64() * 40
	}
	h := NewHistogram(0.01)
	for range 1000 {
		h.Add(r.Float64() * 1e6) // other values first, in other blocks
	}
	h.Reset()
	if h.Count() != 0 || h.Max() != 0 || h.Quantile(0.5) != 0 {
		t.Fatalf("after Reset: count %d, max %v, p50 %v; want 0, 0, 0", h.Count(), h.Max(), h.Quantile(0.5))
	}
	fresh := NewHistogram(0.01)
	for _, v := range vals {
		h.Add(v)
		fresh.Add(v)
	}
	for _, q := range []float64{0, 0.01, 0.5, 0.95, 0.99, 1} {
		if got, want := h.Quantile(q), fresh.Quantile(q); got != want {
			t.Errorf("q%v after Reset %v, fresh %v", q, got, want)
		}
	}
	if h.Count() != fresh.Count() || h.Max() != fresh.Max() {
		t.Errorf("count/max after Reset %d/%v, fresh %d/%v", h.Count(), h.Max(), fresh.Count(), fresh.Max())
	}
	allocs := testing.AllocsPerRun(10, func() {
		h.Reset()
		for _, v := range vals {
			h.Add(v)
		}
	})
	if allocs != 0 {
		t.Fatalf("refilling a reset histogram allocates %v times", allocs)
	}
}
