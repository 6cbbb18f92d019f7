package files

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// CheckOutputs refuses, before anything is written, output flags (flag
// name → path; "" unset) that name one file by any name: the same path, a
// symbolic link to it, a path through a linked folder, or standard output
// ("-", /dev/stdout, /dev/fd/1, /proc/self/fd/1); their bytes would
// interleave. It refuses as well an output that is one of inputs (the
// files the command reads: a recording, a scenario, a capture, a shard;
// "-" and "" are skipped), compared by file identity (device and inode)
// and not by name: writing it would destroy what the command reads.
// /dev/null may take any number of outputs: nothing is kept.
func CheckOutputs(outputs map[string]string, inputs []string) error {
	type seen struct {
		flag string
		id   ID
	}
	var all []seen
	for _, flag := range slices.Sorted(maps.Keys(outputs)) {
		path := outputs[flag]
		if path == "" {
			continue
		}
		id := Identify(path)
		if id.null {
			continue
		}
		for _, prev := range all {
			if prev.id.Same(id) {
				return fmt.Errorf("--%s %s and --%s %s name the same output: give each its own file", prev.flag, outputs[prev.flag], flag, path)
			}
		}
		all = append(all, seen{flag, id})
		for _, in := range inputs {
			if in != "" && in != "-" && id.Same(Identify(in)) {
				return fmt.Errorf("--%s %s is the input %s: writing it would destroy what is read; give the output a file of its own", flag, path, in)
			}
		}
	}
	return nil
}

// ID identifies the file a path names: standard output, an existing file
// (compared by device and inode through os.SameFile), or a file not there
// yet (by its path with every link of its folder resolved, and the links
// to it followed).
type ID struct {
	stdout, null bool
	st           os.FileInfo // an existing file
	path         string      // a file not there yet
}

// stdoutNames are the paths of standard output on Linux and the BSDs.
var stdoutNames = []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}

// Identify returns the ID of the file path names.
func Identify(path string) ID { return identifyHops(path, 40) }

// identifyHops is Identify following at most hops links that point to no
// file yet (a link to a file the run will create is that file).
func identifyHops(path string, hops int) ID {
	if slices.Contains(stdoutNames, filepath.Clean(path)) || path == "-" {
		return ID{stdout: true}
	}
	if st, err := os.Stat(path); err == nil {
		if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
			return ID{null: true}
		}
		return ID{st: st}
	}
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 && hops > 0 {
		if to, err := os.Readlink(path); err == nil {
			if !filepath.IsAbs(to) {
				to = filepath.Join(filepath.Dir(path), to)
			}
			return identifyHops(to, hops-1)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ID{path: path}
	}
	dir, base := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return ID{path: filepath.Join(dir, base)}
}

// Same says whether a and b are one file.
func (a ID) Same(b ID) bool {
	switch {
	case a.stdout || b.stdout:
		return a.stdout && b.stdout
	case a.st != nil && b.st != nil:
		return os.SameFile(a.st, b.st)
	}
	return a.st == nil && b.st == nil && a.path == b.path
}
