package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"jitterlab/netem"
	"jitterlab/proxy"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "proxybench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("proxybench", flag.ContinueOnError)
	rates := fs.String("rates", "100,1000,10000", "packets per second to send through the relay, `list` separated by commas")
	dur := fs.Duration("duration", 5*time.Second, "how long to send at each rate")
	delay := fs.Duration("delay", 20*time.Millisecond, "the delay the relay adds (up.latency)")
	size := fs.Int("size", 64, "payload bytes per datagram (16 to 1400)")
	prefix := fs.String("relay-prefix", "", "a command to run the relay under, e.g. \"taskset -c 1\" or \"chrt -f 10\"")
	serve := fs.String("serve-relay", "", "internal: run the relay to this `host:port` and print its address")
	profile := fs.String("relay-cpuprofile", "", "write the relay's CPU profile to this `file`")
	bare := fs.Bool("bare", false, "run a minimal relay instead of the proxy (blocking reads, each datagram written at once, no delay): what a relay hop costs on this machine")
	runs := fs.Int("runs", 1, "how many times to go through the rates (1 to 100); more than one adds each figure's range")
	probe := fs.Duration("probe", 2*time.Second, "before each run, how long a thread sleeping 1 ms at a time (under --relay-prefix, as the relay) counts how often the machine wakes it late; 0 skips it")
	serveProbe := fs.Duration("serve-probe", 0, "internal: run the wake-up probe for this long and print its counts")
	window := fs.Duration("release-window", proxy.DefaultReleaseWindow, "the relay's release window (proxy.Options.ReleaseWindow): how late a copy may leave at high rates to share a wake-up, up to "+proxy.MaxReleaseWindow.String()+"; 0 turns it off")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *serveProbe > 0 {
		return runProbe(stdout, *serveProbe)
	}
	if *serve != "" {
		if *bare {
			return serveBare(*serve)
		}
		return serveRelay(*serve, *delay, *window, *profile)
	}
	var rs []int
	for _, f := range strings.Split(*rates, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || r < 1 || r > 100000 {
			return fmt.Errorf("--rates %q: %q: allowed whole numbers from 1 to 100000", *rates, f)
		}
		rs = append(rs, r)
	}
	if *size < 16 || *size > 1400 {
		return fmt.Errorf("--size %d: allowed 16 to 1400", *size)
	}
	if *dur < 100*time.Millisecond || *dur > time.Hour {
		return fmt.Errorf("--duration %v: allowed 100ms to 1h", *dur)
	}
	if *delay < 0 || *delay > 10*time.Second {
		return fmt.Errorf("--delay %v: allowed 0 to 10s", *delay)
	}
	if *window < 0 || *window > proxy.MaxReleaseWindow {
		return fmt.Errorf("--release-window %v: allowed 0 (off) to %v", *window, proxy.MaxReleaseWindow)
	}
	if *probe < 0 || *probe > time.Minute {
		return fmt.Errorf("--probe %v: allowed 0 (off) to 1m", *probe)
	}
	if *runs < 1 || *runs > 100 {
		return fmt.Errorf("--runs %d: allowed 1 to 100", *runs)
	}
	if *bare && *delay != 0 {
		return fmt.Errorf("--bare adds no delay: use it with --delay 0")
	}

	sinkProxy, err := newSink()
	if err != nil {
		return err
	}
	defer sinkProxy.conn.Close()
	sinkDirect, err := newSink()
	if err != nil {
		return err
	}
	defer sinkDirect.conn.Close()

	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmdline := append(strings.Fields(*prefix), self, "--serve-relay", sinkProxy.conn.LocalAddr().String(), "--delay", delay.String(),
		"--release-window", window.String())
	what := "relay"
	if *bare {
		cmdline = append(cmdline, "--bare")
		what = "bare relay (--bare)"
	}
	if *profile != "" {
		cmdline = append(cmdline, "--relay-cpuprofile", *profile)
	}
	child := exec.Command(cmdline[0], cmdline[1:]...)
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return fmt.Errorf("starting the relay (%s): %v", strings.Join(cmdline, " "), err)
	}
	defer func() { child.Process.Signal(syscall.SIGTERM); child.Wait() }()
	relayOut := bufio.NewReader(out)
	line, err := relayOut.ReadString('\n')
	if err != nil {
		return fmt.Errorf("the relay did not start: %v", err)
	}
	relayAddr, err := net.ResolveUDPAddr("udp", strings.TrimSpace(line))
	if err != nil {
		return fmt.Errorf("the relay said %q: %v", line, err)
	}
	relayPID := child.Process.Pid
	if *prefix != "" {
		relayPID = findChild(relayPID, self)
	}
	toProxy, err := net.DialUDP("udp", nil, relayAddr)
	if err != nil {
		return err
	}
	defer toProxy.Close()
	toDirect, err := net.DialUDP("udp", nil, sinkDirect.conn.LocalAddr().(*net.UDPAddr))
	if err != nil {
		return err
	}
	defer toDirect.Close()
	go sinkProxy.read()
	go sinkDirect.read()

	rw := window.String()
	switch {
	case *bare:
		rw = "n/a"
	case *window == 0:
		rw = "off"
	}
	fmt.Fprintf(stdout, "proxybench: added delay %v, %d-byte datagrams, %v per rate, %d CPUs, %s %s, release window %s, %s\n",
		*delay, *size, *dur, runtime.NumCPU(), what, strings.Join(cmdline[:len(strings.Fields(*prefix))+1], " "), rw, runtime.Version())
	// The relay's own figures since the last call: the kernel's drops at
	// its socket and how late it wrote each copy after its link's time.
	relayFigures := func() (drops uint64, late [3]time.Duration, stalls int, stallMax time.Duration, ok bool) {
		child.Process.Signal(syscall.SIGUSR1)
		line, err := relayOut.ReadString('\n')
		if _, serr := fmt.Sscan(line, &drops, &late[0], &late[1], &late[2], &stalls, &stallMax); err != nil || serr != nil {
			return 0, late, 0, 0, false
		}
		return drops, late, stalls, stallMax, !*bare
	}
	// Warm up: the relay's flow, socket and buffers.
	sendAt(toProxy, toDirect, 1000, 200*time.Millisecond, *size)
	time.Sleep(*delay + 100*time.Millisecond)
	var all [][]row
	for run := range *runs {
		if *runs > 1 {
			fmt.Fprintf(stdout, "run %d of %d\n", run+1, *runs)
		}
		fmt.Fprintf(stdout, "load average before: %s\n", loadavg())
		if *probe > 0 {
			pl := append(strings.Fields(*prefix), self, "--serve-probe", probe.String())
			b, err := exec.Command(pl[0], pl[1:]...).Output()
			var p probeCounts
			if _, serr := fmt.Sscan(string(b), &p.sleeps, &p.late, &p.veryLate, &p.max); err != nil || serr != nil {
				return fmt.Errorf("the wake-up probe (%s): %v %v", strings.Join(pl, " "), err, serr)
			}
			fmt.Fprintf(stdout, "wake-up probe on the relay's CPU: %d sleeps of 1 ms in %v, %d woke more than %v late (%d more than 2 ms), latest %.0f µs late\n",
				p.sleeps, *probe, p.late, proxy.StallAfter, p.veryLate, us(p.max))
		}
		var rows []row
		for _, rate := range rs {
			sinkProxy.reset()
			sinkDirect.reset()
			relayFigures() // from here
			cpu0, wait0 := cpuTime(relayPID), runDelay(relayPID)
			sent := sendAt(toProxy, toDirect, rate, *dur, *size)
			cpu1, wait1 := cpuTime(relayPID), runDelay(relayPID)
			time.Sleep(*delay + 200*time.Millisecond) // stragglers
			viaProxy, direct := sinkProxy.take(), sinkDirect.take()
			for i := range viaProxy {
				viaProxy[i] -= *delay
			}
			rw := row{rate: rate, sent: sent, via: len(viaProxy), direct: len(direct), err: quantiles(viaProxy), dir: quantiles(direct),
				cpu: -1, wait: -1}
			if cpu0 >= 0 && cpu1 >= 0 {
				rw.cpu = 100 * float64(cpu1-cpu0) / float64(*dur)
			}
			if wait0 >= 0 && wait1 >= 0 {
				rw.wait = wait1 - wait0
			}
			rw.drops, rw.late, rw.stalls, rw.stallMax, rw.hasLate = relayFigures()
			rows = append(rows, rw)
		}
		printRows(stdout, rows)
		fmt.Fprintf(stdout, "load average after: %s\n", loadavg())
		all = append(all, rows)
	}
	if *runs > 1 {
		fmt.Fprintf(stdout, "over the %d runs (lowest–highest):\n", *runs)
		printRanges(stdout, all)
	}
	fmt.Fprintln(stdout, "error: one-way time through the relay minus the configured delay; relay late: how long after the time its link gave it")
	fmt.Fprintln(stdout, "the relay wrote each copy (its own clock), outside stalls; stalled: copies the relay came back for more than")
	fmt.Fprintf(stdout, "%v after it meant to (no CPU for it), and the latest of them; direct: one-way time on loopback without\n", proxy.StallAfter)
	fmt.Fprintln(stdout, "the relay; CPU wait: how long the relay's threads were ready to run but waited for a CPU")
	return nil
}

