package record

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"jitterlab/recordings"
	"jitterlab/sim"
)

// ParseChange reads any record as a Setting without panicking; what it
// read re-encodes to a record it reads back as the same Setting; a
// record the capture writes (a canonical one) re-encodes to the same
// bytes; and export --changes writes it as one CSV row of five fields.
func FuzzChangeGrammar(f *testing.F) {
	for _, c := range []recordings.Change{
		{Key: "up.latency", Value: "40ms"},
		{Key: "client 127.0.0.1:5000 down.loss", Value: "2%"},
		{Key: "client [::1]:5000", Value: Cleared},
		{Key: "client 127.0.0.1:5000", Value: "kept"},
		{Key: "flow 3", Value: "127.0.0.1:5001"},
		{Key: "flow 03", Value: "x"},
		{Key: "flow 0", Value: "x"},
		{Key: "flow 18446744073709551616", Value: "x"},
		{Key: "client ", Value: Cleared},
		{Key: "client", Value: ""},
		{Key: "client a b c", Value: "d,\"e\"\n"},
	} {
		f.Add(int64(c.At), c.Key, c.Value)
	}
	f.Fuzz(func(t *testing.T, at int64, key, value string) {
		c := recordings.Change{At: sim.Time(at), Key: key, Value: value}
		s := ParseChange(c)
		again := s.Change()
		if back := ParseChange(again); back != s {
			t.Fatalf("%q = %q reads as %+v; its re-encoding %q = %q reads as %+v", key, value, s, again.Key, again.Value, back)
		}
		if ParseChange(again).Change() != again {
			t.Fatalf("%q = %q: the re-encoding %q = %q is not canonical", key, value, again.Key, again.Value)
		}
		if strings.Contains(s.Client, " ") && s.Flow == 0 {
			t.Fatalf("%q = %q: client %q holds a space", key, value, s.Client)
		}
		var out bytes.Buffer
		if err := WriteChangesCSV(&out, []recordings.Change{c}, sim.Time(at), sim.Time(at)); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&out).ReadAll()
		if err != nil || len(rows) != 2 || len(rows[1]) != 5 {
			t.Fatalf("%q = %q exports as %q (%v)", key, value, out.String(), err)
		}
	})
}

// A setting the capture writes spells the record the grammar says, and
// reads back as itself.
func TestChangeGrammarSpellsEachForm(t *testing.T) {
	for _, c := range []struct {
		s          Setting
		key, value string
	}{
		{Setting{Key: "up.latency", Value: "40ms"}, "up.latency", "40ms"},
		{Setting{Client: "127.0.0.1:5000", Key: "down.loss", Value: "2%"}, "client 127.0.0.1:5000 down.loss", "2%"},
		{Setting{Client: "[::1]:5000", Cleared: true}, "client [::1]:5000", "cleared"},
		{Setting{Flow: 12, Client: "127.0.0.1:5001"}, "flow 12", "127.0.0.1:5001"},
	} {
		c.s.At = 7
		got := c.s.Change()
		if got != (recordings.Change{At: 7, Key: c.key, Value: c.value}) {
			t.Errorf("%+v spells %q = %q; want %q = %q", c.s, got.Key, got.Value, c.key, c.value)
		}
		if back := ParseChange(got); back != c.s {
			t.Errorf("%q = %q reads as %+v; want %+v", got.Key, got.Value, back, c.s)
		}
	}
}
