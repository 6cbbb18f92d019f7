package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// runJudder is 'lab run --json --scenario handover --duration 30s --seed
// seed --set set': its report card's judder and what --set pinned away.
func runJudder(t *testing.T, seed, set string) (float64, []string) {
	t.Helper()
	code, out, errOut := runLab(t, "run", "--json", "--scenario", "handover", "--duration", "30s", "--seed", seed, "--set", set)
	var v struct {
		Card struct {
			Judder float64 `json:"judder_mps"`
		} `json:"report_card"`
		Overridden []string `json:"timeline_overridden"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("run --set %s: code %d, %s", set, code, errOut)
	}
	return v.Card.Judder, v.Overridden
}

// batchJudder is the per-seed judder of every arm of a batch's --json.
func batchJudder(t *testing.T, out string) [][]float64 {
	t.Helper()
	var v struct {
		Arms []struct {
			Metrics []struct {
				Name    string    `json:"name"`
				PerSeed []float64 `json:"per_seed"`
			} `json:"metrics"`
		} `json:"arms"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	var js [][]float64
	for _, a := range v.Arms {
		for _, m := range a.Metrics {
			if m.Name == "judder_mps" {
				js = append(js, m.PerSeed)
			}
		}
	}
	return js
}

const handoverLossDropped = "20s link.loss=100%, 21s link.loss=1%"

// QA 5: a key --a or --b sets is pinned as --set pins it: the scenario's
// timeline entries for it are dropped (handover's blackout, for
// link.loss), so B is exactly 'lab run --set' of B's settings, and the
// header lists what B's settings overrode.
func TestABPinsItsVariantsKeys(t *testing.T) {
	code, out, errOut := runLab(t, "ab", "--scenario", "handover", "--duration", "30s", "--seeds", "1-2", "--b", "link.loss=0.5%", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	js := batchJudder(t, out)
	for i, seed := range []string{"1", "2"} {
		want, dropped := runJudder(t, seed, "link.loss=0.5%")
		if js[1][i] != want || strings.Join(dropped, ", ") != handoverLossDropped {
			t.Errorf("seed %s: B's judder %v, 'lab run --set link.loss=0.5%%' %v (it dropped %v)", seed, js[1][i], want, dropped)
		}
	}
	code, out, errOut = runLab(t, "ab", "--scenario", "handover", "--duration", "30s", "--seeds", "1-2", "--b", "link.loss=0.5%")
	if code != 0 || !strings.Contains(out, "B: link.loss=0.5% (timeline entries overridden by --b: "+handoverLossDropped+")") {
		t.Errorf("code %d, %s; the header does not say what --b overrode:\n%s", code, errOut, out)
	}
}

// QA 5: a key --over sweeps is pinned as --set pins it: every value of the
// sweep is 'lab run --set key=value', and the header lists the overridden
// timeline entries.
func TestSweepPinsItsKeys(t *testing.T) {
	code, out, errOut := runLab(t, "sweep", "--scenario", "handover", "--duration", "30s", "--seeds", "3", "--over", "link.loss=0%,2%", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	js := batchJudder(t, out)
	for i, v := range []string{"0%", "2%"} {
		if want, _ := runJudder(t, "3", "link.loss="+v); js[i][0] != want {
			t.Errorf("link.loss=%s: the sweep's judder %v, 'lab run --set link.loss=%s' %v", v, js[i][0], v, want)
		}
	}
	code, out, errOut = runLab(t, "sweep", "--scenario", "handover", "--duration", "30s", "--seeds", "3", "--over", "link.loss=0%,2%")
	if code != 0 || !strings.Contains(out, "timeline entries overridden by --over: "+handoverLossDropped) {
		t.Errorf("code %d, %s; the header does not say what --over overrode:\n%s", code, errOut, out)
	}
}

// A repeated --b (or --a) adds its settings to the variant, as a repeated
// --set does: 'lab ab --b server.inputs=queue --b client.smoothing=movetowards'
// is B = both, not the last one alone (the README's zigzag example was the
// last one alone), and a key the two give twice is refused.
func TestABRepeatedVariantFlagAddsItsSettings(t *testing.T) {
	code, out, errOut := runLab(t, "ab", "--scenario", "jitter-fix", "--duration", "10s", "--seeds", "1",
		"--b", "server.inputs=queue", "--b", "client.smoothing=movetowards", "--a", "client.sender=frame", "--a", "client.replay=single")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"A: client.sender=frame client.replay=single\n", "B: server.inputs=queue client.smoothing=movetowards\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the header lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = runLab(t, "ab", "--duration", "10s", "--seeds", "1", "--b", "server.inputs=queue", "--b", "server.inputs=buffer")
	if code == 0 || !strings.Contains(errOut, "server.inputs=queue and server.inputs=buffer set server.inputs twice") {
		t.Errorf("code %d; a key given in two --b is not refused by name: %s", code, errOut)
	}
}
