package control

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/internal/clip"
	"jitterlab/netem"
	"jitterlab/proxy"
	"jitterlab/scenarios"
)

// Source is what the API reads counters from (a *proxy.Relay).
type Source interface {
	Stats() proxy.Stats
	Audit() proxy.Audit
}

// MaxBody bounds a request body.
const MaxBody = 1 << 20

// Handler serves the control API:
//
//	GET    /params[?flow=ADDR]    the link settings (the defaults, or a client's)
//	PUT    /params[?flow=ADDR]    change them: a JSON object of key → value (application/json), in order, all or none
//	DELETE /params?flow=ADDR      put a client back on the defaults
//	POST   /timeline[?flow=ADDR]  schedule changes: [[timeline]] entries of a scenario file (application/toml), at = from now
//	DELETE /timeline[?flow=ADDR]  cancel the changes POST scheduled that have not applied (all, or a client's)
//	GET    /counters              every counter and the realised-vs-configured audit, as JSON
//	GET    /metrics               the same in Prometheus text format
//
// Errors are JSON {"error": "..."} with status 400 (bad input), 403 (a
// Host that is not this machine's, a change from another origin), 404 (no
// such path, or DELETE of a client the proxy does not know), 405, 413 (a
// body over MaxBody) or 415 (a body not of the endpoint's MediaType). What
// a web page could make a browser send is refused (see guard.go).
func Handler(c *Conditions, src Source) http.Handler { return NewHandler(c, src, Options{}) }

// Options are a handler's log and the name it is served as.
type Options struct {
	// Log, when set, is told of every request that changes or schedules
	// something — PUT and DELETE /params, POST and DELETE /timeline — as
	// it is answered: what it asked for, and the error it was refused
	// with (nil: done), each cut to MaxLogText bytes.
	Log func(what string, err error)
	// Host is the host the API was told to serve (--control's, e.g.
	// "localhost" or a name for 127.0.0.1): requests may name it besides
	// a loopback address and localhost.
	Host string
}

// MaxLogText bounds what the log is told of a request and of its error:
// a value may be up to MaxBody long, the screen and a log line are not.
const MaxLogText = 300

// NewHandler is Handler with options.
func NewHandler(c *Conditions, src Source, o Options) http.Handler {
	log := func(string, error) {}
	if o.Log != nil {
		log = func(what string, err error) { o.Log(clip.String(what, MaxLogText), clipErr(err, MaxLogText)) }
	}
	h := &handler{c: c, src: src, log: log, host: o.Host}
	mux := http.NewServeMux()
	mux.HandleFunc("/params", h.params)
	mux.HandleFunc("/timeline", h.timeline)
	mux.HandleFunc("/counters", h.counters)
	mux.HandleFunc("/metrics", h.metrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, fmt.Errorf("no such path %q: the API has /params, /timeline, /counters and /metrics", clip.String(r.URL.Path, maxQuoted)))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.guard(w, r) {
			mux.ServeHTTP(w, r)
		}
	})
}

type handler struct {
	c    *Conditions
	src  Source
	log  func(what string, err error)
	host string
}

// request names a request for the log: its method, path and client.
func request(r *http.Request, flow netip.AddrPort) string {
	what := r.Method + " " + r.URL.Path
	if flow.IsValid() {
		what += "?flow=" + flow.String()
	}
	return what
}

func fail(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// flowParam reads ?flow=ADDR (absent: the defaults), refusing any other
// query parameter: a misspelt ?flow= would otherwise change everybody's
// settings in place of one client's.
func flowParam(r *http.Request) (netip.AddrPort, error) {
	q, err := queryParams(r, "allowed ?flow=ADDR", "flow")
	if err != nil {
		return netip.AddrPort{}, err
	}
	s := q.Get("flow")
	if s == "" {
		return netip.AddrPort{}, nil
	}
	a, err := ParseFlow(s)
	if err != nil {
		return a, fmt.Errorf("?flow=: %w", err)
	}
	return a, nil
}

// queryParams is the request's query, refused when it has a parameter
// other than those allowed (allowed says which, for the error) or one of
// them more than once.
func queryParams(r *http.Request, allowedText string, allowed ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the query %q: %v", r.Method, r.URL.Path, r.URL.RawQuery, err)
	}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(allowed, k) {
			return nil, fmt.Errorf("?%s=: not a parameter of %s %s; %s", k, r.Method, r.URL.Path, allowedText)
		}
		if n := len(q[k]); n > 1 {
			return nil, fmt.Errorf("?%s= given %d times in %s %s: give it once", k, n, r.Method, r.URL.Path)
		}
	}
	return q, nil
}

