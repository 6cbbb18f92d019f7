package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"jitterlab/fit"
	"jitterlab/internal/files"
	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/trace"
)

func cmdFit(args []string, stdout, stderr io.Writer) error {
	var format, outPath, htmlPath string
	var periods bool
	fs := newFlagSet("fit", "[flags] CAPTURE", stderr, withExamples(func(w io.Writer) {
		fmt.Fprintf(w, `
CAPTURE is a per-packet capture of a real path (- is standard input):
  packets  the lab's own log, 'lab run --packets FILE'
  irtt     'irtt client -o out.json' (one-way delays from irtt's timestamps)
  csv      a game's own log: dir,seq,send_ns,recv_ns (docs/fit.md)
The report shows per direction observed against fitted and says plainly where
the model does not fit; --out writes the fitted link as a scenario. Where no
model fits, replay the capture itself: lab run --set up.trace=CAPTURE.
`)
	},
		"lab fit out.json --out fitted.toml && lab run --scenario fitted.toml",
		"lab run --set link.jitter=10ms --packets p.csv && lab fit p.csv",
		"lab fit --format csv game.csv --html fit.html"))
	fs.StringVar(&format, "format", "auto", "capture `FORMAT`: auto, "+strings.Join(trace.Formats, ", "))
	fs.StringVar(&outPath, "out", "", "write the fitted link as a scenario TOML to `FILE` ('lab run --scenario FILE')")
	fs.BoolVar(&periods, "periods", false, "also cut each direction where its loss or its delay's level changes, fit every period, and write them as the scenario's timeline (a blackout as blackout = true)")
	fs.StringVar(&htmlPath, "html", "", "write the report with CDF, QQ, burst and autocorrelation plots as one HTML `FILE`")
	captures, err := parseFlagsAndArgs(fs, args)
	if err != nil {
		return err
	}
	if len(captures) != 1 {
		fmt.Fprintf(stderr, "lab fit: want one CAPTURE file, got %d (see 'lab fit -h')\n", len(captures))
		return errUsage
	}
	if err := distinctOutputs(map[string]string{"out": outPath, "html": htmlPath}); err != nil {
		return err
	}
	path := captures[0]
	var in io.Reader = os.Stdin
	if path != "-" {
		f, _, err := files.OpenRegular(path) // a named pipe is refused, not waited on
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	tr, err := trace.Read(path, in, format)
	if err != nil {
		return err
	}
	res, err := fit.Fit(tr, fit.Options{Periods: periods})
	if err != nil {
		return err
	}
	if outPath != "" {
		var buf bytes.Buffer
		if err := res.WriteScenario(&buf); err != nil {
			return err
		}
		// The lab must load what it wrote.
		if err := checkScenario(outPath, buf.Bytes()); err != nil {
			return err
		}
		if err := writeFileOutput(outPath, stdout, buf.Bytes()); err != nil {
			return err
		}
	}
	if htmlPath != "" {
		var buf bytes.Buffer
		if err := res.WriteHTML(&buf); err != nil {
			return err
		}
		if err := writeFileOutput(htmlPath, stdout, buf.Bytes()); err != nil {
			return err
		}
	}
	if outPath == "-" || htmlPath == "-" {
		return res.WriteText(stderr)
	}
	return res.WriteText(stdout)
}

// checkScenario parses the written scenario as `lab run --scenario` will.
func checkScenario(path string, text []byte) error {
	sc, err := scenarios.Parse(path, text, lab.CheckAssignment)
	if err == nil {
		cfg := lab.DefaultConfig()
		err = lab.ApplyScenario(&cfg, sc)
	}
	if err != nil {
		return fmt.Errorf("the fitted scenario does not load (a bug: please report it with the capture): %w", err)
	}
	return nil
}

// writeFileOutput writes b whole to path ("-": standard output): a failed
// write leaves an existing file as it was.
func writeFileOutput(path string, stdout io.Writer, b []byte) error {
	o, err := openOutput(path, stdout, whole)
	if err != nil {
		return err
	}
	defer o.Abort()
	if _, err := o.Write(b); err != nil {
		return err
	}
	return o.Commit()
}
