package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"jitterlab/fit"
	"jitterlab/lab"
	"jitterlab/recordings"
	"jitterlab/trace"
)

func cmdFit(args []string, stdout, stderr io.Writer) error {
	var format, outPath, htmlPath, csvPath, seq, client, server string
	var periods, scheduled bool
	var flow uint64
	fs := newFlagSet("fit", "[flags] CAPTURE [SERVER-CAPTURE]", stderr, withExamples(func(w io.Writer) {
		fmt.Fprintf(w, `
CAPTURE is a per-packet capture of a real path (- is standard input):
  packets  the lab's own log, 'lab run --packets FILE'
  irtt     'irtt client -o out.json' (one-way delays from irtt's timestamps)
  csv      a game's own log: dir,seq,send_ns,recv_ns (docs/reference/file-formats.md)
  pcap     pcap or pcapng of the game's UDP with a sequence number in every
           payload (--seq): two captures, the client's machine's and the
           server's, or one holding both legs of a relay (lab proxy on one
           machine); --client and --server pick the game's ends
  jlrec    a proxy recording, 'lab proxy --record FILE' (what the proxy's
           link added; --flow picks the client)
The report shows per direction observed against fitted and says plainly where
the model does not fit; --out writes the fitted link as a scenario. Where no
model fits, replay the capture itself: lab run --set up.trace=CAPTURE (a pcap
through its --csv).
`)
	},
		"lab fit out.json --out fitted.toml --html fit.html && lab run --scenario fitted.toml",
		"lab fit client.pcapng server.pcapng --server :27015 --seq 0:4",
		"lab fit relay.jlrec --out fitted.toml && lab --scenario fitted.toml"))
	fs.StringVar(&format, "format", "auto", "capture `FORMAT`: auto, "+strings.Join(trace.Formats, ", ")+", pcap, jlrec")
	fs.StringVar(&outPath, "out", "", "write the fitted link as a scenario TOML to `FILE` ('lab run --scenario FILE')")
	fs.StringVar(&csvPath, "csv", "", "also write the capture's packets as the generic CSV `FILE` (dir,seq,send_ns,recv_ns), with two clocks their delays as the fit saw them (offset split, drift removed): what trace mode replays (--set up.trace=FILE), for a pcap, a recording of several clients or two clocks")
	fs.BoolVar(&periods, "periods", false, "also cut each direction where its loss or its delay's level changes, fit every period, and write them as the scenario's timeline (a blackout as blackout = true)")
	fs.StringVar(&htmlPath, "html", "", "write the report with CDF, QQ, burst and autocorrelation plots as one HTML `FILE`")
	fs.StringVar(&seq, "seq", trace.DefaultSeq.String(), "pcap: where each payload carries its sequence number, `OFFSET[:WIDTH[:be|le]]` (bytes from the UDP payload's start, 1 to 8 bytes, byte order)")
	fs.StringVar(&client, "client", "", "pcap: the game client's endpoint `ADDR` (IP:PORT, IP or :PORT) as the client's capture sees it (default: its only busy UDP flow's end that sent first)")
	fs.StringVar(&server, "server", "", "pcap: the game server's endpoint `ADDR` (IP:PORT, IP or :PORT) as the server's capture sees it (default: the end the client talks to)")
	fs.Uint64Var(&flow, "flow", trace.AnyFlow, "jlrec: the relay's client `N` to fit, from 1 (default: the only one)")
	fs.BoolVar(&scheduled, "scheduled", false, "jlrec: fit the delays the proxy's link scheduled (its settings) instead of those its packets took (with what a busy host added)")
	captures, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(captures) < 1 || len(captures) > 2 {
		fmt.Fprintf(stderr, "lab fit: want one CAPTURE file, or two pcap captures (the client's and the server's), got %d (see 'lab fit -h')\n", len(captures))
		return errUsage
	}
	outputs := map[string]string{"out": outPath, "html": htmlPath, "csv": csvPath}
	// An output must not write over the measurement it fits.
	if err := checkOutputs(outputs, captures...); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	in, err := trace.OpenCaptures(captures, os.Stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	switch {
	case format == "auto":
		format = in.Format()
	case !slices.Contains(trace.CaptureFormats, format):
		return fmt.Errorf("--format %q: want auto or one of %s", format, strings.Join(trace.CaptureFormats, ", "))
	}
	// Flags of one input refused with another.
	for name, only := range map[string]string{"seq": "pcap", "client": "pcap", "server": "pcap", "flow": "jlrec", "scheduled": "jlrec"} {
		if set[name] && format != only {
			return fmt.Errorf("--%s applies to %s captures only; %s is %s", name, only, captures[0], format)
		}
	}
	if len(captures) == 2 && format != "pcap" {
		return fmt.Errorf("two captures: only pcap captures come in two (the client's and the server's); %s is %s", captures[0], format)
	}
	var tr *trace.Trace
	var notes []string
	var lost *loss // what a recording cut short lost (nil: another capture)
	switch format {
	case "pcap":
		var o trace.PcapOptions
		if o, err = trace.ParsePcapOptions(seq, client, server); err != nil {
			return err
		}
		tr, notes, err = trace.ReadPcap(in.Pcap(), o)
	case "jlrec":
		var r *recordings.Reader
		if r, err = in.Recording(); err == nil {
			// A recording cut short fits what it holds, with exit status 5;
			// a damaged frame is refused (OnDamage unset), not stepped over.
			if lost, err = noteLoss(r, captures[0], "fit", stderr); err == nil {
				r.OnDamage = nil
				tr, notes, err = trace.ReadRecording(captures[0], r, flow, scheduled)
			}
		}
	default:
		tr, err = trace.Read(captures[0], in.Reader(0), format)
	}
	if err != nil {
		return err
	}
	res, err := fit.Fit(tr, fit.Options{Periods: periods})
	if err != nil {
		if len(notes) > 0 { // what was taken, to see why it did not fit
			fmt.Fprintf(stderr, "read: %s\n", strings.Join(notes, "\n  "))
		}
		return err
	}
	if csvPath != "" {
		if _, err := writeBuffered(csvPath, stdout, stderr, func(w io.Writer) error { return trace.WriteCSV(w, res.Corrected(tr)) }); err != nil {
			return err
		}
	}
	if outPath != "" {
		_, err := writeBuffered(outPath, stdout, stderr, func(w io.Writer) error {
			var buf bytes.Buffer
			if err := res.WriteScenario(&buf); err != nil {
				return err
			}
			// The lab must load what it wrote.
			if err := checkScenario(outPath, buf.Bytes()); err != nil {
				return err
			}
			_, err := w.Write(buf.Bytes())
			return err
		})
		if err != nil {
			return err
		}
	}
	if htmlPath != "" {
		if _, err := writeBuffered(htmlPath, stdout, stderr, res.WriteHTML); err != nil {
			return err
		}
	}
	report := stdout
	if outPath == "-" || htmlPath == "-" || csvPath == "-" {
		report = stderr
	}
	if err := res.WriteReport(report, notes); err != nil {
		return err
	}
	return lost.err()
}

// checkScenario parses the written scenario as 'lab run --scenario' will.
func checkScenario(path string, text []byte) error {
	if _, err := lab.ParseScenario(path, text); err != nil {
		return fmt.Errorf("the fitted scenario does not load (a bug: please report it with the capture): %w", err)
	}
	return nil
}
