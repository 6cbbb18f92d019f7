package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// setFlags collects repeated --set key=value.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// runOptions are the flags 'lab run' shares with other session commands.
type runOptions struct {
	scenario string
	duration time.Duration
	seed     uint64
	sets     setFlags
	fs       *flag.FlagSet
}

func (o *runOptions) register(fs *flag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.scenario, "scenario", "", "built-in scenario `NAME` ('lab scenarios' lists them) or TOML FILE")
	fs.DurationVar(&o.duration, "duration", time.Minute, "simulated time (overrides the scenario's)")
	fs.Uint64Var(&o.seed, "seed", 1, "session seed (overrides the scenario's)")
	fs.Var(&o.sets, "set", "parameter override `key=value` (repeatable; keys are listed below)")
}

// name is how the session is called in recordings and exports.
func (o *runOptions) name() string {
	if o.scenario == "" {
		return "default"
	}
	return o.scenario
}

func (o *runOptions) given(name string) bool {
	found := false
	o.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// config builds the session config: defaults, then the scenario, then
// --seed/--duration if given, then every --set in order. It returns the
// scenario (nil without --scenario) for its timeline.
func (o *runOptions) config() (lab.Config, *scenarios.Scenario, error) {
	cfg := lab.DefaultConfig()
	cfg.Seed, cfg.Duration = o.seed, o.duration
	var sc *scenarios.Scenario
	if o.scenario != "" {
		var err error
		if sc, err = lab.LoadScenario(o.scenario); err != nil {
			return cfg, nil, err
		}
		if err := lab.ApplyScenario(&cfg, sc); err != nil {
			return cfg, nil, err
		}
		if o.given("seed") {
			cfg.Seed = o.seed
		}
		if o.given("duration") {
			cfg.Duration = o.duration
		}
	}
	if o.duration <= 0 {
		return cfg, nil, fmt.Errorf("--duration %v: allowed > 0", o.duration)
	}
	for _, a := range o.sets {
		k, v, err := lab.ParseAssignment(a)
		if err != nil {
			return cfg, nil, fmt.Errorf("--set: %w", err)
		}
		if err := lab.Set(&cfg, k, v); err != nil {
			return cfg, nil, fmt.Errorf("--set %s: %w", a, err)
		}
	}
	return cfg, sc, nil
}

func paramHelp(w io.Writer) {
	fmt.Fprintln(w, "\nparameters (--set key=value; link.* sets up.* and down.*):")
	def := lab.DefaultConfig()
	for _, p := range lab.Params() {
		if strings.HasPrefix(p.Key, "down.") || strings.HasPrefix(p.Key, "link.") {
			continue
		}
		key := p.Key
		if strings.HasPrefix(key, "up.") {
			key = "up|down." + strings.TrimPrefix(key, "up.")
		}
		fmt.Fprintf(w, "  %-24s %-10s %s\n", key, p.Get(&def), p.Help)
	}
}

func newFlagSet(name, args string, stderr io.Writer, extra func(io.Writer)) *flag.FlagSet {
	fs := flag.NewFlagSet("lab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lab %s %s\n\nflags:\n", name, args)
		fs.PrintDefaults()
		if extra != nil {
			extra(fs.Output())
		}
	}
	return fs
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var csvPath, packetsPath, recordPath string
	var every time.Duration
	var asJSON bool
	fs := newFlagSet("run", "[flags]", stderr, paramHelp)
	o.register(fs)
	fs.StringVar(&csvPath, "csv", "", "write the timeline to `FILE` (one row every --every)")
	fs.DurationVar(&every, "every", 50*time.Millisecond, "sample period of the timeline")
	fs.StringVar(&packetsPath, "packets", "", "write one row per packet to `FILE`")
	fs.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	fs.StringVar(&recordPath, "record", "", "record the session to `FILE` (zstd; 'lab replay' reads it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if every <= 0 {
		return fmt.Errorf("--every %v: allowed > 0", every)
	}
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	s, err := lab.New(cfg, every)
	if err != nil {
		return err
	}
	if sc != nil {
		if err := s.ScheduleTimeline(sc); err != nil {
			return err
		}
	}

	var closers []func() error
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	if csvPath != "" {
		f, err := os.Create(csvPath)
		if err != nil {
			return err
		}
		closers = append(closers, f.Close)
		w, err := metrics.NewCSVWriter(f)
		if err != nil {
			return err
		}
		var werr error
		s.OnSample = func(smp *metrics.Sample) {
			if werr == nil {
				werr = w.Write(smp)
			}
		}
		closers = append([]func() error{func() error {
			if werr != nil {
				return werr
			}
			return w.Flush()
		}}, closers...)
	}
	var rec *lab.Recorder
	if recordPath != "" {
		f, err := os.Create(recordPath)
		if err != nil {
			return err
		}
		closers = append(closers, f.Close)
		w, err := recordings.NewWriter(f, lab.HeaderOf(cfg, o.name(), every))
		if err != nil {
			return err
		}
		rec = lab.Record(s, w, nil)
		s.OnChange = rec.Change
		prev := s.OnSample
		s.OnSample = func(x *metrics.Sample) {
			rec.Sample(x)
			if prev != nil {
				prev(x)
			}
		}
		closers = append([]func() error{rec.Close}, closers...)
	}
	if packetsPath != "" {
		f, err := os.Create(packetsPath)
		if err != nil {
			return err
		}
		closers = append(closers, f.Close)
		bw := bufio.NewWriterSize(f, 64<<10)
		bw.WriteString("dir,seq,kind,sent_s,status,delivered_s,delay_ms,duplicate,reordered\n")
		s.OnPacket = func(p *lab.PacketRecord) { writePacket(bw, p) }
		closers = append([]func() error{bw.Flush}, closers...)
	}

	start := time.Now()
	progress := isTerminal(stderr)
	lastPrint := start
	for !s.Done() {
		if err := s.Run(s.Now() + sim.Time(time.Second)); err != nil {
			return err
		}
		if progress && time.Since(lastPrint) > 500*time.Millisecond && time.Since(start) > 2*time.Second {
			lastPrint = time.Now()
			fmt.Fprintf(stderr, "\r%v / %v simulated", s.Now(), sim.Time(cfg.Duration))
		}
	}
	if progress && time.Since(start) > 2*time.Second {
		fmt.Fprint(stderr, "\r\033[K")
	}
	wall := time.Since(start)
	for _, c := range closers {
		if err := c(); err != nil {
			return err
		}
	}
	closers = nil

	sum := s.Summary()
	sum.Overrides = append(sum.Overrides, o.sets...)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	if err := sum.WriteText(stdout); err != nil {
		return err
	}
	speed := cfg.Duration.Seconds() / max(wall.Seconds(), 1e-9)
	_, err = fmt.Fprintf(stdout, "simulation speed  %.0f× real time (%v wall)\n", speed, wall.Round(time.Millisecond))
	return err
}

func writePacket(w *bufio.Writer, p *lab.PacketRecord) {
	b := make([]byte, 0, 96)
	b = append(b, p.Dir...)
	b = append(b, ',')
	b = strconv.AppendUint(b, p.Seq, 10)
	b = append(b, ',')
	b = append(b, p.Kind...)
	b = append(b, ',')
	b = strconv.AppendFloat(b, p.SentAt.Seconds(), 'f', 6, 64)
	b = append(b, ',')
	b = append(b, p.Status...)
	b = append(b, ',')
	if p.Status == "delivered" {
		b = strconv.AppendFloat(b, p.At.Seconds(), 'f', 6, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, float64(p.At-p.SentAt)/1e6, 'f', 3, 64)
	} else {
		b = append(b, ',')
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(p.Copy), 10)
	b = append(b, ',')
	b = strconv.AppendBool(b, p.Reordered)
	b = append(b, '\n')
	w.Write(b)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
