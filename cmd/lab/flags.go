package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// parseFlags parses args and accepts no positional argument.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q (see '%s -h')\n", fs.Name(), fs.Arg(0), fs.Name())
		return errUsage
	}
	return nil
}

// parseFlagsOnly parses args and leaves positional arguments in fs.Args.
// The flag package would print an error and the whole usage; this prints
// one line naming the command and returns errUsage (exit 2), or prints the
// usage on stdout for -h.
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(os.Stdout)
		fs.Usage()
		return err
	case err != nil:
		fmt.Fprintf(out, "%s: %v (see '%s -h')\n", fs.Name(), err, fs.Name())
		return errUsage
	}
	return nil
}

// parseFlagsAndArgs parses flags given before or after positional
// arguments ("lab replay FILE --verify") and returns the arguments.
func parseFlagsAndArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := parseFlagsOnly(fs, args); err != nil {
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
