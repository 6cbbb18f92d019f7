package main

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/files"
	"jitterlab/internal/testtool"
	"jitterlab/recordings"
	"jitterlab/sim"
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
	// A file that opens but takes nothing (a full disk) is named too.
	if _, err := os.Stat("/dev/full"); err == nil {
		for _, flag := range []string{"--pcap", "--record"} {
			code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "100ms", flag, "/dev/full")
			if code != 1 || !strings.HasPrefix(errOut, "lab proxy: "+flag+" /dev/full: ") || !strings.Contains(errOut, "no space left on device") {
				t.Errorf("%s /dev/full: exit %d, %q; want exit 1 naming %s and the file", flag, code, errOut, flag)
			}
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

// A recording the screen's R starts minutes into a run holds nothing
// before: lab plot draws it over the time it recorded (from its first
// record, the clients named as R started), not from the proxy's start
// with the data squeezed into the last columns; --from still chooses.
func TestPlotOfAScreenRecordingSpansWhatItRecorded(t *testing.T) {
	const start = 10 * time.Second
	w, path := newProxyRecording(t, "default")
	if err := w.Change(recordings.Change{At: sim.Time(start), Key: "flow 1", Value: "127.0.0.1:5001"}); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		in := sim.Time(start) + sim.Time(i)*sim.Time(10*time.Millisecond)
		for dir := range uint8(2) {
			p := recordings.Packet{At: in + sim.Time(20*time.Millisecond), In: in, Out: in + sim.Time(20*time.Millisecond), Scheduled: 20 * time.Millisecond,
				Dir: dir, Fate: recordings.PacketDelivered, Flow: 1, Size: 40}
			if err := w.Packet(&p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(recordings.End{At: sim.Time(start + 2*time.Second)}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runLab(t, "plot", path, "--out", "-", "--width", "600")
	if code != 0 || !strings.Contains(errOut, "from 00:00:10.000 to 00:00:12.000") {
		t.Fatalf("exit %d, %q; want the plot from 00:00:10.000 (the recording's start) to 00:00:12.000", code, errOut)
	}
	img, err := png.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	// The up panel's left tenth has the line: not a grey pixel.
	coloured := 0
	for y := 40; y < 180; y++ {
		for x := 80; x < 80+(img.Bounds().Dx()-110)/10; x++ {
			if c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA); c.R != c.G || c.G != c.B {
				coloured++
			}
		}
	}
	if coloured == 0 {
		t.Error("the up panel's left tenth is empty: the plot does not begin where the recording does")
	}
	if code, _, errOut := runLab(t, "plot", path, "--out", "-", "--from", "5s"); code != 0 || !strings.Contains(errOut, "from 00:00:05.000") {
		t.Errorf("--from 5s: exit %d, %q; want the plot from 00:00:05.000", code, errOut)
	}
}

// readmeScript is the text of a heredoc the docs (README.md, docs/) write to name
// ("cat > ping.py <<'PY'" … "PY").
func readmeScript(t *testing.T, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(docsText(t), "cat > "+name+" <<'PY'\n")
	script, _, ok2 := strings.Cut(rest, "\nPY\n")
	if !ok || !ok2 {
		t.Fatalf("README has no heredoc for %s", name)
	}
	return script
}

// The README's pinger, run before the proxy or the game server is up,
// says that no echo came back, exit 1 (a CI step fails), instead of dying
// with an IndexError traceback (a new user's first try, often).
func TestREADMEPingerSaysWhenNothingEchoes(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	python := testtool.Need(t, "python3", "python3")
	// A socket that reads and never answers stands where the proxy would.
	silent, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	script := readmeScript(t, "ping.py")
	if !strings.Contains(script, `("127.0.0.1", 7777)`) {
		t.Fatalf("the pinger no longer sends to 127.0.0.1:7777:\n%s", script)
	}
	script = strings.ReplaceAll(script, `("127.0.0.1", 7777)`, fmt.Sprintf(`("127.0.0.1", %d)`, silent.LocalAddr().(*net.UDPAddr).Port))
	path := filepath.Join(t.TempDir(), "ping.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, path, "5", "50").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.HasPrefix(string(out), "0/5 echoes") || strings.Contains(string(out), "Traceback") {
		t.Errorf("ping.py 5 50 with nothing answering: %v, %q; want exit 1 and a line starting \"0/5 echoes\"", err, out)
	}
}

// The README's game-CI script waits for the proxy's "control API on"
// line; a proxy that cannot start (the port taken, a bad flag) must fail
// the job, not leave it waiting for that line forever.
func TestREADMECIScriptFailsWhenTheProxyCannotStart(t *testing.T) {
	bash := testtool.Need(t, "bash", "bash")
	_, rest, ok := strings.Cut(docsText(t), "./jitterlab proxy --to 127.0.0.1:7778 --control 127.0.0.1:9000")
	startup, _, ok2 := strings.Cut(rest, "python3 ping.py 500 50 &")
	if !ok || !ok2 {
		t.Fatal("README has no game-CI script starting the proxy with --control 127.0.0.1:9000 before the bot")
	}
	dir := t.TempDir()
	// A lab whose proxy cannot start, as with the listen port taken.
	stub := "#!/bin/sh\necho 'lab proxy: --listen \"127.0.0.1:7777\": bind: address already in use' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "jitterlab"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "./jitterlab proxy --to 127.0.0.1:7778 --control 127.0.0.1:9000" + startup + "echo STARTED\n"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a bound on the hang this is about
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the script still waits for the proxy 20 s after it failed to start:\n%s", script)
	}
	if err == nil || strings.Contains(string(out), "STARTED") {
		t.Errorf("the script went on although the proxy did not start (%v):\n%s", err, out)
	}
}

// Two outputs are the same file when one is a link to the other that
// does not exist yet (--pcap x.out --record y.out, y.out → x.out): both
// would write into x.out, a file neither reader can read; the command
// refuses them as it does x.out twice.
func TestDanglingLinkToAnotherOutputIsTheSameOutput(t *testing.T) {
	dir := t.TempDir()
	x, y := filepath.Join(dir, "x.out"), filepath.Join(dir, "y.out")
	if err := os.Symlink("x.out", y); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := files.CheckOutputs(map[string]string{"pcap": x, "record": y}, nil); err == nil || !strings.Contains(err.Error(), "name the same output") {
		t.Errorf("--pcap %s --record %s (a link to it, neither there yet): %v; want them refused as the same output", x, y, err)
	}
	z := filepath.Join(dir, "z.out")
	if err := os.Symlink(z, filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "loop"), z); err != nil {
		t.Fatal(err)
	}
	if err := files.CheckOutputs(map[string]string{"pcap": x, "record": z}, nil); err != nil { // a loop of links is no file: distinct, and no hang
		t.Errorf("a loop of links: %v", err)
	}
}
