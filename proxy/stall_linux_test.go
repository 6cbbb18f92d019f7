package proxy

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"jitterlab/netem"
)

// A stall is real here: the relay runs in a child process that the test
// stops (SIGSTOP) while a datagram arrives and continues 20 ms later. The
// copy is then written about 20 ms late; it must be counted as stalled,
// so that the audit's "late outside stalls" keeps meaning the relay's own
// timing — whether the stall came while the relay waited for a release
// (20 ms of delay) or for the datagram itself (no delay: the relay woke
// for its arrival, late).
func TestAStoppedRelayCountsItsLateCopiesAsStalled(t *testing.T) {
	if os.Getenv("JITTERLAB_STALL_CHILD") != "" {
		stallChild(t)
		return
	}
	for _, tc := range []struct {
		delay, stop time.Duration
	}{{0, 20 * time.Millisecond}, {20 * time.Millisecond, 40 * time.Millisecond}} {
		t.Run("delay "+tc.delay.String(), func(t *testing.T) {
			sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				t.Fatal(err)
			}
			defer sink.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^TestAStoppedRelayCountsItsLateCopiesAsStalled$")
			cmd.Env = append(os.Environ(), "JITTERLAB_STALL_CHILD="+sink.LocalAddr().String()+","+tc.delay.String())
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := bufio.NewScanner(out)
			if !lines.Scan() {
				t.Fatal("the child relay printed no address")
			}
			relay, err := net.ResolveUDPAddr("udp", strings.TrimSpace(lines.Text()))
			if err != nil {
				t.Fatal(err)
			}
			client, err := net.DialUDP("udp", nil, relay)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			relayed := func(what string) {
				t.Helper()
				sink.SetReadDeadline(time.Now().Add(10 * time.Second))
				if _, _, err := sink.ReadFromUDP(make([]byte, 64)); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			client.Write([]byte("before"))
			relayed("the first datagram")
			time.Sleep(50 * time.Millisecond) // the relay waits again, idle
			cmd.Process.Signal(syscall.SIGSTOP)
			waitStopped(t, cmd.Process.Pid)
			client.Write([]byte("during"))
			time.Sleep(tc.stop)
			cmd.Process.Signal(syscall.SIGCONT)
			relayed("the datagram sent while the relay was stopped")
			cmd.Process.Signal(syscall.SIGTERM)
			if !lines.Scan() {
				t.Fatal("the child relay printed no audit")
			}
			var stalled int
			var lateMax, lateOutside time.Duration
			if _, err := fmt.Sscan(lines.Text(), &stalled, &lateMax, &lateOutside); err != nil {
				t.Fatalf("the child's audit %q: %v", lines.Text(), err)
			}
			cmd.Wait()
			if lateMax < tc.stop-tc.delay-2*time.Millisecond {
				t.Fatalf("the latest copy was %v late: the relay was not stopped over its release (stopped %v)", lateMax, tc.stop)
			}
			// On a busy machine the first copy may stall too, or be a
			// little late without stalling (the relay starting, or woken
			// just under StallAfter late): the stopped one stands apart.
			if stalled < 1 || lateOutside > (tc.stop-tc.delay)/2 {
				t.Errorf("stopped %v with %v of delay: %d copies stalled (want the one sent while stopped), %v late at most outside stalls (want under %v); latest %v",
					tc.stop, tc.delay, stalled, lateOutside, (tc.stop-tc.delay)/2, lateMax)
			}
		})
	}
}

// waitStopped waits until every thread of process pid is stopped. A
// SIGSTOP stops the process only once one of its threads takes the signal:
// on a busy machine that thread may wait for a CPU for milliseconds while
// the relay's loop, on another, still reads and writes (a copy relayed
// 54 µs after it came, 1 ms after the signal was sent).
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			t.Fatal(err)
		}
		stopped := len(tasks) > 0
		for _, task := range tasks {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
			// The state follows the command's name in parentheses.
			if i := strings.LastIndexByte(string(stat), ')'); err != nil || i < 0 || i+2 >= len(stat) || stat[i+2] != 'T' {
				stopped = false
				break
			}
		}
		if stopped {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child relay %d did not stop within 5 s of SIGSTOP", pid)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// stallChild is the relay of TestAStoppedRelayCountsItsLateCopiesAsStalled:
// it prints its address, relays until SIGTERM and prints its up audit.
func stallChild(t *testing.T) {
	target, delay, _ := strings.Cut(os.Getenv("JITTERLAB_STALL_CHILD"), ",")
	d, err := time.ParseDuration(delay)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Listen(Options{Listen: "127.0.0.1:0", Target: target, Seed: 1, Up: netem.Params{Latency: d}})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(r.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	up := r.Audit().Dirs[Up]
	fmt.Println(strconv.FormatUint(up.Stalled, 10), int64(up.LateMax), int64(up.LateMaxOutsideStalls))
}
