package main

import (
	"io"
	"runtime"

	"jitterlab/compare"
	"jitterlab/game"
)

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	var sets setFlags
	var seeds uint64
	fs := newFlagSet("compare", "RECORDING... [--seeds N] [--set key=value]", stderr, withExamples(gameParams,
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
