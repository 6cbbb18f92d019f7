package main

import (
	"io"
	"os"
	"runtime"

	"jitterlab/check"
	"jitterlab/internal/files"
)

// Exit statuses of lab check's verdicts (main.go lists every status).
const (
	exitCheckFailed       = 3 // an assertion failed
	exitCheckInconclusive = 4 // an assertion is inconclusive under --strict
)

func cmdCheck(args []string, stdout, stderr io.Writer) error {
	var strict, asJSON bool
	var junitPath, summaryPath, savePath, basePath string
	var workers int
	fs := newFlagSet("check", "[flags] FILE.toml|FOLDER ...", stderr, withExamples(func(w io.Writer) {
		io.WriteString(w, "\nA scenario file is a gate with seeds = \"1-20\" and [[assert]] entries (docs/guide/ci-gate.md).\n"+
			"Exit status: 0 every assertion passed; 3 one failed; 4 one is inconclusive under --strict;\n"+
			"2 bad input (a file, a figure, a bound, a baseline); 1 a run failed.\n")
	},
		"lab check scenarios/examples/ci/",
		"lab check --strict --junit check.xml --summary \"$GITHUB_STEP_SUMMARY\" scenarios/examples/ci/",
		"lab check --baseline base.json gates/   # base.json from an earlier lab check --save-baseline"))
	fs.BoolVar(&strict, "strict", false, "an inconclusive assertion fails the check (exit 4) instead of passing with a warning")
	fs.StringVar(&junitPath, "junit", "", "write JUnit XML to `FILE`: a testsuite per scenario, a testcase per assertion")
	fs.StringVar(&summaryPath, "summary", "", "write the verdicts as Markdown to `FILE` (e.g. \"$GITHUB_STEP_SUMMARY\")")
	fs.BoolVar(&asJSON, "json", false, "print the verdicts as JSON (docs/json-schema.md) instead of text")
	fs.StringVar(&savePath, "save-baseline", "", "write every scenario's figures per seed to `FILE`, the baseline a later --baseline compares with")
	fs.StringVar(&basePath, "baseline", "", "judge max_worse against the figures in `FILE`, paired over the same seeds")
	fs.IntVar(&workers, "workers", runtime.GOMAXPROCS(0), "run seeds on `N` cores at once (the output does not depend on it)")
	paths, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return badUsage("give the scenario files or folders to check, e.g. lab check scenarios/examples/ci/")
	}
	if err := checkWorkers(workers); err != nil {
		return err
	}
	outs := map[string]string{}
	for flag, p := range map[string]string{"junit": junitPath, "summary": summaryPath, "save-baseline": savePath} {
		if p != "" {
			outs[flag] = p
		}
	}
	// The files it reads: the gates (a folder's too) and the baseline. A
	// bad path is left for LoadAll to name.
	inputs, _ := check.Files(paths)
	if err := checkOutputs(outs, append(inputs, basePath)...); err != nil {
		return err
	}

	inputErr := func(err error) error {
		if check.IsInput(err) {
			return badUsage("%v", err)
		}
		return err
	}
	gates, err := check.LoadAll(paths)
	if err != nil {
		return inputErr(err)
	}
	var base *check.Baseline
	if basePath != "" {
		f, _, err := files.OpenRegular(basePath)
		if err != nil {
			return badUsage("--baseline: %v", err)
		}
		base, err = check.ReadBaseline(basePath, f)
		f.Close()
		if err != nil {
			return inputErr(err)
		}
	}
	bases, err := check.Baselines(gates, base, basePath)
	if err != nil {
		return inputErr(err)
	}
	rep, save, err := check.Check(gates, bases, version(), workers, strict)
	if err != nil {
		return inputErr(err)
	}

	if err := writeCheck(rep, asJSON, junitPath, summaryPath, stdout, stderr); err != nil {
		return err
	}
	if savePath != "" {
		if _, err := writeBuffered(savePath, stdout, stderr, save.Write); err != nil {
			return err
		}
	}
	return checkStatus(rep)
}

// writeCheck writes a check's verdicts as lab check does (lab proxy
// --check too): text or JSON on standard output, GitHub annotations under
// GITHUB_ACTIONS, and the JUnit and Markdown files when named.
func writeCheck(rep *check.Report, asJSON bool, junitPath, summaryPath string, stdout, stderr io.Writer) error {
	var err error
	if asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		// Workflow commands on standard output, or beside the JSON on
		// standard error, which the runner reads for them too.
		w := stdout
		if asJSON {
			w = stderr
		}
		if err := rep.WriteAnnotations(w); err != nil {
			return err
		}
	}
	for _, o := range []struct {
		path  string
		write func(io.Writer) error
	}{{junitPath, rep.WriteJUnit}, {summaryPath, rep.WriteMarkdown}} {
		if o.path == "" {
			continue
		}
		if _, err := writeBuffered(o.path, stdout, stderr, o.write); err != nil {
			return err
		}
	}
	return nil
}

// checkStatus is a check's exit status: 3 an assertion failed, 4 one is
// inconclusive under --strict, else none.
func checkStatus(rep *check.Report) error {
	switch {
	case rep.Status() == check.Fail:
		return &exitStatus{code: exitCheckFailed, msg: "an assertion failed"}
	case rep.Status() == check.Inconclusive && rep.Strict:
		return &exitStatus{code: exitCheckInconclusive, msg: "an assertion is inconclusive (--strict)"}
	}
	return nil
}