// ParamsReply is GET /params.
type ParamsReply struct {
	Flow   string            `json:"flow,omitempty"`  // the client, or absent for the defaults
	Params map[string]string `json:"params"`          // every up.* and down.* key
	Own    []string          `json:"own,omitempty"`   // the client's own assignments, in order
	Flows  []string          `json:"flows,omitempty"` // (defaults only) the clients with settings of their own
}

func (h *handler) paramsReply(flow netip.AddrPort) ParamsReply {
	links, own := h.c.Config(flow)
	out := ParamsReply{Params: map[string]string{}}
	for _, k := range h.c.reg.Keys() {
		if strings.HasPrefix(k.Name, "up.") || strings.HasPrefix(k.Name, "down.") {
			out.Params[k.Name] = k.Get(&links)
		}
	}
	if flow.IsValid() {
		out.Flow = flow.String()
		for _, a := range own {
			out.Own = append(out.Own, a.Key+"="+a.Value)
		}
	} else {
		for _, a := range h.c.Flows() {
			out.Flows = append(out.Flows, a.String())
		}
	}
	return out
}

func (h *handler) params(w http.ResponseWriter, r *http.Request) {
	flow, err := flowParam(r)
	if err != nil {
		if r.Method == http.MethodPut || r.Method == http.MethodDelete {
			h.log(r.Method+" "+r.URL.Path, err)
		}
		fail(w, http.StatusBadRequest, err)
		return
	}
	switch r.Method {
	case http.MethodGet:
		reply(w, h.paramsReply(flow))
	case http.MethodPut:
		what := request(r, flow)
		as, err := readAssignments(http.MaxBytesReader(w, r.Body, MaxBody))
		if err == nil {
			what += ": " + Describe(as)
			err = checkAPI(as)
		}
		if err == nil {
			err = h.c.Set(flow, as)
		}
		h.log(what, err)
		if err != nil {
			fail(w, status(err), err)
			return
		}
		reply(w, h.paramsReply(flow))
	case http.MethodDelete:
		if !flow.IsValid() {
			err := errors.New("DELETE /params: name the client, ?flow=ADDR (the defaults cannot be removed)")
			h.log(request(r, flow), err)
			fail(w, http.StatusBadRequest, err)
			return
		}
		if !h.c.Clear(flow) && !h.live(flow) {
			err := fmt.Errorf("DELETE /params?flow=%v: no such client: the proxy relays none at %v and none has settings of its own there (GET /params lists those, GET /counters the live ones)", flow, flow)
			h.log(request(r, flow), err)
			fail(w, http.StatusNotFound, err)
			return
		}
		h.log(request(r, flow)+": back on everybody's settings", nil)
		reply(w, h.paramsReply(flow))
	default:
		fail(w, http.StatusMethodNotAllowed, fmt.Errorf("%s /params: allowed GET, PUT and DELETE", r.Method))
	}
}

// live is whether the relay has a client at flow now.
func (h *handler) live(flow netip.AddrPort) bool {
	if h.src == nil {
		return false
	}
	for _, f := range h.src.Audit().Flows {
		if a, err := netip.ParseAddrPort(f.Addr); err == nil && netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) == flow {
			return true
		}
	}
	return false
}

// tooLarge is a request body over MaxBody (status 413).
type tooLarge struct{ what string }

func (e tooLarge) Error() string {
	return fmt.Sprintf("%s: the body is over %d bytes (1 MiB), the most the API reads", e.what, MaxBody)
}

