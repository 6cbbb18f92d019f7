package trace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"
)

// dump writes a trace one packet a line: dir seq send delay|lost|unmeasured.
func dump(t *Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s synced=%v dups=%d/%d\n", t.Format, t.SyncedClocks, t.Up.Duplicates, t.Down.Duplicates)
	for _, d := range []Direction{t.Up, t.Down} {
		for _, p := range d.Packets {
			fmt.Fprintf(&b, "%s %d %d ", d.Name, p.Seq, p.Send)
			if p.Status == Delivered {
				fmt.Fprintf(&b, "%d\n", p.Delay)
			} else {
				fmt.Fprintf(&b, "%v\n", p.Status)
			}
		}
	}
	return b.String()
}

func readFile(t *testing.T, path, format string) *Trace {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(path, f, format)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestReadPacketsTheLabsLog(t *testing.T) {
	// Delays are arrival minus send, exact in ns; of a duplicate the earlier
	// copy counts; a queue drop is a loss; a lost original whose duplicate
	// arrived is delivered.
	got := dump(readFile(t, "testdata/packets.csv", "auto"))
	want := `packets synced=true dups=1/0
up 1 468187000 30000000
up 2 484853000 lost
up 3 551520000 29480000
up 4 618187000 31813000
down 1 498187000 31813000
down 2 550000000 lost
`
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func TestReadIRTTOneWayDelaysFromWallClocks(t *testing.T) {
	// testdata/irtt.json is irtt 0.9.0's own output (irtt client -i 20ms -d
	// 100ms on 127.0.0.1); irtt-loss.json the same with round trips 1–3
	// marked lost as irtt marks them: true_up, true_down and true.
	got := dump(readFile(t, "testdata/irtt-loss.json", "auto"))
	want := `irtt synced=false dups=0/0
up 0 1795330715952528854 95353
up 1 1795330715972839946 lost
up 2 1795330715993204819 unmeasured
up 3 1795330716012546236 lost
up 4 1795330716032876857 68232
down 0 1795330715952631248 31647
down 2 1795330715993307213 lost
down 4 1795330716032978820 62904
`
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if tr := readFile(t, "testdata/irtt.json", "irtt"); len(tr.Up.Packets) != 5 || len(tr.Down.Packets) != 5 {
		t.Errorf("irtt.json: %d up and %d down packets, want 5 and 5", len(tr.Up.Packets), len(tr.Down.Packets))
	}
}

func TestReadIRTTLostAsABoolean(t *testing.T) {
	// irtt's manual shows "lost": false as a JSON boolean; irtt 0.9.0
	// writes the string "false". Both read the same.
	in := `{"round_trips": [
 {"seqno": 0, "lost": false, "timestamps": {"client": {"send": {"wall": 100}, "receive": {"wall": 400}}, "server": {"receive": {"wall": 250}, "send": {"wall": 260}}}},
 {"seqno": 1, "lost": true, "timestamps": {"client": {"send": {"wall": 1100}, "receive": {}}, "server": {"receive": {}, "send": {}}}}]}`
	tr, err := ReadIRTT("b.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "irtt synced=false dups=0/0\nup 0 100 150\nup 1 1100 lost\ndown 0 260 140\n"
	if got := dump(tr); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func TestReadCSVTheGenericFormat(t *testing.T) {
	in := `# a game's own log
dir,seq,send_ns,recv_ns
up,2,1016666667,
up,1,1000000000,1021500000
down,1,5000000,30100000
down,2,55000000,lost
down,3,105000000,unknown
`
	tr, err := ReadCSV("game.csv", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `csv synced=false dups=0/0
up 1 1000000000 21500000
up 2 1016666667 lost
down 1 5000000 25100000
down 2 55000000 lost
down 3 105000000 unmeasured
`
	if got := dump(tr); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	// Without the dir column every row is up.
	tr, err = ReadCSV("game.csv", strings.NewReader("seq,send_ns,recv_ns\n7,-5,10\n"))
	if err != nil || dump(tr) != "csv synced=false dups=0/0\nup 7 -5 15\n" {
		t.Errorf("no dir column: %v\n%s", err, dump(tr))
	}
}

func TestWriteCSVReadsBackTheSameTrace(t *testing.T) {
	for _, path := range []string{"testdata/packets.csv", "testdata/irtt-loss.json"} {
		tr := readFile(t, path, "auto")
		var buf bytes.Buffer
		if err := WriteCSV(&buf, tr); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV("back.csv", &buf)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := packetsOf(tr), packetsOf(back); a != b {
			t.Errorf("%s: written and read back\n%s\nwant\n%s", path, b, a)
		}
	}
}

// packetsOf is dump without the header line (format and duplicates are
// not part of the generic CSV).
func packetsOf(t *Trace) string {
	_, rest, _ := strings.Cut(dump(t), "\n")
	return rest
}

func TestBadInputNamesFileLineColumnAndValue(t *testing.T) {
	for _, c := range []struct{ name, format, in, want string }{
		{"csv bad recv", "csv", "dir,seq,send_ns,recv_ns\nup,1,10,abc\n",
			`cap:2:4: recv_ns "abc": want an integer number of nanoseconds, empty or lost for a lost packet, or unknown`},
		{"csv bad dir", "csv", "dir,seq,send_ns,recv_ns\nsideways,1,10,20\n", `cap:2:1: dir "sideways": want up or down`},
		{"csv repeated seq", "csv", "seq,send_ns,recv_ns\n1,10,20\n1,30,40\n", `cap:3: seq "1": want a sequence number not seen before in this direction`},
		{"csv bad header", "csv", "a,b,c\n", `cap:1: header "a,b,c": want dir,seq,send_ns,recv_ns or seq,send_ns,recv_ns`},
		{"csv fields", "csv", "seq,send_ns,recv_ns\n1,2\n", `cap:2: row "1,2": want 3 comma-separated fields: seq,send_ns,recv_ns`},
		{"csv empty", "csv", "", `cap: the file is empty`},
		{"csv comments only", "csv", "# nothing yet\n", `cap: no header: the first line must be dir,seq,send_ns,recv_ns (or seq,send_ns,recv_ns)`},
		{"csv no rows", "csv", "seq,send_ns,recv_ns\n", `cap: no packets in the capture`},
		{"csv long line", "csv", "seq,send_ns,recv_ns\n" + strings.Repeat("1", MaxLine+1) + "\n", `cap:2: a line longer than 4096 bytes`},
		{"csv far clocks", "csv", "seq,send_ns,recv_ns\n1,-9223372036854775807,9223372036854775807\n",
			`cap:2:3: recv_ns "9223372036854775807": want within 1000 h of send_ns (the two clocks' offset included)`},
		{"packets bad time", "packets", PacketsHeader + "\nup,1,login,0.5x,lost,,,0,false\n",
			`cap:2:4: sent_s "0.5x": want a time in seconds ≥ 0 with at most 9 decimals`},
		{"packets bad status", "packets", PacketsHeader + "\nup,1,login,0.5,gone,,,0,false\n",
			`cap:2:5: status "gone": want delivered, lost or queue_dropped`},
		{"packets arrives before sent", "packets", PacketsHeader + "\nup,1,login,0.5,delivered,0.4,1,0,false\n",
			`cap:2:6: delivered_s "0.4": want a time in seconds ≥ sent_s with at most 9 decimals`},
		{"irtt not json", "irtt", "{\n  \"round_trips\": [\n    {\"seqno\": x}\n  ]\n}",
			`cap:3:15: not irtt's JSON: invalid character 'x' looking for beginning of value`},
		{"irtt bad lost", "irtt", "{\"round_trips\": [\n {\"seqno\": 0, \"lost\": \"maybe\"}]}",
			`cap:2:2: lost "\"maybe\"": want false, true, true_down or true_up`},
		{"irtt no stamps", "irtt", "{\"round_trips\": [\n {\"seqno\": 0, \"lost\": \"false\"}]}",
			`cap:2:2: timestamps "": want client send and receive and a server timestamp (irtt client --tstamp=both, the default)`},
		{"irtt seqno type", "irtt", "{\"round_trips\": [\n {\"seqno\": \"one\"}]}",
			`cap:2:17: seqno "string": want a JSON uint64`},
		{"irtt truncated", "irtt", "{\"round_trips\": [", `cap:1:18: irtt's JSON ends early: truncated?`},
		{"irtt no round trips", "irtt", `{"version": {}}`, `cap: no round_trips: not the JSON of ` + "`irtt client -o FILE`"},
		{"format", "pcap", "", `--format "pcap": want auto or one of packets, irtt, csv`},
	} {
		_, err := Read("cap", strings.NewReader(c.in), c.format)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got error\n  %v\nwant\n  %s", c.name, err, c.want)
		}
	}
}

// A file that is not a capture at all — empty, binary, one long line — is
// one short error that says what it is and what is read, not 4 KB of
// quoted bytes.
func TestNotACaptureIsOneShortError(t *testing.T) {
	binary := make([]byte, 3000)
	for i := range binary {
		binary[i] = byte(i*7 + 1)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "x.csv: the file is empty"},
		{"binary", binary, "x.csv: binary data, not a capture lab fit reads"},
		{"long header", []byte(strings.Repeat("seq;send;recv;", 200) + "\n1;2;3\n"), `x.csv:1: header "seq;send;recv;seq;send;recv;seq;send;recv;seq;send;recv;seq;send…": want`},
		{"long value", []byte("seq,send_ns,recv_ns\n1," + strings.Repeat("9", 3000) + ",\n"), `x.csv:2:2: send_ns "9999999999999999999999999999999999999999999999999999999999999999…": want`},
	} {
		_, err := Read("x.csv", bytes.NewReader(c.data), "auto")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || len(err.Error()) > 300 {
			t.Errorf("%s: got %v\nwant one short error starting %s", c.name, err, c.want)
		}
	}
}

// irtt gzips its JSON unless the name ends in .json (`irtt client -o out`
// writes out.json.gz): the gzipped file is detected and read as the plain
// one, as any text capture gzipped is.
func TestReadGzippedCaptures(t *testing.T) {
	for _, c := range []struct{ path, format string }{{"testdata/irtt.json", "irtt"}, {"testdata/packets.csv", "packets"}} {
		plain, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write(plain)
		w.Close()
		if got := Detect(gz.Bytes()[:min(gz.Len(), 512)]); got != c.format {
			t.Errorf("%s gzipped detected as %s", c.path, got)
		}
		want, err := Read(c.path, bytes.NewReader(plain), "auto")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read(c.path, bytes.NewReader(gz.Bytes()), "auto")
		if err != nil {
			t.Fatalf("%s gzipped: %v", c.path, err)
		}
		if dump(got) != dump(want) {
			t.Errorf("%s gzipped reads otherwise than plain", c.path)
		}
	}
	// Cut short, it is an error naming the file.
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(bytes.Repeat([]byte("seq,send_ns,recv_ns\n"), 100))
	w.Close()
	if _, err := Read("out.json.gz", bytes.NewReader(gz.Bytes()[:gz.Len()/2]), "auto"); err == nil || !strings.HasPrefix(err.Error(), "out.json.gz: gzip: ") {
		t.Errorf("a cut gzip: %v", err)
	}
}
