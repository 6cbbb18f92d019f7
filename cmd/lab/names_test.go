package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"jitterlab/batch"
	"jitterlab/internal/testtool"
)

// QA 4: one set of metric names. diagnose names every report-card figure
// as ab and sweep do (judder_mps, visible_lag_p99_ms, …): in its --metric,
// its JSON (which follows the schema in docs/) and the tables of its text.
func TestDiagnoseNamesMetricsAsAbAndSweep(t *testing.T) {
	testtool.NotUnderRace(t, "default diagnoses, ab and sweep runs: one goroutine's arithmetic each")
	t.Parallel() // long and independent of the others
	code, out, errOut := runLab(t, "ab", "--duration", "3s", "--seeds", "1-2", "--b", "server.inputs=queue", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var abNames []string
	for _, m := range decodeJSON(t, []byte(out), "ab --json").(map[string]any)["arms"].([]any)[0].(map[string]any)["metrics"].([]any) {
		abNames = append(abNames, m.(map[string]any)["name"].(string))
	}
	code, out, errOut = runLab(t, "diagnose", "--duration", "3s", "--seeds", "1-2", "--metric", "visible_lag_p99_ms", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	s := loadSchema(t)
	v := decodeJSON(t, []byte(out), "diagnose --json")
	if err := s.validate(v, s.def("diagnosis"), "$"); err != nil {
		t.Errorf("diagnose --json does not follow $defs/diagnosis: %v", err)
	}
	if err := s.validate(v, s.root, "$"); err != nil {
		t.Errorf("diagnose --json does not follow the schema: %v", err)
	}
	d := v.(map[string]any)
	var card []string
	for _, m := range d["reference"].(map[string]any)["report_card"].([]any) {
		card = append(card, m.(map[string]any)["name"].(string))
	}
	if len(card) == 0 || !slices.Equal(card, abNames[:len(card)]) {
		t.Errorf("diagnose's report card %v; ab's metrics %v", card, abNames)
	}
	for i, m := range batch.Metrics[:len(card)] {
		if m.Name != card[i] {
			t.Errorf("metric %d: diagnose %s, batch %s", i, card[i], m.Name)
		}
	}
	cond := d["conditions"].(map[string]any)
	if cond["metric"] != "visible_lag_p99_ms" || cond["tie_break"] != "progress_deficit_mps" {
		t.Errorf("conditions name the metric %v and the tie-break %v", cond["metric"], cond["tie_break"])
	}
	code, out, errOut = runLab(t, "diagnose", "--duration", "3s", "--seeds", "1-2")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, n := range card {
		if !regexp.MustCompile(`(?m)^ +` + n + ` +([0-9]|- )`).MatchString(out) { // "-": no data (no throttle change to answer)
			t.Errorf("the text's report card has no row %s:\n%s", n, out)
		}
	}
	if !regexp.MustCompile(`change +judder_mps +progress_deficit_mps( +holds in)?\n`).MatchString(out) {
		t.Errorf("the changes table does not name its columns judder_mps and progress_deficit_mps:\n%s", out)
	}
	// A diagnosis with timeline findings (handover's blackout) follows the
	// schema too.
	code, out, errOut = runLab(t, "diagnose", "--scenario", "handover", "--duration", "25s", "--seeds", "1-2", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	v = decodeJSON(t, []byte(out), "diagnose --scenario handover --json")
	if err := s.validate(v, s.root, "$"); err != nil || !strings.Contains(out, `"rule": "blackout"`) {
		t.Errorf("diagnose --scenario handover --json: %v\n%s", err, out)
	}
	// A diagnosis that tries pairs and recommends nothing (an uplink that
	// loses 10 %: no change holds in every cell of the ensemble; over 8
	// seeds × 40 s as over the default 20 × 2 min, at a seventh of the
	// work), and one with a latency spike and a lab ab command to
	// reproduce it, follow the schema too.
	for _, c := range []struct{ scenario, seeds, duration, want, reproduce string }{
		{"../../diagnose/testdata/lossy-uplink.toml", "1-8", "40s", `"beats_reference_and_parts": false`, `"reproduce": ""`},
		{spikeRecommends, "1-6", "", `"rule": "latency-step"`, `"reproduce": "lab ab --scenario ` + spikeRecommends},
	} {
		args := []string{"diagnose", "--scenario", c.scenario, "--seeds", c.seeds, "--json"}
		if c.duration != "" {
			args = append(args, "--duration", c.duration)
		}
		code, out, errOut = runLab(t, args...)
		if code != 0 {
			t.Fatal(errOut)
		}
		v = decodeJSON(t, []byte(out), "diagnose --scenario "+c.scenario+" --json")
		reproduce := c.reproduce
		if err := s.validate(v, s.root, "$"); err != nil || !strings.Contains(out, c.want) || !strings.Contains(out, reproduce) {
			t.Errorf("diagnose --scenario %s --json: %v\n%s", c.scenario, err, out)
		}
	}
	// An old name is refused with the name it now has.
	code, _, errOut = runLab(t, "diagnose", "--metric", "visible_lag_p99")
	if code != 2 || !strings.Contains(errOut, `--metric "visible_lag_p99"`) || !strings.Contains(errOut, "did you mean visible_lag_p99_ms?") {
		t.Errorf("--metric visible_lag_p99: exit %d, %s", code, errOut)
	}
}
