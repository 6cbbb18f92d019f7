package batch

import (
	"encoding/json"
	"math"
	"testing"

	"jitterlab/stats"
)

// A batch's JSON states a metric as name, mean, per_seed, in that order;
// a seed without data (NaN) is null, a value the shortest decimal that
// reads back the same.
func TestMetricStatJSON(t *testing.T) {
	per := []float64{0.25, math.NaN(), 1e6}
	s := NewMetricStat("judder_mps", per)
	if &s.PerSeed[0] != &per[0] {
		t.Errorf("NewMetricStat copied the per-seed values")
	}
	mean, err := json.Marshal(stats.Mean(per))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"judder_mps","mean":` + string(mean) + `,"per_seed":[0.25,null,1e+06]}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