// status is the HTTP status of a refused request's error.
func status(err error) int {
	if errors.As(err, new(tooLarge)) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// bodyError is err (reading a body of what) as tooLarge when the body
// was over MaxBody, else ok.
func bodyError(what string, err, ok error) error {
	if errors.As(err, new(*http.MaxBytesError)) {
		return tooLarge{what}
	}
	return ok
}

// readAssignments reads a JSON object of key → value (a string, or a
// number written as the registry takes it) keeping the order given.
func readAssignments(body io.Reader) ([]Assignment, error) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	bad := func(err error) error {
		return bodyError("PUT /params", err, errors.New(`PUT /params: want a JSON object of key → value, e.g. {"up.loss": "5%", "down.latency": "80ms"}`))
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad(err)
	}
	var as []Assignment
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := t.(string)
		t, err = dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		var value string
		switch v := t.(type) {
		case string:
			value = v
		case json.Number:
			value = v.String()
		case bool:
			value = strconv.FormatBool(v)
		default:
			return nil, fmt.Errorf("PUT /params: %s: want the value as a string (numbers and true/false may be bare), e.g. \"5%%\"", key)
		}
		as = append(as, Assignment{key, value})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, bad(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bodyError("PUT /params", err, errors.New(`PUT /params: something after the JSON object; want one object of key → value, e.g. {"up.loss": "5%"}`))
	}
	if len(as) == 0 {
		return nil, errors.New(`PUT /params: no assignments; want e.g. {"up.loss": "5%"}`)
	}
	return as, nil
}

func (h *handler) timeline(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodDelete {
		fail(w, http.StatusMethodNotAllowed, fmt.Errorf("%s /timeline: allowed POST and DELETE", r.Method))
		return
	}
	flow, err := flowParam(r)
	if err != nil {
		h.log(r.Method+" "+r.URL.Path, err)
		fail(w, http.StatusBadRequest, err)
		return
	}
	if r.Method == http.MethodDelete {
		n := h.c.Cancel(flow)
		noun := "changes"
		if n == 1 {
			noun = "change"
		}
		pending := h.c.Pending()
		h.log(fmt.Sprintf("%s: %d %s cancelled, %d pending", request(r, flow), n, noun, pending), nil)
		reply(w, map[string]int{"cancelled": n, "pending": pending})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		err = bodyError("POST /timeline", err, fmt.Errorf("POST /timeline: %v", err))
		h.log(request(r, flow), err)
		fail(w, status(err), err)
		return
	}
	changes, err := h.c.reg.parseTimeline("POST /timeline", body, flow, func(key, value string) error {
		if err := CheckAPIKey(key); err != nil {
			return err
		}
		return h.c.reg.Check(key, value)
	})
	for i := range changes {
		changes[i].API = true
	}
	if err == nil {
		err = h.c.Schedule(changes)
	}
	if err != nil {
		h.log(request(r, flow), err)
		fail(w, http.StatusBadRequest, err)
		return
	}
	noun := "changes"
	if len(changes) == 1 {
		noun = "change"
	}
	h.log(fmt.Sprintf("%s: %d %s scheduled", request(r, flow), len(changes), noun), nil)
	reply(w, map[string]int{"scheduled": len(changes), "pending": h.c.Pending()})
}

// ParseTimeline reads [[timeline]] entries in the scenario file format,
// their times counted from now, for flow (the defaults when invalid).
func (r Registry) ParseTimeline(name string, body []byte, flow netip.AddrPort) ([]Timed, error) {
	return r.parseTimeline(name, body, flow, r.Check)
}

