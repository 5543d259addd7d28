#!/usr/bin/env bash
# System test of the IMS side alone with the real programs: rtpengine, Kamailio (P-CSCF :5060 +
# S-CSCF :5062) and SIPp UEs (plain and VoLTE with preconditions). Built on ./lab's own helpers
# (harness/lib): the same private network namespace (loopback only), the same supervisor (each
# component in its own session, stopped in reverse order on exit, failure or Ctrl-C) and the same
# start/readiness checks as ./lab demo and ./lab test.
# Usage: harness/tests/ims-sim.sh      Logs: out/ims-sim/logs/. Exit 0 = all passed.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
for lib in log addresses procs netns scaleout components; do # components.sh uses scaleout.sh's client_exec
  # shellcheck source=/dev/null
  source "$ROOT/harness/lib/$lib.sh"
done
S="$ROOT/sipp-scenarios"

# on the host: a fresh run directory, then this script again inside a private network namespace (netns_exec)
[[ ${LAB_IN_NETNS:-} == 1 ]] || { lab_prepare_run ims-sim; netns_exec "$ROOT/harness/tests/ims-sim.sh" "$@"; }
netns_setup
lab_use_run ims-sim
export LAB_LOGDIR
procs_install_traps
passed=0; failed=0

check() {  # name command...
  local name="$1"; shift
  if "$@" >>"$LAB_LOGDIR/ims-sim.out" 2>&1; then
    passed=$((passed + 1)); echo "PASS $name"
  else
    failed=$((failed + 1)); echo "FAIL $name (see $(rel "$LAB_LOGDIR"))"
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

# A UAC call with a modified offer, straight from sipp on its own port: VARIANT_PORT (5091, where
# ue2 registers first: the P-CSCF takes originating requests only from a source that registered,
# docs/ims-sim.md "Hardening"). Args: name sed-expr [sipp args...]
variant_call() {
  local name="$1" expr="$2"; shift 2
  sed -e "$expr" "$S/uac.xml" > "$LAB_LOGDIR/uac-$name.xml"
  sipp -sf "$LAB_LOGDIR/uac-$name.xml" -i 127.0.0.1 -ci "$LAB_LOOPBACK" -p "${VARIANT_PORT:-$LAB_IMSSIM_TEST_VARIANT_PORT}" -mi 127.0.0.1 -mp "$LAB_IMSSIM_TEST_VARIANT_RTP_PORT" -nostdin \
    -recv_timeout 10000 -set hold 300 -trace_msg -message_file "$LAB_LOGDIR/uac-$name-messages.log" \
    -trace_err -error_file "$LAB_LOGDIR/uac-$name-errors.log" "$@" "$LAB_PCSCF" >/dev/null
}

# REGISTERs <user> from 127.0.0.1:<port> with register.xml, as run-ue.sh does: the credentials reach sipp
# in an injection file (mode 0600, removed after the REGISTER), never on its command line (ps shows argv
# to every user; harness/tests/secrets.test.mjs). Message log: sipp-register-<port>-messages.log.
register_from() {  # user port
  local user="$1" port="$2" pass inf rc
  pass="$(sed -n "s/^$user://p" "$ROOT/ims-sim/users.txt")"
  [ -n "$pass" ] || { echo "register_from: user '$user' is not in ims-sim/users.txt"; return 1; }
  inf="$(umask 077 && mktemp "$LAB_LOGDIR/.sipp-auth-$user.XXXXXX")" || { echo "register_from: cannot create a credentials file in $LAB_LOGDIR"; return 1; }
  printf 'SEQUENTIAL\n%s;[authentication username=%s password=%s];\n' "$user" "$user" "$pass" >"$inf"
  sipp -sf "$S/register.xml" -inf "$inf" -m 1 -default_behaviors abortunexp -s "$user" -i 127.0.0.1 -ci "$LAB_LOOPBACK" -p "$port" \
    -recv_timeout 5000 -nostdin -trace_msg -message_file "$LAB_LOGDIR/sipp-register-$port-messages.log" "$LAB_PCSCF"
  rc=$?
  rm -f "$inf"
  [ $rc -eq 0 ] || echo "register_from: REGISTER of $user from port $port failed (sipp exit $rc, see sipp-register-$port-messages.log)"
  return $rc
}
answer_has() { grep -q "$2" "$LAB_LOGDIR/uac-$1-messages.log"; }
log_has() { grep -q -- "$2" "$LAB_LOGDIR/$1"; }
log_lacks() { ! grep -q -- "$2" "$LAB_LOGDIR/$1"; }

# The SIP ladder a SIPp UE saw (sip-flow.sh: retransmissions left out), on one line.
flow_is() {  # messages-log expected
  local got
  got="$("$S/sip-flow.sh" "$LAB_LOGDIR/$1" | tr '\n' ' ')"
  echo "flow of $1: $got"
  [ "$got" = "$2 " ]
}

start_rtpengine || die "rtpengine did not start"
check "rtpengine answers ng ping" python3 "$ROOT/media-relay/ng-ping.py" "$LAB_RTPENGINE_NG" 5
start_kamailio || die "Kamailio did not start"
start_ue ue1 uas && start_ue ue3 uas-bye 1000 || die "the SIPp UEs did not start"

check "ue1 RTP echo on $LAB_UE1_RTP_PORT" rtp_echo "$LAB_UE1_RTP_PORT"
check "ue1 answers, ue2 hangs up (uac ue1 1000)" "$S/run-ue.sh" uac ue1 1000
check "BYE was loose-routed by Kamailio" grep -q "in-dialog BYE loose-routed to sip:ue1@127.0.0.1:$LAB_UE1_SIP_PORT" "$LAB_LOGDIR/kamailio.log"
check "ue3 hangs up itself (uac-wait ue3 10000)" "$S/run-ue.sh" uac-wait ue3 10000
check "ue3's BYE was loose-routed by Kamailio" grep -q "in-dialog BYE loose-routed to sip:ue2@127.0.0.1:$LAB_UE2_SIP_PORT" "$LAB_LOGDIR/kamailio.log"
check "call to unregistered bob fails" fails "$S/run-ue.sh" uac bob 500
check "... with 404" grep -q "SIP/2.0 404" "$LAB_LOGDIR/sipp-uac-bob-messages.log"
printf 'ue2:wrong-password\n' > "$LAB_LOGDIR/bad-users.txt"
check "REGISTER with a wrong password fails" fails env IMS_USERS="$LAB_LOGDIR/bad-users.txt" "$S/run-ue.sh" uac ue1 500
check "... with 403" grep -q "SIP/2.0 403" "$LAB_LOGDIR/sipp-register-ue2-messages.log"
check "ue2 registers from $LAB_IMSSIM_TEST_VARIANT_PORT too, for the variant calls" register_from ue2 "$LAB_IMSSIM_TEST_VARIANT_PORT"
check "3 concurrent calls to ue1" variant_call conc 's/^x//' -s ue1 -m 3 -l 3 -r 10
check "opus PT 109 offered -> answered with 109" variant_call opus109 's/111/109/g' -s ue1 -m 1
check "... m=audio $LAB_UE1_RTP_PORT RTP/AVP 109" answer_has opus109 "^m=audio $LAB_UE1_RTP_PORT RTP/AVP 109[[:space:]]*$"
check "R-URI $LAB_PCSCF, PCMA-only offer" variant_call pcma \
  's/INVITE sip:\[service\]@ims.lab/INVITE sip:[service]@'"$LAB_PCSCF"'/; s/RTP\/AVP 111 8 101/RTP\/AVP 8 101/; /:111 /d' -s ue1 -m 1
check "... answered with PCMA (8)" answer_has pcma "^m=audio $LAB_UE1_RTP_PORT RTP/AVP 8[[:space:]]*$"

# IMS roles: P-CSCF (LAB_PCSCF) and S-CSCF (SCSCF) in the one Kamailio.
SCSCF=$LAB_LOOPBACK:$LAB_SCSCF_PORT
check "REGISTER reaches the S-CSCF with the P-CSCF's Path" \
  log_has kamailio.log "S-CSCF REGISTER sip:ue1@ims.lab Path: <sip:pcscf@127.0.0.1;lr>"
check "200 REGISTER carries Service-Route <sip:orig@$SCSCF;lr>" \
  log_has sipp-register-ue1-messages.log "^Service-Route: <sip:orig@$SCSCF;lr>"
check "... and echoes the Path (UE sent Supported: path)" \
  log_has sipp-register-ue1-messages.log "^Path: <sip:pcscf@127.0.0.1;lr>"
check "INVITE at ue1 carries P-Asserted-Identity <sip:ue2@ims.lab>" \
  log_has sipp-uas-ue1-messages.log "^P-Asserted-Identity: <sip:ue2@ims.lab>"
check "... and a Record-Route from both P-CSCF and S-CSCF" \
  log_has sipp-uas-ue1-messages.log "^Record-Route: <sip:$SCSCF;lr;ftag="
check "ue2's BYE went P-CSCF -> S-CSCF -> P-CSCF -> ue1" \
  log_has kamailio.log "S-CSCF in-dialog BYE loose-routed to sip:ue1@127.0.0.1:$LAB_UE1_SIP_PORT"
check "a UE's own P-Asserted-Identity is replaced" variant_call pai \
  's/^\( *\)Subject:.*/&\n\1P-Asserted-Identity: <sip:boss@ims.lab>/' -s ue1 -m 1
check "... ue1 never saw <sip:boss@ims.lab>" log_lacks sipp-uas-ue1-messages.log "boss@ims.lab"
VARIANT_PORT=$LAB_IMSSIM_TEST_UNREG_PORT check "INVITE from a source that registered nothing is refused" fails variant_call unreg 's/^x//' -s ue1 -m 1
check "... with 403" answer_has unreg "^SIP/2.0 403"
check "a spoofed From from ue2's source is carried with ue2's identity" variant_call spoof \
  's/From: <sip:ue2@ims.lab>/From: <sip:nobody@ims.lab>/' -s ue1 -m 1
check "... the P-CSCF asserted ue2" log_has kamailio.log "From 'nobody' is not registered from 127.0.0.1:$LAB_IMSSIM_TEST_VARIANT_PORT/udp; asserting its identity 'ue2'"

# VoLTE UEs with preconditions: ue5 (MO) -> ue4 (MT) through P-CSCF, S-CSCF, P-CSCF.
start_ue ue4 volte-uas || die "the VoLTE UE ue4 did not start"
VOLTE_UAS=$LAB_LAST_PID
check "VoLTE call ue5 -> ue4 (volte-uac ue4 1000)" "$S/run-ue.sh" volte-uac ue4 1000
check "... ue5 preloaded its Service-Route" \
  log_has sipp-volte-uac-ue4-messages.log "^Route: <sip:$LAB_PCSCF;lr>, <sip:orig@$SCSCF;lr>"
check "... MO ladder INVITE/100/183/PRACK/200/UPDATE/200/180/200/ACK/BYE/200" flow_is sipp-volte-uac-ue4-messages.log \
  "sent INVITE recv 100 recv 183 sent PRACK recv 200 sent UPDATE recv 200 recv 180 recv 200 sent ACK sent BYE recv 200"
check "... MT ladder as seen by ue4" flow_is sipp-volte-uas-ue4-messages.log \
  "recv INVITE sent 100 sent 183 recv PRACK sent 200 recv UPDATE sent 200 sent 180 sent 200 recv ACK recv BYE sent 200"
check "... 183 had Require: 100rel, RSeq: 1, a=conf:qos remote sendrecv" \
  grep -Pzq 'SIP/2.0 183[^\0]*Require: 100rel\r?\nRSeq: 1\r?\n[^\0]*a=conf:qos remote sendrecv' "$LAB_LOGDIR/sipp-volte-uac-ue4-messages.log"
check "... PRACK carried RAck: 1 1 INVITE" log_has sipp-volte-uas-ue4-messages.log "^RAck: 1 1 INVITE"
check "... UPDATE's answer: a=curr:qos remote sendrecv" log_has sipp-volte-uac-ue4-messages.log "^a=curr:qos remote sendrecv"
check "... PRACK and UPDATE loose-routed by the S-CSCF" bash -c \
  "grep -q 'S-CSCF in-dialog PRACK loose-routed' '$LAB_LOGDIR/kamailio.log' && grep -q 'S-CSCF in-dialog UPDATE loose-routed' '$LAB_LOGDIR/kamailio.log'"
check "VoLTE CANCEL in the early dialog (volte-uac-cancel ue4)" "$S/run-ue.sh" volte-uac-cancel ue4
check "... INVITE/100/183/CANCEL/200/487/ACK at both UEs" bash -c \
  "$(declare -f flow_is); LAB_LOGDIR='$LAB_LOGDIR' S='$S'; flow_is sipp-volte-uac-cancel-ue4-messages.log 'sent INVITE recv 100 recv 183 sent CANCEL recv 200 recv 487 sent ACK' && \
   '$S/sip-flow.sh' '$LAB_LOGDIR/sipp-volte-uas-ue4-messages.log' | tr '\n' ' ' | grep -q 'recv INVITE sent 100 sent 183 recv CANCEL sent 200 sent 487 recv ACK'"
check "plain INVITE (no precondition) to ue4 gets 421" fails "$S/run-ue.sh" uac ue4 500
check "... 421 Extension Required" log_has sipp-uac-ue4-messages.log "^SIP/2.0 421 Extension Required"
proc_stop ue4 "$VOLTE_UAS"

# Variant: Require: precondition, reliable 180 (PRACKed), ue4 hangs up itself.
VOLTE_REL180=1 start_ue ue4-rel180 volte-uas 300 || die "the VoLTE UE ue4 (reliable 180) did not start"
check "VoLTE call, Require: precondition, reliable 180, MT hangs up" \
  env VOLTE_REQUIRE=1 VOLTE_WAIT_BYE=1 "$S/run-ue.sh" volte-uac ue4 10000
check "... MO ladder with PRACK for the 180 and the far end's BYE" flow_is sipp-volte-uac-ue4-messages.log \
  "sent INVITE recv 100 recv 183 sent PRACK recv 200 sent UPDATE recv 200 recv 180 sent PRACK recv 200 recv 200 sent ACK recv BYE sent 200"

procs_cleanup
log "logs: $(rel "$LAB_LOGDIR")/"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
