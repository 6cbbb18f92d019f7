package lab

import (
	"os"
	"strings"

	"jitterlab/scenarios"
)

// InputFiles are the files a run of scenario (a built-in name, a TOML
// file, or "" for none) with the assignments sets reads: the scenario's
// file (not a built-in) and its bases', the traces its settings and
// timeline name, and the traces sets name (up.trace=FILE). A scenario
// that does not load adds only its own file, if it is a regular file: the
// run names its error. Nothing is checked and no trace is opened; an
// output must not be one of these files.
func InputFiles(scenario string, sets []string) []string {
	var in []string
	if scenario != "" {
		sc, err := scenarios.Load(scenario, func(string, string) error { return nil })
		switch {
		case err == nil:
			in = append(in, sc.Files...)
			for _, a := range sc.Params {
				in = AppendTraceFile(in, a.Key, a.Value)
			}
			for _, ch := range sc.Timeline {
				for _, a := range ch.Set {
					in = AppendTraceFile(in, a.Key, a.Value)
				}
			}
		default:
			if st, err := os.Stat(scenario); err == nil && st.Mode().IsRegular() {
				in = append(in, scenario)
			}
		}
	}
	for _, a := range sets {
		if k, v, err := ParseAssignment(a); err == nil {
			in = AppendTraceFile(in, k, v)
		}
	}
	return in
}

// AppendTraceFile appends to in the file the setting key=value reads, if
// it names one (up.trace=FILE[@sha256:…]).
func AppendTraceFile(in []string, key, value string) []string {
	if !strings.HasSuffix(key, ".trace") {
		return in
	}
	file, _, _ := strings.Cut(value, "@sha256:")
	return append(in, file)
}
