package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/netip"
	"os"
	"strings"
	"testing"

	"jitterlab/recordings"
)

// checkTrace asserts what every reader promises of a trace it returns:
// memory bounded by the input (each packet costs at least minBytes of it;
// 0 for a compressed input, bounded by MaxPackets only),
// statuses known, sequence numbers increasing per direction, and the
// generic CSV carries every packet through a write and a read unchanged.
func checkTrace(t *testing.T, data []byte, tr *Trace, minBytes int) {
	t.Helper()
	n := len(tr.Up.Packets) + len(tr.Down.Packets)
	if minBytes > 0 && n > len(data)/minBytes+1 || n > MaxPackets {
		t.Fatalf("%d packets from %d bytes: more than one per %d bytes", n, len(data), minBytes)
	}
	for _, d := range []Direction{tr.Up, tr.Down} {
		for i, p := range d.Packets {
			if p.Status > Unmeasured {
				t.Fatalf("%s packet %d: status %d", d.Name, p.Seq, p.Status)
			}
			if i > 0 && d.Packets[i-1].Seq >= p.Seq {
				t.Fatalf("%s: seq %d after %d", d.Name, p.Seq, d.Packets[i-1].Seq)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, tr); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV("back.csv", &buf)
	if err != nil {
		t.Fatalf("the trace written as CSV does not read back: %v\n%s", err, buf.Bytes())
	}
	if a, b := packetsOf(tr), packetsOf(back); a != b {
		t.Fatalf("round trip through the generic CSV changed the trace:\n%s\nwant\n%s", b, a)
	}
}

func addFile(f *testing.F, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("dir,seq,send_ns,recv_ns\nup,1,10,20\nup,2,30,\ndown,1,5,unknown\n"))
	f.Add([]byte("# c\nseq,send_ns,recv_ns\n3,-5,lost\n1,9,-9\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadCSV("fuzz.csv", bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		checkTrace(t, data, tr, 6) // "1,2,\n" and a header
	})
}

func FuzzReadPackets(f *testing.F) {
	addFile(f, "testdata/packets.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadPackets("fuzz.csv", bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		checkTrace(t, data, tr, 20) // "up,1,,0,lost,,,0,true\n" is the shortest row
	})
}