// parseTimeline is ParseTimeline checking each assignment with check.
func (r Registry) parseTimeline(name string, body []byte, flow netip.AddrPort, check func(key, value string) error) ([]Timed, error) {
	// A base is not resolved (a request names no file the proxy
	// opens); it is refused below with the other settings.
	sc, err := scenarios.ParseInline(name, bytes.Clone(body), check)
	if err != nil {
		return nil, err
	}
	// What the API would otherwise ignore is refused: a name, a
	// description, generators.
	if len(sc.Params) > 0 || sc.Script != "" || len(sc.Segments) > 0 || sc.Duration != 0 || sc.HasSeed || sc.Base != "" ||
		sc.Name != scenarios.DefaultName(name) || sc.Description != "" || sc.Source != "" || len(sc.Oscillators) > 0 || len(sc.Flaps) > 0 {
		return nil, fmt.Errorf("%s: want only [[timeline]] entries (at = \"5s\" and link keys); settings for now go to PUT /params, and [[oscillate]]/[[flap]] to a scenario (--scenario)", name)
	}
	for _, ch := range sc.Timeline {
		if ch.At > r.MaxAt {
			return nil, fmt.Errorf("%s:%d: at %v: allowed up to %v from now (the longest run)", name, ch.Line, ch.At, r.MaxAt)
		}
	}
	if len(sc.Timeline) == 0 {
		return nil, fmt.Errorf("%s: no [[timeline]] entries, e.g.\n[[timeline]]\nat = \"5s\"\nup.loss = \"5%%\"", name)
	}
	return r.Timeline(sc.Timeline, flow)
}

// Timeline turns scenario timeline entries into scheduled changes.
func (r Registry) Timeline(tl []scenarios.Change, flow netip.AddrPort) ([]Timed, error) {
	var out []Timed
	for _, ch := range tl {
		t := Timed{After: ch.At, Flow: flow}
		for _, a := range ch.Set {
			if err := r.CheckLinkKey(a.Key); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", ch.File, a.Line, err)
			}
			t.Set = append(t.Set, Assignment{a.Key, a.Value})
		}
		t.What = Describe(t.Set)
		if flow.IsValid() {
			t.What = "flow " + flow.String() + ": " + t.What
		}
		out = append(out, t)
	}
	return out, nil
}

// DirCounters is one direction in GET /counters: every counter of
// [proxy.Counters], the audit (times in ms) and the configured link.
type DirCounters struct {
	Received      uint64 `json:"received"`
	KernelDropped uint64 `json:"kernel_dropped"`
	Overflow      uint64 `json:"overflow"`
	Sent          uint64 `json:"sent"`
	Duplicated    uint64 `json:"duplicated"`
	Lost          uint64 `json:"lost"`
	QueueDropped  uint64 `json:"queue_dropped"`
	Discarded     uint64 `json:"discarded"`
	Released      uint64 `json:"released"`
	WriteFailed   uint64 `json:"write_failed"`
	Delivered     uint64 `json:"delivered"`
	Reordered     uint64 `json:"reordered"`
	InFlight      uint64 `json:"in_flight"`
	LostOriginals uint64 `json:"lost_originals"`
	LossBursts    uint64 `json:"loss_bursts"`

	DelayP50Ms       float64           `json:"delay_p50_ms"` // delay added, read to write
	DelayP99Ms       float64           `json:"delay_p99_ms"`
	DelayMaxMs       float64           `json:"delay_max_ms"`
	LateP50Ms        float64           `json:"late_p50_ms"` // written after the link's release time by
	LateP99Ms        float64           `json:"late_p99_ms"`
	LateMaxMs        float64           `json:"late_max_ms"`
	JitterMs         float64           `json:"jitter_ms"`          // RFC 3550, of the relayed stream
	LossRate         float64           `json:"loss_rate"`          // copies lost by the link / copies sent
	MeanBurst        float64           `json:"mean_burst"`         // lost originals per run of losses
	PacketsPerSecond float64           `json:"packets_per_second"` // written
	BitsPerSecond    float64           `json:"bits_per_second"`
	Configured       map[string]string `json:"configured"` // the link new clients get, key (without up./down.) → value
}

// FlowDirCounters is one direction of one client in GET /counters.
type FlowDirCounters struct {
	Received    uint64            `json:"received"`
	Written     uint64            `json:"written"`
	Lost        uint64            `json:"lost"` // copies the link's loss model dropped
	Bytes       uint64            `json:"bytes"`
	DelayMeanMs float64           `json:"delay_mean_ms"`
	JitterMs    float64           `json:"jitter_ms"`  // RFC 3550
	Configured  map[string]string `json:"configured"` // the client's link, as DirCounters.Configured
}

// FlowCounters is one client in GET /counters.
type FlowCounters struct {
	Flow string          `json:"flow"`
	Up   FlowDirCounters `json:"up"`
	Down FlowDirCounters `json:"down"`
}