// probeCounts is what the wake-up probe saw: sleeps, how many woke more
// than proxy.StallAfter and 2 ms late, and the latest.
type probeCounts struct {
	sleeps, late, veryLate int
	max                    time.Duration
}

// runProbe sleeps 1 ms at a time for d on one thread with 1 ns of timer
// slack, as the relay waits, and prints how late it woke: what the machine
// does to any thread that waits (the hypervisor's and the scheduler's
// stalls), measured apart from the relay.
func runProbe(w io.Writer, d time.Duration) error {
	runtime.LockOSThread()
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	var p probeCounts
	ts := syscall.NsecToTimespec(int64(time.Millisecond))
	for start := time.Now(); time.Since(start) < d; p.sleeps++ {
		want := time.Now().Add(time.Millisecond)
		syscall.Nanosleep(&ts, nil)
		late := time.Since(want)
		if late > proxy.StallAfter {
			p.late++
		}
		if late > 2*time.Millisecond {
			p.veryLate++
		}
		p.max = max(p.max, late)
	}
	_, err := fmt.Fprintln(w, p.sleeps, p.late, p.veryLate, int64(p.max))
	return err
}

// row is one rate's figures in one run.
type row struct {
	rate, sent, via, direct int
	err, late, dir          [3]time.Duration // p50, p99, max
	hasLate                 bool
	stalls                  int           // copies released after a stall, not in late
	stallMax                time.Duration // the latest of them
	cpu                     float64       // per cent of a core, or -1
	wait                    time.Duration // on a run queue, or -1
	drops                   uint64
}

