#!/usr/bin/env bash
# Integration test of loadgen's media modes against a live rtpengine at NG (loadgen's default ng
# address, passed by tests/CMakeLists.txt from src/config.h):
#   A-RTP             plain RTP/AVP browser leg (no ICE, no DTLS)
#   A-SRTP-transcode  real Opus over DTLS-SRTP, IMS leg forced to PCMA: rtpengine transcodes both ways
# Checks what rtpengine's SDPs said and what the far end and the browser leg really received.
# Exit 77 (ctest SKIP_RETURN_CODE) when no rtpengine answers an ng ping.
# usage: integration_modes.sh LOADGEN NG_PING_PY NG PROFILES_JSON WORKDIR   (BENCH_PROFILES overrides)
set -euo pipefail
loadgen=$1 ngping=$2 ng=$3 profiles=${BENCH_PROFILES:-$4} work=$5
if ! python3 "$ngping" "$ng" 1 2>/dev/null; then
  echo "SKIP: no rtpengine answering ng ping on $ng"
  exit 77
fi
mkdir -p "$work/A-RTP" "$work/A-SRTP-transcode"
for p in A-RTP A-SRTP-transcode; do
  "$loadgen" --raw --ng "$ng" --profile "$p" --profiles "$profiles" --calls 2 --cps 10 --duration 3 --quiet \
    --dump-sdp "$work/$p" --json "$work/$p/report.json"
done
python3 - "$work" <<'PY'
import json, sys, os
work = sys.argv[1]
def load(p): return json.load(open(os.path.join(work, p, "report.json")))
def sdp(p, f): return open(os.path.join(work, p, f)).read()

r = load("A-RTP"); t = r["totals"]
assert r["media"]["browser_leg"]["transport"] == "RTP/AVP", r["media"]
assert t["setup_ok"] == 2 and t["ice_ok"] == 0 and t["dtls_ok"] == 0 and t["deleted"] == 2, t
assert t["pkts_sent"] >= 2 * 140 and t["far_rx"] >= 0.95 * t["pkts_sent"] and t["pkts_recv"] >= 0.95 * t["far_tx"], t
ans = sdp("A-RTP", "rtpengine-answer-reply.sdp")
assert "RTP/AVP 111" in ans and "a=ice-ufrag" not in ans and "a=fingerprint" not in ans, ans
assert "RTP/AVP" in sdp("A-RTP", "browser-offer.sdp") and "SAVPF" not in sdp("A-RTP", "browser-offer.sdp")

r = load("A-SRTP-transcode"); t = r["totals"]
assert r["media"]["ims_leg"]["codec"] == "PCMA/8000" and r["media"]["ims_leg"]["transcoded"], r["media"]
assert t["setup_ok"] == 2 and t["dtls_ok"] == 2 and t["deleted"] == 2, t
for c in r["calls"]:
    assert c["ims_sdp_codec"] == "PCMA/8000", c          # rtpengine offered IMS only PCMA
    assert c["browser_sdp_codec"].startswith("opus/48000"), c  # and kept Opus toward the browser
    # rtpengine decoded our Opus and sent PCMA that is not silence; the echoed PCMA came back as Opus
    assert c["far_rx"] >= 120 and c["far_voiced"] >= 0.9 * c["far_rx"], c
    assert c["recv"] >= 0.9 * c["far_tx"] and c["srtp_errors"] == 0, c
offer = sdp("A-SRTP-transcode", "rtpengine-offer-reply.sdp")
assert "RTP/AVP 8" in offer and "opus" not in offer.lower(), offer
assert "RTP/AVP 8" in sdp("A-SRTP-transcode", "far-answer.sdp")
print("integration ok: A-RTP %d/%d packets, A-SRTP-transcode far end %d PCMA (%d voiced), %d Opus back"
      % (load("A-RTP")["totals"]["pkts_recv"], load("A-RTP")["totals"]["pkts_sent"], t["far_rx"], t["far_voiced"], t["pkts_recv"]))
PY