// CountersReply is GET /counters.
type CountersReply struct {
	WallSeconds float64        `json:"wall_seconds"`
	Clients     int            `json:"clients"`
	ClientsSeen uint64         `json:"clients_seen"`
	Expired     uint64         `json:"expired"`
	Evicted     uint64         `json:"evicted"`
	Refused     uint64         `json:"refused"` // datagrams of new clients refused at a table of active conversations
	Up          DirCounters    `json:"up"`
	Down        DirCounters    `json:"down"`
	Flows       []FlowCounters `json:"flows"` // never null: [] with no clients
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// configured is a link's settings as the registry prints them, keyed
// without the direction: "latency" → "20ms".
func (r Registry) configured(p netem.Params) map[string]string {
	links := netem.Pair{Up: p}
	out := map[string]string{}
	for _, q := range r.Keys() {
		if k, ok := strings.CutPrefix(q.Name, "up."); ok {
			out[k] = q.Get(&links)
		}
	}
	return out
}

// Counters gathers GET /counters, printing the links' settings with reg.
func Counters(reg Registry, src Source) CountersReply {
	st, au := src.Stats(), src.Audit()
	out := CountersReply{WallSeconds: au.Wall.Seconds(), Clients: st.Flows, ClientsSeen: st.FlowsSeen, Expired: st.Expired, Evicted: st.Evicted, Refused: st.Refused,
		Flows: []FlowCounters{}}
	for d, dst := range []*DirCounters{&out.Up, &out.Down} {
		da := au.Dirs[d]
		c := da.Counters
		*dst = DirCounters{Received: c.Received, KernelDropped: c.KernelDropped, Overflow: c.Overflow, Sent: c.Sent, Duplicated: c.Duplicated,
			Lost: c.Lost, QueueDropped: c.QueueDropped, Discarded: c.Discarded, Released: c.Released, WriteFailed: c.WriteFailed,
			Delivered: c.Delivered, Reordered: c.Reordered, InFlight: c.InFlight, LostOriginals: c.LostOriginals, LossBursts: c.LossBursts,
			DelayP50Ms: ms(da.DelayP50), DelayP99Ms: ms(da.DelayP99), DelayMaxMs: ms(da.DelayMax),
			LateP50Ms: ms(da.LateP50), LateP99Ms: ms(da.LateP99), LateMaxMs: ms(da.LateMax),
			JitterMs: ms(da.Jitter), MeanBurst: c.MeanBurst(), Configured: reg.configured(da.Configured)}
		if n := c.Sent + c.Duplicated; n > 0 {
			dst.LossRate = float64(c.Lost) / float64(n)
		}
		if s := au.Wall.Seconds(); s > 0 {
			dst.PacketsPerSecond, dst.BitsPerSecond = float64(c.Delivered)/s, 8*float64(da.Bytes)/s
		}
	}
	flowDir := func(f proxy.FlowDirAudit) FlowDirCounters {
		return FlowDirCounters{Received: f.Received, Written: f.Written, Lost: f.Lost, Bytes: f.Bytes,
			DelayMeanMs: ms(f.DelayMean), JitterMs: ms(f.Jitter), Configured: reg.configured(f.Configured)}
	}
	for _, f := range au.Flows {
		out.Flows = append(out.Flows, FlowCounters{Flow: f.Addr, Up: flowDir(f.Dirs[proxy.Up]), Down: flowDir(f.Dirs[proxy.Down])})
	}
	return out
}

func (h *handler) counters(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		fail(w, http.StatusMethodNotAllowed, fmt.Errorf("%s /counters: allowed GET", r.Method))
		return
	}
	if _, err := queryParams(r, `it takes none (every client is in "flows")`); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	reply(w, Counters(h.c.reg, h.src))
}

func (h *handler) metrics(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		fail(w, http.StatusMethodNotAllowed, fmt.Errorf("%s /metrics: allowed GET", r.Method))
		return
	}
	if _, err := queryParams(r, "it takes none"); err != nil {
		fail(w, http.StatusBadRequest, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	WriteMetrics(w, h.src.Stats(), h.src.Audit())
}
