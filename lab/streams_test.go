package lab

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"jitterlab/recordings"
	"jitterlab/sim"
)

// streamRun runs 'handover' for d with the streams st asks for (a
// non-nil writer each) and returns the Streaming's Close error.
func streamRun(t *testing.T, st Streams, d time.Duration) error {
	t.Helper()
	cfg, sc := scenarioConfig(t, "handover")
	cfg.Duration = d
	s, err := Setup{Config: cfg, Every: 50 * time.Millisecond, Scenario: sc}.Start()
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	for !s.Done() && w.Err() == nil {
		if err := s.Run(s.Now() + sim.Time(time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	return w.Close()
}

// Every stream is written whole, and each is the same whether it is
// written alone or with the others: the timeline has a row per sample,
// the packets a row per packet whose delay is its arrival minus its send,
// the recording verifies, the pcapng starts with its section header.
func TestStreamsWriteEveryOutput(t *testing.T) {
	var all [4]bytes.Buffer
	st := Streams{Timeline: &all[0], Recording: &all[1], Packets: &all[2], Pcap: &all[3], Name: "handover"}
	if err := streamRun(t, st, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	for i := range all {
		var alone bytes.Buffer
		one := Streams{Name: "handover"}
		fields := []*io.Writer{&one.Timeline, &one.Recording, &one.Packets, &one.Pcap}
		*fields[i] = &alone
		if err := streamRun(t, one, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if alone.Len() == 0 || !bytes.Equal(alone.Bytes(), all[i].Bytes()) {
			t.Errorf("stream %d: %d bytes alone, %d with the others; want the same bytes", i, alone.Len(), all[i].Len())
		}
	}
	rows, err := csv.NewReader(&all[0]).ReadAll()
	if err != nil || len(rows) != 1+200 {
		t.Errorf("timeline: %d rows, %v; want a header and 200 samples (10 s every 50 ms)", len(rows), err)
	}
	r, err := recordings.Open(bytes.NewReader(all[1].Bytes()), int64(all[1].Len()))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Verify(r, Untrusted); err != nil || v.Samples != 200 || !v.SummaryOK {
		t.Errorf("the recording: %+v, %v; want 200 samples and its summary verified", v, err)
	}
	packets, err := csv.NewReader(&all[2]).ReadAll()
	if err != nil || len(packets) < 100 || strings.Join(packets[0], ",")+"\n" != PacketsCSVHeader {
		t.Fatalf("packets: %d rows, %v", len(packets), err)
	}
	for _, p := range packets[1:] {
		if p[4] != "delivered" {
			continue
		}
		sent, _ := strconv.ParseFloat(p[3], 64)
		at, _ := strconv.ParseFloat(p[5], 64)
		delay, _ := strconv.ParseFloat(p[6], 64)
		if d := (at - sent) * 1000; delay < d-0.002 || delay > d+0.002 {
			t.Errorf("packet %v: delay %v ms, arrival − send %v ms", p, delay, d)
			break
		}
	}
	if b := all[3].Bytes(); len(b) < 4 || !bytes.Equal(b[:4], []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
		t.Errorf("the pcapng does not start with a section header block: % x", b[:min(len(b), 4)])
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// A stream that fails ends the run (Err) and is Close's error, and the
// other streams are still closed whole: the recording keeps its summary.
func TestStreamingStopsAtTheFirstWriteError(t *testing.T) {
	var rec bytes.Buffer
	st := Streams{Packets: &failAfter{n: 100 << 10}, Recording: &rec, Name: "handover"}
	if err := streamRun(t, st, time.Minute); !errors.Is(err, errFull) {
		t.Fatalf("Close = %v, want the packets' write error", err)
	}
	r, err := recordings.Open(bytes.NewReader(rec.Bytes()), int64(rec.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := Verify(r, Untrusted); err != nil || !v.HasSummary || v.Until >= sim.Time(time.Minute) {
		t.Errorf("the recording beside the failed stream: %+v, %v; want it closed with its summary, before the end", v, err)
	}
}

// The packets CSV's line, by hand: times in s with 6 decimals, the delay
// in ms with 3, empty for a packet not delivered.
func TestPacketRecordAppendCSV(t *testing.T) {
	for _, c := range []struct {
		p    PacketRecord
		want string
	}{
		{PacketRecord{Dir: "up", Seq: 7, Kind: "input", SentAt: sim.Time(1500 * time.Millisecond), Status: "delivered", At: sim.Time(1530500 * time.Microsecond), Reordered: true},
			"up,7,input,1.500000,delivered,1.530500,30.500,false,true\n"},
		{PacketRecord{Dir: "down", Seq: 3, Kind: "snapshot", SentAt: sim.Time(2 * time.Second), Status: "lost", Copy: 1},
			"down,3,snapshot,2.000000,lost,,,true,false\n"},
	} {
		if got := string(c.p.AppendCSV([]byte("x"))); got != "x"+c.want {
			t.Errorf("AppendCSV = %q, want %q", got, "x"+c.want)
		}
	}
}

// TestProgressShowsPercentAndETA (issue 8 item 21): 30 s of 2 min in 10 s
// of wall time is 25 %, and the 90 s left take 30 s more.
func TestProgressShowsPercentAndETA(t *testing.T) {
	got := ProgressText(sim.Time(30*time.Second), sim.Time(2*time.Minute), 10*time.Second)
	if want := "00:00:30.000 / 00:02:00.000 simulated   25%  ETA 30s"; got != want {
		t.Errorf("ProgressText = %q, want %q", got, want)
	}
	if got := ProgressText(0, sim.Time(time.Minute), time.Second); got != "00:00:00.000 / 00:01:00.000 simulated    0%" {
		t.Errorf("at 0: %q, want no ETA", got)
	}
}
