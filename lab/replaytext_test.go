package lab

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// An end record's summary is shown only when it is this session's: a
// Summary and nothing else, of the header's seed, as long as the recording.
func TestRecordedSummaryIsOnlyThisSessions(t *testing.T) {
	own, err := json.Marshal(Summary{Seed: 7, SimS: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		summary string
		at      time.Duration
		ok      bool
	}{
		{"its own", string(own), 2 * time.Second, true},
		{"another seed's", strings.Replace(string(own), `"seed":7`, `"seed":8`, 1), 2 * time.Second, false},
		{"shorter than the recording", string(own), 3 * time.Second, false},
		{"another program's fields", `{"flows":3,"up":{"sent":5}}`, 2 * time.Second, false},
		{"a summary and more", string(own) + string(own), 2 * time.Second, false},
	} {
		_, ok := RecordedSummary(&recordings.End{At: sim.Time(c.at), Summary: []byte(c.summary)}, 7)
		if ok != c.ok {
			t.Errorf("%s: shown %v, want %v", c.name, ok, c.ok)
		}
	}
}

// WriteRecording lists the changes and says why it shows no summary when
// the end record's is another program's.
func TestWriteRecordingWithAForeignSummary(t *testing.T) {
	var b bytes.Buffer
	w, err := recordings.NewWriter(&b, HeaderOf(DefaultConfig(), "mine", 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	x := metrics.Sample{TS: 0.05}
	if err := w.Change(recordings.Change{At: sim.Time(50 * time.Millisecond), Key: "up.loss", Value: "2%"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Sample(&x); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recordings.End{At: sim.Time(50 * time.Millisecond), Summary: []byte(`{"flows":3}`)}); err != nil {
		t.Fatal(err)
	}
	r, err := recordings.Open(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteRecording(&out, r, "x.jlrec"); err != nil {
		t.Fatal(err)
	}
	want := "recording  x.jlrec\nscenario   mine, seed 1, sample every 50ms\nlength     00:00:00.050 in 2 frames\nchanges    1\n  at 00:00:00.050  up.loss = 2%\n" +
		"summary    not shown: the end record's summary is not this session's (its fields, seed or length disagree)\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
