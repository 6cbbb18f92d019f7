package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/param"
)

// parseFlags parses args and accepts no positional argument; -h prints
// the usage on help (the command's standard output).
func parseFlags(fs *flag.FlagSet, args []string, help io.Writer) error {
	if err := parseFlagsOnly(fs, args, help); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		if hint := splitAssignment(fs, args); hint != "" {
			fmt.Fprintf(fs.Output(), "%s: %s (see '%s -h')\n", fs.Name(), hint, fs.Name())
			return errUsage
		}
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q (see '%s -h')\n", fs.Name(), fs.Arg(0), fs.Name())
		return errUsage
	}
	return nil
}

// splitAssignment says how to write a key=value flag given as two words
// ("--set link.latency 80ms": the parser takes 80ms for a positional
// argument), or "" when the first positional argument does not follow one.
func splitAssignment(fs *flag.FlagSet, args []string) string {
	i := len(args) - fs.NArg()
	if i < 2 || strings.Contains(args[i-1], "=") {
		return ""
	}
	f := fs.Lookup(strings.TrimLeft(args[i-2], "-"))
	if f == nil {
		return ""
	}
	if name, _ := flag.UnquoteUsage(f); name != "key=value" {
		return ""
	}
	return fmt.Sprintf("--%s takes key=value: --%s %s=%s", f.Name, f.Name, args[i-1], args[i])
}

// flagHint is the "did you mean" of an undefined flag ("-valuse"), or "".
func flagHint(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage != hiddenUsage {
			names = append(names, "--"+f.Name)
		}
	})
	return param.DidYouMean("--"+name, names)
}

// hiddenUsage marks a flag a command defines only to refuse it with a
// reason (diagnose's --seed): its -h leaves the flag out.
const hiddenUsage = "\x00hidden"

// printDefaults is fs.PrintDefaults without the hidden flags.
func printDefaults(fs *flag.FlagSet) {
	vis := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	vis.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage != hiddenUsage {
			vis.Var(f.Value, f.Name, f.Usage)
			vis.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	vis.PrintDefaults()
}

// parseFlagsOnly parses args and leaves positional arguments in fs.Args.
// The flag package would print an error and the whole usage; this prints
// one line naming the command and returns errUsage (exit 2), or prints the
// usage on help (the command's standard output) for -h.
func parseFlagsOnly(fs *flag.FlagSet, args []string, help io.Writer) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	restore := underTheRule(fs)
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		fs.VisitAll(func(f *flag.Flag) {
			if v, ok := f.Value.(flagFailure); ok && v.failure() != nil {
				err = v.failure()
			}
		})
	}
	restore()
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(help)
		fs.Usage()
		return err
	case err != nil:
		fmt.Fprintf(out, "%s: %v%s (see '%s -h')\n", fs.Name(), err, flagHint(fs, err), fs.Name())
		return errUsage
	}
	return nil
}

