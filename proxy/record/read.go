package record

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
	"jitterlab/telemetry"
)

// Cleared is the value of a "client ADDR" change: the client was put
// back on everybody's settings.
const Cleared = "cleared"

// Setting is one change record of a proxy recording in the grammar of
// the package's doc: everybody's setting (Client ""), a client's own
// (Client set), a client put back on everybody's (Cleared), or a
// client's first datagram (Flow its number, Client its address).
type Setting struct {
	At         sim.Time
	Client     string
	Flow       uint64
	Cleared    bool
	Key, Value string
}

// ParseChange reads a proxy recording's change record. Every record
// reads as some Setting: one that matches no other form is everybody's
// setting of its key.
func ParseChange(c recordings.Change) Setting {
	s := Setting{At: c.At, Key: c.Key, Value: c.Value}
	if n, ok := strings.CutPrefix(c.Key, "flow "); ok {
		if id, err := strconv.ParseUint(n, 10, 64); err == nil && id > 0 {
			return Setting{At: c.At, Flow: id, Client: c.Value}
		}
	}
	if rest, ok := strings.CutPrefix(c.Key, "client "); ok {
		addr, key, _ := strings.Cut(rest, " ")
		s.Client, s.Key = addr, key
		if key == "" && c.Value == Cleared {
			s.Cleared, s.Value = true, ""
		}
	}
	return s
}

// Change is the change record that spells s; [ParseChange] reads it back
// as s.
func (s Setting) Change() recordings.Change {
	c := recordings.Change{At: s.At, Key: s.Key, Value: s.Value}
	switch {
	case s.Flow > 0:
		c.Key, c.Value = "flow "+strconv.FormatUint(s.Flow, 10), s.Client
	case s.Cleared:
		c.Key, c.Value = "client "+s.Client, Cleared
	case s.Client != "":
		c.Key = "client " + s.Client + " " + s.Key
	}
	return c
}

