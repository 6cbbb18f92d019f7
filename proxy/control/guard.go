package control

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"jitterlab/internal/clip"
)

// The API has no authentication: anything that can reach its loopback
// socket may change the link. A web page in a browser on the same machine
// can reach it too, so the handler refuses what only a page would send:
//
//   - a Host that is not a loopback address, "localhost" or the host the
//     API was told to serve (Options.Host): a page whose name resolves to
//     127.0.0.1 (DNS rebinding) sends its own name;
//   - a request that changes something (any method but GET, HEAD and
//     OPTIONS) from another origin: the browser says so in Sec-Fetch-Site
//     or Origin (a file:// page's Origin is "null"); scripts send neither;
//   - a body of another type than the endpoint's (MediaType): a form, or a
//     fetch without a preflight, can send only text/plain,
//     application/x-www-form-urlencoded and multipart/form-data. Any other
//     type makes the browser ask first (a CORS preflight, OPTIONS), which
//     the API never grants.
//
// Refusals are 403 (Host, origin) and 415 (type), as JSON errors.

// MediaType is the Content-Type the API takes for the body of a request
// of method to path ("": the request has no body).
func MediaType(method, path string) string {
	switch {
	case method == http.MethodPut && path == "/params":
		return "application/json"
	case method == http.MethodPost && path == "/timeline":
		return "application/toml"
	}
	return ""
}

// maxQuoted bounds what an error or the log quotes of what a request
// sent (a header, a value).
const maxQuoted = 200

// clipErr is err with its text clipped to n bytes (nil stays nil).
func clipErr(err error, n int) error {
	if err == nil || len(err.Error()) <= n {
		return err
	}
	return errors.New(clip.String(err.Error(), n))
}

// localHost says whether a request's Host names this machine: a loopback
// address, "localhost", or host (the name the API was told to serve).
func localHost(hostHeader, host string) bool {
	name := hostHeader
	if h, _, err := net.SplitHostPort(hostHeader); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if strings.EqualFold(name, "localhost") || host != "" && strings.EqualFold(name, strings.Trim(host, "[]")) {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}

var crossOrigin = http.NewCrossOriginProtection()

// guard refuses a request a web page could have made the browser send
// (see above); it writes the refusal and returns false, logging refused
// changes.
func (h *handler) guard(w http.ResponseWriter, r *http.Request) bool {
	what := r.Method + " " + r.URL.Path
	changes := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
	refuse := func(status int, err error) bool {
		if changes {
			h.log(what, err)
		}
		fail(w, status, err)
		return false
	}
	if !localHost(r.Host, h.host) {
		return refuse(http.StatusForbidden, fmt.Errorf("%s: Host %q: the API answers to a loopback address or localhost only; a web page on another name that resolves to this machine (DNS rebinding) sends its own",
			what, clip.String(r.Host, maxQuoted)))
	}
	if !changes {
		return true
	}
	if err := crossOrigin.Check(r); err != nil {
		from := r.Header.Get("Origin")
		if from == "" {
			from = "Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site")
		}
		return refuse(http.StatusForbidden, fmt.Errorf("%s: refused a request from another origin (%s): a web page may not change the link; scripts send no Origin",
			what, clip.String(from, maxQuoted)))
	}
	want := MediaType(r.Method, r.URL.Path)
	if want == "" {
		return true
	}
	got := r.Header.Get("Content-Type")
	if t, _, err := mime.ParseMediaType(got); err != nil || t != want {
		return refuse(http.StatusUnsupportedMediaType, fmt.Errorf("%s: Content-Type %q: want %s (curl -H 'Content-Type: %s'); the types a web page can send without asking are refused",
			what, clip.String(got, maxQuoted), want, want))
	}
	return true
}
