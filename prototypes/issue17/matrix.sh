#!/usr/bin/env bash
# Issue #17 prototype: the call matrix (Firefox ESR, Chromium without media permission = mDNS-only;
# MO/MT; browser on the gateway's link and behind the NAT) against a core started by run-core.sh OUTDIR.
# Usage: matrix.sh OUTDIR   → OUTDIR/matrix-*.json and one summary line per call; exit 0 = all passed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1 fails=0
for ns in s17-br s17-brnat; do
  for b in firefox chromium; do
    for m in mo mt; do
      extra=(); [[ $b == chromium ]] && extra=(--no-media-permission)
      f="$OUT/matrix-$ns-$b-$m.json"
      ip netns exec "$ns" timeout 150 node "$HERE/drive.mjs" --browser "$b" --mode "$m" --freq 700 --core-out "$OUT" "${extra[@]}" >"$f" 2>&1
      rc=$?; ((rc == 0)) || fails=$((fails + 1))
      python3 - "$f" "$ns" "$b" "$m" "$rc" <<'PY'
import json, sys
f, ns, b, m, rc = sys.argv[1:]
try: r = json.load(open(f))
except Exception: print(f"{ns:9} {b:8} {m}: rc={rc} (no JSON, see {f})"); sys.exit()
s = r.get("stats") or {}; t = r.get("tone") or {}; ims = r.get("ims") or {}
print(f"{ns:9} {b:8} {m}: ok={r.get('ok')} ice={s.get('iceState')} local={s.get('localCandidate')} "
      f"sent={s.get('sent')} recv={s.get('received')} tone={t.get('peakHz')}Hz/{t.get('peakDb')}dB "
      f"imsClean={ims.get('clean')} err={r.get('error')}")
PY
    done
  done
done
echo "matrix: $fails failed"
exit $((fails > 0))