// String is the setting as replay lists it.
func (s Setting) String() string {
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

// maxReplayFlows is how many clients [WriteReplay] lists by name;
// export --changes has them all.
const maxReplayFlows = 50

// Stats sums a proxy recording's packets per direction.
type Stats struct {
	fates     [2][8]uint64
	dups      [2]uint64
	reordered [2]uint64
	flows     uint64 // the highest flow number: flows are numbered from 1
	added     [2]*metrics.Histogram
	err       [2]*metrics.Histogram
}

// NewStats is an empty sum.
func NewStats() *Stats {
	s := &Stats{}
	for d := range 2 {
		s.added[d], s.err[d] = metrics.NewHistogram(0.001), metrics.NewHistogram(0.001)
	}
	return s
}

// Add counts packet p.
func (s *Stats) Add(p *recordings.Packet) {
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

// WriteTable prints the table of fates and the delay the relay added.
func (s *Stats) WriteTable(w io.Writer) error {
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

// StartLink says the links a proxy recording started with (its header:
// the settings in force when it started) as ab and sweep say a run's
// link: "latency 40ms/0, jitter 0, … (up/down where they differ) at the
// start"; "" when the header is not the lab's settings.
func StartLink(h recordings.Header) string {
	cfg, err := lab.ConfigFromHeader(h, lab.Untrusted)
	if err != nil {
		return ""
	}
	return batch.LinkText(batch.LinkOf(&cfg)) + " at the start"
}

// WriteReplay is what 'lab replay' prints of a proxy recording read from
// file name: its settings (link: the links it started with, [StartLink],
// "" for unknown), changes, clients and packet summary.
func WriteReplay(stdout io.Writer, r *recordings.Reader, name, link string) error {
	h := r.Header
	end, err := r.End()
	if err != nil {
		return err
	}
	changes, err := r.Changes()
	if err != nil {
		return err
	}
	var pe EndSummary
	summed := end != nil && json.Unmarshal(end.Summary, &pe) == nil
	st := NewStats()
	if err := r.ScanPackets(0, sim.Time(math.MaxInt64), func(p *recordings.Packet) error { st.Add(p); return nil }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recording  %s\nproxy      relayed traffic (lab proxy --record): scenario %s, seed %d; times are wall time from the start\n",
		name, h.Scenario, h.Seed)
	if link != "" {
		fmt.Fprintf(stdout, "link       %s\n", link)
	}
	fmt.Fprintf(stdout, "length     %v in %d frames", r.Duration(), r.Frames())
	if r.Truncated {
		fmt.Fprintf(stdout, " (truncated at byte %d: read up to the last whole frame)", r.TruncatedAt)
	} else if end == nil {
		fmt.Fprint(stdout, " (not closed: the proxy did not stop cleanly)")
	}
	var settings, flows []Setting
	for _, c := range changes {
		if s := ParseChange(c); s.Flow > 0 {
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
	if err := st.WriteTable(stdout); err != nil {
		return err
	}
	return writeTelemetryAccount(stdout, r)
}

// ChangeColumns is the header of [WriteChangesCSV].
const ChangeColumns = "t_s,client,flow,key,value\n"

// WriteChangesCSV writes a recording's changes with from ≤ At ≤ to, one a
// row: when (s, to the nanosecond), for whom (client: "all" for
// everybody's settings, else the client's address, with its flow number
// once it has sent), and the key and value. A client's first datagram is
// the row "flow,started"; a client put back on everybody's settings "own
// settings,cleared".
func WriteChangesCSV(w io.Writer, changes []recordings.Change, from, to sim.Time) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	cw.Write(strings.Split(strings.TrimSpace(ChangeColumns), ","))
	flowOf := map[string]uint64{} // at most MaxChanges entries
	for _, c := range changes {
		s := ParseChange(c)
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

// PacketColumns is the header of [WritePacketsCSV].
const PacketColumns = "t_s,dir,flow,size,fate,copy,in_s,out_s,added_ms,scheduled_ms,reordered\n"

// WritePacketsCSV writes the packets with from ≤ At ≤ to, one a row:
// when the relay accounted for it, direction, flow, size, fate, which
// copy, wall time read and written (s), the delay it added and the delay
// the link scheduled (ms), every time to the nanosecond.
func WritePacketsCSV(w io.Writer, r *recordings.Reader, from, to sim.Time) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(PacketColumns)
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

// plotStart is where a plot of a whole recording whose first change is at
// first starts: there, or at the game's first telemetry datagram if that
// came earlier (the game reports from its first frame, before its first
// datagram reaches the relay).
func plotStart(r *recordings.Reader, first sim.Time) (sim.Time, error) {
	errFirst := errors.New("first telemetry")
	err := r.ScanTelemetry(0, first, func(at sim.Time, _ *telemetry.Datagram) error {
		first = min(first, at)
		return errFirst
	})
	if err != nil && !errors.Is(err, errFirst) {
		return first, err
	}
	return first, nil
}

// Plot draws a proxy recording as a PNG: per direction the delay the relay
// added to each delivered copy, one line per client (labelled by its
// address), and how far past the link's schedule it was written; with
// the game's telemetry (lab proxy --telemetry), its tick offset, send
// interval and visible error below, and how many frames they draw. From 0
// is the recording's start: a recording the screen's R began minutes into
// the run is drawn over the time it recorded. It returns where the plot
// begins.
func Plot(r *recordings.Reader, name string, from, to sim.Time, width int, w io.Writer) (n, frames int, clients []string, _ sim.Time, err error) {
	changes, err := r.Changes()
	if err != nil {
		return 0, 0, nil, from, err
	}
	addr := map[uint64]string{} // at most MaxChanges entries
	for _, c := range changes {
		if s := ParseChange(c); s.Flow > 0 {
			addr[s.Flow] = s.Client
		}
	}
	// A recording that names its clients starts with its first change: a
	// client's datagrams come after its "started", and R's recording
	// names the clients already there as it starts.
	if len(addr) > 0 && from == 0 && changes[0].At < to {
		if from, err = plotStart(r, changes[0].At); err != nil {
			return 0, 0, nil, from, err
		}
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
		return 0, 0, nil, from, err
	}
	if n == 0 {
		return 0, 0, nil, from, fmt.Errorf("no delivered packets between %v and %v", time.Duration(from).Round(time.Millisecond), time.Duration(to).Round(time.Millisecond))
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
	game, err := readGameBins(r, from, to, span)
	if err != nil {
		return 0, 0, nil, from, err
	}
	frames = game.frames
	panels = append(panels, game.panels(at)...)
	title := fmt.Sprintf("jitterlab proxy  %s  seed %d  recording %s", r.Header.Scenario, r.Header.Seed, name)
	return n, frames, clients, from, metrics.WritePNG(w, samples, panels, width, title)
}
