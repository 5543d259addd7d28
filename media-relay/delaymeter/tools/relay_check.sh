#!/usr/bin/env bash
# Real-traffic check of delaymeter: rtpengine + tcpdump + relay_probe.py inside a private network
# namespace, then delaymeter on the capture. Fails unless every probe packet was matched both ways
# with no loss. Needs root (unshare -n, tcpdump) and a built delaymeter.
# usage: relay_check.sh [OUT_DIR]        (default: out/delaymeter-check; COUNT=200 packets per direction)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/delaymeter-check}
dm=${DELAYMETER:-$root/media-relay/build/delaymeter/delaymeter}
count=${COUNT:-200}

if [[ -z "${RELAY_CHECK_IN_NS:-}" ]]; then
  [[ -x $dm ]] || { echo "relay_check: $dm not built (cmake --build media-relay/build)" >&2; exit 2; }
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  # Own namespace with only loopback: the relay's ports cannot clash with anything on the host.
  exec env RELAY_CHECK_IN_NS=1 unshare -n "$0" "$out"
fi

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
ip link set lo up

"$root/media-relay/start-rtpengine.sh" >"$out/rtpengine.log" 2>&1 &
pids+=($!)
python3 "$root/media-relay/ng-ping.py" 127.0.0.1:2223 10

tcpdump -i lo -B 16384 --time-stamp-precision=nano -w "$out/relay.pcap" udp portrange 30000-30999 \
  2>"$out/tcpdump.log" &
tcpdump_pid=$!
pids+=($tcpdump_pid)
for _ in $(seq 50); do grep -q "listening on" "$out/tcpdump.log" && break; sleep 0.1; done

python3 "$here/relay_probe.py" --count "$count" >"$out/probe.json" || {
  echo "relay_check: probe lost packets end to end, see $out/probe.json" >&2; exit 1; }
# tcpdump reads the kernel ring in blocks retired every 1 s (no --immediate-mode, which would cost
# CPU the relay needs); stopping it sooner silently drops the last block of packets.
sleep 1.5
kill "$tcpdump_pid"
wait "$tcpdump_pid" || true

"$dm" --ims-ports 6000-6299 --json --csv "$out/delays.csv" "$out/relay.pcap" >"$out/delaymeter.json"
"$dm" --ims-ports 6000-6299 "$out/relay.pcap"
python3 - "$out/delaymeter.json" "$count" <<'PY'
import json, sys
report, count = json.load(open(sys.argv[1])), int(sys.argv[2])
bad = [f"{d}: matched {v['matched']} lost {v['lost']}" for d, v in report["directions"].items()
       if v["matched"] != count or v["lost"] != 0]
if bad:
    sys.exit("relay_check: expected %d matched and 0 lost each way; %s" % (count, "; ".join(bad)))
print("relay_check: ok, %d packets matched each way, report in %s" % (count, sys.argv[1]))
PY
