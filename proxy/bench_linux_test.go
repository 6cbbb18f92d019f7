package proxy

import (
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"jitterlab/netem"
)

// BenchmarkRelayPerPacket is the relay's cost per datagram on loopback:
// b.N 64-byte datagrams from a client, through the relay with 1 ms added
// on the up link, to a sink that reads them. A client keeps at most 64
// datagrams ahead of the sink, so no socket overflows (on a busy machine
// the kernel may still drop some at the relay's socket: they are not
// waited for). ns/packet is the
// wall time per datagram and cpu-ns/packet the process's CPU time per
// datagram (client, relay and sink together: compare runs, not programs);
// allocs/op counts every allocation of the run, the relay's included
// (TestRelayDoesNotAllocatePerPacket holds them at 0 per datagram).
func BenchmarkRelayPerPacket(b *testing.B) {
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close()
	sink.SetReadBuffer(4 << 20)
	r, client, _ := startRelay(b, Options{Target: sink.LocalAddr().String(), Up: netem.Params{Latency: ms}})
	var got atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 128)
		for {
			if _, err := sink.Read(buf); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	payload := make([]byte, 64)
	send := func(n int) {
		base, drops := got.Load(), r.Stats().Up.KernelDropped
		for sent := 0; sent < n; {
			if int64(sent)-(got.Load()-base) >= 64 {
				time.Sleep(10 * time.Microsecond)
				continue
			}
			if _, err := client.Write(payload); err != nil {
				b.Fatal(err)
			}
			sent++
		}
		for deadline := time.Now().Add(10 * time.Second); got.Load()-base < int64(n)-int64(r.Stats().Up.KernelDropped-drops); time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d datagrams came through, %d dropped by the kernel", got.Load()-base, n, r.Stats().Up.KernelDropped-drops)
			}
		}
	}
	send(1000) // the flow, its socket and the pool's buffers
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	send(b.N)
	wall := time.Since(start)
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime) +
		syscall.TimevalToNsec(after.Stime) - syscall.TimevalToNsec(before.Stime))
	b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N), "ns/packet")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/packet")
	sink.Close()
	<-done
}
