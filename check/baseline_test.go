package check

import (
	"bytes"
	"strings"
	"testing"

	"jitterlab/lab"
)

const gateText = `name = "g"
seeds = "1-4"
link.latency = "40ms"
client.fps = 60

[[assert]]
metric = "judder_mps"
max_worse = 0.5
`

// A baseline reads back and gives max_worse its paired differences: the
// build judged is the baseline plus 1 on every seed (values exact in
// binary: a difference of exactly 1, interval 1 ± 0), so max_worse 0.5 fails and 1 passes.
func TestBaselineRoundTripAndPairedVerdict(t *testing.T) {
	g, err := Load(gateFile(t, "g.toml", gateText))
	if err != nil {
		t.Fatal(err)
	}
	base := Figures{"judder_mps": {0.25, 0.5, 0.125, 1}}
	b := NewBaseline("v1")
	if err := b.Add(g, base); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	b.Write(&buf)
	read, err := ReadBaseline("base.json", &buf)
	if err != nil {
		t.Fatal(err)
	}
	got, err := read.For("base.json", g)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Judgement(g, Figures{"judder_mps": {1.25, 1.5, 1.125, 2}}, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Status != Fail || res[0].Interval.Mean != 1 || res[0].Base.Mean != 0.46875 {
		t.Fatalf("max_worse 0.5 on +1 every seed: %+v; want fail, difference 1, baseline 0.46875", res)
	}
	g.Asserts[0].Limit = 1
	if res, _ := Judgement(g, Figures{"judder_mps": {1.25, 1.5, 1.125, 2}}, got); res[0].Status != Pass {
		t.Errorf("max_worse 1 on +1 every seed: %v; want pass", res[0].Status)
	}
	if _, err := Judgement(g, Figures{"judder_mps": {1, 1, 1, 1}}, nil); err == nil || !IsInput(err) || !strings.Contains(err.Error(), "needs a baseline: give --baseline FILE") {
		t.Errorf("max_worse without a baseline: %v", err)
	}
}

// A baseline from other conditions or another model is refused with an
// error naming what differs; the client's settings may differ (they are
// the build under test).
func TestBaselineRefusesOtherConditionsAndModels(t *testing.T) {
	g, _ := Load(gateFile(t, "g.toml", gateText))
	b := NewBaseline("v1")
	b.Add(g, Figures{"judder_mps": {1, 2, 3, 4}})
	var buf bytes.Buffer
	b.Write(&buf)
	saved := buf.String()

	other, _ := Load(gateFile(t, "g.toml", strings.Replace(gateText, "client.fps = 60", "client.fps = 30", 1)))
	read, _ := ReadBaseline("base.json", strings.NewReader(saved))
	if _, err := read.For("base.json", other); err != nil {
		t.Errorf("another client setting: %v; want it compared", err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"another latency", strings.Replace(gateText, "40ms", "50ms", 1), `baseline base.json: scenario g was saved with down.latency = "40ms", `},
		{"other seeds", strings.Replace(gateText, "1-4", "1-5", 1), `baseline base.json: scenario g was saved with seeds = "1-4", `},
		{"another name", strings.Replace(gateText, `name = "g"`, `name = "h"`, 1), `baseline base.json: no scenario h (it holds g)`},
	} {
		g, err := Load(gateFile(t, "g.toml", c.text))
		if err != nil {
			t.Fatal(err)
		}
		read, _ := ReadBaseline("base.json", strings.NewReader(saved))
		if _, err := read.For("base.json", g); err == nil || !IsInput(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	old := strings.Replace(saved, `"model": "`+lab.ModelVersion+`"`, `"model": "card-1"`, 1)
	if _, err := ReadBaseline("base.json", strings.NewReader(old)); err == nil || !strings.Contains(err.Error(), `baseline base.json: saved by model "card-1", this build's model is "`+lab.ModelVersion+`"`) {
		t.Errorf("another model: %v", err)
	}
	if _, err := ReadBaseline("base.json", strings.NewReader(`{"kind":"run"}`)); err == nil || !strings.Contains(err.Error(), "not a baseline") {
		t.Errorf("not a baseline: %v", err)
	}
}

// FuzzReadBaseline: no input panics; an accepted baseline is of this
// model and holds a value per seed of every figure.
func FuzzReadBaseline(f *testing.F) {
	f.Add([]byte(`{"schema":2,"kind":"baseline","model":"` + lab.ModelVersion + `","scenarios":[{"name":"g","seeds":[1,2],"figures":{"judder_mps":[0.1,null]}}]}`))
	f.Add([]byte(`{"kind":"baseline"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBaseline("fuzz.json", bytes.NewReader(data))
		if err != nil {
			return
		}
		if b.Model != lab.ModelVersion {
			t.Fatalf("accepted model %q", b.Model)
		}
		for _, s := range b.Scenarios {
			for name, vs := range s.Figures {
				if len(vs) != len(s.Seeds) {
					t.Fatalf("accepted %s with %d values for %d seeds", name, len(vs), len(s.Seeds))
				}
			}
		}
	})
}
