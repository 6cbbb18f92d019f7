package record

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/telemetry"
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

// writeRecording is a small proxy recording: two clients, one with a
// setting of its own and then cleared, packets of every fate both ways,
// and the end's summary.
func writeRecording(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := recordings.NewWriter(&b, Header(lab.HeaderOf(lab.DefaultConfig(), "fuzz", 0)))
	if err != nil {
		t.Fatal(err)
	}
	ms := sim.Time(time.Millisecond)
	for _, s := range []Setting{{Flow: 1, Client: "127.0.0.1:5001"}, {Flow: 2, Client: "[::1]:5002"},
		{At: 5 * ms, Client: "127.0.0.1:5001", Key: "up.latency", Value: "80ms"}, {At: 9 * ms, Key: "down.loss", Value: "2%"},
		{At: 30 * ms, Client: "127.0.0.1:5001", Cleared: true}} {
		if err := w.Change(s.Change()); err != nil {
			t.Fatal(err)
		}
	}
	fates := []recordings.PacketFate{recordings.PacketDelivered, recordings.PacketLost, recordings.PacketQueueDropped,
		recordings.PacketOverLimit, recordings.PacketDiscarded, recordings.PacketWriteFailed}
	var last sim.Time // a record's time never goes back
	for i := range 60 {
		in := sim.Time(i) * ms
		p := recordings.Packet{At: in, In: in, Dir: uint8(i % 2), Flow: uint64(1 + i%2), Size: 40 + i, Copy: uint8(i / 7 % 2), Fate: fates[i%len(fates)]}
		if p.Fate.Out() {
			p.Out, p.Scheduled, p.Reordered = in+20*ms, 19*time.Millisecond, i%5 == 0
			p.At = p.Out
		}
		p.At = max(p.At, last)
		last = p.At
		if err := w.Packet(&p); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 { // the game's telemetry beside the packets
			d := telemetry.Datagram{Kind: telemetry.KindFrame, Frame: telemetry.Frame{TS: float64(i) / 1000, Frame: uint64(i), SendIntervalS: 0.05, PendingInputs: 1}}
			if i%9 == 0 {
				d = telemetry.Datagram{Kind: telemetry.KindTick, Tick: telemetry.Tick{TS: float64(i) / 1000, Tick: uint32(i)}}
			}
			if err := w.Telemetry(last, &d); err != nil {
				t.Fatal(err)
			}
		}
	}
	sum, _ := json.Marshal(EndSummary{Up: DirSummary{Received: 30}, Down: DirSummary{Received: 30}, FlowsSeen: 2, CaptureDropped: 1})
	if err := w.Close(recordings.End{At: 100 * ms, Summary: sum}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Whatever file it is given, the reader's outputs never panic: replay's
// text, and export's CSV, whose every row has its header's fields.
func FuzzReadRecording(f *testing.F) {
	rec := writeRecording(f)
	f.Add(rec)
	f.Add(rec[:len(rec)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		r.OnDamage = func(*recordings.DamageError) {}
		WriteReplay(io.Discard, r, "fuzz.jlrec", "")
		var out bytes.Buffer
		if err := WritePacketsCSV(&out, r, 0, sim.Time(1<<62)); err == nil {
			checkCSV(t, out.String(), PacketColumns)
		}
		out.Reset()
		if err := WriteTelemetryCSV(&out, r, 0, sim.Time(1<<62)); err == nil {
			checkCSV(t, out.String(), TelemetryColumns)
		}
		if changes, err := r.Changes(); err == nil {
			out.Reset()
			if err := WriteChangesCSV(&out, changes, 0, sim.Time(1<<62)); err != nil {
				t.Fatal(err)
			}
			checkCSV(t, out.String(), ChangeColumns)
		}
	})
}

// checkCSV fails t unless text is CSV whose every row has the fields of
// header (the first row).
func checkCSV(t *testing.T, text, header string) {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(rows) == 0 || strings.Join(rows[0], ",")+"\n" != header {
		t.Fatalf("not CSV under %q: %v\n%.500s", header, err, text)
	}
	for _, row := range rows {
		if len(row) != len(rows[0]) {
			t.Fatalf("row %q under %q", row, header)
		}
	}
}

// The reader reads the small recording back as written: the clients and
// their settings, the fates' table, and the packets' CSV a row a packet.
func TestReaderReadsWhatWasWritten(t *testing.T) {
	b := writeRecording(t)
	r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteReplay(&out, r, "small.jlrec", "latency 0 at the start"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"link       latency 0 at the start\n", "changes    3\n",
		"  at 00:00:00.005  client 127.0.0.1:5001 up.latency = 80ms\n", "  at 00:00:00.009  down.loss = 2%\n",
		"  at 00:00:00.030  client 127.0.0.1:5001 back on everybody's settings\n",
		"clients    2 ", "  flow 1  127.0.0.1:5001  from 00:00:00.000\n", "  flow 2  [::1]:5002  from 00:00:00.000\n",
		"relay      read up 30, down 30;", "incomplete 1 packet events were dropped"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("replay lacks %q:\n%s", want, out.String())
		}
	}
	// By hand: packet i goes up when i is even, with fate i%6 of the list
	// (up: delivered, queue-dropped, discarded; down: lost, over-limit,
	// write-failed, 10 each), is a duplicate when i/7 is odd (up 12, down
	// 16) and reordered when i%5 == 0 among those released (0 and 30 up,
	// 5 and 35 down).
	rows := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) == 9 {
			rows[f[0]] = strings.Join(f[1:], " ")
		}
	}
	if rows["up"] != "10 0 10 0 10 0 12 2" || rows["down"] != "0 10 0 10 0 10 16 2" {
		t.Errorf("the fates' table reads up %q, down %q", rows["up"], rows["down"])
	}
	var csvOut bytes.Buffer
	if err := WritePacketsCSV(&csvOut, r, 0, sim.Time(time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(csvOut.String(), "\n"); n != 61 {
		t.Errorf("%d lines of packets' CSV; want the header and 60 rows", n)
	}
}
