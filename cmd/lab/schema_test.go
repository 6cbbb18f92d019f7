package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"jitterlab/batch"
	"jitterlab/lab"
)

// jsonSchema validates documents against docs/jitterlab.schema.json with
// the keywords it uses: $ref (to #/$defs), type, properties, required,
// additionalProperties, items, enum, const, minimum, pattern and oneOf.
type jsonSchema struct{ root map[string]any }

func loadSchema(t *testing.T) *jsonSchema {
	t.Helper()
	b, err := os.ReadFile("../../docs/jitterlab.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatalf("docs/jitterlab.schema.json: %v", err)
	}
	return &jsonSchema{root}
}

func (s *jsonSchema) def(name string) map[string]any {
	return s.root["$defs"].(map[string]any)[name].(map[string]any)
}

// validate returns the first violation of v against sc at path, or nil.
func (s *jsonSchema) validate(v any, sc map[string]any, path string) error {
	if ref, ok := sc["$ref"].(string); ok {
		return s.validate(v, s.def(strings.TrimPrefix(ref, "#/$defs/")), path)
	}
	if alts, ok := sc["oneOf"].([]any); ok {
		n := 0
		var errs []string
		for _, a := range alts {
			if err := s.validate(v, a.(map[string]any), path); err == nil {
				n++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: matches %d of oneOf (%s)", path, n, strings.Join(errs, "; "))
		}
	}
	if t, ok := sc["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		if !slices.Contains(types, typeOf(v)) && !(typeOf(v) == "integer" && slices.Contains(types, "number")) {
			return fmt.Errorf("%s: %s, want %v", path, typeOf(v), types)
		}
	}
	if c, ok := sc["const"]; ok && fmt.Sprint(c) != fmt.Sprint(v) {
		return fmt.Errorf("%s: %v, want %v", path, v, c)
	}
	if e, ok := sc["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) }) {
		return fmt.Errorf("%s: %v is not one of %v", path, v, e)
	}
	if m, ok := sc["minimum"].(float64); ok {
		if n, isNum := v.(json.Number); isNum {
			if f, _ := n.Float64(); f < m {
				return fmt.Errorf("%s: %v below %v", path, v, m)
			}
		}
	}
	if p, ok := sc["pattern"].(string); ok {
		if str, isStr := v.(string); isStr && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", path, str, p)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := sc["properties"].(map[string]any)
		for _, r := range asList(sc["required"]) {
			if _, ok := v[r]; !ok {
				return fmt.Errorf("%s: no %q", path, r)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := props[k]; ok {
				if err := s.validate(v[k], p.(map[string]any), path+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := sc["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s: %q is not in the schema", path, k)
				}
			case map[string]any:
				if err := s.validate(v[k], ap, path+"."+k); err != nil {
					return err
				}
			}
		}
	case []any:
		if it, ok := sc["items"].(map[string]any); ok {
			for i, x := range v {
				if err := s.validate(x, it, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func asList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		out = append(out, x.(string))
	}
	return out
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if strings.ContainsAny(v.String(), ".eE") {
			return "number"
		}
		return "integer"
	}
	return fmt.Sprintf("%T", v)
}

func decodeJSON(t *testing.T, b []byte, what string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s is not JSON: %v", what, err)
	}
	return v
}

// TestOutputsFollowTheJSONSchema (issue 10 item 2): every JSON output —
// run --json (with and without a scenario), ab/sweep/merge --json, every
// line of --jsonl and of a shard, a shard's header — validates against the schema in docs/,
// names its schema version, scenario and full parameter set; the schema
// lists exactly the batch metrics and docs/reference/json.md explains them.
func TestOutputsFollowTheJSONSchema(t *testing.T) {
	s := loadSchema(t)
	dir := t.TempDir()
	check := func(what string, b []byte, def string) map[string]any {
		t.Helper()
		v := decodeJSON(t, b, what)
		if err := s.validate(v, s.def(def), "$"); err != nil {
			t.Errorf("%s does not follow $defs/%s: %v", what, def, err)
		}
		if err := s.validate(v, s.root, "$"); err != nil {
			t.Errorf("%s does not follow the schema: %v", what, err)
		}
		m, _ := v.(map[string]any)
		return m
	}
	var keys []string
	for _, p := range lab.Params() {
		keys = append(keys, p.Key)
	}
	sort.Strings(keys)
	hasAllParams := func(what string, m map[string]any) {
		t.Helper()
		params, _ := m["params"].(map[string]any)
		var got []string
		for k := range params {
			got = append(got, k)
		}
		sort.Strings(got)
		if !slices.Equal(got, keys) {
			t.Errorf("%s: params %v, want every registry key", what, got)
		}
	}
	for _, args := range [][]string{
		{"run", "--duration", "3s", "--json"},
		{"run", "--scenario", "handover", "--duration", "3s", "--json", "--set", "link.loss=1%"},
	} {
		code, out, errOut := runLab(t, args...)
		if code != 0 {
			t.Fatal(errOut)
		}
		m := check(strings.Join(args, " "), []byte(out), "run")
		hasAllParams("run --json", m)
		if args[1] == "--scenario" && (m["scenario"] != "handover" || m["scenario_file"] != "builtin/handover.toml") {
			t.Errorf("run --json names scenario %v (%v)", m["scenario"], m["scenario_file"])
		}
	}
	jsonl := filepath.Join(dir, "runs.jsonl")
	for _, args := range [][]string{
		{"ab", "--scenario", "jitter-fix", "--duration", "3s", "--seeds", "1-3", "--b", "server.inputs=queue", "--json", "--jsonl", jsonl},
		{"sweep", "--over", "link.jitter=0ms,20ms", "--over", "client.sender=frame,accumulator", "--duration", "3s", "--seeds", "1-2", "--json", "--jsonl", jsonl},
		{"ab", "--duration", "3s", "--seeds", "4", "--b", "server.inputs=queue", "--json", "--jsonl", jsonl},
	} {
		code, out, errOut := runLab(t, args...)
		if code != 0 {
			t.Fatal(errOut)
		}
		check(strings.Join(args, " "), []byte(out), "result")
		lines := readLines(t, jsonl)
		if len(lines) == 0 {
			t.Fatalf("%v wrote no lines", args)
		}
		for i, l := range lines {
			m := check(fmt.Sprintf("%s line %d", args[0], i+1), []byte(l), "run_line")
			hasAllParams(args[0]+" --jsonl", m)
		}
		if code, out, errOut := runLab(t, "merge", jsonl, "--json"); code != 0 {
			t.Fatal(errOut)
		} else {
			check("merge --json", []byte(out), "result")
		}
	}
	// A shard: its header line, then its runs; with more shards than runs,
	// the header alone.
	for _, i := range []string{"1", "3"} {
		shard := filepath.Join(dir, "shard-"+i+".jsonl")
		if code, _, errOut := runLab(t, "sweep", "--over", "link.loss=0%,1%", "--seeds", "1", "--duration", "2s", "--shard", i+"/3", "--jsonl", shard); code != 0 {
			t.Fatal(errOut)
		}
		for k, l := range readLines(t, shard) {
			def := map[bool]string{true: "shard_header", false: "run_line"}[k == 0]
			check(fmt.Sprintf("shard %s/3 line %d", i, k+1), []byte(l), def)
		}
	}
	// The schema and the docs name exactly the metrics a batch writes.
	var names []string
	for _, m := range batch.Metrics {
		names = append(names, m.Name)
	}
	if got := asList(s.def("metrics")["required"]); !slices.Equal(got, names) {
		t.Errorf("the schema's metrics %v, the batch's %v", got, names)
	}
	doc, err := os.ReadFile("../../docs/reference/json.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(names, "schema", "batch_hash", "params", "run_line", "change_pct", fmt.Sprintf("schema %d", batch.Schema)) {
		if !strings.Contains(string(doc), "`"+n+"`") && !strings.Contains(string(doc), n) {
			t.Errorf("docs/reference/json.md does not explain %q", n)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, batch.MaxLine)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// TestCSVBooleansAreWrittenOneWay (issue 10 item 2): every boolean column
// of every CSV is true/false: the packets' duplicate column was 0/1 beside
// reordered's true/false.
func TestCSVBooleansAreWrittenOneWay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.csv")
	if code, _, errOut := runLab(t, "run", "--duration", "5s", "--set", "link.duplicate=30%", "--set", "link.jitter=40ms", "--set", "link.jitter_dist=normal", "--packets", path); code != 0 {
		t.Fatal(errOut)
	}
	lines := readLines(t, path)
	head := strings.Split(lines[0], ",")
	seen := map[string]map[string]bool{"duplicate": {}, "reordered": {}}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		for col := range seen {
			seen[col][f[slices.Index(head, col)]] = true
		}
	}
	for col, vals := range seen {
		if len(vals) != 2 || !vals["true"] || !vals["false"] {
			t.Errorf("column %s holds %v; want true and false", col, vals)
		}
	}
}

// The validator itself fails on what the schema forbids.
func TestSchemaValidatorRejects(t *testing.T) {
	s := loadSchema(t)
	code, out, _ := runLab(t, "run", "--duration", "2s", "--json")
	if code != 0 {
		t.Fatal(out)
	}
	for _, c := range []struct{ from, to string }{
		{`"schema": 2`, `"schema": 1`},
		{`"kind": "run"`, `"kind": "run", "extra": 1`},
		{`"sim_s": 2`, `"sim_s": "2"`},
		{`"scenario": "default",`, ``},
		{`"snaps": 0`, `"snaps": -1`},
		{`"client.band": "2"`, `"client.band": 2`},
	} {
		bad := strings.Replace(out, c.from, c.to, 1)
		if bad == out {
			t.Fatalf("%q not in the output", c.from)
		}
		if err := s.validate(decodeJSON(t, []byte(bad), c.to), s.root, "$"); err == nil {
			t.Errorf("%q → %q passes the schema", c.from, c.to)
		}
	}
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// jsonKeys lists every object key in v, but the registry keys under params.
func jsonKeys(v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out[k] = true
			if k != "params" {
				jsonKeys(x, out)
			}
		}
	case []any:
		for _, x := range v {
			jsonKeys(x, out)
		}
	}
}

// TestNamesAreSnakeCaseWithUnits (issue 10 item 2): every CSV column and
// JSON key of run, ab and sweep is snake_case (the sweep CSV had
// "judder m/s"); every batch metric ends in its unit or is a count.
func TestNamesAreSnakeCaseWithUnits(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	names := map[string]bool{}
	for _, args := range [][]string{
		{"run", "--duration", "2s", "--json", "--csv", p("timeline.csv"), "--packets", p("packets.csv")},
		{"sweep", "--over", "link.loss=0%,1%", "--seeds", "1-2", "--duration", "2s", "--json", "--csv", p("sweep.csv"), "--jsonl", p("sweep.jsonl")},
		{"ab", "--b", "server.inputs=queue", "--seeds", "1-2", "--duration", "2s", "--json", "--csv", p("ab.csv")},
	} {
		code, out, errOut := runLab(t, args...)
		if code != 0 {
			t.Fatal(errOut)
		}
		jsonKeys(decodeJSON(t, []byte(out), args[0]), names)
	}
	for _, l := range readLines(t, p("sweep.jsonl")) {
		jsonKeys(decodeJSON(t, []byte(l), "line"), names)
	}
	for _, f := range []string{"timeline.csv", "packets.csv", "sweep.csv", "ab.csv"} {
		for _, col := range strings.Split(readLines(t, p(f))[0], ",") {
			if col != "link.loss" { // the sweep's key, as --over names it
				names[col] = true
			}
		}
	}
	for n := range names {
		if !snakeCase.MatchString(n) {
			t.Errorf("%q is not snake_case", n)
		}
	}
	for _, m := range batch.Metrics {
		if !m.Count && !regexp.MustCompile(`_(mps|ms|m|s|pct|share|per_min)$`).MatchString(m.Name) {
			t.Errorf("metric %s has no unit suffix", m.Name)
		}
	}
}

// TestMetricsHaveOneNameEverywhere (issue 10, QA item 7): a batch metric
// (ab, sweep, merge: text, CSV, JSON) has the name and the value 'lab run
// --json' gives the same figure of the same run, a percentile flattened as
// name_pNN_unit (input_delay_ms.p50 is input_delay_p50_ms); and the ab CSV
// writes each metric with the decimals of the table, counts as integers.
// The input stops and goes, so every figure has data (the local response
// needs throttle changes).
func TestMetricsHaveOneNameEverywhere(t *testing.T) {
	code, out, errOut := runLab(t, "run", "--scenario", "jitter-fix", "--set", "input.script=stopgo", "--duration", "20s", "--seed", "3", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var run map[string]any
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	flat := map[string]float64{}
	var walk func(m map[string]any)
	walk = func(m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case float64:
				flat[k] = v
			case map[string]any:
				if k == "report_card" {
					walk(v)
					continue
				}
				i := strings.LastIndex(k, "_")
				for q, x := range v {
					if f, ok := x.(float64); ok && i > 0 {
						flat[k[:i]+"_"+q+k[i:]] = f
					}
				}
			}
		}
	}
	walk(run)
	csvPath := filepath.Join(t.TempDir(), "ab.csv")
	code, out, errOut = runLab(t, "ab", "--scenario", "jitter-fix", "--set", "input.script=stopgo", "--duration", "20s", "--seeds", "3", "--b", "server.inputs=queue", "--json", "--csv", csvPath)
	if code != 0 {
		t.Fatal(errOut)
	}
	var res struct {
		Arms []struct {
			Metrics []struct {
				Name    string    `json:"name"`
				PerSeed []float64 `json:"per_seed"`
			} `json:"metrics"`
		} `json:"arms"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Arms) != 2 {
		t.Fatalf("ab --json: %v", err)
	}
	for _, m := range res.Arms[0].Metrics {
		v, ok := flat[m.Name]
		if !ok {
			t.Errorf("ab's metric %s is not in run --json (which has %v)", m.Name, slices.Sorted(maps.Keys(flat)))
		} else if len(m.PerSeed) != 1 || m.PerSeed[0] != v {
			t.Errorf("ab's %s is %v, run --json's %v", m.Name, m.PerSeed, v)
		}
	}
	rows := readLines(t, csvPath)
	head := strings.Split(rows[0], ",")
	for _, row := range rows[1:] {
		for i, v := range strings.Split(row, ",")[2:] {
			m := batch.Metrics[i]
			want := m.Prec
			if m.Count {
				want = 0
			}
			_, frac, _ := strings.Cut(v, ".")
			if v != "" && len(frac) != want {
				t.Errorf("ab CSV %s = %q: want %d decimals", head[i+2], v, want)
			}
		}
	}
}
