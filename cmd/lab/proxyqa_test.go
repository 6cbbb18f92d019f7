package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A --control port out of range is a bad command line (exit 2) saying
// what is allowed, as --listen's is, not a failure to run naming Go's
// "invalid port".
func TestControlPortOutOfRangeIsACommandLineError(t *testing.T) {
	for _, port := range []string{"99999", "-1", "http", ""} {
		addr := "127.0.0.1:" + port
		code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "100ms", "--control", addr)
		if code != 2 || !strings.Contains(errOut, "--control \""+addr+"\": port \""+port+"\": allowed 0 to 65535") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("--control %s: exit %d, %q; want exit 2 and one line naming the port and 0 to 65535", addr, code, errOut)
		}
	}
}

// A capture file the proxy (or lab run) cannot create is named with its
// flag, so the user knows which of --pcap and --record to mend.
func TestCaptureFileErrorsNameTheFlag(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	for _, flag := range []string{"--pcap", "--record"} {
		path := filepath.Join(missing, "x.out")
		code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "100ms", flag, path)
		if code != 1 || !strings.HasPrefix(errOut, "lab proxy: "+flag+" "+path+": ") || !strings.Contains(errOut, "no such file or directory") {
			t.Errorf("%s %s: exit %d, %q; want exit 1 naming %s and the file", flag, path, code, errOut, flag)
		}
	}
	for _, flag := range []string{"--pcap", "--record", "--csv", "--packets"} {
		path := filepath.Join(missing, "x.out")
		code, _, errOut := runLab(t, "run", "--duration", "1s", flag, path)
		if code != 1 || !strings.HasPrefix(errOut, "lab run: "+flag+" "+path+": ") || !strings.Contains(errOut, "no such file or directory") {
			t.Errorf("lab run %s %s: exit %d, %q; want exit 1 naming %s and the file", flag, path, code, errOut, flag)
		}
	}
}
