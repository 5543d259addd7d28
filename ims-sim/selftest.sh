#!/usr/bin/env bash
# Integration check of the IMS side with the real programs: rtpengine, Kamailio and SIPp UEs,
# all inside a private network namespace (only loopback), so nothing binds on the host.
# Usage: ims-sim/selftest.sh      Logs: $LAB_LOGDIR (default: a new temp dir). Exit 0 = all passed.
set -u
if [ -z "${IMS_SELFTEST_IN_NS:-}" ]; then
  exec unshare -n env IMS_SELFTEST_IN_NS=1 bash "$0" "$@"
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
S="$ROOT/sipp-scenarios"
export LAB_LOGDIR="${LAB_LOGDIR:-$(mktemp -d /tmp/ims-selftest.XXXXXX)}"
mkdir -p "$LAB_LOGDIR"
RUNDIR="$LAB_LOGDIR/kamailio-run"
PIDS=()
passed=0; failed=0

cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

check() {  # name command...
  local name="$1"; shift
  if "$@" >>"$LAB_LOGDIR/selftest.out" 2>&1; then
    passed=$((passed + 1)); echo "PASS $name"
  else
    failed=$((failed + 1)); echo "FAIL $name (see $LAB_LOGDIR)"
  fi
}
fails() { ! "$@"; }

# Sends RTP-like datagrams to a port and expects each one back unchanged (sipp -rtp_echo).
rtp_echo() {
  python3 - "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); s.settimeout(0.5)
ok = 0
for i in range(5):
    pkt = bytes([0x80, 111, 0, i]) + bytes(8) + b"echo-%d" % i
    s.sendto(pkt, ("127.0.0.1", int(sys.argv[1])))
    try:
        ok += s.recvfrom(2048)[0] == pkt
    except OSError:
        pass
sys.exit(0 if ok == 5 else 1)
PY
}

# A UAC call with a modified offer, straight from sipp on its own port (INVITEs are not
# challenged, so no registration is needed). Args: name sed-expr [sipp args...]
variant_call() {
  local name="$1" expr="$2"; shift 2
  sed -e "$expr" "$S/uac.xml" > "$LAB_LOGDIR/uac-$name.xml"
  sipp -sf "$LAB_LOGDIR/uac-$name.xml" -i 127.0.0.1 -p 5091 -mi 127.0.0.1 -mp 6300 -nostdin \
    -recv_timeout 10000 -set hold 300 -trace_msg -message_file "$LAB_LOGDIR/uac-$name-messages.log" \
    -trace_err -error_file "$LAB_LOGDIR/uac-$name-errors.log" "$@" 127.0.0.1:5060 >/dev/null
}
answer_has() { grep -q "$2" "$LAB_LOGDIR/uac-$1-messages.log"; }

ip link set lo up
"$ROOT/media-relay/start-rtpengine.sh" >"$LAB_LOGDIR/rtpengine.log" 2>&1 & PIDS+=($!)
check "rtpengine answers ng ping" python3 "$ROOT/media-relay/ng-ping.py" 127.0.0.1:2223 5
"$ROOT/ims-sim/start-kamailio.sh" "$RUNDIR" >"$LAB_LOGDIR/kamailio.log" 2>&1 & PIDS+=($!)
sleep 1
"$S/run-ue.sh" uas >"$LAB_LOGDIR/uas.out" 2>&1 & PIDS+=($!)
"$S/run-ue.sh" uas-bye 1000 >"$LAB_LOGDIR/uas-bye.out" 2>&1 & PIDS+=($!)
sleep 1.5

check "ue1 RTP echo on 6000" rtp_echo 6000
check "ue1 answers, ue2 hangs up (uac ue1 1000)" "$S/run-ue.sh" uac ue1 1000
check "BYE was loose-routed by Kamailio" grep -q "in-dialog BYE loose-routed to sip:ue1@127.0.0.1:5080" "$LAB_LOGDIR/kamailio.log"
check "ue3 hangs up itself (uac-wait ue3 10000)" "$S/run-ue.sh" uac-wait ue3 10000
check "ue3's BYE was loose-routed by Kamailio" grep -q "in-dialog BYE loose-routed to sip:ue2@127.0.0.1:5090" "$LAB_LOGDIR/kamailio.log"
check "call to unregistered bob fails" fails "$S/run-ue.sh" uac bob 500
check "... with 404" grep -q "SIP/2.0 404" "$LAB_LOGDIR/sipp-uac-bob-messages.log"
printf 'ue2:wrong-password\n' > "$LAB_LOGDIR/bad-users.txt"
check "REGISTER with a wrong password fails" fails env IMS_USERS="$LAB_LOGDIR/bad-users.txt" "$S/run-ue.sh" uac ue1 500
check "... with 403" grep -q "SIP/2.0 403" "$LAB_LOGDIR/sipp-register-ue2-messages.log"
check "3 concurrent calls to ue1" variant_call conc 's/^x//' -s ue1 -m 3 -l 3 -r 10
check "opus PT 109 offered -> answered with 109" variant_call opus109 's/111/109/g' -s ue1 -m 1
check "... m=audio 6000 RTP/AVP 109" answer_has opus109 "^m=audio 6000 RTP/AVP 109[[:space:]]*$"
check "R-URI 127.0.0.1:5060, PCMA-only offer" variant_call pcma \
  's/INVITE sip:\[service\]@ims.lab/INVITE sip:[service]@127.0.0.1:5060/; s/RTP\/AVP 111 8 101/RTP\/AVP 8 101/; /:111 /d' -s ue1 -m 1
check "... answered with PCMA (8)" answer_has pcma "^m=audio 6000 RTP/AVP 8[[:space:]]*$"

echo "logs: $LAB_LOGDIR"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
