package capture

import (
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

// Wireshark's own reader (tshark) opens a capture: both interfaces, the
// nanosecond timestamps, IPv4 and IPv6 dissected down to UDP, and every
// packet's comment.
func TestTsharkReadsACapture(t *testing.T) {
	tshark := testtool.Need(t, "tshark", "tshark")
	events := []Event{
		{At: 468186832, Dir: Up, Seq: 1, Kind: "login", Size: 9, Copies: [2]Copy{{Delivered, 55694547}}},
		{At: 500000001, Dir: Down, Seq: 7, Kind: "player_state", Size: 21, Copies: [2]Copy{{Lost, 0}}},
		{Arrived: true, At: 523881379, Dir: Up, Seq: 1, Kind: "login", Size: 9, Delay: 55694547},
		{At: 600000000, Dir: Up, Flow: 2, Payload: []byte("ping"), Src: netip.MustParseAddrPort("[::1]:5001"), Dst: netip.MustParseAddrPort("[::1]:7777"),
			Copies: [2]Copy{{Delivered, time.Millisecond}}},
	}
	path := filepath.Join(t.TempDir(), "t.pcapng")
	if err := os.WriteFile(path, write(t, Options{Epoch: time.Unix(0, 0)}, events...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-r", path, "-T", "fields", "-E", "separator=|", "-e", "frame.interface_name", "-e", "frame.time_epoch",
		"-e", "ip.src", "-e", "ipv6.src", "-e", "udp.srcport", "-e", "udp.dstport", "-e", "udp.length", "-e", "frame.comment").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	want := []string{
		"client|0.468186832|192.0.2.1||40000|40001|17|up #1 login: delivered, delay added 55.694547 ms",
		"server|0.500000001|198.51.100.1||40001|40000|29|down #7 player_state: lost",
		"server|0.523881379|192.0.2.1||40000|40001|17|up #1 login: arrived, delay added 55.694547 ms",
		"client|0.600000000||::1|5001|7777|12|up flow 2: delivered, delay added 1 ms",
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != len(want) {
		t.Fatalf("tshark read %d packets:\n%s", len(got), out)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("packet %d: tshark says\n  %s\nwant\n  %s", i+1, got[i], want[i])
		}
	}
}
