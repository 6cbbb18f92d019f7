package batch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
)

// base is the defaults for 1 s, as a batch without --scenario starts.
func base() lab.Config {
	cfg := lab.DefaultConfig()
	cfg.Duration = time.Second
	return cfg
}

func ab(a, b []string) Definition {
	return Definition{Kind: "ab", A: a, B: b, Seeds: []uint64{1}}
}

func sweep(axes ...Axis) Definition {
	return Definition{Kind: "sweep", Axes: axes, Seeds: []uint64{1}}
}

func axis(key string, values ...string) Axis { return Axis{Key: key, Values: values} }

// TestPlanRefusals (issue 8 item 6 and QA item 6): settings of one thing
// given twice, settings the batch decides itself and variants that say
// nothing are one-line errors naming the flag and the value, never a
// silent winner.
func TestPlanRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		def  Definition
		want []string
	}{
		{"--b sets the seed", ab(nil, []string{"sim.seed=3"}), []string{"--b sim.seed=3", "--seeds"}},
		{"--a sets the seed", ab([]string{"sim.seed=3"}, []string{"server.inputs=queue"}), []string{"--a sim.seed=3", "--seeds"}},
		{"--b sets the duration", ab(nil, []string{"sim.duration=10s"}), []string{"--b sim.duration=10s", "--duration"}},
		{"--set sets the seed", func() Definition {
			d := ab(nil, []string{"server.inputs=queue"})
			d.Overrides = []string{"sim.seed=3"}
			return d
		}(), []string{"--set sim.seed=3", "--seeds"}},
		{"--over the seed", sweep(axis("sim.seed", "1", "2")), []string{"--over sim.seed", "--seeds"}},
		{"--over the duration", sweep(axis("sim.duration", "1s", "2s")), []string{"--over sim.duration", "--duration"}},
		{"one key in two --over", sweep(axis("link.loss", "0%", "1%"), axis("link.loss", "5%")), []string{"--over link.loss", "twice"}},
		{"link.X and up.X in two --over", sweep(axis("link.jitter", "1ms", "2ms"), axis("up.jitter", "0ms", "5ms")), []string{"--over link.jitter and --over up.jitter set up.jitter twice"}},
		{"one key twice in --b", ab(nil, []string{"server.inputs=queue", "server.inputs=latest"}), []string{"--b", "server.inputs=queue", "server.inputs=latest", "twice"}},
		{"link.X and up.X in --b", ab(nil, []string{"link.jitter=5ms", "up.jitter=8ms"}), []string{"--b", "link.jitter=5ms", "up.jitter=8ms", "set up.jitter twice"}},
		{"A and B the same", ab([]string{"server.inputs=queue"}, []string{"server.inputs=queue"}), []string{"--a server.inputs=queue", "--b server.inputs=queue", "the same"}},
		{"B the default", ab(nil, []string{"server.inputs=latest"}), []string{"--a (none: the scenario as it is)", "--b server.inputs=latest", "the same"}},
		{"a value twice", sweep(axis("link.jitter", "1ms", "1ms")), []string{"--over link.jitter=1ms,1ms", "1ms and 1ms", "twice"}},
		{"a value twice, written two ways", sweep(axis("link.jitter", "1ms", "2ms", "1000us")), []string{"--over link.jitter", "1ms and 1000us", "twice"}},
		{"a bad value", sweep(axis("link.jitter", "1ms", "fast")), []string{"--over link.jitter=fast"}},
		{"an unknown key", ab(nil, []string{"server.inptus=queue"}), []string{"--b", "server.inptus"}},
		{"a grid of 20000 runs", func() Definition {
			var vs []string
			for i := range 10 {
				vs = append(vs, string(rune('0'+i))+"ms")
			}
			d := sweep(axis("link.latency", vs...), axis("link.jitter", vs...))
			d.Seeds = nil
			for i := range 200 {
				d.Seeds = append(d.Seeds, uint64(i))
			}
			return d
		}(), []string{"--over × --seeds make 20000 runs; allowed at most 10000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPlan(c.def, base(), nil)
			if err == nil {
				t.Fatalf("NewPlan = %d arms, no error; want one naming %q", len(p.Configs), c.want)
			}
			if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: want one line, errors.Is ErrInvalid", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not name %q", err, w)
				}
			}
		})
	}
}

