package live

import (
	"encoding/csv"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/lab"
	proxyctl "jitterlab/proxy/control"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/sim"
)

// apiCall makes one request of a run's control API at base.
func apiCall(t *testing.T, base, method, path, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", proxyctl.MediaType(method, req.URL.Path))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// recordedProxyRun relays two clients through a recorded run while a
// script changes the links: one client has its own settings from --flow,
// the other gets its own through the API, the defaults change through
// PUT /params and POST /timeline, and the first client is put back on
// the defaults. It returns the recording, both clients' addresses and
// the closing text.
func recordedProxyRun(t *testing.T) (rec, flowAddr, apiAddr, out string) {
	t.Helper()
	own, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	flowAddr = own.LocalAddr().String()
	own.Close() // free the port --flow names
	rec = filepath.Join(t.TempDir(), "relay.jlrec")
	// The real clock: the recording holds the relay's own times beside
	// the changes'.
	o := testOptions(t, System, nil, nil)
	if err := lab.Set(&o.Config, "link.latency", "1ms"); err != nil {
		t.Fatal(err)
	}
	f, err := ParseFlow(flowAddr + " up.loss=100%")
	if err != nil {
		t.Fatal(err)
	}
	o.Flows, o.Record = []Flow{f}, rec
	o.Open = func(_, path string) (File, error) {
		f, err := os.Create(path)
		return testFile{f}, err
	}
	api := withControl(t, &o)
	must := func(method, path, body string) {
		t.Helper()
		if code, b := apiCall(t, api, method, path, body); code != 200 {
			t.Fatalf("%s %s: %d %s", method, path, code, b)
		}
	}
	run := startCounterRun(t, o)
	relay := run.r.Addr().(*net.UDPAddr)
	mine, err := net.DialUDP("udp", own.LocalAddr().(*net.UDPAddr), relay)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	plain, err := net.DialUDP("udp", nil, relay)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	apiAddr = plain.LocalAddr().String()
	if got := testtool.Echoes(plain, 5, 10*time.Second); got != 5 {
		t.Fatalf("default client: %d/5 echoes", got)
	}
	testtool.Echoes(mine, 3, 100*time.Millisecond)
	must("PUT", "/params?flow="+apiAddr, `{"down.latency": "5ms"}`)
	must("PUT", "/params", `{"up.jitter": "2ms"}`)
	must("POST", "/timeline", "[[timeline]]\nat = \"50ms\"\nup.duplicate = \"1%\"\n")
	for { // the test's timeout bounds a change that never applies
		_, b := apiCall(t, api, "GET", "/params", "")
		if regexp.MustCompile(`"up.duplicate":\s*"1%"`).Match(b) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the control's timer is the real clock's
	}
	must("DELETE", "/params?flow="+flowAddr, "")
	if got := testtool.Echoes(mine, 5, 10*time.Second); got != 5 {
		t.Fatalf("client back on the defaults: %d/5 echoes", got)
	}
	testtool.Echoes(plain, 5, 10*time.Second)
	res := run.stop()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var b strings.Builder
	res.WriteText(&b)
	return rec, flowAddr, apiAddr, b.String()
}

// A proxy recording keeps every change of the links, whoever made it —
// --flow at the start, the control API's PUT and DELETE /params (for
// everybody or one client), POST /timeline — at the wall time it applied
// and for whom, and the client address of each flow: replay lists them
// and export --changes writes them as CSV (issue 12.1).
func TestProxyRecordingKeepsAPIAndFlowSettings(t *testing.T) {

	rec, flowAddr, apiAddr, _ := recordedProxyRun(t)
	replay, changes, _ := recordingOf(t, rec)
	at := `  at \d\d:\d\d:\d\d\.\d{3}  `
	for _, want := range []string{
		at + `client ` + regexp.QuoteMeta(flowAddr) + ` up\.loss = 100%\n`,
		at + `client ` + regexp.QuoteMeta(apiAddr) + ` down\.latency = 5ms\n`,
		at + `up\.jitter = 2ms\n`,
		at + `up\.duplicate = 1%\n`,
		at + `client ` + regexp.QuoteMeta(flowAddr) + ` back on everybody's settings\n`,
		`(?m)^  flow 1  ` + regexp.QuoteMeta(apiAddr) + `  from \d\d:\d\d:\d\d\.\d{3}$`,
		`(?m)^  flow 2  ` + regexp.QuoteMeta(flowAddr) + `  from \d\d:\d\d:\d\d\.\d{3}$`,
	} {
		if !regexp.MustCompile(want).MatchString(replay) {
			t.Errorf("replay lacks %q:\n%s", want, replay)
		}
	}
	if i, j := strings.Index(replay, "up.jitter = 2ms"), strings.Index(replay, "up.duplicate = 1%"); i < 0 || j < i {
		t.Errorf("replay lists the changes out of order:\n%s", replay)
	}

	var csvOut strings.Builder
	if err := proxyrec.WriteChangesCSV(&csvOut, changes, 0, sim.Time(math.MaxInt64)); err != nil {
		t.Fatal(err)
	}
	out := csvOut.String()
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "t_s,client,flow,key,value" {
		t.Fatalf("export --changes header %v", rows[0])
	}
	got := map[string]bool{}
	last := ""
	for _, r := range rows[1:] {
		if r[0] < last {
			t.Errorf("export --changes goes back in time: %v after %s", r, last)
		}
		last = r[0]
		got[strings.Join(r[1:], " ")] = true
	}
	for _, want := range []string{flowAddr + "  up.loss 100%", apiAddr + " 1 down.latency 5ms", "all  up.jitter 2ms",
		"all  up.duplicate 1%", flowAddr + " 2 own settings cleared", apiAddr + " 1 flow started", flowAddr + " 2 flow started"} {
		if !got[want] {
			t.Errorf("export --changes lacks the row %q:\n%s", want, out)
		}
	}
}

// The end-of-run audit does not compare the whole run with the settings
// at the end (issue 12.3): a row whose setting changed says how often and
// its last value, and the audit per period of constant settings gives each
// client its own configured link — its --flow or API settings — beside
// what its packets met in that period.
func TestProxyAuditPerClientAndPeriod(t *testing.T) {

	_, flowAddr, apiAddr, out := recordedProxyRun(t)
	_, audit, ok := strings.Cut(out, "\naudit over ")
	if !ok {
		t.Fatalf("no audit:\n%s", out)
	}
	for _, want := range []string{
		`(?m)^jitter \(RFC 3550\)\s+changed 1 time; last: 2ms uniform, J ≈ 1\.125ms\s`,
		`(?m)^duplicated\s+changed 1 time; last: 1%\s`,
		`(?m)^period 1: \+0\.000s to \+\d+\.\d{3}s \(\d+\.\d{3}s\), the start$`,
		`(?m)^period 2: .*, after client ` + regexp.QuoteMeta(apiAddr) + ` down\.latency=5ms$`,
		`(?m)^period 3: .*, after up\.jitter=2ms$`,
		`(?m)^period 4: .*, after up\.duplicate=1%$`,
		`(?m)^period 5: .*, after client ` + regexp.QuoteMeta(flowAddr) + ` back on everybody's settings$`,
		// Period 1: the --flow client loses everything up, by its own settings.
		`(?m)^  ` + regexp.QuoteMeta(flowAddr) + `\s+up\s+set 1ms, loss 100%.*\n\s+real .*lost [1-9]\d* of [1-9]\d* \(100\.0 %\)`,
		// Period 5: it is back on everybody's: no loss, the jitter and duplicates of the defaults.
		`(?s)period 5: .*\n  ` + regexp.QuoteMeta(flowAddr) + `\s+up\s+set 1ms ± 2ms uniform, loss 0%, duplicate 1%`,
	} {
		if !regexp.MustCompile(want).MatchString(audit) {
			t.Errorf("the audit lacks %q:\n%s", want, audit)
		}
	}
}
