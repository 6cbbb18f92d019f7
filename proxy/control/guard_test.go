package control

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attack is one request a web page could make a browser send.
type attack struct {
	name, method, path, body string
	header                   map[string]string
	status                   int
}

func send(t *testing.T, srv *httptest.Server, a attack) (int, string) {
	t.Helper()
	req, err := http.NewRequest(a.method, srv.URL+a.path, strings.NewReader(a.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range a.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

// CSRF (issue 27.2): a page on another origin can make the browser send a
// form (enctype text/plain, urlencoded or multipart) or a fetch without a
// preflight, and a file:// page sends Origin "null". None of them changes
// the link or schedules a change: a change needs the endpoint's own
// Content-Type (which makes a browser ask first, and the API never
// grants) and no foreign Origin or Sec-Fetch-Site. Each refusal is logged.
func TestCrossSiteRequestsCannotChangeTheLink(t *testing.T) {
	c, r := newConditions(t)
	defer c.Stop()
	var logged []string
	srv := httptest.NewServer(NewHandler(c, fakeSource{}, Options{Log: func(what string, err error) {
		if err != nil {
			logged = append(logged, what+" — "+err.Error())
		}
	}}))
	defer srv.Close()
	timeline := "[[timeline]]\nat = \"0s\"\nup.latency = \"500ms\"\n"
	// A text/plain form posts NAME=VALUE: a name ending in a comment
	// makes the body TOML.
	form := "[[timeline]]\nat=\"0s\"\nup.loss=\"100%\"\n#=x\r\n"
	evil := map[string]string{"Origin": "http://127.0.0.1:8001"}
	for _, a := range []attack{
		{"form text/plain, cross-origin", "POST", "/timeline", form, map[string]string{"Content-Type": "text/plain", "Origin": "http://127.0.0.1:8001", "Sec-Fetch-Site": "same-site"}, 403},
		{"form text/plain, no Origin (an old browser)", "POST", "/timeline", timeline, map[string]string{"Content-Type": "text/plain"}, 415},
		{"form urlencoded", "POST", "/timeline", timeline, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"form multipart", "POST", "/timeline", timeline, map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, 415},
		{"no Content-Type", "POST", "/timeline", timeline, nil, 415},
		{"file:// page's fetch", "POST", "/timeline", timeline, map[string]string{"Content-Type": "application/toml", "Origin": "null"}, 403},
		{"Sec-Fetch-Site cross-site", "POST", "/timeline", timeline, map[string]string{"Content-Type": "application/toml", "Sec-Fetch-Site": "cross-site"}, 403},
		{"PUT from another origin", "PUT", "/params", `{"up.loss": "100%"}`, map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example"}, 403},
		{"PUT text/plain", "PUT", "/params", `{"up.loss": "100%"}`, map[string]string{"Content-Type": "text/plain"}, 415},
		{"DELETE /timeline from another origin", "DELETE", "/timeline", "", evil, 403},
		{"DELETE /params from another origin", "DELETE", "/params?flow=127.0.0.1:5001", "", evil, 403},
	} {
		if code, body := send(t, srv, a); code != a.status {
			t.Errorf("%s: %d %s; want %d", a.name, code, body, a.status)
		}
	}
	if r.up.Latency != 0 || r.up.Loss != 0 || c.Pending() != 0 {
		t.Fatalf("the attacks changed the link: up latency %v, loss %v, %d pending", r.up.Latency, r.up.Loss, c.Pending())
	}
	if len(logged) != 11 {
		t.Errorf("%d refusals logged; want 11:\n%s", len(logged), strings.Join(logged, "\n"))
	}
	// A script (no Origin) with the type, and a page of the API's own
	// origin, change it.
	self := map[string]string{"Content-Type": "application/toml", "Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}
	for _, a := range []attack{
		{"script", "POST", "/timeline", timeline, map[string]string{"Content-Type": "application/toml; charset=utf-8"}, 200},
		{"same origin", "POST", "/timeline", timeline, self, 200},
		{"script PUT", "PUT", "/params?flow=127.0.0.1:5001", `{"up.loss": "1%"}`, map[string]string{"Content-Type": "application/json"}, 200},
	} {
		if code, body := send(t, srv, a); code != a.status {
			t.Errorf("%s: %d %s; want %d", a.name, code, body, a.status)
		}
	}
	if _, own := c.Config(netip.MustParseAddrPort("127.0.0.1:5001")); len(own) != 1 {
		t.Errorf("the script's PUT did not apply: %v", own)
	}
}

// DNS rebinding (issue 27.5): a page whose name resolves to 127.0.0.1 is
// same-origin with itself, so the browser lets it read and write; its
// requests carry its own name as Host. The API answers only to loopback
// addresses, localhost and the host it was told to serve.
func TestHostMustNameThisMachine(t *testing.T) {
	c, r := newConditions(t)
	defer c.Stop()
	srv := httptest.NewServer(NewHandler(c, fakeSource{}, Options{Host: "devbox"}))
	defer srv.Close()
	for _, host := range []string{"rebind.example:9000", "rebind.example", "127.0.0.1.nip.io:9000", "10.0.0.1:9000", "[fe80::1]:9000", strings.Repeat("x", 1000)} {
		for _, a := range []attack{
			{"GET", "GET", "/params", "", map[string]string{"Host": host}, 403},
			{"PUT", "PUT", "/params", `{"up.loss": "100%"}`, map[string]string{"Host": host, "Content-Type": "application/json"}, 403},
		} {
			code, body := send(t, srv, a)
			if code != a.status {
				t.Errorf("%s with Host %q: %d %s; want %d", a.name, host, code, body, a.status)
			}
			if len(host) > maxQuoted && strings.Contains(body, host) {
				t.Errorf("%s with a Host of %d bytes: the answer quotes it whole", a.name, len(host))
			}
		}
	}
	if r.up.Loss != 0 {
		t.Fatalf("a foreign Host changed the link: loss %v", r.up.Loss)
	}
	for _, host := range []string{"127.0.0.1:9000", "127.4.5.6", "[::1]:9000", "localhost:9000", "LOCALHOST", "localhost.", "devbox:9000", "[::ffff:127.0.0.1]:1"} {
		if code, body := send(t, srv, attack{"", "GET", "/params", "", map[string]string{"Host": host}, 200}); code != 200 {
			t.Errorf("Host %q: %d %s; want 200", host, code, body)
		}
	}
}

// What the log is told of a request is bounded (issue 27.3): a 500 KB
// value, refused with its error quoting it, reaches the log (the screen's
// status line, the counter lines) cut, saying how much was left out.
func TestLogOfAHugeValueIsBounded(t *testing.T) {
	c, _ := newConditions(t)
	defer c.Stop()
	var what, refused string
	srv := httptest.NewServer(NewHandler(c, fakeSource{}, Options{Log: func(w string, err error) {
		what = w
		if err != nil {
			refused = err.Error()
		}
	}}))
	defer srv.Close()
	huge := strings.Repeat("9", 500_000)
	code, _ := send(t, srv, attack{"", "PUT", "/params", `{"up.latency": "` + huge + `ms"}`, map[string]string{"Content-Type": "application/json"}, 400})
	if code != 400 {
		t.Fatalf("status %d; want 400", code)
	}
	for _, s := range []string{what, refused} {
		if len(s) > MaxLogText+40 || !strings.Contains(s, "bytes more)") {
			t.Errorf("logged %d bytes (%.80q…); want at most about %d, saying what was cut", len(s), s, MaxLogText)
		}
	}
}

// A Host is taken only when it names this machine: whatever the header,
// an accepted one is localhost, the configured host, or a loopback
// address, with or without a port.
func FuzzLocalHost(f *testing.F) {
	for _, h := range []string{"127.0.0.1:9000", "[::1]:1", "localhost", "LOCALHOST.:80", "evil.example", "127.0.0.1.evil", "[::ffff:127.0.0.1]", "devbox:9", "10.0.0.1", ""} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if !localHost(h, "devbox") {
			return
		}
		name := h
		if host, _, err := net.SplitHostPort(h); err == nil {
			name = host
		}
		name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
		ip, err := netip.ParseAddr(name)
		if name != "localhost" && name != "devbox" && (err != nil || !ip.Unmap().IsLoopback()) {
			t.Fatalf("Host %q taken as this machine's", h)
		}
	})
}

// A request names no file the proxy opens (issue 27.6): POST /timeline
// with base = "…/secret.toml" read that file and quoted its values in the
// refusal. A base is refused as every other setting POST does not take,
// before it is resolved: the answer is the same whether the file exists,
// holds a bad value or is missing, and quotes nothing of it.
func TestTimelineBaseIsNotOpened(t *testing.T) {
	c, r := newConditions(t)
	defer c.Stop()
	srv := httptest.NewServer(NewHandler(c, fakeSource{}, Options{}))
	defer srv.Close()
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.toml")
	if err := os.WriteFile(secret, []byte("[up]\nlatency = \"hunter2\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte("[up]\nloss = \"1%\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toml := map[string]string{"Content-Type": "application/toml"}
	answer := func(base string) string {
		body := "base = \"" + base + "\"\n[[timeline]]\nat = \"0s\"\nup.latency = \"5ms\"\n"
		code, out := send(t, srv, attack{"", "POST", "/timeline", body, toml, 400})
		if code != 400 {
			t.Fatalf("base %q: %d %s; want 400", base, code, out)
		}
		return strings.ReplaceAll(out, base, "BASE")
	}
	missing := answer(filepath.Join(dir, "missing.toml"))
	for _, base := range []string{secret, good, "mobile-4g"} {
		if got := answer(base); got != missing {
			t.Errorf("base %q: %s\nwant the answer of a missing file: %s", base, got, missing)
		}
	}
	if !strings.Contains(missing, "[[timeline]] entries") {
		t.Errorf("refusal %s; want it to say POST takes only [[timeline]] entries", missing)
	}
	if r.up.Latency != 0 || r.up.Loss != 0 || c.Pending() != 0 {
		t.Fatalf("a refused request changed the link: up latency %v, loss %v, %d pending", r.up.Latency, r.up.Loss, c.Pending())
	}
}