func printRows(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rate/s\tsent\tvia relay\terror p50\tp99\tmax\trelay late p50\tp99\tmax\tstalled\tlate max\tdirect p50\tp99\tmax\trelay CPU\tCPU wait\trelay kernel drops\t")
	for _, r := range rows {
		stalls, stallMax := "-", "-"
		if r.hasLate {
			stalls = strconv.Itoa(r.stalls)
		}
		if r.stalls > 0 {
			stallMax = fmt.Sprintf("%.0f µs", us(r.stallMax))
		}
		e, l, d := figures(r.err, r.via > 0), figures(r.late, r.hasLate), figures(r.dir, r.direct > 0)
		cpu, wait := "n/a", "n/a"
		if r.cpu >= 0 {
			cpu = fmt.Sprintf("%.1f %%", r.cpu)
		}
		if r.wait >= 0 {
			wait = fmt.Sprintf("%.1f ms", float64(r.wait)/1e6)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.rate, r.sent, r.via, e[0], e[1], e[2],
			l[0], l[1], l[2], stalls, stallMax, d[0], d[1], d[2], cpu, wait, r.drops)
	}
	tw.Flush()
}

// printRanges prints, per rate, the lowest and highest of each figure
// over the runs.
func printRanges(w io.Writer, runs [][]row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rate/s\terror p50\tp99\tmax\trelay late p99\tmax\tstalled\tlate max\tdirect p99\trelay CPU\tCPU wait\trelay kernel drops\t")
	for i, r := range runs[0] {
		var col [11][]float64
		for _, run := range runs {
			x := run[i]
			if x.via > 0 {
				col[0], col[1], col[2] = append(col[0], us(x.err[0])), append(col[1], us(x.err[1])), append(col[2], us(x.err[2]))
			}
			if x.hasLate {
				col[3], col[4], col[5] = append(col[3], us(x.late[1])), append(col[4], us(x.late[2])), append(col[5], float64(x.stalls))
			}
			if x.stalls > 0 {
				col[6] = append(col[6], us(x.stallMax))
			}
			if x.direct > 0 {
				col[7] = append(col[7], us(x.dir[1]))
			}
			if x.cpu >= 0 {
				col[8] = append(col[8], x.cpu)
			}
			if x.wait >= 0 {
				col[9] = append(col[9], float64(x.wait)/1e6)
			}
			col[10] = append(col[10], float64(x.drops))
		}
		units := [11]string{" µs", " µs", " µs", " µs", " µs", "", " µs", " µs", " %", " ms", ""}
		fmt.Fprintf(tw, "%d\t", r.rate)
		for c := range col {
			fmt.Fprintf(tw, "%s\t", span(col[c], units[c]))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// span is "lo–hi unit" (one figure when they are equal), or "-".
func span(v []float64, unit string) string {
	if len(v) == 0 {
		return "-"
	}
	lo, hi := slices.Min(v), slices.Max(v)
	prec := 0
	if unit == " %" || unit == " ms" {
		prec = 1
	}
	if strconv.FormatFloat(lo, 'f', prec, 64) == strconv.FormatFloat(hi, 'f', prec, 64) {
		return strconv.FormatFloat(lo, 'f', prec, 64) + unit
	}
	return strconv.FormatFloat(lo, 'f', prec, 64) + "–" + strconv.FormatFloat(hi, 'f', prec, 64) + unit
}

// serveRelay runs the relay for the benchmark until SIGTERM.
func serveRelay(target string, delay, window time.Duration, profile string) error {
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var mu sync.Mutex
	late := make([]time.Duration, 0, 1<<20) // written − due per copy since the last report, outside stalls
	var stalled int                         // copies released after a stall
	var stallMax time.Duration              // the latest of them
	onPacket := func(e *proxy.PacketEvent) {
		if e.Read || e.Fate != proxy.FateDelivered {
			return
		}
		mu.Lock()
		if e.Stalled {
			stalled++
			stallMax = max(stallMax, e.Out.Sub(e.Due))
		} else if len(late) < cap(late) {
			late = append(late, e.Out.Sub(e.Due))
		}
		mu.Unlock()
	}
	if window == 0 {
		window = -1 // off
	}
	r, err := proxy.Listen(proxy.Options{Listen: "127.0.0.1:0", Target: target, Seed: 1, Up: netem.Params{Latency: delay},
		ReleaseWindow: window, OnPacket: onPacket})
	if err != nil {
		return err
	}
	fmt.Println(r.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() { // on request (SIGUSR1): the kernel's drops and the lateness since the last request
		usr := make(chan os.Signal, 1)
		signal.Notify(usr, syscall.SIGUSR1)
		var drops0 uint64
		for range usr {
			st := r.Stats()
			mu.Lock()
			q := quantiles(late)
			n, m := stalled, stallMax
			late, stalled, stallMax = late[:0], 0, 0
			mu.Unlock()
			fmt.Printf("%d %d %d %d %d %d\n", st.Up.KernelDropped-drops0, q[0], q[1], q[2], n, m)
			drops0 = st.Up.KernelDropped
		}
	}()
	return r.Run(ctx)
}

// serveBare is the minimal relay of --bare: each datagram read (Go's
// poller wakes the reader) is written at once to target.
func serveBare(target string) error {
	in, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	ta, err := net.ResolveUDPAddr("udp", target)
	if err != nil {
		return err
	}
	out, err := net.DialUDP("udp", nil, ta)
	if err != nil {
		return err
	}
	fmt.Println(in.LocalAddr())
	go func() {
		usr := make(chan os.Signal, 1)
		signal.Notify(usr, syscall.SIGUSR1)
		for range usr {
			fmt.Println("0 0 0 0 0 0")
		}
	}()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, err := in.Read(buf)
			if err != nil {
				return
			}
			out.Write(buf[:n])
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	return nil
}

// findChild is the pid of the process running exe under parent (the
// relay under a prefix such as taskset, which execs it in place, or chrt).
func findChild(parent int, exe string) int {
	for range 50 {
		if p, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", parent)); err == nil && p == exe {
			return parent
		}
		time.Sleep(10 * time.Millisecond)
	}
	return parent
}

// runDelay is how long a process's threads have waited on a run queue
// (Linux /proc/PID/task/*/schedstat), or -1.
func runDelay(pid int) time.Duration {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return -1
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return -1
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return -1
		}
		sum += time.Duration(ns)
	}
	return sum
}

// cpuTime is a process's user+system CPU time (Linux /proc), or -1.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return -1
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// sendAt sends rate datagrams per second to each of a and b for d, each
// stamped with the wall time just before it is written; it paces with
// kernel sleeps so the datagrams are evenly spaced. It returns how many
// went to each.
func sendAt(a, b *net.UDPConn, rate int, d time.Duration, size int) int {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf := make([]byte, size)
	period := time.Second / time.Duration(rate)
	n := int(d / period)
	start := time.Now()
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(i) * period)); wait > 0 {
			ts := syscall.NsecToTimespec(int64(wait))
			syscall.Nanosleep(&ts, nil)
		}
		binary.LittleEndian.PutUint64(buf[8:], uint64(i))
		binary.LittleEndian.PutUint64(buf, uint64(time.Now().UnixNano()))
		a.Write(buf)
		binary.LittleEndian.PutUint64(buf, uint64(time.Now().UnixNano()))
		b.Write(buf)
	}
	return n
}

