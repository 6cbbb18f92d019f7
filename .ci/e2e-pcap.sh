#!/usr/bin/env bash
# End-to-end check of 'lab run --pcap' with Wireshark's reader: Debian's
# tshark (installed when missing) reads the capture, and per direction the
# packets on the sender's side equal the run's "sent", those on the
# receiver's side its "delivered"; every packet is dissected down to UDP
# and carries its fate as a comment; the lost, queue-dropped, duplicated
# and reordered the comments say are the run's; timestamps are true time,
# in order, within the run.
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/need.sh
need tshark tshark

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/lab" ./cmd/lab

echo "== lab run --pcap"
"$work/lab" run --duration 30s --json --pcap "$work/run.pcapng" --set link.latency=40ms --set link.jitter=15ms \
  --set link.loss=5% --set link.duplicate=3% --set link.reorder=5% --set down.rate=7kbit --set down.queue=8 >"$work/summary.json"

# summary DIR KEY is a counter of the JSON summary's "up" or "down".
summary() {
  awk -v dir="\"$1\": {" -v key="\"$2\":" 'index($0, dir) { on = 1 } on && index($0, key) { gsub(/[^0-9]/, ""); print; exit }' "$work/summary.json"
}
tshark_q() { tshark -r "$work/run.pcapng" "$@" 2>/dev/null; }
count() { tshark_q -Y "$1" | wc -l; }
failed=0
expect() { # NAME GOT WANT: both must be numbers, and equal
  if [[ ! "$2" =~ ^[0-9]+$ || ! "$3" =~ ^[0-9]+$ || "$2" -ne "$3" ]]; then
    echo "FAIL: $1: the capture has '$2', the run says '$3'"; failed=1
  else
    echo "ok   $1: $2"
  fi
}

total=$(count "frame")
expect "packets dissected as UDP" "$(count udp)" "$total"
expect "packets with a comment" "$(count frame.comment)" "$total"
expect "up sent (client side, from the client)" "$(count 'frame.interface_name == "client" && udp.srcport == 40000')" "$(summary up sent)"
expect "up delivered (server side, from the client)" "$(count 'frame.interface_name == "server" && udp.srcport == 40000')" "$(summary up delivered)"
expect "down sent (server side, from the server)" "$(count 'frame.interface_name == "server" && udp.srcport == 40001')" "$(summary down sent)"
expect "down delivered (client side, from the server)" "$(count 'frame.interface_name == "client" && udp.srcport == 40001')" "$(summary down delivered)"
comments=$(tshark_q -T fields -e frame.comment)
for fate in lost:lost queue-dropped:queue_dropped duplicated::duplicated "reordered:reordered"; do
  word=${fate%%:*}; key=${fate##*:}
  expect "comments saying $word" "$(grep -o "$word" <<<"$comments" | wc -l)" $(( $(summary up "$key") + $(summary down "$key") ))
done
# Timestamps: true time from 0, in order, within the 30 s run, to the ns.
if ! tshark_q -T fields -e frame.time_epoch | awk 'NR == 1 && $1 < 0 { bad = 1 } $1 < last || $1 > 30 || $1 !~ /\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ { bad = 1 } { last = $1 } END { exit bad }'; then
  echo "FAIL: timestamps are not true time in order within the run, in ns"; failed=1
else
  echo "ok   timestamps in order, within 0–30 s, in ns"
fi
exit $failed