func FuzzReadIRTT(f *testing.F) {
	// irtt's own output, reduced to its round trips and compacted: a
	// small seed keeps the fuzzer's minimisation fast.
	for _, path := range []string{"testdata/irtt.json", "testdata/irtt-loss.json"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		var doc struct {
			RoundTrips json.RawMessage `json:"round_trips"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			f.Fatal(err)
		}
		var small bytes.Buffer
		if err := json.Compact(&small, doc.RoundTrips); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(`{"round_trips":` + small.String() + `}`))
	}
	f.Add([]byte(`{"round_trips":[{"seqno":1,"lost":true,"timestamps":{"client":{"send":{"wall":5}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadIRTT("fuzz.json", bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		// The smallest round trip, {"seqno":0,"lost":true,"timestamps":{"client":{"send":{"wall":0}}}},
		// is 60 bytes and gives at most two packets.
		checkTrace(t, data, tr, 30)
	})
}

// FuzzReadPcap reads any bytes as one capture of a relay's two legs:
// the reader returns an *Error or a trace within checkTrace's bounds.
// Every packet of the trace is a captured frame of the sender's (a
// record header of 16 bytes or more, raw IPv4 and UDP headers and a
// sequence number: 45 bytes at least).
func FuzzReadPcap(f *testing.F) {
	a := [4]netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:2113"),
		netip.MustParseAddrPort("127.0.0.1:40001"), netip.MustParseAddrPort("127.0.0.1:2112")}
	f.Add(WriteTestPcapng(f, LinkEthernet, relayFrames(a[0], a[1], a[2], a[3], 6, 2, 65533)))
	f.Add(WriteTestPcap(f, LinkRaw, relayFrames(a[0], a[1], a[2], a[3], 4, 1, 254)))
	f.Add(WriteTestPcapng(f, LinkSLL2, relayFrames(netip.MustParseAddrPort("[::1]:1"), netip.MustParseAddrPort("[::1]:2"),
		netip.MustParseAddrPort("[::1]:3"), netip.MustParseAddrPort("[::1]:4"), 3, 1, 0)))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, _, err := ReadPcap([]PcapFile{{Name: "fuzz.pcapng", R: bytes.NewReader(data)}}, PcapOptions{Seq: SeqField{Width: 1}})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		checkTrace(t, data, tr, 45)
	})
}

// FuzzReadRecording reads any bytes as a proxy recording: the recording
// reader refuses them, or ReadRecording returns an *Error or a trace whose
// packets are in order, within MaxPackets, and survive a round trip
// through the generic CSV.
func FuzzReadRecording(f *testing.F) {
	for _, path := range []string{"testdata/relay.jlrec"} {
		addFile(f, path)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := recordings.Open(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		tr, _, err := ReadRecording("fuzz.jlrec", r, AnyFlow, len(data)%2 == 0)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		checkTrace(t, data, tr, 0)
	})
}

// FuzzReadRecordingFrames is FuzzReadRecording past the recording's
// checksums: the fuzzer's patch goes into a decompressed frame of the
// relay recording, which is compressed again with its index entry and
// checksums made good, so the records themselves are what is fuzzed.
func FuzzReadRecordingFrames(f *testing.F) {
	base, err := os.ReadFile("testdata/relay.jlrec")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(1), uint16(0), []byte{})
	f.Add(uint8(1), uint16(9), []byte{0x7F})
	f.Add(uint8(1), uint16(3), []byte{5, 3, 0xFF, 0xFF})
	f.Add(uint8(0), uint16(40), []byte("99"))
	f.Fuzz(func(t *testing.T, frame uint8, pos uint16, patch []byte) {
		b, err := recordings.Patch(base, int(frame), int(pos), patch)
		if err != nil {
			t.Fatal(err)
		}
		r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		tr, _, err := ReadRecording("fuzz.jlrec", r, AnyFlow, len(patch)%2 == 0)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		checkTrace(t, b, tr, 0)
	})
}

// FuzzRead is the trace loader (what lab fit and up.trace call) on any
// bytes in any format it names: it returns an error of one line naming
// the file, or a trace within checkTrace's bounds (each packet costs at
// least 6 bytes of the input, the shortest CSV row; sequence numbers in
// order; the generic CSV carries it unchanged) that the loader, given that
// CSV, reads again to the same packets. The same bytes gzipped load to
// the same trace, or fail too.
func FuzzRead(f *testing.F) {
	f.Add([]byte("dir,seq,send_ns,recv_ns\nup,1,10,20\nup,2,30,\ndown,1,5,unknown\n"), uint8(0))
	f.Add([]byte("seq,send_ns,recv_ns\n3,100,lost\n1,0,1000\n"), uint8(3))
	f.Add([]byte(PacketsHeader+"\nup,1,tick,0.000,delivered,0.020,20.000,0,false\n"), uint8(1))
	f.Add([]byte(`{"round_trips":[{"seqno":0,"lost":"false","timestamps":{"client":{"send":{"wall":1},"receive":{"wall":9}},"server":{"receive":{"wall":4},"send":{"wall":5}}}}]}`), uint8(2))
	f.Add([]byte("\x00binary"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		format := append([]string{"auto"}, Formats...)[int(which)%(len(Formats)+1)]
		const file = "fuzz.capture"
		tr, err := Read(file, bytes.NewReader(data), format)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		ztr, zerr := Read(file, bytes.NewReader(gz.Bytes()), format)
		if (err == nil) != (zerr == nil) {
			t.Fatalf("%s: plain %v; gzipped %v: want both read or both refused", format, err, zerr)
		}
		if err != nil {
			for _, e := range []error{err, zerr} {
				if msg := e.Error(); !strings.HasPrefix(msg, file+":") || strings.Contains(msg, "\n") {
					t.Fatalf("%s: error %q: want one line naming the file", format, msg)
				}
			}
			return
		}
		checkTrace(t, data, tr, 6)
		if a, b := packetsOf(tr), packetsOf(ztr); a != b {
			t.Fatalf("%s: gzipped, the trace differs:\n%s\nwant\n%s", format, b, a)
		}
		var csv bytes.Buffer
		if err := WriteCSV(&csv, tr); err != nil {
			t.Fatal(err)
		}
		again, err := Read(file, &csv, "auto")
		if err != nil {
			t.Fatalf("%s: the trace's own CSV does not load: %v", format, err)
		}
		if a, b := packetsOf(tr), packetsOf(again); a != b {
			t.Fatalf("%s: loaded again from its CSV, the trace differs:\n%s\nwant\n%s", format, b, a)
		}
	})
}