// sink receives the datagrams and keeps each one's one-way time: the
// kernel's receive timestamp minus the sender's stamp.
type sink struct {
	conn *net.UDPConn
	mu   sync.Mutex
	owd  []time.Duration
}

func newSink() (*sink, error) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	c.SetReadBuffer(4 << 20)
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return nil, fmt.Errorf("SO_TIMESTAMPNS: %v", errors.Join(err, serr))
	}
	return &sink{conn: c}, nil
}

func (s *sink) read() {
	buf := make([]byte, 2048)
	oob := make([]byte, 128)
	for {
		n, oobn, _, _, err := s.conn.ReadMsgUDPAddrPort(buf, oob)
		if err != nil {
			return
		}
		at := time.Now().UnixNano()
		if ns, ok := kernelStamp(oob[:oobn]); ok {
			at = ns
		}
		if n < 16 {
			continue
		}
		sent := int64(binary.LittleEndian.Uint64(buf))
		s.mu.Lock()
		s.owd = append(s.owd, time.Duration(at-sent))
		s.mu.Unlock()
	}
}

// kernelStamp reads SCM_TIMESTAMPNS (a struct timespec) from control data.
func kernelStamp(oob []byte) (int64, bool) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			sec := int64(binary.NativeEndian.Uint64(m.Data))
			nsec := int64(binary.NativeEndian.Uint64(m.Data[8:]))
			return sec*1e9 + nsec, true
		}
	}
	return 0, false
}

func (s *sink) reset() {
	s.mu.Lock()
	s.owd = s.owd[:0]
	s.mu.Unlock()
}

func (s *sink) take() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.owd...)
}

// quantiles are p50, p99 and max (sorting v), or zeros.
func quantiles(v []time.Duration) [3]time.Duration {
	if len(v) == 0 {
		return [3]time.Duration{}
	}
	slices.Sort(v)
	return [3]time.Duration{v[len(v)/2], v[(len(v)*99)/100], v[len(v)-1]}
}

// figures prints q in whole microseconds, or dashes when there are none.
func figures(q [3]time.Duration, ok bool) [3]string {
	if !ok {
		return [3]string{"-", "-", "-"}
	}
	var f [3]string
	for i, d := range q {
		f[i] = fmt.Sprintf("%.0f µs", us(d))
	}
	return f
}
