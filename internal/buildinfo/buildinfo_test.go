package buildinfo

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"testing"
)

// A build's information as runs record it and as --version prints it,
// for builds with and without VCS information and for none at all.
func TestWhatABuildSaysOfItself(t *testing.T) {
	platform := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		name        string
		info        Info
		short, text string
	}{
		{"nothing recorded", Info{}, "unknown",
			"jitterlab: module jitterlab (unknown)\nrevision unknown (built without VCS information, e.g. by go run or go test)\n"},
		{"go run", Of(&debug.BuildInfo{Main: debug.Module{Path: "jitterlab", Version: "(devel)"}}), "(devel)",
			"jitterlab: module jitterlab (devel)\nrevision unknown (built without VCS information, e.g. by go run or go test)\n"},
		{"a modified checkout", Of(&debug.BuildInfo{Main: debug.Module{Path: "example.com/lab", Version: "v1.2.0"}, Settings: vcs}),
			"v1.2.0 0123456789ab+modified",
			"jitterlab: module example.com/lab v1.2.0\nrevision 0123456789abcdef0123 (2026-01-02T03:04:05Z) with uncommitted changes\n"},
		{"a clean checkout", Of(&debug.BuildInfo{Main: debug.Module{Path: "jitterlab", Version: "v1.2.0"}, Settings: vcs[:2]}),
			"v1.2.0 0123456789ab",
			"jitterlab: module jitterlab v1.2.0\nrevision 0123456789abcdef0123\n"},
	} {
		if got := c.info.Short(); got != c.short {
			t.Errorf("%s: Short %q, want %q", c.name, got, c.short)
		}
		var b bytes.Buffer
		if err := c.info.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if want := c.text + platform; b.String() != want {
			t.Errorf("%s: WriteText\n%s\nwant\n%s", c.name, b.String(), want)
		}
	}
}