// parseFlagsAndArgs parses flags given before or after positional
// arguments ("lab replay FILE --verify") and returns the arguments.
func parseFlagsAndArgs(fs *flag.FlagSet, args []string, help io.Writer) ([]string, error) {
	var rest []string
	for {
		if err := parseFlagsOnly(fs, args, help); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// The one rule for every duration flag of every command: a duration with a
// unit from 1ms to 1000h, each unit once and largest first (param.Duration
// reads it). A window's bounds (--from, --to) may also be 0, meaning the
// start or the end. 1000h is the longest session verify re-simulates.
// The sample period (--every of run and the lab) is the model's own:
// lab.MinEvery to lab.MaxEvery (100µs to 1h; the timeline's t_s column
// prints as many decimals as a period needs).
const (
	minFlagDuration = time.Millisecond
	maxFlagDuration = 1000 * time.Hour
)

// The rules' texts, as -h, the errors and the README state them.
const (
	durationRule = "a duration from 1ms to 1000h with a unit (each unit once, largest first)"
	everyRule    = "a sample period from 100µs to 1h with a unit (each unit once, largest first)"
)

// flagFailure is implemented by this file's flag values: the last Set
// error, already naming the flag, the value, what is allowed and an example.
// The flag package flattens Set errors into "invalid value … for flag -x:
// …"; parseFlagsOnly prints this one instead.
type flagFailure interface{ failure() error }

// badFlag formats the one-line error of a flag value.
func badFlag(name, value, allowed, example string) error {
	return fmt.Errorf("--%s %q: allowed %s, e.g. --%s %s", name, value, allowed, name, example)
}

// durationFlag is a duration flag bounded by the rule above.
type durationFlag struct {
	p       *time.Duration
	name    string
	zeroOK  bool
	every   bool // the sample period's rule
	example string
	err     error
}

// durationVar defines a duration flag under the one rule; zeroOK allows 0
// (a window's open end).
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, def time.Duration, zeroOK bool, example, usage string) {
	*p = def
	fs.Var(&durationFlag{p: p, name: name, zeroOK: zeroOK, example: example}, name, usage)
}

// everyVar defines --every, the sample period, under the model's rule
// (lab.CheckEvery).
func everyVar(fs *flag.FlagSet, p *time.Duration, def time.Duration, usage string) {
	*p = def
	fs.Var(&durationFlag{p: p, name: "every", every: true, example: "50ms"}, "every", usage)
}

func (f *durationFlag) String() string {
	if f.p == nil || *f.p == 0 {
		return "0"
	}
	return f.p.String()
}

func (f *durationFlag) Set(s string) error {
	var d time.Duration
	var err error
	if f.every {
		d, err = checkEvery(s)
	} else {
		d, err = checkDuration(f.name, s, f.zeroOK, f.example)
	}
	if err != nil {
		f.err = err
		return err
	}
	*f.p = d
	return nil
}

// checkEvery reads --every under the sample period's rule.
func checkEvery(s string) (time.Duration, error) {
	d, err := param.Duration("every", s)
	if err == nil {
		err = lab.CheckEvery(d)
	}
	if err != nil {
		return 0, badFlag("every", s, everyRule, "50ms")
	}
	return d, nil
}

// checkDuration reads a duration flag's value under the one rule.
func checkDuration(name, s string, zeroOK bool, example string) (time.Duration, error) {
	d, err := param.Duration(name, s)
	if err == nil && !(zeroOK && d == 0) && (d < minFlagDuration || d > maxFlagDuration) {
		err = errRange
	}
	if err != nil {
		allowed := durationRule
		if zeroOK {
			allowed = "0 or " + allowed
		}
		return 0, badFlag(name, s, allowed, example)
	}
	return d, nil
}

// ruledDuration puts a duration flag defined with the flag package's
// DurationVar (in a command that does not use durationVar) under the same
// rule while parseFlagsOnly parses; 0 is not allowed.
type ruledDuration struct {
	flag.Value
	name, example string
	err           error
}

func (f *ruledDuration) Set(s string) error {
	d, err := checkDuration(f.name, s, false, f.example)
	if err != nil {
		f.err = err
		return err
	}
	return f.Value.Set(d.String())
}

func (f *ruledDuration) failure() error { return f.err }

// underTheRule wraps every plain duration flag of fs in a ruledDuration and
// returns a function that restores them (so -h still shows their types).
func underTheRule(fs *flag.FlagSet) (restore func()) {
	var undo []func()
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if _, isDuration := g.Get().(time.Duration); isDuration {
				orig := f.Value
				f.Value = &ruledDuration{Value: orig, name: f.Name, example: f.DefValue}
				undo = append(undo, func() { f.Value = orig })
			}
		}
	})
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

func (f *durationFlag) failure() error { return f.err }

var errRange = errors.New("out of range")

// uintFlag is an unsigned integer flag within [lo, hi].
type uintFlag struct {
	p       *uint64
	name    string
	lo, hi  uint64
	example string
	err     error
}

func uintVar(fs *flag.FlagSet, p *uint64, name string, def, lo, hi uint64, example, usage string) {
	*p = def
	fs.Var(&uintFlag{p: p, name: name, lo: lo, hi: hi, example: example}, name, usage)
}

func (f *uintFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatUint(*f.p, 10)
}

func (f *uintFlag) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || n < f.lo || n > f.hi {
		f.err = badFlag(f.name, s, fmt.Sprintf("an integer in [%d, %d]", f.lo, f.hi), f.example)
		return f.err
	}
	*f.p = n
	return nil
}

func (f *uintFlag) failure() error { return f.err }

// withExamples ends a command's help with its extra text (nil for none)
// and two or three example command lines.
func withExamples(extra func(io.Writer), examples ...string) func(io.Writer) {
	return func(w io.Writer) {
		if extra != nil {
			extra(w)
		}
		fmt.Fprintln(w, "\nexamples:")
		for _, e := range examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}
