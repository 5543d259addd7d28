#!/usr/bin/env bash
# Integration test: loadgen --raw against the lab's live rtpengine (ng address: harness/lib/addresses.sh).
# Exit 77 (ctest SKIP_RETURN_CODE) when no rtpengine answers an ng ping.
# usage: integration.sh LOADGEN NG_PING_PY WORKDIR
set -euo pipefail
loadgen=$1 ngping=$2 work=$3
# shellcheck source=../../../harness/lib/addresses.sh
source "$(dirname "$0")/../../../harness/lib/addresses.sh"
if ! python3 "$ngping" "$LAB_RTPENGINE_NG" 1 2>/dev/null; then
  echo "SKIP: no rtpengine answering ng ping on $LAB_RTPENGINE_NG"
  exit 77
fi
mkdir -p "$work"
"$loadgen" --ng "$LAB_RTPENGINE_NG" --raw --calls 2 --cps 10 --duration 3 --quiet --json "$work/report.json"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
assert t["setup_ok"] == 2 and t["ice_ok"] == 2 and t["dtls_ok"] == 2, t
assert t["pkts_sent"] >= 2 * 140 and t["pkts_recv"] >= 0.9 * t["pkts_sent"], t
assert t["deleted"] == 2, t
print("integration ok: setup p50 %.1f ms, %d sent, %d received" % (r["setup_ms"]["p50"], t["pkts_sent"], t["pkts_recv"]))
PY
