package main

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
)

// A signal during an A/B or a sweep cancels the runs not started and says
// so: how many of how many were done, that nothing was written, and exit
// 128 + the signal. Piped (not a terminal), no progress line is drawn.
func TestSignalCancelsABatchAndSaysWhat(t *testing.T) {
	def := batch.Definition{Kind: "ab", B: []string{"server.inputs=queue"}, Seeds: []uint64{1, 2, 3}, DurationS: 2}
	p := &batch.Plan{Def: def}
	for range def.Arms() {
		cfg := lab.DefaultConfig()
		cfg.Duration = 2 * time.Second
		p.Configs = append(p.Configs, cfg)
	}
	canceled := make(chan struct{})
	close(canceled)
	var stderr strings.Builder
	runs, err := executeUntil(p, batch.Shard{}, 1, "lab ab", &stderr, canceled, func() os.Signal { return syscall.SIGINT })
	var st *exitStatus
	if runs != nil || !errors.As(err, &st) || st.code != 130 {
		t.Fatalf("%d runs, error %v: want none and exit 130", len(runs), err)
	}
	if !regexp.MustCompile(`^interrupt: canceled after 0 of 6 runs \(6 not run\); nothing written$`).MatchString(st.msg) {
		t.Errorf("the message %q does not say what was canceled", st.msg)
	}
	if stderr.Len() != 0 {
		t.Errorf("a progress line on a non-terminal: %q", stderr.String())
	}
	// Without a signal: every run, nothing on stderr.
	runs, err = executeUntil(p, batch.Shard{}, 2, "lab ab", &stderr, nil, nil)
	if err != nil || len(runs) != 6 || stderr.Len() != 0 {
		t.Errorf("%d runs, error %v, stderr %q", len(runs), err, stderr.String())
	}
}
