package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// A proxy recording (lab proxy --record) holds the relayed datagrams, not
// a session: replay prints what became of them and the delay the relay
// added, export --packets writes them as CSV, plot draws the delay added.

var errProxyVerify = errors.New("--verify: a proxy recording holds real relayed traffic: nothing re-simulates it (verify proves session recordings)")

// proxyCleared is the value of a "client ADDR" change: the client was put
// back on everybody's settings.
const proxyCleared = "cleared"

// proxySetting is one change record of a proxy recording as read back
// (see [proxyCapture.recordSettings]): everybody's setting (Client ""), a
// client's own (Client set), a client put back on everybody's (Cleared),
// or a client's first datagram (Flow its number).
type proxySetting struct {
	At         sim.Time
	Client     string
	Flow       uint64
	Cleared    bool
	Key, Value string
}

// proxySettingOf reads a proxy recording's change record.
func proxySettingOf(c recordings.Change) proxySetting {
	s := proxySetting{At: c.At, Key: c.Key, Value: c.Value}
	if n, ok := strings.CutPrefix(c.Key, "flow "); ok {
		if id, err := strconv.ParseUint(n, 10, 64); err == nil && id > 0 {
			return proxySetting{At: c.At, Flow: id, Client: c.Value}
		}
	}
	if rest, ok := strings.CutPrefix(c.Key, "client "); ok {
		addr, key, _ := strings.Cut(rest, " ")
		s.Client, s.Key = addr, key
		s.Cleared = key == "" && c.Value == proxyCleared
	}
	return s
}

// String is the setting as replay lists it.
func (s proxySetting) String() string {
	switch {
	case s.Flow > 0:
		return fmt.Sprintf("flow %d  %s", s.Flow, s.Client)
	case s.Cleared:
		return "client " + s.Client + " back on everybody's settings"
	case s.Client != "":
		return "client " + s.Client + " " + s.Key + " = " + s.Value
	}
	return s.Key + " = " + s.Value
}

// maxReplayFlows is how many clients replay lists by name; export
// --changes has them all.
const maxReplayFlows = 50

// packetStats sums a proxy recording's packets per direction.
type packetStats struct {
	fates     [2][8]uint64
	dups      [2]uint64
	reordered [2]uint64
	flows     uint64 // the highest flow number: flows are numbered from 1
	added     [2]*metrics.Histogram
	err       [2]*metrics.Histogram
}

func newPacketStats() *packetStats {
	s := &packetStats{}
	for d := range 2 {
		s.added[d], s.err[d] = metrics.NewHistogram(0.001), metrics.NewHistogram(0.001)
	}
	return s
}

