package main

import (
	"fmt"
	"io"
	"runtime"

	"jitterlab/compare"
	"jitterlab/game"
)

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	var sets setFlags
	var seeds uint64
	fs := newFlagSet("compare", "RECORDING... [--seeds N] [--set key=value]", stderr, withExamples(func(w io.Writer) {
		fmt.Fprint(w, compareVerdict)
		gameParams(w)
	},
		"lab compare relay.jlrec",
		"lab compare relay.jlrec --seeds 40 --set server.inputs=queue"))
	fs.Var(&sets, "set", "the game's setting `key=value`, as lab game takes it (repeatable; client.*, server.*, input.*): the model runs with it")
	uintVar(fs, &seeds, "seeds", 20, 2, 1000, "40", "run the model on seeds 1 to `N`")
	files, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return badUsage("want one or more proxy recordings with telemetry (lab proxy --telemetry ADDR --record FILE; see 'lab compare -h')")
	}
	cfg, err := game.Configure(sets)
	if err != nil {
		return cmdLineErr(err)
	}
	for _, name := range files {
		r, f, lost, err := openRecording([]string{name}, "compare", stderr)
		if err != nil {
			return err
		}
		g, err := compare.Load(r, name, cfg)
		f.Close()
		if err != nil {
			return err
		}
		res, err := compare.Run(g, int(seeds), runtime.GOMAXPROCS(0))
		if err != nil {
			return err
		}
		if err := res.WriteText(stdout); err != nil {
			return err
		}
		if err := lost.err(); err != nil {
			return err
		}
	}
	return nil
}

// compareVerdict is lab compare's rule, for its -h.
const compareVerdict = `
verdict: each figure's interval for one more run of the model is at 1 − 5 %/k
  for the k figures with data (Bonferroni: 99.64 % for 14), so that all k hold
  at once at 95 %: the game falls inside when every figure does, and a game
  that is the model falls outside in at most 5 % of its runs (for figures that
  vary normally over seeds; a skewed one, such as hesitations, a little more)
`
