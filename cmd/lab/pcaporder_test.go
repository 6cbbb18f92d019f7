package main

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

// lab proxy --pcap writes its frames in timestamp order (issue 12.6): a
// datagram read is stamped with the kernel's receive time, earlier than
// frames the relay wrote before it read it, and the capture holds frames
// back long enough to put them in order. Read back with pcapgo, no
// timestamp is before the one ahead of it.
func TestProxyPcapIsInTimeOrder(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	_, pcapPath, _, _ := runProxyWithCaptures(t)
	r := openPcapNg(t, pcapPath)
	var last time.Time
	n := 0
	for {
		_, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if ci.Timestamp.Before(last) {
			t.Fatalf("frame %d is stamped %v, %v before the frame ahead of it", n, ci.Timestamp.Format(time.StampNano), last.Sub(ci.Timestamp))
		}
		last = ci.Timestamp
	}
	if n < 100 {
		t.Fatalf("only %d frames in the capture", n)
	}
	// Wireshark's own reader agrees.
	out, err := exec.Command(testtool.Need(t, "capinfos", "wireshark-common"), "-o", pcapPath).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Strict time order:   True") {
		t.Errorf("capinfos -o: %v\n%s", err, out)
	}
}
