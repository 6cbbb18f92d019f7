#!/usr/bin/env bash
# End-to-end test of the lab's terminal UI: the real binary in tmux at the
# terminal default of 80×24. It waits for the charts, raises the latency by
# typing a value over the pre-filled one, sees the new value and the status
# message, records with R, quits with q (exit status 0), and checks that
# the recording replays with 'lab replay --verify'. Then it records again
# and ends the lab with SIGTERM (exit status 143): that recording must be
# closed and verify too.
# Last it shows the report card (p), diagnoses the settings in force (d),
# which must recommend what 'lab diagnose' does, and runs that as B (a).
# Then 'lab proxy' on a terminal opens its live screen: datagrams sent
# through it are counted, a typed latency reaches the relay, R records
# from then on to a file lab replay reads, and q ends it
# with the summary.
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/need.sh
need tmux tmux

tmp=$(mktemp -d)
sock="$tmp/tmux.sock"
t() { tmux -S "$sock" "$@"; }
cleanup() { t kill-server 2>/dev/null || true; rm -rf "$tmp"; }
# fresh ends the tmux server of the previous part and waits until it is gone:
# a new session started while the last one's server is still exiting fails
# with "server exited unexpectedly".
fresh() {
  t kill-server 2>/dev/null || true
  for _ in $(seq 100); do t has-session 2>/dev/null || { [ -S "$sock" ] || break; }; sleep 0.05; done
  rm -f "$sock"
}
trap cleanup EXIT

# 'go build ./cmd/lab' would write ./lab, which is the lab/ package folder.
go build -o "$tmp/jitterlab" ./cmd/lab

fail() {
  echo "e2e-tui: FAIL: $*"
  echo "---- screen ----"; t capture-pane -p -t e2e 2>/dev/null || true
  exit 1
}

# wait_for TEXT: poll the screen for TEXT for up to 20 s.
wait_for() {
  for _ in $(seq 200); do
    if t capture-pane -p -t e2e | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  fail "no \"$1\" on screen"
}

# start: run the lab in a fresh 80×24 tmux session in $tmp/rec; the exit
# status lands in $tmp/status.
start() {
  rm -f "$tmp/status"
  mkdir -p "$tmp/rec"
  t new-session -d -s e2e -x 80 -y 24 \
    "cd '$tmp/rec' && TERM=xterm-256color '$tmp/jitterlab' --dir '$tmp/rec' $* 2>'$tmp/stderr'; echo \$? > '$tmp/status'; sleep 30"
  wait_for "tick offset"
  wait_for "send interval"
  wait_for "visible error"
  wait_for "rtt (ms)"
}

# exited: wait up to 10 s for the lab to end and return its exit status.
exited() {
  for _ in $(seq 100); do
    if [ -s "$tmp/status" ]; then cat "$tmp/status"; return 0; fi
    sleep 0.1
  done
  fail "the lab did not exit"
}

verify() {
  out=$("$tmp/jitterlab" replay "$1" --verify 2>&1) || fail "$1 does not verify: $out"
  echo "$out" | tail -1
}

