#!/usr/bin/env bash
# Integration test: loadgen --raw against a live rtpengine at NG (loadgen's default ng address,
# passed by tests/CMakeLists.txt from src/config.h).
# Exit 77 (ctest SKIP_RETURN_CODE) when no rtpengine answers an ng ping.
# usage: integration.sh LOADGEN NG_PING_PY NG WORKDIR
set -euo pipefail
loadgen=$1 ngping=$2 ng=$3 work=$4
if ! python3 "$ngping" "$ng" 1 2>/dev/null; then
  echo "SKIP: no rtpengine answering ng ping on $ng"
  exit 77
fi
mkdir -p "$work"
"$loadgen" --raw --ng "$ng" --calls 2 --cps 10 --duration 3 --quiet --json "$work/report.json"
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
assert t["setup_ok"] == 2 and t["ice_ok"] == 2 and t["dtls_ok"] == 2, t
assert t["pkts_sent"] >= 2 * 140 and t["pkts_recv"] >= 0.9 * t["pkts_sent"], t
assert t["deleted"] == 2, t
print("integration ok: setup p50 %.1f ms, %d sent, %d received" % (r["setup_ms"]["p50"], t["pkts_sent"], t["pkts_recv"]))
PY
