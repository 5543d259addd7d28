#!/usr/bin/env bash
# Integration test: loadgen --gateway against a live lab (Kamailio, rtpengine, SIPp UAS ue1 with RTP
# echo) through the `./lab test` gateway that relays without inject-DTMF (127.0.0.1:8089: loadgen's
# payload is not real Opus and its echo check needs SSRC + seq kept). Exit 77 (ctest SKIP_RETURN_CODE)
# when no gateway answers.
# usage: integration_gateway.sh LOADGEN WORKDIR
set -euo pipefail
loadgen=$1 work=$2
gw=${LOADGEN_GATEWAY:-http://127.0.0.1:8089}
health=$(python3 - "$gw" <<'PY' 2>/dev/null || true
import json, sys, urllib.request
print(json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/health", timeout=2)).get("status", ""))
PY
)
if [ "$health" != ok ]; then
  echo "SKIP: no gateway answering $gw/api/v1/health"
  exit 77
fi
mkdir -p "$work"
# the credentials in a users file (mode 0600), not on loadgen's command line (ps shows argv)
(umask 077 && printf '%s:%s\n' "${LOADGEN_GW_USER:-alice}" "${LOADGEN_GW_PASSWORD:-alice-secret}" >"$work/users.txt")
"$loadgen" --gateway "$gw" --users "$work/users.txt" \
  --to "${LOADGEN_GW_TO:-ue1}" --calls 2 --cps 5 --duration 3 --quiet --json "$work/report.json"
python3 - "$work/report.json" "$gw" <<'PY'
import json, sys, urllib.request
r = json.load(open(sys.argv[1]))
t = r["totals"]
assert r["mode"] == "gateway", r["mode"]
assert t["setup_ok"] == 2 and t["ice_ok"] == 2 and t["dtls_ok"] == 2 and t["hung_up"] == 2, t
assert t["pkts_sent"] >= 2 * 140 and t["pkts_recv"] >= 0.9 * t["pkts_sent"], t
assert all(c["gateway_call_id"] and c["end_reason"] == "local-hangup" for c in r["calls"]), r["calls"]
assert r["gateway"]["logout"] == "ok", r["gateway"]
left = json.load(urllib.request.urlopen(sys.argv[2] + "/api/v1/rtpengine/sessions", timeout=2))
assert left["count"] == 0, left
print("gateway integration ok: setup p50 %.1f ms, %d sent, %d received, rtpengine sessions left %d"
      % (r["setup_ms"]["p50"], t["pkts_sent"], t["pkts_recv"], left["count"]))
PY
