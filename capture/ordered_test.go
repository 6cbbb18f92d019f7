package capture

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// orderedFile writes events through an Ordered writer and reads them back.
func orderedFile(t *testing.T, window time.Duration, maxEvents, maxBytes int, events []Event, check func(o *Ordered)) []readBack {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := NewOrdered(w, window, maxEvents, maxBytes)
	for i := range events {
		if err := o.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(o)
		}
	}
	if err := o.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, back := readAll(t, buf.Bytes())
	return back
}

// Events up to the window out of order are written in timestamp order,
// each at its own time, equal times in the order they came; one later than
// the window is stamped at the time already written and its comment says
// by how much (issue 12.6).
func TestOrderedWritesInTimeOrder(t *testing.T) {
	ms := time.Millisecond
	var events []Event
	for i, at := range []time.Duration{10 * ms, 8 * ms, 12 * ms, 9 * ms, 12 * ms, 30 * ms, 29 * ms, 200 * ms, 150 * ms, 40 * ms, 201 * ms} {
		events = append(events, Event{At: at, Dir: Up, Seq: uint64(i + 1), Size: 8, Copies: [2]Copy{{Fate: Lost}}})
	}
	back := orderedFile(t, 50*ms, 100, 1<<20, events, nil)
	if len(back) != len(events) {
		t.Fatalf("%d packets read back, %d written", len(back), len(events))
	}
	wantSeq := []string{"#2:", "#4:", "#1:", "#3:", "#5:", "#7:", "#6:", "#9:", "#10:", "#8:", "#11:"}
	for i, p := range back {
		if i > 0 && p.at.Before(back[i-1].at) {
			t.Errorf("packet %d at %v is before the one ahead of it (%v)", i, p.at, back[i-1].at)
		}
		if !strings.Contains(p.comments[0], wantSeq[i]) {
			t.Errorf("packet %d is %q; want %s", i, p.comments[0], wantSeq[i])
		}
	}
	// #10 (40 ms) came after 200 ms had pushed 150 ms out: stamped at 150 ms.
	if late := back[8]; !strings.Contains(late.comments[0], "#10:") || !late.at.Equal(back[7].at) ||
		!strings.HasSuffix(late.comments[0], "; stamped 110 ms late (after the capture's reorder window)") {
		t.Errorf("the late packet reads %q at %v", late.comments[0], late.at)
	}
}

// A flood holds no more than the bounds, in events and in payload bytes,
// and still writes every event in order.
func TestOrderedIsBoundedUnderFlood(t *testing.T) {
	const n, maxEvents, maxBytes = 20000, 64, 10 << 10
	events := make([]Event, n)
	for i := range events {
		// Every timestamp the same second: the window never pushes any out.
		events[i] = Event{At: time.Second - time.Duration(i%7), Dir: Down, Arrived: true, Payload: make([]byte, 300), Size: 300}
	}
	held := 0
	back := orderedFile(t, time.Hour, maxEvents, maxBytes, events, func(o *Ordered) {
		held = max(held, o.Held())
		if o.bytes > maxBytes {
			t.Fatalf("%d payload bytes held; the bound is %d", o.bytes, maxBytes)
		}
	})
	if held > maxEvents {
		t.Errorf("%d events held; the bound is %d", held, maxEvents)
	}
	if len(back) != n {
		t.Fatalf("%d of %d read back", len(back), n)
	}
	for i := 1; i < n; i++ {
		if back[i].at.Before(back[i-1].at) {
			t.Fatalf("packet %d goes back in time", i)
		}
	}
}
