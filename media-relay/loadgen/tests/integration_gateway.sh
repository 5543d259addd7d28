#!/usr/bin/env bash
# Integration test: loadgen --gateway --threads 2 (two users, one WebSocket each) against a live lab (Kamailio, rtpengine, SIPp UAS ue1 with RTP
# echo) through the `./lab test` gateway that relays without inject-DTMF (127.0.0.1:8089: loadgen's
# payload is not real Opus and its echo check needs SSRC + seq kept). Exit 77 (ctest SKIP_RETURN_CODE)
# when no gateway answers.
# usage: integration_gateway.sh LOADGEN WORKDIR
set -euo pipefail
loadgen=$1 work=$2
# shellcheck source=../../../harness/addresses.env
. "$(dirname "$0")/../../../harness/addresses.env" # the lab's address table: ./lab test's second gateway
gw=${LOADGEN_GATEWAY:-http://$LAB_LOOPBACK:$LAB_GW_TCP_PORT}
health=$(python3 - "$gw" <<'PY' 2>/dev/null || true
import json, sys, urllib.request
print(json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/health", timeout=2)).get("status", ""))
PY
)
if [ "$health" != up ]; then
  echo "SKIP: no gateway answering $gw/api/v1/health"
  exit 77
fi
mkdir -p "$work"
# Two engine threads, each serving its own user's WebSocket (alice, bob) and every other call.
# The credentials in a users file (mode 0600), not on loadgen's command line (ps shows argv).
(umask 077 && printf '# loadgen --users: user:password per line\n%s:%s\nbob:bob-secret\n' "${LOADGEN_GW_USER:-alice}" "${LOADGEN_GW_PASSWORD:-alice-secret}" >"$work/users.txt")
"$loadgen" --gateway "$gw" --users "$work/users.txt" --threads 2 \
  --to "${LOADGEN_GW_TO:-ue1}" --calls 4 --cps 5 --duration 3 --quiet --json "$work/report.json"
python3 - "$work/report.json" "$gw" <<'PY'
import json, sys, urllib.request
r = json.load(open(sys.argv[1]))
t = r["totals"]
assert r["mode"] == "gateway" and r["config"]["threads"] == 2, r["config"]
assert t["setup_ok"] == 4 and t["ice_ok"] == 4 and t["dtls_ok"] == 4 and t["hung_up"] == 4, t
assert t["pkts_sent"] >= 4 * 140 and t["pkts_recv"] >= 0.9 * t["pkts_sent"], t
assert all(c["gateway_call_id"] and c["end_reason"] == "local-hangup" for c in r["calls"]), r["calls"]
# call i runs on engine i mod 2, which serves user i mod 2 (users dealt to engines in turn)
users = [c["user"] for c in r["calls"]]
assert users[0] == users[2] != users[1] == users[3], users
assert r["gateway"]["logout"] == "ok", r["gateway"]
left = json.load(urllib.request.urlopen(sys.argv[2] + "/api/v1/rtpengine/sessions", timeout=2))
assert left["count"] == 0, left
print("gateway integration ok (2 threads): setup p50 %.1f ms, %d sent, %d received, rtpengine sessions left %d"
      % (r["setup_ms"]["p50"], t["pkts_sent"], t["pkts_recv"], left["count"]))
PY