// TestNewPlanBuildsEveryArm: each arm's configuration is the base with
// the arm's settings applied in order, the definition states the
// conditions, and a grid's arms are every combination, the last axis
// fastest.
func TestNewPlanBuildsEveryArm(t *testing.T) {
	b := base()
	if err := lab.Set(&b, "up.latency", "40ms"); err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(sweep(axis("link.jitter", "0ms", "20ms"), axis("link.loss", "0%", "5%", "10%")), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Configs) != 6 || p.Def.Runs() != 6 || p.Def.Scenario != "default" || p.Def.DurationS != 1 {
		t.Fatalf("%d configs, %d runs, scenario %q, %v s; want 6, 6, default, 1 s", len(p.Configs), p.Def.Runs(), p.Def.Scenario, p.Def.DurationS)
	}
	i := 0
	for _, jitter := range []string{"0ms", "20ms"} {
		for _, loss := range []string{"0%", "5%", "10%"} {
			want := b
			if lab.Set(&want, "link.jitter", jitter) != nil || lab.Set(&want, "link.loss", loss) != nil {
				t.Fatal("the registry refuses", jitter, loss)
			}
			if !reflect.DeepEqual(p.Configs[i], want) {
				t.Errorf("arm %d is not the base with link.jitter=%s link.loss=%s", i, jitter, loss)
			}
			i++
		}
	}
	if !reflect.DeepEqual(p.Def.Link, LinkOf(&b)) {
		t.Errorf("the definition's link %v is not the base's %v", p.Def.Link, LinkOf(&b))
	}
}

// TestValidateAcceptsDistinctSettings: what is refused above, written
// once, is fine.
func TestValidateAcceptsDistinctSettings(t *testing.T) {
	for _, d := range []Definition{
		ab(nil, []string{"server.inputs=queue", "link.jitter=5ms"}),
		ab([]string{"up.jitter=5ms"}, []string{"down.jitter=5ms"}),
		sweep(axis("up.jitter", "1ms", "2ms"), axis("down.jitter", "0ms", "5ms")),
	} {
		if err := d.Validate(); err != nil {
			t.Errorf("%+v: %v", d, err)
		}
		if _, err := NewPlan(d, base(), nil); err != nil {
			t.Errorf("NewPlan(%+v): %v", d, err)
		}
	}
}

// Settings lists every assignment of a definition, and Trusted refuses,
// unless trusted, the one that names a file.
func TestDefinitionTrusted(t *testing.T) {
	d := Definition{Kind: "sweep", Overrides: []string{"link.latency=20ms"}, Axes: []Axis{axis("up.trace", "none", "game.csv")}}
	if got, want := strings.Join(d.Settings(), " "), "link.latency=20ms up.trace=none up.trace=game.csv"; got != want {
		t.Errorf("Settings = %q, want %q", got, want)
	}
	if err := d.Trusted(lab.Untrusted); err == nil || !strings.Contains(err.Error(), `up.trace names a file, "game.csv"`) {
		t.Errorf("Trusted(Untrusted) = %v; want the trace refused", err)
	}
	if err := d.Trusted(lab.OpenFiles); err != nil {
		t.Errorf("Trusted(OpenFiles) = %v", err)
	}
	ab := ab([]string{"server.inputs=queue"}, []string{"server.inputs=queue down.trace=x.csv"})
	if got := ab.Settings(); len(got) != 3 || got[2] != "down.trace=x.csv" {
		t.Errorf("Settings of an A/B = %q, want --b split in two", got)
	}
	if err := ab.Trusted(lab.Untrusted); err == nil {
		t.Error("--b down.trace=x.csv trusted")
	}
}
