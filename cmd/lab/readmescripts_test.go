package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every `go build -o PATH` in the documents writes a file a user can run:
// PATH is not a folder of the repository ("-o lab" wrote lab/lab, and
// "./lab proxy" then failed with "Is a directory").
func TestDocsBuildIntoAFileNotAFolder(t *testing.T) {
	build := regexp.MustCompile(`go build[^\n]*?-o +(\S+)`)
	n := 0
	for path, text := range repoFiles(t) {
		if !strings.HasSuffix(path, ".md") {
			continue
		}
		for _, m := range build.FindAllStringSubmatch(text, -1) {
			n++
			out := filepath.Join("..", "..", filepath.FromSlash(m[1]))
			if fi, err := os.Stat(out); err == nil && fi.IsDir() {
				t.Errorf("%s: %q writes into the folder %s/", path, m[0], m[1])
			}
		}
		if strings.Contains(text, "./lab ") {
			t.Errorf("%s runs ./lab: the binary a build line makes is ./jitterlab", path)
		}
	}
	if n == 0 {
		t.Fatal("no go build -o line found in the documents: the scan is broken")
	}
}

// The pinger of the docs (README.md, docs/) says in one line that nothing came back when no
// relay listens, and exits 1: no Python traceback.
func TestREADMEPingerWithoutARelay(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	m := regexp.MustCompile(`(?s)cat > ping\.py <<'PY'\n(.*?)\nPY\n`).FindSubmatch([]byte(docsText(t)))
	if m == nil {
		t.Fatal("no ping.py in the README or docs/")
	}
	// A port nobody listens on: bound, then closed.
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port)
	c.Close()
	script := strings.ReplaceAll(string(m[1]), "7777", port)
	path := filepath.Join(t.TempDir(), "ping.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, path, "10", "50").CombinedOutput()
	ee, _ := err.(*exec.ExitError)
	if ee == nil || ee.ExitCode() != 1 || strings.Contains(string(out), "Traceback") || !strings.Contains(string(out), "nothing came back") {
		t.Errorf("ping.py without a relay: %v\n%s", err, out)
	}
}