echo "== e2e-tui: typed latency, R, q at 80×24"
start
wait_for " latency       50ms         50ms"
t send-keys -t e2e Enter
wait_for "up.latency = 50ms"
t send-keys -t e2e -l "80ms"
t send-keys -t e2e Enter
wait_for " latency       80ms         50ms"
wait_for "up.latency = 80ms at"
t send-keys -t e2e R
wait_for "● REC"
wait_for "recording the whole session from t 0"
sleep 2
t send-keys -t e2e q
status=$(exited)
[ "$status" = 0 ] || fail "q exited with status $status"
recs=("$tmp"/rec/*.jlrec)
[ ${#recs[@]} = 1 ] && [ -f "${recs[0]}" ] || fail "expected one recording, found: ${recs[*]}"
grep -qF "recorded ${recs[0]}" "$tmp/stderr" || fail "the lab did not name its recording on exit: $(cat "$tmp/stderr")"
verify "${recs[0]}"
fresh

echo "== e2e-tui: SIGTERM closes the open recording"
rm -f "$tmp"/rec/*.jlrec
start
t send-keys -t e2e R
wait_for "● REC"
sleep 2
pane=$(t display-message -p -t e2e '#{pane_pid}')
lab=$(pgrep -P "$pane" -x jitterlab) || fail "no lab process under the pane's shell $pane"
kill -TERM "$lab"
status=$(exited)
[ "$status" = 143 ] || fail "SIGTERM exit status $status, want 143 (128 + 15, as 'lab run')"
grep -qF "lab: terminated: stopped at t " "$tmp/stderr" || fail "no stop message: $(cat "$tmp/stderr")"
recs=("$tmp"/rec/*.jlrec)
[ -f "${recs[0]}" ] || fail "no recording after SIGTERM"
verify "${recs[0]}"

# On mobile-4g, where the diagnosis recommends changes that hold in every
# cell of its ensemble (on jitter-fix none does).
echo "== e2e-tui: p report card, d diagnoses as 'lab diagnose' does, a runs it as B"
rec=$("$tmp/jitterlab" diagnose --scenario mobile-4g | grep '^recommended: ') || fail "lab diagnose printed no recommendation"
[ "$rec" != "recommended: (none)" ] || fail "lab diagnose --scenario mobile-4g recommends nothing: the test needs a recommendation"
fresh
start --scenario mobile-4g
t send-keys -t e2e p
wait_for "player's report card"
wait_for "visible lag p50/99"
t send-keys -t e2e d
wait_for "$(echo "$rec" | cut -d' ' -f1-2)" # the box wraps a long recommendation: its first change
t send-keys -t e2e NPage # the box's first screen is the answer; the command is a page down
wait_for "lab diagnose --scenario mobile-4g --seeds 1-20 --duration 2m0s"
t send-keys -t e2e a
b=${rec#recommended: }
wait_for "B runs the recommended ${b%% *}"
wait_for "A/B"
t send-keys -t e2e q
status=$(exited)
[ "$status" = 0 ] || fail "q exited with status $status"

echo "== e2e-tui: lab proxy's live screen"
fresh
listen=$((40000 + $$ % 20000)); target=$((listen + 1))
rm -f "$tmp/status"
t new-session -d -s e2e -x 80 -y 24 -c "$tmp" \
  "TERM=xterm-256color '$tmp/jitterlab' proxy --listen 127.0.0.1:$listen --to 127.0.0.1:$target 2>'$tmp/stderr'; echo \$? > '$tmp/status'; sleep 30"
wait_for "configured (set) and realised"
wait_for "added delay (ms)"
exec 3>"/dev/udp/127.0.0.1/$listen"
for _ in $(seq 10); do echo ping >&3; done
exec 3>&-
wait_for "clients 1"
t send-keys -t e2e Enter
wait_for "up.latency = 0"
t send-keys -t e2e -l "80ms"
t send-keys -t e2e Enter
wait_for "up.latency = 80ms at +"
wait_for " up set        ≈80.0"
# R records from now to a new file in the current folder; R again closes it.
t send-keys -t e2e R
wait_for "recording to jitterlab-proxy-"
exec 3>"/dev/udp/127.0.0.1/$listen"
for _ in $(seq 5); do echo ping >&3; done
exec 3>&-
wait_for "clients 2"
t send-keys -t e2e R
# (the status line may have moved on to the relay's error: nothing listens at the target)
rec=$(ls "$tmp"/jitterlab-proxy-*.jlrec | head -1)
for _ in $(seq 100); do case $("$tmp/jitterlab" replay "$rec") in *"not closed"*) sleep 0.1 ;; *) break ;; esac; done
replayed=$("$tmp/jitterlab" replay "$rec")
case $replayed in *"not closed"*) fail "R's recording was not closed by R: $replayed" ;; esac
case $replayed in *"read up 5,"*) ;; *) fail "R's recording: $replayed" ;; esac
t send-keys -t e2e q
status=$(exited)
[ "$status" = 0 ] || fail "proxy q exited with status $status: $(cat "$tmp/stderr")"
# The summary, the clients and the audit follow: more than a screen.
t capture-pane -p -S - -t e2e | grep -qF "summary after" || fail "no summary after q"
t capture-pane -p -S - -t e2e | grep -qF "audit over" || fail "no audit after q"

echo "e2e-tui: ok"
