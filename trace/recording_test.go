package trace

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"jitterlab/recordings"
	"jitterlab/sim"
)

// writeProxyRecording writes packets as a proxy recording and opens it.
func writeProxyRecording(t *testing.T, kind string, packets []recordings.Packet) *recordings.Reader {
	t.Helper()
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, recordings.Header{Kind: kind, Scenario: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var end sim.Time
	for i := range packets {
		if err := w.Packet(&packets[i]); err != nil {
			t.Fatal(err)
		}
		end = packets[i].At
	}
	if err := w.Close(recordings.End{At: end}); err != nil {
		t.Fatal(err)
	}
	r, err := recordings.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// relayed is a copy the relay wrote on after holding it delay ms.
func relayed(flow uint64, dir uint8, in, delay int64) recordings.Packet {
	const ms = int64(1e6)
	return recordings.Packet{At: sim.Time(in*ms + delay*ms), In: sim.Time(in * ms), Out: sim.Time(in*ms + delay*ms),
		Scheduled: time.Duration(delay * ms), Dir: dir, Flow: flow, Fate: recordings.PacketDelivered, Size: 20}
}

// A proxy recording gives, per direction of the flow, each datagram in the
// order the relay read it: the delay the relay held it, or lost (the
// link's loss, the queue's, the relay's limit); the link's duplicate is
// counted, a copy discarded with its flow is not, and other flows are
// skipped.
func TestReadRecordingTakesOneFlow(t *testing.T) {
	const ms = int64(1e6)
	dup := relayed(1, 0, 20, 31)
	dup.Copy = 1
	lost := recordings.Packet{At: sim.Time(10 * ms), In: sim.Time(10 * ms), Dir: 0, Flow: 1, Fate: recordings.PacketLost}
	over := recordings.Packet{At: sim.Time(35 * ms), In: sim.Time(35 * ms), Dir: 1, Flow: 1, Fate: recordings.PacketOverLimit}
	gone := recordings.Packet{At: sim.Time(60 * ms), In: sim.Time(60 * ms), Dir: 1, Flow: 1, Fate: recordings.PacketDiscarded}
	// Written in the order the relay accounted for them (At), not read.
	packets := []recordings.Packet{lost, relayed(1, 0, 0, 30), relayed(2, 0, 5, 30), over, relayed(1, 1, 15, 20), relayed(1, 0, 20, 30), dup, gone}
	r := writeProxyRecording(t, recordings.KindProxy, packets)
	tr, sum, err := ReadRecording("relay.jlrec", r, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := packetsOfDir(tr.Up), "0:30000000 1:lost 2:30000000"; got != want {
		t.Errorf("up: %s, want %s", got, want)
	}
	if got, want := packetsOfDir(tr.Down), "0:20000000 1:lost"; got != want {
		t.Errorf("down: %s, want %s", got, want)
	}
	if tr.Up.Duplicates != 1 || !tr.SyncedClocks || tr.Up.Packets[2].Send != 20*ms {
		t.Errorf("duplicates %d, synced %v, send %d", tr.Up.Duplicates, tr.SyncedClocks, tr.Up.Packets[2].Send)
	}
	// A copy written late: --scheduled takes the link's delay.
	late := relayed(1, 0, 0, 30)
	late.Scheduled = 25 * time.Millisecond
	tr2, _, err := ReadRecording("relay.jlrec", writeProxyRecording(t, recordings.KindProxy, []recordings.Packet{late}), 1, true)
	if err != nil || tr2.Up.Packets[0].Delay != 25*ms {
		t.Errorf("--scheduled: %v, delay %d; want 25 ms", err, tr2.Up.Packets[0].Delay)
	}
	text := strings.Join(sum, "\n")
	for _, want := range []string{"flow 1 of the relay: up 3 packets, down 2", "1 packets of other flows skipped", "1 copies discarded when their flow was gone, not counted"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	// Without --flow, two flows are refused, naming them.
	_, _, err = ReadRecording("relay.jlrec", writeProxyRecording(t, recordings.KindProxy, packets), AnyFlow, false)
	if want := "relay.jlrec: the relay recorded 2 clients: name one with --flow N: flow 1 (7 packets), flow 2 (1 packets)"; err == nil || err.Error() != want {
		t.Errorf("two flows: %v\nwant %s", err, want)
	}
	_, _, err = ReadRecording("relay.jlrec", writeProxyRecording(t, recordings.KindProxy, packets), 3, false)
	if want := `relay.jlrec: --flow "3": want a flow the recording has: flow 1 (7 packets), flow 2 (1 packets)`; err == nil || err.Error() != want {
		t.Errorf("--flow 3: %v\nwant %s", err, want)
	}
	_, _, err = ReadRecording("run.jlrec", writeProxyRecording(t, "", nil), AnyFlow, false)
	if err == nil || !strings.Contains(err.Error(), "run.jlrec: a session recording (lab run --record) stores samples, not packets") {
		t.Errorf("a session recording: %v", err)
	}
}

// A recording cut short (the proxy killed, the file still being copied)
// reads up to its last whole frame, and says so: a note under read: with
// where it was cut, and when nothing whole is left, the error says it was
// cut rather than that no client sent anything.
func TestACutRecordingSaysSo(t *testing.T) {
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, recordings.Header{Kind: recordings.KindProxy, Scenario: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var end sim.Time
	for i := range 30000 {
		p := relayed(1, uint8(i%2), int64(i), 20)
		if err := w.Packet(&p); err != nil {
			t.Fatal(err)
		}
		end = p.At
	}
	if err := w.Close(recordings.End{At: end}); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	open := func(b []byte) *recordings.Reader {
		r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	_, sum, err := ReadRecording("relay.jlrec", open(whole), AnyFlow, false)
	if err != nil || strings.Contains(strings.Join(sum, "\n"), "cut short") {
		t.Fatalf("the whole recording: %v %q", err, sum)
	}
	cut := whole[:len(whole)*3/4]
	tr, sum, err := ReadRecording("relay.jlrec", open(cut), AnyFlow, false)
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(sum, "\n"); !strings.Contains(text, "relay.jlrec: cut short at byte ") || len(tr.Up.Packets) >= 15000 {
		t.Errorf("cut: %d up packets, notes %q; want fewer than 15000 and a note that it was cut short", len(tr.Up.Packets), sum)
	}
	t.Logf("cut: %d up packets, notes %q", len(tr.Up.Packets), sum)
	_, _, err = ReadRecording("relay.jlrec", open(whole[:200]), AnyFlow, false)
	if err == nil || !strings.Contains(err.Error(), "cut short at byte") {
		t.Errorf("cut in its first frame: %v", err)
	}
}
