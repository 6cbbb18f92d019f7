package fit

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/trace"
)

// FuzzFit: whatever capture the generic CSV reader accepts, the fit (cut
// in periods or not) either refuses it with an error or writes a report, a
// page and a scenario that the lab loads (no NaN, no value out of a key's
// range).
func FuzzFit(f *testing.F) {
	f.Add([]byte("seq,send_ns,recv_ns\n"))
	var b bytes.Buffer
	b.WriteString("dir,seq,send_ns,recv_ns\n")
	for i := range 40 {
		b.WriteString("up," + itoa(i) + "," + itoa(i*20e6) + "," + itoa(i*20e6+37e6) + "\n")
	}
	f.Add(b.Bytes())
	if data, err := os.ReadFile("testdata/run.csv"); err == nil {
		var csv bytes.Buffer
		tr, _ := trace.ReadPackets("run.csv", bytes.NewReader(data))
		trace.WriteCSV(&csv, tr)
		f.Add(csv.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := trace.ReadCSV("fuzz.csv", bytes.NewReader(data))
		if err != nil {
			return
		}
		res, err := Fit(tr, Options{Periods: len(data)%2 == 0}) // half the inputs cut in periods too
		if err != nil {
			return
		}
		var text, html, scen bytes.Buffer
		if err := res.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteHTML(&html); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteScenario(&scen); err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("fitted.toml", scen.Bytes(), lab.CheckAssignment)
		if err == nil {
			cfg := lab.DefaultConfig()
			err = lab.ApplyScenario(&cfg, sc)
		}
		if err != nil && res.OffsetRemoved == 0 {
			t.Fatalf("the fitted scenario does not load: %v\n%s", err, scen.Bytes())
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }
