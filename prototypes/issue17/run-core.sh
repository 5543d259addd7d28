#!/usr/bin/env bash
# Issue #17 prototype: start rtpengine (two named interfaces), Kamailio, the gateway and SIPp ue1 (echo)
# inside s17-core (topology.sh): ue1 echoes, ue8 echoes and answers re-INVITEs;, in the background; PIDs to $OUT/pids, logs to $OUT/*.log.
# Usage: run-core.sh OUTDIR [gateway args...]   e.g. --lab.rtpengine.ice-lite=true
# Stop: kill $(cat OUTDIR/pids)   (each PID is one we started)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "$1" && cd "$1" && pwd); shift
NS=(ip netns exec s17-core)
: >"$OUT/pids"
bg() { local name=$1; shift; "${NS[@]}" "$@" >"$OUT/$name.log" 2>&1 & echo $! >>"$OUT/pids"; echo "$name pid $!"; }

# rtpengine: "pub" faces the browsers (198.18.0.1), "ims" faces Kamailio/SIPp (127.0.0.1).
bg rtpengine env RTPENGINE_IFACE=pub/198.18.0.1 RTPENGINE_NG=127.0.0.1:2223 RTPENGINE_DTMF_LOG=127.0.0.1:2224 \
  bash "$ROOT/media-relay/start-rtpengine.sh" --interface=ims/127.0.0.1 --log-level=7
mkdir -p "$OUT/kamailio"
bg kamailio bash "$ROOT/ims-sim/start-kamailio.sh" "$OUT/kamailio"
for _ in $(seq 50); do "${NS[@]}" python3 "$ROOT/scripts/sip-options.py" 127.0.0.1:5060 1 >/dev/null 2>&1 && break; sleep 0.2; done
bg gateway java -jar "$ROOT/signaling-gw/target/signaling-gw.jar" --server.address=198.18.0.1 --server.port=8088 \
  --lab.sip.host=127.0.0.1 --lab.sip.port=5070 --lab.ims.transport=udp --lab.ims.proxy=127.0.0.1:5060 \
  --lab.ims.domain=ims.lab --lab.rtpengine.ng=127.0.0.1:2223 --lab.rtpengine.dtmf-log=127.0.0.1:2224 \
  --lab.webclient.dir="$ROOT/webclient/public" "$@"
bg ue1 env LAB_LOGDIR="$OUT" KAMAILIO=127.0.0.1:5060 IMS_USERS="$ROOT/ims-sim/users.txt" bash "$ROOT/sipp-scenarios/run-ue.sh" uas
bg ue8 env LAB_LOGDIR="$OUT" KAMAILIO=127.0.0.1:5060 IMS_USERS="$ROOT/ims-sim/users.txt" bash "$ROOT/sipp-scenarios/run-ue.sh" uas-reinvite
for _ in $(seq 120); do
  [[ $("${NS[@]}" curl -s -o /dev/null -w '%{http_code}' http://198.18.0.1:8088/api/v1/health) == 200 ]] && { echo "gateway up"; exit 0; }
  sleep 1
done
echo "gateway did not come up (see $OUT/gateway.log)" >&2; exit 1
