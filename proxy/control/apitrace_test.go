package control

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// apiCall sends one request to the control API and returns the status and
// the JSON error, if any.
func apiCall(t *testing.T, srv *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", MediaType(method, req.URL.Path))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct{ Error string }
	json.Unmarshal(b, &e)
	return resp.StatusCode, e.Error
}

// The control API has no authentication, so it must not open files: a
// trace is refused by key, before its value is read, through PUT /params
// and POST /timeline alike, and the error shows nothing of the file.
func TestControlAPIRefusesTraceKeys(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.trace")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-FIRST-LINE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := newConditions(t)
	defer c.Stop()
	srv := httptest.NewServer(Handler(c, nil))
	defer srv.Close()
	for _, key := range []string{"up.trace", "down.trace", "up.trace_loop", "down.trace_loop"} {
		want := key + ": a trace is chosen at start (--set or --flow), not through the control API"
		put, _ := json.Marshal(map[string]string{key: secret})
		if code, e := apiCall(t, srv, http.MethodPut, "/params", string(put)); code != 400 || e != want {
			t.Errorf("PUT /params %s: %d %q; want 400 %q", put, code, e, want)
		}
		if code, e := apiCall(t, srv, http.MethodPut, "/params?flow=127.0.0.1:5001", string(put)); code != 400 || e != want {
			t.Errorf("PUT /params?flow= %s: %d %q; want 400 %q", put, code, e, want)
		}
		tl := "[[timeline]]\nat = \"1s\"\n" + key + " = " + strconv.Quote(secret) + "\n"
		code, e := apiCall(t, srv, http.MethodPost, "/timeline", tl)
		if code != 400 || !strings.Contains(e, want) || strings.Contains(e, "SECRET") {
			t.Errorf("POST /timeline %s: %d %q; want 400 %q", key, code, e, want)
		}
	}
	// A change marked as the API's is refused when scheduled, too.
	err := c.Schedule([]Timed{{After: time.Hour, API: true, Set: []Assignment{{"up.trace", secret}}}})
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "not through the control API") {
		t.Errorf("Schedule of an API trace change: %v", err)
	}
	if c.Pending() != 0 {
		t.Errorf("%d changes pending after refusals", c.Pending())
	}
}

// DELETE /params?flow=ADDR of a client the proxy does not know is 404,
// with a JSON error naming the flow; of one with settings it is 200.
func TestDeleteParamsOfUnknownFlowIs404(t *testing.T) {
	c, _ := newConditions(t)
	srv := httptest.NewServer(Handler(c, fakeSource{}))
	defer srv.Close()
	code, e := apiCall(t, srv, http.MethodDelete, "/params?flow=9.9.9.9:1", "")
	if code != http.StatusNotFound || !strings.Contains(e, "9.9.9.9:1") {
		t.Errorf("DELETE of an unknown client: %d %q; want 404 naming 9.9.9.9:1", code, e)
	}
	if err := c.Set(client, []Assignment{{"up.loss", "5%"}}); err != nil {
		t.Fatal(err)
	}
	if code, e := apiCall(t, srv, http.MethodDelete, "/params?flow="+client.String(), ""); code != 200 {
		t.Errorf("DELETE of a client with settings: %d %q", code, e)
	}
	if len(c.Flows()) != 0 {
		t.Errorf("still with settings of their own: %v", c.Flows())
	}
}

// POST /timeline checks that a key is a link setting before its value:
// client.sender = "fixed" is refused as not a link setting, not as a bad
// sender.
func TestTimelineChecksLinkKeyBeforeValue(t *testing.T) {
	c, _ := newConditions(t)
	defer c.Stop()
	srv := httptest.NewServer(Handler(c, nil))
	defer srv.Close()
	code, e := apiCall(t, srv, http.MethodPost, "/timeline", "[[timeline]]\nat = \"1s\"\nclient.sender = \"fixed\"\n")
	if code != 400 || !strings.Contains(e, "client.sender is not a link setting") || strings.Contains(e, "bad value") {
		t.Errorf("POST /timeline client.sender = \"fixed\": %d %q; want 400 saying client.sender is not a link setting", code, e)
	}
}

// POST /timeline takes [[timeline]] entries and nothing else: what it
// would silently ignore (a name, a description, an [[oscillate]] or
// [[flap]] generator) is refused, and so is a time past the longest run
// the lab allows, naming the value and the bound.
func TestTimelineRefusesWhatItWouldIgnore(t *testing.T) {
	c, _ := newConditions(t)
	defer c.Stop()
	srv := httptest.NewServer(Handler(c, nil))
	defer srv.Close()
	entry := "[[timeline]]\nat = \"1s\"\nup.loss = \"5%\"\n"
	for body, want := range map[string]string{
		"name = \"x\"\n" + entry:        "want only [[timeline]] entries",
		"description = \"x\"\n" + entry: "want only [[timeline]] entries",
		entry + "[[oscillate]]\nkey = \"up.latency\"\nshape = \"sine\"\nlow = \"20ms\"\nhigh = \"60ms\"\nperiod = \"10s\"\n": "want only [[timeline]] entries",
		entry + "[[flap]]\nperiod = \"10s\"\ndown = \"1s\"\n":                                                                "want only [[timeline]] entries",
		"[[timeline]]\nat = \"2000h\"\nup.loss = \"5%\"\n":                                                                   "at 2000h0m0s: allowed up to 1000h0m0s",
	} {
		code, e := apiCall(t, srv, http.MethodPost, "/timeline", body)
		if code != 400 || !strings.Contains(e, want) {
			t.Errorf("POST /timeline %q: %d %q; want 400 saying %q", body, code, e, want)
		}
	}
}
