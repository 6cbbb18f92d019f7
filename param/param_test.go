package param

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsesValuesAsPeopleWriteThem(t *testing.T) {
	d, err := Duration("up.latency", "80ms")
	if err != nil || d != 80*time.Millisecond {
		t.Fatalf("80ms → %v %v", d, err)
	}
	for in, want := range map[string]float64{"2%": 0.02, "0.02": 0.02, "100%": 1, "0": 0, " 4 % ": 0.04} {
		if f, err := Fraction("up.loss", in); err != nil || math.Abs(f-want) > 1e-15 {
			t.Errorf("Fraction(%q) = %v %v, want %v", in, f, err, want)
		}
	}
	for in, want := range map[string]int64{"1.5mbit": 1500000, "500kbit": 500000, "10gbit": 1e10, "64000bit": 64000, "0": 0, "2Mbps": 16e6} {
		if r, err := Rate("up.rate", in); err != nil || r != want {
			t.Errorf("Rate(%q) = %v %v, want %v", in, r, err, want)
		}
	}
	for in, want := range map[string]float64{"+40ppm": 40, "-12.5ppm": -12.5, "2%": 20000, "0": 0, "0ppm": 0} {
		if p, err := PPM("client.drift_ppm", in, 500000); err != nil || p != want {
			t.Errorf("PPM(%q) = %v %v, want %v", in, p, err, want)
		}
	}
}

func TestBadValuesNameKeyValueAndAllowed(t *testing.T) {
	cases := []struct {
		name string
		err  error
		key  string
	}{
		{"negative latency", second(Duration("up.latency", "-5ms")), "up.latency"},
		{"bare number latency", second(Duration("up.latency", "80")), "up.latency"},
		{"loss over 100%", second(Fraction("up.loss", "120%")), "up.loss"},
		{"loss NaN", second(Fraction("up.loss", "NaN")), "up.loss"},
		{"correlation above 1", second(Float("up.jitter_corr", "1.5", 0, 1)), "up.jitter_corr"},
		{"correlation NaN", second(Float("up.jitter_corr", "nan", 0, 1)), "up.jitter_corr"},
		{"unknown distribution", second(Choice("up.jitter_dist", "gamma", "uniform", "normal")), "up.jitter_dist"},
		{"rate with an unknown unit", second(Rate("up.rate", "1.5mbits")), "up.rate"},
		{"negative rate", second(Rate("up.rate", "-1mbit")), "up.rate"},
		{"drift without unit", second(PPM("client.drift_ppm", "40", 1e5)), "client.drift_ppm"},
		{"drift too large", second(PPM("client.drift_ppm", "+2000000ppm", 5e5)), "client.drift_ppm"},
		{"bool", second(Bool("up.keep_order", "maybe")), "up.keep_order"},
		{"int range", second(Int("up.queue", "-1", 0, 1e6)), "up.queue"},
		{"zero positive duration", second(PositiveDuration("server.tick", "0")), "server.tick"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var pe *Error
			if !errors.As(c.err, &pe) {
				t.Fatalf("got %v, want *param.Error", c.err)
			}
			msg := pe.Error()
			if pe.Key != c.key || !strings.Contains(msg, c.key) || !strings.Contains(msg, "allowed") || pe.Value == "" || !strings.Contains(msg, pe.Value) {
				t.Fatalf("error %q does not name key %s, the value and what is allowed", msg, c.key)
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }

func TestFormatRoundTrips(t *testing.T) {
	if got := FormatFraction(0.07); got != "7%" {
		t.Errorf("FormatFraction(0.07) = %q, want 7%%", got)
	}
	for _, f := range []float64{0, 0.02, 0.04, 0.07, 0.001, 1, 0.0010005, 1 - math.Sqrt(0.998), 1.0 / 3} {
		if g, err := Fraction("k", FormatFraction(f)); err != nil || g != f {
			t.Errorf("fraction %v → %q → %v %v", f, FormatFraction(f), g, err)
		}
	}
	for _, r := range []int64{0, 1, 1500000, 500000, 1e9, 12345} {
		if g, err := Rate("k", FormatRate(r)); err != nil || g != r {
			t.Errorf("rate %v → %q → %v %v", r, FormatRate(r), g, err)
		}
	}
	for _, p := range []float64{0, 40, -12.5, 20000} {
		if g, err := PPM("k", FormatPPM(p), 5e5); err != nil || g != p {
			t.Errorf("ppm %v → %q → %v %v", p, FormatPPM(p), g, err)
		}
	}
}

// FuzzParsers: no input panics, every error is a *Error naming the key, and
// every accepted value is inside its documented range.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{"80ms", "2%", "0.02", "1.5mbit", "500kbit", "2mbps", "1kibit", "50ms80ms", "1h30m", "+40ppm", "NaN", "-1", "1e309", "%", "ppm", "kbit", "true", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(err error) {
			if err == nil {
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Key != "k" || pe.Value != s {
				t.Fatalf("%q: error %v is not a *Error for key k", s, err)
			}
		}
		d, err := Duration("k", s)
		check(err)
		if err == nil && d < 0 {
			t.Fatalf("Duration(%q) = %v < 0", s, d)
		}
		if back, err2 := Duration("k", d.String()); err == nil && (err2 != nil || back != d) {
			t.Fatalf("Duration(%q) = %v does not read back from %q: %v %v", s, d, d.String(), back, err2)
		}
		fr, err := Fraction("k", s)
		check(err)
		if err == nil && !(fr >= 0 && fr <= 1) {
			t.Fatalf("Fraction(%q) = %v", s, fr)
		}
		r, err := Rate("k", s)
		check(err)
		if err == nil && (r < 0 || r > MaxRate) {
			t.Fatalf("Rate(%q) = %v", s, r)
		}
		if back, err2 := Rate("k", FormatRate(r)); err == nil && (err2 != nil || back != r) {
			t.Fatalf("Rate(%q) = %v does not read back from %q: %v %v", s, r, FormatRate(r), back, err2)
		}
		p, err := PPM("k", s, 5e5)
		check(err)
		if err == nil && !(math.Abs(p) <= 5e5) {
			t.Fatalf("PPM(%q) = %v", s, p)
		}
		x, err := Float("k", s, 0, 1)
		check(err)
		if err == nil && !(x >= 0 && x <= 1) {
			t.Fatalf("Float(%q) = %v", s, x)
		}
		_, err = Bool("k", s)
		check(err)
		_, err = Int("k", s, 0, 10)
		check(err)
	})
}

// Closest keeps only the nearest names: one edit beats two, ties stay in
// the candidates' order, nothing beyond two edits.
func TestClosest(t *testing.T) {
	names := []string{"mobile-3g", "mobile-4g", "mobile-5g", "jitter-fix", "lan"}
	cases := []struct {
		word string
		want []string
	}{
		{"mobile4g", []string{"mobile-4g"}},                            // 1 edit; mobile-3g and -5g are 2
		{"mobile-6g", []string{"mobile-3g", "mobile-4g", "mobile-5g"}}, // 1 edit each
		{"jiter-fix", []string{"jitter-fix"}},
		{"lan", []string{"lan"}},
		{"wifi", nil}, // 3 edits from lan: no guess
	}
	for _, c := range cases {
		if got := Closest(c.word, names); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q) = %v, want %v", c.word, got, c.want)
		}
	}
	if got := DidYouMean("mobile-6g", names); got != "; did you mean mobile-3g or mobile-4g or mobile-5g?" {
		t.Errorf("DidYouMean: %q", got)
	}
	if got := DidYouMean("wifi", names); got != "" {
		t.Errorf("DidYouMean with nothing near: %q", got)
	}
}
