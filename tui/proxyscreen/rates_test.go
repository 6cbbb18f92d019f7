package proxyscreen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idle moves the fake relay on n×100 ms with no traffic at all.
func (f *fakeProxy) idle(v *View, n int) {
	for range n {
		f.snap.Wall += 100 * time.Millisecond
		f.snap.Up.DelaysMs, f.snap.Down.DelaysMs = nil, nil
		v.advance(0)
	}
}

// realRow is a direction's "real" row of the configured-and-realised box:
// its pkt/s and kbit/s cells.
func realRow(t *testing.T, out string, dir int) (pkts, kbit string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^│    real .*\s(\S+)\s+(\S+)\s+│$`).FindAllStringSubmatch(out, -1)
	if len(m) != 2 {
		t.Fatalf("no real rows:\n%s", out)
	}
	return m[dir][1], m[dir][2]
}

// pkt/s and kbit/s are the same window, the last second (issue 12.4):
// while the game sends they agree (120 payload bytes a packet), and once
// it stops both read 0, not a rate of 0 beside the whole run's bit rate.
func TestProxyPacketAndBitRatesShareOneWindow(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	pkts, kbit := realRow(t, drawProxy(v, screen), 0)
	// 6 packets a 100 ms, one in 50 lost: 58 to 60 delivered in the last
	// second, each of 120 bytes.
	if n, _ := strconv.Atoi(pkts); n < 58 || n > 60 || kbit != fmt.Sprintf("%.1f", float64(n)*120*8/1000) {
		t.Errorf("while relaying: up pkt/s %s, kbit/s %s; want 58 to 60 (one in 50 lost) and 120 B × 8 × that", pkts, kbit)
	}
	f.idle(v, 20)
	out := drawProxy(v, screen)
	if pkts, kbit := realRow(t, out, 0); pkts != "0" || kbit != "0.0" {
		t.Errorf("2 s after the traffic stopped: up pkt/s %s, kbit/s %s; want 0 and 0.0:\n%s", pkts, kbit, out)
	}
	if pkts, kbit := realRow(t, out, 1); pkts != "0" || kbit != "–" {
		t.Errorf("down (bytes not measured): pkt/s %s, kbit/s %s; want 0 and –", pkts, kbit)
	}
}

// A chart of nothing but zeros (no traffic for its whole window) is drawn
// from 0 up: no axis label below zero (issue 12.4).
func TestProxyIdleChartHasNoNegativeAxis(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	f.idle(v, 400)
	out := drawProxy(v, screen)
	if regexp.MustCompile(`│\s+-\d`).MatchString(out) || !strings.Contains(out, "packets/s in ─ up 0, dn 0") {
		t.Errorf("an idle relay's charts have a negative axis label:\n%s", out)
	}
}
