package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Info is what a build recorded of itself.
type Info struct {
	Known           bool   // the build recorded its information (debug.ReadBuildInfo)
	Module, Version string // the main module's path and version ("" when not recorded)
	Revision, Time  string // the VCS revision and its time ("" without VCS information)
	Modified        bool   // the work tree had uncommitted changes
}

// Read is this program's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}
	}
	return Of(bi)
}

// Of is what bi records.
func Of(bi *debug.BuildInfo) Info {
	i := Info{Known: true, Module: bi.Main.Path, Version: bi.Main.Version}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// Short is the version and the revision's first 12 digits as a run
// records them ("v1.2.0 0123456789ab+modified"; "(devel)" under go run),
// or "unknown" when the build recorded nothing.
func (i Info) Short() string {
	if !i.Known {
		return "unknown"
	}
	v := i.Version
	if i.Revision != "" {
		v += " " + i.Revision[:min(12, len(i.Revision))]
	}
	if i.Modified {
		v += "+modified"
	}
	return v
}

// WriteText writes the module, its version and VCS revision, the Go
// version and the OS/arch, as 'lab --version' prints them.
func (i Info) WriteText(w io.Writer) error {
	module, version := "jitterlab", "(unknown)"
	revision := "unknown (built without VCS information, e.g. by go run or go test)"
	if i.Module != "" {
		module = i.Module
	}
	if i.Version != "" {
		version = i.Version
	}
	if i.Revision != "" {
		revision = i.Revision
		if i.Time != "" {
			revision += " (" + i.Time + ")"
		}
		if i.Modified {
			revision += " with uncommitted changes"
		}
	}
	_, err := fmt.Fprintf(w, "jitterlab: module %s %s\nrevision %s\n%s %s/%s\n", module, version, revision, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
