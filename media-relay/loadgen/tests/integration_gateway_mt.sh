#!/usr/bin/env bash
# Integration test, MT: loadgen --gateway --answer --users --threads 2 logs in as dave and carol (one
# engine thread each) on the `./lab test` gateway (127.0.0.1:8089), SIPp ue2 (sipp-scenarios/run-ue.sh
# uac, RTP echo) calls each once and hangs up after 3 s; loadgen must answer both on the right user's
# WebSocket (ICE + DTLS-SRTP), get its media echoed and see the caller's BYE as the call's normal end.
# Exit 77 (ctest SKIP_RETURN_CODE) when no gateway answers.
# usage: integration_gateway_mt.sh LOADGEN RUN_UE WORKDIR
set -euo pipefail
loadgen=$1 run_ue=$2 work=$3
# shellcheck source=../../../harness/addresses.env
. "$(dirname "$0")/../../../harness/addresses.env" # the lab's address table: ./lab test's second gateway
gw=${LOADGEN_GATEWAY:-http://$LAB_LOOPBACK:$LAB_GW_TCP_PORT}
users=(dave carol)
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
rm -f "$work/report.json" "$work/loadgen.log" "$work"/*.sdp
(umask 077 && printf '# loadgen --users: user:password per line\n' >"$work/users.txt")
for u in "${users[@]}"; do printf '%s:%s-secret\n' "$u" "$u" >>"$work/users.txt"; done
"$loadgen" --gateway "$gw" --users "$work/users.txt" --threads 2 --answer --expect-calls "${#users[@]}" \
  --duration 30 --timeout 50 --json "$work/report.json" --dump-sdp "$work" 2>"$work/loadgen.log" &
lg=$!
trap 'kill "$lg" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q 'answering incoming calls' "$work/loadgen.log" 2>/dev/null && break
  kill -0 "$lg" 2>/dev/null || break
  sleep 0.1
done
grep -q 'answering incoming calls' "$work/loadgen.log" || { cat "$work/loadgen.log"; echo "loadgen --answer did not log in"; exit 1; }
for u in "${users[@]}"; do LAB_LOGDIR="$work" UE_QUIET=1 "$run_ue" uac "$u" 3000; done
wait "$lg"
trap - EXIT
python3 - "$work/report.json" "$gw" "$work/gateway-incoming.sdp" <<'PY'
import json, sys, urllib.request
r = json.load(open(sys.argv[1]))
t = r["totals"]
assert r["mode"] == "gateway" and r["config"]["answer"], r["config"]
assert r["config"]["users"] == ["dave", "carol"], r["config"]
assert t["mt"] == 2 and t["mt_setup_ok"] == 2 and t["mt_ended_by_caller"] == 2 and t["ended_early"] == 0, t
assert [c["user"] for c in r["calls"]] == ["dave", "carol"], r["calls"]  # each answered on its own session
c = r["calls"][0]
assert all(x["direction"] == "mt" and x["from"].startswith("ue2@") for x in r["calls"]), r["calls"]
# our ICE role follows the offer: controlled toward full ICE, controlling toward an ICE-lite rtpengine
lite = "a=ice-lite" in open(sys.argv[3]).read()
assert c["ice_role"] == ("controlling" if lite else "controlled"), (lite, c)
assert c["dtls_role"] == "client" and c["end_reason"] == "remote-hangup", c
assert t["pkts_sent"] >= 200 and t["pkts_recv"] >= 0.9 * t["pkts_sent"], t
assert r["gateway"]["logout"] == "ok", r["gateway"]
left = json.load(urllib.request.urlopen(sys.argv[2] + "/api/v1/rtpengine/sessions", timeout=2))
assert left["count"] == 0, left
print("gateway MT integration ok: setup %.1f ms (ICE %s, DTLS %s ms, %s), %d sent, %d received"
      % (c["setup_ms"], c["ice_ms"], c["dtls_ms"], c["ice_role"], t["pkts_sent"], t["pkts_recv"]))
PY
