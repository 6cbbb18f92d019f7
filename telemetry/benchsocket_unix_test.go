//go:build unix

package telemetry

import (
	"net"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user plus system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Skip("no getrusage:", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The whole path over a loopback socket, sender included: the process's
// CPU time per frame, as a share of a core at 10,000 frames a second. An
// upper bound on the receiver's cost (the sender's syscalls are in it).
func BenchmarkListenerLoopback(b *testing.B) {
	l, err := Listen("127.0.0.1:0", func() time.Time { return t0 }, Options{Rate: 1e12, Burst: 1 << 30}, nil)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.Run() }()
	defer func() { l.Close(); <-done }()
	conn, err := net.DialUDP("udp", nil, l.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	in := []byte(frameJSON)
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for sent := 0; sent < b.N; {
		for k := 0; k < 100 && sent < b.N; k++ {
			conn.Write(in)
			sent++
		}
		for l.Counts().Total() < uint64(sent) {
			time.Sleep(50 * time.Microsecond)
		}
	}
	b.StopTimer()
	cpu := cpuTime(b) - cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)*10_000/1e9*100, "%core@10k/s")
}

// The sender's share of BenchmarkListenerLoopback: the same writes to a
// socket nobody reads (the kernel drops what its buffer cannot hold).
// BenchmarkListenerLoopback minus this is the receiver's cost.
func BenchmarkSendOnlyLoopback(b *testing.B) {
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close()
	conn, err := net.DialUDP("udp", nil, sink.LocalAddr().(*net.UDPAddr))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	in := []byte(frameJSON)
	cpu0 := cpuTime(b)
	for b.Loop() {
		conn.Write(in)
	}
	cpu := cpuTime(b) - cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)*10_000/1e9*100, "%core@10k/s")
}
