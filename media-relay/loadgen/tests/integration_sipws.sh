#!/usr/bin/env bash
# Integration test: loadgen --access sip-ws (SIP over WebSocket, RFC 7118) against a live lab: the access token from
# `./lab test`'s second gateway (127.0.0.1:8089, POST /api/v1/wic-tokens), REGISTER and 2 calls to SIPp ue1 (RTP echo)
# over the eP-CSCF's loopback WebSocket (ws 127.0.0.1:5066; Kamailio drives rtpengine), the Bearer token on every
# request, then the de-REGISTER. Exit 77 (ctest SKIP_RETURN_CODE) when no gateway answers or it issues no tokens.
# usage: integration_sipws.sh LOADGEN WORKDIR
set -euo pipefail
loadgen=$1 work=$2
# shellcheck source=../../../harness/addresses.env
. "$(dirname "$0")/../../../harness/addresses.env" # the lab's address table
gw=${LOADGEN_GATEWAY:-http://$LAB_LOOPBACK:$LAB_GW_TCP_PORT}
pcscf=${LOADGEN_PCSCF_WS:-ws://$LAB_LOOPBACK:$LAB_PCSCF_WS_PORT}
health=$(python3 - "$gw" <<'PY' 2>/dev/null || true
import json, sys, urllib.request
print(json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/health", timeout=2)).get("status", ""))
PY
)
if [ "$health" != up ]; then
  echo "SKIP: no gateway answering $gw/api/v1/health"
  exit 77
fi
# a gateway without lab.wic.key-file answers 404 wic-off: no eP-CSCF in this lab (hosts layout, --ipv6)
wic=$(python3 - "$gw" <<'PY' 2>/dev/null || true
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[1] + "/api/v1/wic-tokens", data=b"{}", headers={"Content-Type": "application/json"})
try:
    urllib.request.urlopen(req, timeout=3)
    print("on")
except urllib.error.HTTPError as e:
    print("off" if e.code == 404 else "on")
PY
)
if [ "$wic" != on ]; then
  echo "SKIP: $gw issues no WIC access tokens (no eP-CSCF in this lab)"
  exit 77
fi
mkdir -p "$work"
user=${LOADGEN_SIPWS_USER:-carol}
(umask 077 && printf '# loadgen --users: user:password per line\n%s:%s\n' "$user" "${LOADGEN_SIPWS_PASSWORD:-carol-secret}" >"$work/users.txt")
"$loadgen" --gateway "$gw" --access sip-ws --pcscf-ws "$pcscf" --users "$work/users.txt" \
  --to "${LOADGEN_GW_TO:-ue1}" --calls 2 --cps 5 --duration 3 --quiet --json "$work/report.json"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
assert r["mode"] == "sip-ws" and r["config"]["access"] == "sip-ws", (r["mode"], r["config"])
assert t["setup_ok"] == 2 and t["ice_ok"] == 2 and t["dtls_ok"] == 2 and t["hung_up"] == 2, t
assert t["pkts_sent"] >= 2 * 140 and t["pkts_recv"] >= 0.9 * t["pkts_sent"], t
assert all(c["sip_call_id"] and c["end_reason"] == "local-hangup" and c["sip_answered_ms"] is not None for c in r["calls"]), r["calls"]
# REGISTER, 2 x (INVITE, ACK, BYE), de-REGISTER: every one with the Bearer token
s = r["sip"]
assert s["requests_out"] >= 8 and s["requests_with_bearer"] == s["requests_out"], s
assert r["gateway"]["logout"] == "ok", "de-REGISTER: %s" % r["gateway"]["logout"]
assert r["gateway"]["unmatched_events"] == 0 and r["gateway"]["bad_messages"] == 0, r["gateway"]
print("sip-ws integration ok: setup p50 %.1f ms, INVITE->200 p50 %.1f ms, %d sent, %d received, %d SIP requests with the token"
      % (r["setup_ms"]["p50"], r["phases_ms"]["sip_answered"]["p50"], t["pkts_sent"], t["pkts_recv"], s["requests_out"]))
PY
