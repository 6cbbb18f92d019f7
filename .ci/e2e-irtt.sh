#!/usr/bin/env bash
# End-to-end check of 'lab fit' on a real tool: Debian's irtt (installed
# when missing) measures one-way delays and loss through 'lab proxy' set to
# known parameters; 'lab fit' of irtt's JSON must recover them.
#
# irtt speaks UDP only (its handshake too), so the UDP relay carries it.
# Tolerances, with n ≈ 3000 packets per direction:
#   latency 50 ms: in [49, 54] ms — 4 standard errors (σ/√n ≈ 0.2 ms) below,
#     and up to 4 ms above for what real sockets, the relay's timers and a
#     busy host add to every packet;
#   jitter 20 ms uniform: the distribution uniform both ways, the half-width
#     within 3 ms (the fit's 5/√n plus the host's scheduling spread);
#   up loss 2 %: within 1.1 points (4·√(p(1−p)/n)); down loss below 0.5 %;
#   the scenario written by --out loads in 'lab run'.
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/need.sh
need irtt irtt

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/lab" ./cmd/lab
server=$((20000 + RANDOM % 20000)); relay=$((server + 1))

echo "== irtt server on 127.0.0.1:$server, lab proxy on 127.0.0.1:$relay (50 ms ± 20 ms uniform, 2 % loss up)"
irtt server -b "127.0.0.1:$server" >"$work/server.log" 2>&1 & pids+=($!)
"$work/lab" proxy --listen "127.0.0.1:$relay" --to "127.0.0.1:$server" \
  --set link.latency=50ms --set link.jitter=20ms --set up.loss=2% --duration 90s >"$work/proxy.log" 2>&1 & pids+=($!)
sleep 1

echo "== irtt client -i 15ms -d 45s through the proxy"
irtt client -i 15ms -d 45s -q -o "$work/out.json" "127.0.0.1:$relay" >"$work/client.log" 2>&1 || {
  echo "irtt client failed:"; cat "$work/client.log" "$work/proxy.log"; exit 1; }

echo "== lab fit out.json --out fitted.toml"
"$work/lab" fit "$work/out.json" --out "$work/fitted.toml" --html "$work/fit.html" >"$work/report.txt"
cat "$work/report.txt"
cat "$work/fitted.toml"

# value KEY: the fitted value of KEY without its unit.
value() { sed -n "s/^$1 = \"\{0,1\}\([-0-9.]*\).*/\1/p" "$work/fitted.toml"; }
fail=0
check() { # name value lo hi
  if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN{exit !(v != "" && v >= lo && v <= hi)}'; then
    echo "ok   $1 = $2 in [$3, $4]"
  else
    echo "FAIL $1 = $2 not in [$3, $4]"; fail=1
  fi
}
for d in up down; do
  check "$d.latency (ms)" "$(value "$d.latency")" 49 54
  check "$d.jitter (ms)" "$(value "$d.jitter")" 17 23
  dist=$(sed -n "s/^$d.jitter_dist = \"\(.*\)\"/\1/p" "$work/fitted.toml")
  [ "$dist" = uniform ] && echo "ok   $d.jitter_dist = uniform" || { echo "FAIL $d.jitter_dist = $dist, want uniform"; fail=1; }
done
check "up.loss (%)" "$(value up.loss)" 0.9 3.1
check "down.loss (%)" "$(value down.loss)" 0 0.5
"$work/lab" run --scenario "$work/fitted.toml" --duration 5s >/dev/null || { echo "FAIL: lab run --scenario fitted.toml"; fail=1; }
grep -q '<svg' "$work/fit.html" || { echo "FAIL: --html wrote no chart"; fail=1; }
exit $fail