func (s *packetStats) add(p *recordings.Packet) {
	d := p.Dir
	s.fates[d][p.Fate]++
	s.flows = max(s.flows, p.Flow)
	if p.Copy == 1 {
		s.dups[d]++
	}
	if p.Reordered {
		s.reordered[d]++
	}
	if p.Fate == recordings.PacketDelivered {
		added := p.Out - p.In
		s.added[d].Add(ms(time.Duration(added)))
		s.err[d].Add(ms(time.Duration(added) - p.Scheduled))
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// write prints the table of fates and the delay the relay added.
func (s *packetStats) write(w io.Writer) error {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tdelivered\tlost\tqueue-dropped\tover-limit\tdiscarded\twrite-failed\tduplicates\treordered\t")
	for d, name := range []string{"up", "down"} {
		f := s.fates[d]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, f[recordings.PacketDelivered], f[recordings.PacketLost],
			f[recordings.PacketQueueDropped], f[recordings.PacketOverLimit], f[recordings.PacketDiscarded], f[recordings.PacketWriteFailed],
			s.dups[d], s.reordered[d])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "delivered copies (ms)\tp50\tp99\tmax\t")
	for d, name := range []string{"up", "down"} {
		for _, h := range []struct {
			what string
			h    *metrics.Histogram
		}{{"delay added", s.added[d]}, {"added − scheduled", s.err[d]}} {
			if h.h.Count() == 0 {
				fmt.Fprintf(tw, "%s %s\t-\t-\t-\t\n", name, h.what)
				continue
			}
			fmt.Fprintf(tw, "%s %s\t%.3f\t%.3f\t%.3f\t\n", name, h.what, h.h.Quantile(0.5), h.h.Quantile(0.99), h.h.Max())
		}
	}
	return tw.Flush()
}

// startLink says the links a proxy recording started with (its header:
// the settings in force when it started) as ab and sweep say a run's
// link: "latency 40ms/0, jitter 0, … (up/down where they differ)".
func startLink(h recordings.Header) (string, error) {
	cfg, err := lab.ConfigFromHeader(h, lab.Untrusted)
	if err != nil {
		return "", err
	}
	return batch.LinkText(batch.LinkOf(&cfg)) + " at the start", nil
}

// replayProxy is 'lab replay' of a proxy recording: its settings, changes
// and packet summary, and the packets of a --from/--to window as CSV.
func replayProxy(r *recordings.Reader, name string, stdout io.Writer, seek bool, from, to sim.Time) error {
	h := r.Header
	end, err := r.End()
	if err != nil {
		return err
	}
	changes, err := r.Changes()
	if err != nil {
		return err
	}
	var pe proxyEnd
	summed := end != nil && json.Unmarshal(end.Summary, &pe) == nil
	st := newPacketStats()
	if err := r.ScanPackets(0, sim.Time(math.MaxInt64), func(p *recordings.Packet) error { st.add(p); return nil }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recording  %s\nproxy      relayed traffic (lab proxy --record): scenario %s, seed %d; times are wall time from the start\n",
		name, h.Scenario, h.Seed)
	if link, err := startLink(h); err == nil {
		fmt.Fprintf(stdout, "link       %s\n", link)
	}
	fmt.Fprintf(stdout, "length     %v in %d frames", r.Duration(), r.Frames())
	if r.Truncated {
		fmt.Fprintf(stdout, " (truncated at byte %d: read up to the last whole frame)", r.TruncatedAt)
	} else if end == nil {
		fmt.Fprint(stdout, " (not closed: the proxy did not stop cleanly)")
	}
	var settings, flows []proxySetting
	for _, c := range changes {
		if s := proxySettingOf(c); s.Flow > 0 {
			flows = append(flows, s)
		} else {
			settings = append(settings, s)
		}
	}
	fmt.Fprintf(stdout, "\nchanges    %d\n", len(settings))
	for _, s := range settings {
		fmt.Fprintf(stdout, "  at %v  %s\n", s.At, s)
	}
	if pe.ChangesLost > 0 {
		fmt.Fprintf(stdout, "incomplete %d changes were not recorded (beyond the recording's %d)\n", pe.ChangesLost, recordings.MaxChanges)
	}
	if len(flows) == 0 && st.flows > 0 { // recorded before clients were named
		fmt.Fprintf(stdout, "clients    %d (their addresses are not in this recording)\n", st.flows)
	} else {
		fmt.Fprintf(stdout, "clients    %d (each client address is a flow, numbered as it first sent)\n", len(flows))
	}
	for i, s := range flows {
		if i == maxReplayFlows {
			fmt.Fprintf(stdout, "  … and %d more ('lab export %s --changes -' lists them)\n", len(flows)-i, name)
			break
		}
		fmt.Fprintf(stdout, "  %s  from %v\n", s, s.At)
	}
	if summed {
		fmt.Fprintf(stdout, "relay      read up %d, down %d; the kernel dropped up %d, down %d before they were read; in flight at the stop up %d, down %d\n",
			pe.Up.Received, pe.Down.Received, pe.Up.KernelDropped, pe.Down.KernelDropped, pe.Up.InFlight, pe.Down.InFlight)
		if pe.CaptureDropped > 0 {
			fmt.Fprintf(stdout, "incomplete %d packet events were dropped while recording (the writer fell behind): the counts below are short\n", pe.CaptureDropped)
		}
	}
	if err := st.write(stdout); err != nil {
		return err
	}
	if seek {
		fmt.Fprintln(stdout)
		return writePacketsCSV(stdout, r, from, to)
	}
	return nil
}

// changeColumns is the header of export --changes.
const changeColumns = "t_s,client,flow,key,value\n"

// writeChangesCSV writes a recording's changes with from ≤ At ≤ to, one a
// row: when (s, to the nanosecond), for whom (client: "all" for
// everybody's settings, else the client's address, with its flow number
// once it has sent), and the key and value. A client's first datagram is
// the row "flow,started"; a client put back on everybody's settings "own
// settings,cleared".
func writeChangesCSV(w io.Writer, changes []recordings.Change, from, to sim.Time) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	cw.Write(strings.Split(strings.TrimSpace(changeColumns), ","))
	flowOf := map[string]uint64{} // at most MaxChanges entries
	for _, c := range changes {
		s := proxySettingOf(c)
		if s.Flow > 0 {
			flowOf[s.Client] = s.Flow
		}
		if s.At < from || s.At > to {
			continue
		}
		client, flow, key, value := "all", "", s.Key, s.Value
		if s.Client != "" {
			client = s.Client
			if n, ok := flowOf[s.Client]; ok {
				flow = strconv.FormatUint(n, 10)
			}
		}
		switch {
		case s.Flow > 0:
			key, value = "flow", "started"
		case s.Cleared:
			key, value = "own settings", "cleared"
		}
		cw.Write([]string{string(appendNs(nil, int64(s.At), 9)), client, flow, key, value})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// packetColumns is the header of export --packets.
const packetColumns = "t_s,dir,flow,size,fate,copy,in_s,out_s,added_ms,scheduled_ms,reordered\n"

// writePacketsCSV writes the packets with from ≤ At ≤ to, one a row:
// when the relay accounted for it, direction, flow, size, fate, which
// copy, wall time read and written (s), the delay it added and the delay
// the link scheduled (ms), every time to the nanosecond.
func writePacketsCSV(w io.Writer, r *recordings.Reader, from, to sim.Time) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(packetColumns)
	b := make([]byte, 0, 128)
	err := r.ScanPackets(from, to, func(p *recordings.Packet) error {
		b = appendNs(b[:0], int64(p.At), 9)
		b = append(b, ',')
		b = append(b, []string{"up", "down"}[p.Dir]...)
		b = append(b, ',')
		b = strconv.AppendUint(b, p.Flow, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.Size), 10)
		b = append(b, ',')
		b = append(b, p.Fate.String()...)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(p.Copy), 10)
		b = append(b, ',')
		b = appendNs(b, int64(p.In), 9)
		b = append(b, ',')
		if p.Fate.Out() {
			b = appendNs(b, int64(p.Out), 9)
			b = append(b, ',')
			b = appendNs(b, int64(p.Out-p.In), 6)
			b = append(b, ',')
			b = appendNs(b, int64(p.Scheduled), 6)
		} else {
			b = append(b, ",,"...)
		}
		b = append(b, ',')
		b = strconv.AppendBool(b, p.Reordered)
		b = append(b, '\n')
		_, err := bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// appendNs appends ns nanoseconds in units of 10^scale ns (9: seconds,
// 6: milliseconds) with every digit: exact, no floating point.
func appendNs(b []byte, ns int64, scale int) []byte {
	unit := int64(1)
	for range scale {
		unit *= 10
	}
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/unit, 10)
	b = append(b, '.')
	frac := strconv.AppendInt(nil, ns%unit, 10)
	for range scale - len(frac) {
		b = append(b, '0')
	}
	return append(b, frac...)
}

// plotBins is how many time bins a proxy plot has: each keeps the least
// and the most of its packets, so memory is fixed whatever the length.
const plotBins = 2000

// plotClients is how many clients a proxy plot draws a line of their own
// for (the first to send); the others share one line.
const plotClients = 8

// clientColors are the clients' lines, then the others'.
var clientColors = [plotClients + 1]color.RGBA{{0, 150, 200, 255}, {200, 140, 0, 255}, {190, 0, 160, 255}, {0, 140, 60, 255},
	{220, 40, 40, 255}, {90, 70, 200, 255}, {140, 90, 30, 255}, {0, 170, 170, 255}, {120, 120, 160, 255}}

// plotBin is one time bin of one line: the least and the most of its
// packets (NaN: none).
type plotBin struct{ lo, hi float64 }

func newPlotLine() []plotBin {
	b := make([]plotBin, plotBins)
	for i := range b {
		b[i] = plotBin{math.NaN(), math.NaN()}
	}
	return b
}

func (b *plotBin) add(v float64) {
	if math.IsNaN(b.lo) || v < b.lo {
		b.lo = v
	}
	if math.IsNaN(b.hi) || v > b.hi {
		b.hi = v
	}
}

// plotProxy draws a proxy recording: per direction the delay the relay
// added to each delivered copy, one line per client (labelled by its
// address), and how far past the link's schedule it was written. From 0
// is the recording's start: a recording the screen's R began minutes into
// the run is drawn over the time it recorded. It returns where the plot
// begins.
func plotProxy(r *recordings.Reader, name string, from, to sim.Time, width int, w io.Writer) (n int, clients []string, _ sim.Time, err error) {
	changes, err := r.Changes()
	if err != nil {
		return 0, nil, from, err
	}
	addr := map[uint64]string{} // at most MaxChanges entries
	for _, c := range changes {
		if s := proxySettingOf(c); s.Flow > 0 {
			addr[s.Flow] = s.Client
		}
	}
	// A recording that names its clients starts with its first change: a
	// client's datagrams come after its "started", and R's recording
	// names the clients already there as it starts.
	if len(addr) > 0 && from == 0 && changes[0].At < to {
		from = changes[0].At
	}
	line := map[uint64]int{} // flow → its line; plotClients at most
	var flows []uint64       // the flows with a line of their own, in order
	var dirs [2][][]plotBin  // [dir][line][bin]
	late := newPlotLine()
	others := false
	span := max(to-from, 1)
	err = r.ScanPackets(from, to, func(p *recordings.Packet) error {
		if p.Fate != recordings.PacketDelivered {
			return nil
		}
		n++
		k, ok := line[p.Flow]
		if !ok {
			k = min(len(flows), plotClients)
			if k < plotClients {
				line[p.Flow] = k
				flows = append(flows, p.Flow)
			} else {
				others = true
			}
			for d := range dirs {
				for len(dirs[d]) <= k {
					dirs[d] = append(dirs[d], newPlotLine())
				}
			}
		}
		i := min(int(int64(p.At-from)*plotBins/int64(span)), plotBins-1)
		dirs[p.Dir][k][i].add(ms(time.Duration(p.Out - p.In)))
		late[i].add(ms(time.Duration(p.Out-p.In) - p.Scheduled))
		return nil
	})
	if err != nil {
		return 0, nil, from, err
	}
	if n == 0 {
		return 0, nil, from, fmt.Errorf("no delivered packets between %v and %v", asWritten(time.Duration(from)), asWritten(time.Duration(to)))
	}
	for _, f := range flows {
		label := fmt.Sprintf("flow %d", f)
		if a, ok := addr[f]; ok {
			label += " " + a
		}
		clients = append(clients, label)
	}
	if others {
		clients = append(clients, fmt.Sprintf("other clients (after the first %d)", plotClients))
	}
	// Two pseudo-samples a bin, its most and its least, evenly in time.
	samples := make([]metrics.Sample, 0, 2*plotBins)
	for i := range plotBins {
		ts := (from + sim.Time(int64(span)*int64(i)/plotBins)).Seconds()
		samples = append(samples, metrics.Sample{TS: ts}, metrics.Sample{TS: ts})
	}
	at := func(b []plotBin) func(int) float64 {
		return func(i int) float64 {
			if i%2 == 0 {
				return b[i/2].hi
			}
			return b[i/2].lo
		}
	}
	var panels []metrics.Panel
	for d, title := range []string{"up: delay added (ms)", "down: delay added (ms)"} {
		p := metrics.Panel{Title: title}
		for k, label := range clients {
			if len(clients) == 1 {
				label = "" // one client: the title says it all
			}
			p.Series = append(p.Series, metrics.Series{Label: label, Color: clientColors[k], Value: at(dirs[d][k])})
		}
		panels = append(panels, p)
	}
	panels = append(panels, metrics.Panel{Title: "late: added minus scheduled (ms), every client", Color: color.RGBA{190, 0, 160, 255},
		Series: []metrics.Series{{Color: color.RGBA{190, 0, 160, 255}, Value: at(late)}}})
	title := fmt.Sprintf("jitterlab proxy  %s  seed %d  recording %s", r.Header.Scenario, r.Header.Seed, name)
	return n, clients, from, metrics.WritePNG(w, samples, panels, width, title)
}

// replayProxyFlags is 'lab replay' of a proxy recording, after refusing
// what only applies to a session.
func replayProxyFlags(r *recordings.Reader, name string, stdout io.Writer, verify, view, seek bool, from, to time.Duration) error {
	switch {
	case verify:
		return cmdLineErr(errProxyVerify)
	case view:
		return badUsage("--tui: a proxy recording has no session to play; 'lab plot FILE --out delay.png' draws the delay it added")
	}
	wFrom, wTo, err := window(r, from, to)
	if seek && err != nil {
		return err
	}
	return replayProxy(r, name, stdout, seek, wFrom, wTo)
}

// exportPackets is 'lab export --packets': a proxy recording's packets as
// CSV (standard output by default).
func exportPackets(r *recordings.Reader, name, csvOut, packets string, stdout io.Writer, from, to sim.Time) error {
	if err := checkExportPackets(r, name, csvOut); err != nil {
		return err
	}
	if packets == "" {
		packets = "-"
	}
	dst, err := openOutput(packets, stdout, whole)
	if err != nil {
		return err
	}
	defer dst.Abort()
	if err := writePacketsCSV(dst, r, from, to); err != nil {
		return err
	}
	return dst.Commit()
}

// checkExportPackets refuses export --packets of a session recording, and
// --csv of a proxy recording.
func checkExportPackets(r *recordings.Reader, name, csvOut string) error {
	if r.Header.Kind != recordings.KindProxy {
		return badUsage("--packets: %s is a session recording: it holds samples, not packets ('lab run --packets FILE' writes a session's packets)", name)
	}
	if csvOut != "" {
		return badUsage("--csv %s: %s is a proxy recording: it has no timeline; --packets OUT writes its packets", csvOut, name)
	}
	return nil
}

// exportChanges is 'lab export --changes': the recording's changes of the
// settings as CSV (see writeChangesCSV); --packets may write the packets
// to another file in the same run.
func exportChanges(r *recordings.Reader, name, csvOut, packets, changes string, stdout io.Writer, from, to sim.Time) error {
	if packets != "" {
		if err := checkExportPackets(r, name, csvOut); err != nil {
			return err
		}
	}
	if csvOut != "" {
		return badUsage("--csv %s and --changes %s: the timeline and the changes are two exports; run lab export twice", csvOut, changes)
	}
	if err := checkOutputs(map[string]string{"packets": packets, "changes": changes}, name); err != nil {
		return err
	}
	all, err := r.Changes()
	if err != nil {
		return err
	}
	dst, err := openOutput(changes, stdout, whole)
	if err != nil {
		return err
	}
	defer dst.Abort()
	if err := writeChangesCSV(dst, all, from, to); err != nil {
		return err
	}
	return dst.Commit()
}

// plotProxyTo writes plotProxy's PNG to out, replaced only when finished.
func plotProxyTo(r *recordings.Reader, name, out string, from, to sim.Time, width int, stdout, stderr io.Writer) error {
	var n int
	var clients []string
	report, err := writeBuffered(out, stdout, stderr, func(w io.Writer) (err error) {
		n, clients, from, err = plotProxy(r, name, from, to, width, w)
		return err
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(report, "wrote %s: %d delivered packets from %v to %v; a line per client: %s\n", out, n, from, to, strings.Join(clients, ", "))
	return err
}
