#!/usr/bin/env bash
# SIPp IMS UEs for the lab. Every mode REGISTERs its user with Kamailio (digest, password from
# the users file) on the SIP port it then uses, so Kamailio can route calls to it.
#   run-ue.sh uas                        ue1: SIP 127.0.0.1:5080, RTP echo 6000; answers calls forever
#   run-ue.sh uas-bye [bye_after_ms]     ue3: SIP 127.0.0.1:5082, RTP echo 6200; answers, then sends BYE
#   run-ue.sh uac <user> [hold_ms]       ue2: SIP 127.0.0.1:5090, RTP echo 6100; one call to <user>, hangs up
#   run-ue.sh uac-wait <user> [timeout_ms]  ue2, same ports; one call, waits for the far end's BYE
#   run-ue.sh uac-reinvited <user> [timeout_ms]  ue2, same ports; like uac-wait, and answers the far end's re-INVITEs
#   run-ue.sh uas-dtmf [digits]          ue6: SIP 127.0.0.1:5086, RTP echo 6500; answers with telephone-event
#                                        (Opus: /48000, PCMA: /8000) and 1 s after the ACK sends digits
#                                        (default 26*) as RFC 4733 events (send-rfc4733.py)
#   run-ue.sh uas-video                  ue7: SIP 127.0.0.1:5088, RTP echo 6600 (audio) + 6602 (video);
#                                        answers audio + video with the offer's first video codec
#   run-ue.sh video-uac <user> [hold_ms] ue2, same ports as uac (video echo 6102); one audio + video call
#                                        (VP8 + H264 offered, UE_VIDEO=H264 lists H264 first), hangs up
#   run-ue.sh volte-uas [bye_after_ms]   ue4: SIP 127.0.0.1:5084, RTP echo 6300; VoLTE MT with preconditions
#                                        (183/PRACK/UPDATE/180/200); hangs up itself only if bye_after_ms given
#   run-ue.sh volte-uac <user> [hold_ms] ue5: SIP 127.0.0.1:5094, RTP echo 6400; one VoLTE MO call with
#                                        preconditions, routed by the Service-Route learnt at REGISTER
#   run-ue.sh volte-uac-cancel <user>   ue5, same ports; VoLTE INVITE, CANCEL after the 183, expects 200 + 487
#   run-ue.sh uas-noanswer [ignored]     ue5, same ports; rings (180) and never answers, takes the CANCEL
#                                        (fault tests; started by the test, not by ./lab)
#   run-ue.sh uas-reinvite               ue8: SIP 127.0.0.1:5098, RTP echo 6800; answers calls and any
#                                        re-INVITE (hold → recvonly, inactive, resume) until the BYE
#   run-ue.sh uac-reinvite <user> [pause_ms]  ue9: SIP 127.0.0.1:5096, RTP echo 6900; calls <user>, holds it by re-INVITE, resumes
#                                        it by UPDATE, hangs up, pause_ms (2000) between the steps
#   run-ue.sh load-uac <user> <cps> <calls> <hold_ms>  ue2, same ports as uac: <calls> calls to <user> at
#                                        <cps> calls/s, each held hold_ms, no media (SIP-only load for
#                                        ./lab bench setup-rate --sustained); runs in LAB_LOGDIR, where
#                                        sipp writes every call's INVITE -> 200 time (uac_<pid>_rtt.csv);
#                                        UE_RTP_ECHO=1: with media, RTP to 6100 echoed (./lab bench gateway MT)
#   run-ue.sh uas-timer                  ue5: SIP 127.0.0.1:5094, RTP echo 6400; RFC 4028 callee: answers with
#                                        Session-Expires 4;refresher=uac, takes the caller's UPDATE refreshes
#                                        (started by harness/tests/dialog.test.mjs, not by ./lab)
#   run-ue.sh uas-early                  ue5, same ports; early media: 183 with SDP (echoed RTP), 3 s later the 200
#                                        with a changed SDP (media port +4, not echoed) (dialog.test.mjs)
#   run-ue.sh uas-fork-a / uas-fork-b    ue5 at 5094 (RTP 6400) / ue5's second contact at 5100 (RTP 7000): a forked
#                                        INVITE: A sends 183 + SDP and answers after 2.5 s, B rings and takes the CANCEL
#   run-ue.sh uas-fork-late-2xx / uas-fork-2xx-b  the same two contacts; B answers 200 at once, A takes the
#                                        proxy's CANCEL and answers 200 anyway (a second 2xx at the caller)
#   run-ue.sh uas-timer-422              ue5, same ports; RFC 4028 callee: 422 with Min-SE 3600, then answers the
#                                        retried INVITE (CSeq 2, Session-Expires 3600) (dialog.test.mjs)
#   run-ue.sh uac-timer <user>           ue2, same ports as uac; RFC 4028 caller: refreshes twice by UPDATE, then
#                                        stops and expects the far end's BYE (session expired)
#   run-ue.sh uac-timer-gw <user>        ue2; asks refresher=uas: takes two re-INVITE refreshes, then hangs up
#   run-ue.sh uac-timer-422 <user>       ue2; Session-Expires 1 -> 422, again with the 422's Min-SE, waits for BYE
#   run-ue.sh uac-offerless <user>       ue2; INVITE without SDP, the offer in the 200, the answer in the ACK,
#                                        4 s of echoed RTP, BYE
#   run-ue.sh load-calls <callees.csv> <cps> <calls> <hold_ms>  ue2 (ue5 with UE_VOLTE=1), same ports as uac
#                                        (volte-uac): load-uac.xml (load-volte-mo.xml: preconditions) at <cps>
#                                        for <calls> calls, callee per call from the SIPp injection file
#                                        <callees.csv>, RTP echoed for the hold; registers with
#                                        load-register.xml (password in a 0600 injection file, not on the
#                                        command line); statistics, response times, message counts and
#                                        errors in LAB_LOGDIR (./lab bench sipp)
# UE_QUIET=1: no SIP message log (the bench's load runs).
# UE_CODEC=PCMA|PCMU|G722 (uac, video-uac): the INVITE offers only that codec + telephone-event.
# UE_VIDEO=VP8|H264 (video-uac only): the video codec listed first in the offer (default VP8).
# VoLTE env: VOLTE_REQUIRE=1 (MO sends Require: precondition), VOLTE_REL180=1 (MT sends a reliable 180),
# VOLTE_WAIT_BYE=1 (MO waits up to hold_ms for the far end's BYE instead of hanging up).
# UAS modes exec sipp in the foreground (the caller's $! is sipp). UAC modes exit with sipp's
# exit code (0 = the call succeeded). Env: KAMAILIO (127.0.0.1:5060), IMS_USERS, LAB_LOGDIR (/tmp).
# IMS_AKA_KEYS=FILE (./lab --ims 3gpp: ims-sim/3gpp/sipp/ue-keys.txt, "IMPI K OP" per line): REGISTER
# with IMS-AKA (ims-sim/3gpp/sipp/register-aka.xml.tmpl, IMPI <user>@IMS_DOMAIN) instead of digest.
# Toward an outside IMS (./lab compliance --ims external): UE_CREDENTIALS=FILE UE_LOGIN=LOGIN make the UE that
# user of the gateway's credentials file (harness/kit/ims-credentials.mjs), whatever the mode's own user: its
# IMPU's user part and host replace ueN@ims.lab in the scenario (a copy in LAB_LOGDIR), it registers with its
# IMPI and, for aka, K and OPc (ims-sim/3gpp/sipp/aka-ue.py: SIPp 3.6 takes OP only), for digest, its SIP
# password; `run-ue.sh deregister` removes that user's contact at UE_IP:UE_PORT (REGISTER Expires 0) when the
# run is done. UE_IP: the UE's own address (default 127.0.0.1); UE_PORT/UE_MPORT: its SIP/RTP ports instead of the mode's.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../harness/addresses.env
. "$HERE/../harness/addresses.env" # the lab's address table: the default P-CSCF, each UE's SIP and RTP port (LAB_UE<n>_SIP_PORT, LAB_UE<n>_RTP_PORT; the ports below are theirs)
KAMAILIO="${KAMAILIO:-$LAB_PCSCF}"
IMS_USERS="${IMS_USERS:-$HERE/../ims-sim/users.txt}"
LOGDIR="${LAB_LOGDIR:-/tmp}"
# the UEs' SIP and media address: ./lab --ipv6 gives the core's IPv6 address (then KAMAILIO is [ADDR]:PORT);
# ./lab up --gateways/--relays the IMS host's address (harness/lib/scaleout.sh)
UE_IP="${UE_IP:-127.0.0.1}"
# SIPp's remote-control socket (UDP 8888 and up: keys and commands that can stop or steer the run, no authentication)
# listens on every address unless told: on this namespace's loopback only, whatever UE_IP is (SIPp 3.6 opens it as
# IPv4 only, so not on an IPv6 UE_IP either). Nothing of the lab drives SIPp through it.
SIPP_CTRL=(-ci "$LAB_LOOPBACK")

die() { echo "run-ue: $*" >&2; exit 2; }
usage() { die "usage: run-ue.sh uas | uas-bye [bye_after_ms] | uas-noanswer | uas-dtmf [digits] | uas-video | uas-reinvite | uas-timer | uas-early | uas-fork-a | uas-fork-b | uas-fork-late-2xx | uas-fork-2xx-b | uas-timer-422 | uac-timer|uac-timer-gw|uac-timer-422|uac-offerless <user> | uac <user> [hold_ms] | video-uac <user> [hold_ms] | uac-reinvite <user> [pause_ms] | uac-wait <user> [timeout_ms] | uac-reinvited <user> [timeout_ms] | volte-uas [bye_after_ms] | volte-uac <user> [hold_ms] | volte-uac-cancel <user> | load-uac <user> <cps> <calls> <hold_ms> | load-calls <callees.csv> <cps> <calls> <hold_ms> | deregister"; }
is_int() { [[ "$1" =~ ^[0-9]+$ ]]; }
# -set args for uac.xml's single-codec offer (UE_CODEC), nothing when unset.
codec_args() {
  case "${UE_CODEC:-}" in
    '') ;;
    PCMA) printf '%s\n' -set codecpt 8 -set codecenc PCMA/8000 ;;
    PCMU) printf '%s\n' -set codecpt 0 -set codecenc PCMU/8000 ;;
    G722) printf '%s\n' -set codecpt 9 -set codecenc G722/8000 ;;
    *) die "UE_CODEC '$UE_CODEC' is not PCMA, PCMU or G722" ;;
  esac
}

command -v sipp >/dev/null 2>&1 || die "sipp not found (apt-get install sip-tester)"

# UE_CREDENTIALS/UE_LOGIN: the user's line of the credentials file -> EXT_KIND, EXT_IMPI, EXT_USER (the first
# IMPU's user part), EXT_DOMAIN (its host), EXT_K/EXT_OPC (aka) or EXT_PASSWORD (digest)
EXT_USER=
if [ -n "${UE_CREDENTIALS:-}" ]; then
  [ -n "${UE_LOGIN:-}" ] || die "UE_CREDENTIALS needs UE_LOGIN (the user of that file the UE plays)"
  [ -r "$UE_CREDENTIALS" ] || die "credentials file '$UE_CREDENTIALS' not readable"
  read -r _ _ EXT_KIND EXT_IMPI ext_impus f6 f7 _ < <(awk -v l="$UE_LOGIN" '{sub(/#.*/, "")} $1 == l' "$UE_CREDENTIALS")
  [ -n "${EXT_KIND:-}" ] || die "no user '$UE_LOGIN' in $UE_CREDENTIALS"
  ext_impu="${ext_impus%%,*}"; ext_impu="${ext_impu#sip:}"; ext_impu="${ext_impu#sips:}"
  EXT_USER="${ext_impu%@*}"; EXT_DOMAIN="${ext_impu#*@}"
  case "$EXT_KIND" in
    aka) EXT_K="${f6:-}"; EXT_OPC="${f7:-}"
      [[ $EXT_K =~ ^[0-9a-fA-F]{32}$ && $EXT_OPC =~ ^[0-9a-fA-F]{32}$ ]] || die "no AKA keys for $EXT_IMPI in $UE_CREDENTIALS (K and OPc, 32 hex digits each)" ;;
    digest) EXT_PASSWORD="${f6:-}"
      [ -n "$EXT_PASSWORD" ] || die "no SIP password for '$UE_LOGIN' in $UE_CREDENTIALS (a digest line needs LOGIN WEB-PASSWORD digest IMPI IMPU SIP-PASSWORD)" ;;
    *) die "user '$UE_LOGIN' of $UE_CREDENTIALS registers by '$EXT_KIND': a SIPp UE can do aka or digest" ;;
  esac
  [[ -n $EXT_USER && -n $EXT_DOMAIN && $EXT_IMPI == *@* ]] || die "user '$UE_LOGIN' of $UE_CREDENTIALS has no IMPI and sip: IMPU"
fi

# scenario_file NAME — the scenario to run: sipp-scenarios/NAME, or toward an outside IMS a copy in LOGDIR with
# the UE's own identity and domain instead of the lab's (ueN@ims.lab, sip:ims.lab)
scenario_file() {
  [ -n "$EXT_USER" ] || { printf '%s' "$HERE/$1"; return; }
  local out="$LOGDIR/scenario-$EXT_USER-$1"
  sed -e "s/sip:ue[0-9]@ims\.lab/sip:$EXT_USER@$EXT_DOMAIN/g; s/@ims\.lab/@$EXT_DOMAIN/g; s/sip:ims\.lab/sip:$EXT_DOMAIN/g" "$HERE/$1" >"$out" ||
    die "cannot write $out"
  printf '%s' "$out"
}
[ -r "$IMS_USERS" ] || die "users file '$IMS_USERS' not readable"
mkdir -p "$LOGDIR" || die "cannot create log dir '$LOGDIR'"

password_of() {
  local user="$1" line
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    case "$line" in ''|'#'*) continue ;; esac
    if [ "${line%%:*}" = "$user" ]; then printf '%s' "${line#*:}"; return 0; fi
  done < "$IMS_USERS"
  return 1
}

# sipp options shared by every run: fixed SIP/media sockets, no stdin, no live screen,
# errors/stats/messages/final screen into files named after the log prefix.
# UE_QUIET=1 (load runs): no message log, which would cost SIPp more than the calls themselves.
common_opts() {
  local prefix="$LOGDIR/$1"
  printf '%s\n' -i "$UE_IP" "${SIPP_CTRL[@]}" -nostdin \
    -trace_err -error_file "$prefix-errors.log" \
    -trace_stat -stf "$prefix-stat.csv" \
    -trace_screen -screen_file "$prefix-screen.log"
  [ "${UE_QUIET:-0}" = 1 ] || printf '%s\n' -trace_msg -message_file "$prefix-messages.log"
}

# IMS-AKA registration (TS 33.203) with the UE's K and OP from IMS_AKA_KEYS; SIPp computes RES.
# SIPp 3.6.1 passes RES through strlen(), so a challenge whose RES has a 0x00 byte gets a wrong response
# (403, ims-sim/3gpp/README.md): only that case is retried, up to twice.
AKA_DIR="$HERE/../ims-sim/3gpp/sipp"
res_has_zero() {  # K OP messages.log: the last 401's RES (Milenage f2 of its RAND) holds a 0x00 byte
  python3 - "$AKA_DIR/aka-ue.py" "$1" "$2" "$3" <<'PY'
import base64, importlib.util, re, sys
spec = importlib.util.spec_from_file_location("akaue", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
nonces = re.findall(r'WWW-Authenticate:.*?nonce="([^"]+)"', open(sys.argv[4], errors="replace").read())
if not nonces: sys.exit(1)
res = m.Usim(bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])).f2345(base64.b64decode(nonces[-1])[:16])[0]
sys.exit(0 if 0 in res else 1)
PY
}
register_aka() {  # user port
  local user="$1" port="$2" domain="${IMS_DOMAIN:-ims.lab}" impi k op scen opts rc i
  impi="$user@$domain"
  [ -r "$IMS_AKA_KEYS" ] || die "AKA keys file '$IMS_AKA_KEYS' not readable"
  read -r _ k op < <(awk -v i="$impi" '$1 == i' "$IMS_AKA_KEYS")
  [ -n "${op:-}" ] || die "no AKA keys for $impi in $IMS_AKA_KEYS"
  scen="$LOGDIR/register-aka-$user.xml"
  # the scenario holds the UE's K and OP: readable by this user only
  (umask 077 && sed -e "s|@IMPI@|$impi|g; s|@K@|$k|g; s|@OP@|$op|g; s|@DOMAIN@|$domain|g" "$AKA_DIR/register-aka.xml.tmpl" >"$scen") ||
    die "cannot write $scen"
  for i in 1 2 3; do
    mapfile -t opts < <(common_opts "sipp-register-$user")
    sipp -sf "$scen" -m 1 -default_behaviors abortunexp -s "$user" -p "$port" -recv_timeout 8000 "${opts[@]}" "$KAMAILIO" \
      >/dev/null 2>>"$LOGDIR/sipp-register-$user.stderr"
    rc=$?
    [ $rc -eq 0 ] && return 0
    [ $i -lt 3 ] && res_has_zero "$k" "$op" "$LOGDIR/sipp-register-$user-messages.log" || break
    echo "run-ue: $user: the challenge's RES had a 0x00 byte (SIPp 3.6.1 strlen bug), registering again" >&2
  done
  echo "run-ue: IMS-AKA REGISTER of $user at $KAMAILIO failed (sipp exit $rc, see $LOGDIR/sipp-register-$user-errors.log)" >&2
  exit 1
}

# abortunexp only: a 403/401 after the credentials fails at once, and no BYE is sent for a REGISTER.
# the credentials file's user (UE_CREDENTIALS): aka by aka-ue.py (K and OPc), digest by register.xml with IMPI and SIP password
register_credentials() {  # port
  local port="$1" rc inf opts scen
  if [ "$EXT_KIND" = aka ]; then
    : >"$LOGDIR/sipp-register-$EXT_USER-messages.log"
    python3 "$AKA_DIR/aka-ue.py" --impi "$EXT_IMPI" --user "$EXT_USER" --domain "$EXT_DOMAIN" --k "$EXT_K" --opc "$EXT_OPC" \
      --addr "$UE_IP" --port "$port" --pcscf "$KAMAILIO" --messages "$LOGDIR/sipp-register-$EXT_USER-messages.log" "$([ "${REG_EXPIRES:-}" = 0 ] && echo deregister || echo ok)" \
      >"$LOGDIR/sipp-register-$EXT_USER.stderr" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { echo "run-ue: IMS-AKA REGISTER of $EXT_IMPI at $KAMAILIO failed: $(tail -n 1 "$LOGDIR/sipp-register-$EXT_USER.stderr")" >&2; exit 1; }
    return 0
  fi
  scen="$(scenario_file register.xml)" || exit 2
  [ "${REG_EXPIRES:-}" != 0 ] || sed -i "s/Expires: 3600/Expires: 0/" "$scen" || die "cannot write $scen" # deregister: a copy in LOGDIR
  mapfile -t opts < <(UE_QUIET=0 common_opts "sipp-register-$EXT_USER")
  inf="$(umask 077 && mktemp "$LOGDIR/.sipp-auth-$EXT_USER.XXXXXX")" || die "cannot create a credentials file in $LOGDIR"
  printf 'SEQUENTIAL\n%s;[authentication username=%s password=%s];\n' "$EXT_USER" "$EXT_IMPI" "$EXT_PASSWORD" >"$inf"
  sipp -sf "$scen" -inf "$inf" -m 1 -default_behaviors abortunexp -s "$EXT_USER" -p "$port" \
    -recv_timeout 5000 "${opts[@]}" "$KAMAILIO" >/dev/null 2>"$LOGDIR/sipp-register-$EXT_USER.stderr"
  rc=$?
  rm -f "$inf"
  [ $rc -eq 0 ] || { echo "run-ue: digest REGISTER of $EXT_IMPI at $KAMAILIO failed (sipp exit $rc, see $LOGDIR/sipp-register-$EXT_USER-errors.log)" >&2; exit 1; }
}

register() {  # user port
  local user="$1" port="$2" pass opts rc inf
  if [ -n "$EXT_USER" ]; then register_credentials "$port"; return; fi
  if [ -n "${IMS_AKA_KEYS:-}" ]; then register_aka "$user" "$port"; return; fi
  pass="$(password_of "$user")" || die "user '$user' not in $IMS_USERS"
  local scen="$HERE/register.xml"
  if [ -n "${REG_EXPIRES:-}" ]; then  # a short-lived binding (uas-fork-b: ue5's second contact must not outlive its test)
    scen="$LOGDIR/register-$user-$port.xml"
    sed "s/Expires: 3600/Expires: $REG_EXPIRES/" "$HERE/register.xml" >"$scen" || die "cannot write $scen"
  fi
  mapfile -t opts < <(UE_QUIET=0 common_opts "sipp-register-$user")
  # The credentials reach sipp in an injection file (mode 0600, removed after the REGISTER), never on its
  # command line (ps shows argv to every user); register.xml sends its field 1, the
  # [authentication] keyword with them.
  inf="$(umask 077 && mktemp "$LOGDIR/.sipp-auth-$user.XXXXXX")" || die "cannot create a credentials file in $LOGDIR"
  printf 'SEQUENTIAL\n%s;[authentication username=%s password=%s];\n' "$user" "$user" "$pass" >"$inf"
  sipp -sf "$scen" -inf "$inf" -m 1 -default_behaviors abortunexp -s "$user" -p "$port" \
    -recv_timeout 5000 "${opts[@]}" "$KAMAILIO" >/dev/null 2>"$LOGDIR/sipp-register-$user.stderr"
  rc=$?
  rm -f "$inf"
  [ $rc -eq 0 ] || { echo "run-ue: REGISTER of $user at $KAMAILIO failed (sipp exit $rc, see $LOGDIR/sipp-register-$user-errors.log)" >&2; exit 1; }
}

serve() {  # mode user port media_port scenario [extra sipp args...]
  local mode="$1" user="${EXT_USER:-$2}" port="${UE_PORT:-$3}" mport="${UE_MPORT:-$4}" scen opts
  scen="$(scenario_file "$5")" || exit 2
  shift 5
  register "$user" "$port"
  mapfile -t opts < <(common_opts "sipp-$mode-$user")
  # -rtp_echo: RTP to media_port (and media_port+2) is sent back to its sender.
  # Screen output goes to /dev/null; the final screen is in the -screen_file.
  exec sipp -sf "$scen" -s "$user" -p "$port" -mi "$UE_IP" -mp "$mport" -rtp_echo \
    "${opts[@]}" "$@" >/dev/null
}

# The Service-Route of the last 200 to the user's REGISTER (sipp's message log), e.g.
# <sip:orig@127.0.0.1:5062;lr>: a VoLTE UE preloads it as Route (TS 24.229 5.1.2A.1.1).
service_route() {  # user
  local sr
  sr="$(grep -i '^Service-Route:' "$LOGDIR/sipp-register-$1-messages.log" 2>/dev/null | tail -1 | tr -d '\r')"
  sr="${sr#*:}"; sr="${sr# }"
  [ -n "$sr" ] || { echo "run-ue: the 200 to $1's REGISTER had no Service-Route" >&2; exit 1; }
  printf '%s' "$sr"
}

call() {  # mode target scenario [extra sipp args...]; caller from ME/ME_PORT/ME_MPORT (ue2)
  local mode="$1" target="$2" scen me="${EXT_USER:-${ME:-ue2}}" port="${UE_PORT:-${ME_PORT:-$LAB_UE2_SIP_PORT}}" mport="${UE_MPORT:-${ME_MPORT:-$LAB_UE2_RTP_PORT}}" opts rc sr
  scen="$(scenario_file "$3")" || exit 2
  shift 3
  register "$me" "$port"
  if [ "$mode" = volte-uac ] || [ "$mode" = volte-uac-cancel ]; then
    sr="$(service_route "$me")" || exit 1
    set -- "$@" -set me "$me" -set sroute "$sr"
  fi
  mapfile -t opts < <(common_opts "sipp-$mode-$target")
  sipp -sf "$scen" -s "$target" -p "$port" -mi "$UE_IP" -mp "$mport" -rtp_echo -m 1 \
    "${opts[@]}" "$@" "$KAMAILIO" >/dev/null
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "run-ue: $mode call $me -> $target ok"
  else
    echo "run-ue: $mode call $me -> $target failed (sipp exit $rc, see $LOGDIR/sipp-$mode-$target-errors.log)" >&2
  fi
  exit $rc
}

# load_call target cps calls hold_ms — SIP-only load from ue2 (registered first): sipp's own rate
# control, response time INVITE -> 200 of every call traced (-trace_rtt), statistics each second.
load_call() {
  local target="$1" cps="$2" calls="$3" hold="$4" opts rc
  register ue2 "$LAB_UE2_SIP_PORT"
  # no message log unless the caller asks for one (UE_QUIET=0: ./lab soak's gateway-kill round looks for the BYEs there)
  mapfile -t opts < <(UE_QUIET=${UE_QUIET:-1} common_opts "sipp-load-uac-$target")
  # sipp writes the -trace_rtt file into its working directory
  cd "$LOGDIR" || die "cannot enter $LOGDIR"
  sipp -sf "$HERE/uac.xml" -s "$target" -p "$LAB_UE2_SIP_PORT" -mi "$UE_IP" -mp "$LAB_UE2_RTP_PORT" -r "$cps" -m "$calls" \
    -l $((cps * (hold / 1000 + 30))) -set hold "$hold" -recv_timeout 10000 -trace_rtt -rtt_freq 1 -fd 1 \
    ${UE_RTP_ECHO:+-rtp_echo} "${opts[@]}" "$KAMAILIO" >/dev/null
  rc=$?
  echo "run-ue: load-uac ue2 -> $target: $calls calls at $cps/s, sipp exit $rc"
  exit $rc
}

# load_calls callees cps calls hold_ms — the SIPp load toward many users (./lab bench sipp): the caller
# registers with its password in an injection file (mode 0600, removed once registered: never on a command
# line), then sipp places <calls> calls at <cps>, callee of call i = line i of <callees> (wrapping), each
# held hold_ms with RTP echoed. Files in LAB_LOGDIR: load-<kind>-stat.csv (-trace_stat, every second),
# load-<kind>-counts.csv (-trace_counts: per message sent/received/retransmissions/timeouts),
# <scenario>_<pid>_rtt.csv (-trace_rtt: INVITE -> 200 per call), load-<kind>-errors.log (-trace_err).
load_calls() {
  local callees="$1" cps="$2" calls="$3" hold="$4" me=ue2 port=$LAB_UE2_SIP_PORT mport=$LAB_UE2_RTP_PORT scen=load-uac.xml kind=uac pass inf rc sr extra=()
  [ -r "$callees" ] || die "callees file '$callees' not readable"
  [ -z "${IMS_AKA_KEYS:-}" ] || die "load-calls registers with digest (the light IMS core), not IMS-AKA"
  if [ "${UE_VOLTE:-0}" = 1 ]; then me=ue5 port=$LAB_UE5_SIP_PORT mport=$LAB_UE5_RTP_PORT scen=load-volte-mo.xml kind=volte; fi
  pass="$(password_of "$me")" || die "user '$me' not in $IMS_USERS"
  cd "$LOGDIR" || die "cannot enter $LOGDIR"
  inf="$LOGDIR/load-caller-$me.csv"
  ( umask 077; printf 'SEQUENTIAL\n%s;[authentication username=%s password=%s];\n' "$me" "$me" "$pass" >"$inf" ) || die "cannot write $inf"
  sipp -sf "$HERE/load-register.xml" -inf "$inf" -m 1 -default_behaviors abortunexp -p "$port" -recv_timeout 5000 \
    -i "$UE_IP" "${SIPP_CTRL[@]}" -nostdin -trace_err -error_file "$LOGDIR/sipp-register-$me-errors.log" \
    -trace_msg -message_file "$LOGDIR/sipp-register-$me-messages.log" "$KAMAILIO" >/dev/null 2>"$LOGDIR/sipp-register-$me.stderr"
  rc=$?
  rm -f "$inf"
  [ $rc -eq 0 ] || { echo "run-ue: REGISTER of $me at $KAMAILIO failed (sipp exit $rc, see $LOGDIR/sipp-register-$me-errors.log)" >&2; exit 1; }
  if [ "$kind" = volte ]; then
    sr="$(service_route "$me")" || exit 1
    extra+=(-set sroute "$sr")
    [ "${VOLTE_REQUIRE:-0}" != 1 ] || extra+=(-set require 1)
  fi
  echo "run-ue: load-calls $me registered; $calls calls at $cps/s, hold $hold ms ($scen)"
  sipp -sf "$HERE/$scen" -inf "$callees" -set me "$me" -set hold "$hold" "${extra[@]}" -p "$port" -i "$UE_IP" "${SIPP_CTRL[@]}" -mi "$UE_IP" \
    -mp "$mport" -rtp_echo -r "$cps" -m "$calls" -l $((cps * (hold / 1000 + 30))) -recv_timeout 30000 -nostdin \
    -trace_stat -stf "$LOGDIR/load-$kind-stat.csv" -fd 1 -trace_counts -trace_rtt -rtt_freq 1 \
    -trace_err -error_file "$LOGDIR/load-$kind-errors.log" -trace_screen -screen_file "$LOGDIR/load-$kind-screen.log" \
    "$KAMAILIO" >/dev/null
  rc=$?
  echo "run-ue: load-calls $me: $calls calls at $cps/s, sipp exit $rc"
  exit $rc
}

mode="${1:-}"; shift || true
case "$mode" in
  uas)
    [ $# -eq 0 ] || usage
    serve uas ue1 "$LAB_UE1_SIP_PORT" "$LAB_UE1_RTP_PORT" uas.xml -aa ;;
  uas-bye)
    [ $# -le 1 ] || usage
    bye="${1:-4000}"; is_int "$bye" || usage
    serve uas-bye ue3 "$LAB_UE3_SIP_PORT" "$LAB_UE3_RTP_PORT" uas-bye.xml -aa -set byeafter "$bye" ;;
  uas-dtmf)
    [ $# -le 1 ] || usage
    digits="${1:-26*}"; [[ "$digits" =~ ^[0-9*#A-D]{1,32}$ ]] || usage
    serve uas-dtmf ue6 "$LAB_UE6_SIP_PORT" "$LAB_UE6_RTP_PORT" uas-dtmf.xml -aa -set digits "$digits" -set dtmfdelay 1000 -set uemedia "$UE_IP:${UE_MPORT:-$LAB_UE6_RTP_PORT}" \
      -set sender "$HERE/send-rfc4733.py" -set dtmflog "$LOGDIR/ue6-rfc4733.log" ;;
  uas-reinvite)
    # No -aa: the scenario answers the re-INVITEs itself.
    [ $# -eq 0 ] || usage
    serve uas-reinvite ue8 "$LAB_UE8_SIP_PORT" "$LAB_UE8_RTP_PORT" uas-reinvite.xml ;;
  uac-reinvite)
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    pause="${2:-2000}"; is_int "$pause" || usage
    ME=ue9 ME_PORT=$LAB_UE9_SIP_PORT ME_MPORT=$LAB_UE9_RTP_PORT call uac-reinvite "$1" uac-reinvite.xml -set pause "$pause" -recv_timeout 30000 ;;
  uas-noanswer)
    # one optional argument, ignored: harness/runner/ue.mjs passes a user
    [ $# -le 1 ] || usage
    serve uas-noanswer ue5 "$LAB_UE5_SIP_PORT" "$LAB_UE5_RTP_PORT" uas-noanswer.xml ;;
  uas-early)
    [ $# -le 1 ] || usage
    serve uas-early ue5 "$LAB_UE5_SIP_PORT" "$LAB_UE5_RTP_PORT" uas-early.xml ;;
  uas-fork-a)
    [ $# -le 1 ] || usage
    serve uas-fork-a ue5 "$LAB_UE5_SIP_PORT" "$LAB_UE5_RTP_PORT" uas-fork-a.xml ;;
  uas-fork-b)
    # ue5's second contact (the S-CSCF then forks ue5's calls to both)
    [ $# -le 1 ] || usage
    REG_EXPIRES=15 serve uas-fork-b ue5 "$LAB_UE5_SECOND_SIP_PORT" "$LAB_UE5_SECOND_RTP_PORT" uas-fork-b.xml ;;
  uas-fork-late-2xx)
    [ $# -le 1 ] || usage
    serve uas-fork-late-2xx ue5 "$LAB_UE5_SIP_PORT" "$LAB_UE5_RTP_PORT" uas-fork-late-2xx.xml ;;
  uas-fork-2xx-b)
    [ $# -le 1 ] || usage
    REG_EXPIRES=15 serve uas-fork-2xx-b ue5 "$LAB_UE5_SECOND_SIP_PORT" "$LAB_UE5_SECOND_RTP_PORT" uas-fork-2xx.xml ;;
  uas-timer-422)
    [ $# -le 1 ] || usage
    serve uas-timer-422 ue5 "$LAB_UE5_SIP_PORT" "$LAB_UE5_RTP_PORT" uas-timer-422.xml ;;
  uas-timer)
    # No -aa: the scenario answers the UPDATE refreshes itself. One optional argument, ignored (ue.mjs passes a user).
    [ $# -le 1 ] || usage
    serve uas-timer ue5 "$LAB_UE5_SIP_PORT" "$LAB_UE5_RTP_PORT" uas-timer.xml ;;
  uac-timer|uac-timer-gw|uac-timer-422|uac-offerless)
    [ $# -eq 1 ] || usage
    call "$mode" "$1" "$mode.xml" -recv_timeout 15000 ;;
  uas-video)
    [ $# -eq 0 ] || usage
    serve uas-video ue7 "$LAB_UE7_SIP_PORT" "$LAB_UE7_RTP_PORT" uas-video.xml -aa ;;
  video-uac)
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    hold="${2:-5000}"; is_int "$hold" || usage
    case "${UE_VIDEO:-VP8}" in VP8|H264) ;; *) die "UE_VIDEO '$UE_VIDEO' is not VP8 or H264" ;; esac
    codec_args >/dev/null
    mapfile -t cargs < <(codec_args)
    call video-uac "$1" uac-video.xml -aa -set hold "$hold" -set vfirst "${UE_VIDEO:-VP8}" -recv_timeout 30000 "${cargs[@]}" ;;
  uac)
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    hold="${2:-5000}"; is_int "$hold" || usage
    # recv_timeout bounds every wait for a response (e.g. nobody answers).
    codec_args >/dev/null   # a bad UE_CODEC dies here, in this shell
    mapfile -t cargs < <(codec_args)
    call uac "$1" uac.xml -aa -set hold "$hold" -recv_timeout 30000 "${cargs[@]}" ;;
  uac-wait)
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    timeout="${2:-60000}"; is_int "$timeout" || usage
    call uac-wait "$1" uac-wait.xml -aa -recv_timeout "$timeout" ;;
  uac-reinvited)
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    timeout="${2:-60000}"; is_int "$timeout" || usage
    call uac-reinvited "$1" uac-reinvited.xml -aa -recv_timeout "$timeout" ;;
  volte-uas)
    # No -aa here: sipp would answer the UPDATE itself instead of the scenario.
    [ $# -le 1 ] || usage
    extra=()
    if [ $# -eq 1 ]; then is_int "$1" || usage; extra+=(-set byeafter "$1"); fi
    [ "${VOLTE_REL180:-0}" != 1 ] || extra+=(-set rel180 1)
    serve volte-uas ue4 "$LAB_UE4_SIP_PORT" "$LAB_UE4_RTP_PORT" volte-mt.xml "${extra[@]}" ;;
  volte-uac)
    [ $# -ge 1 ] && [ $# -le 2 ] || usage
    hold="${2:-5000}"; is_int "$hold" || usage
    extra=(-set hold "$hold" -recv_timeout 30000)
    [ "${VOLTE_REQUIRE:-0}" != 1 ] || extra+=(-set require 1)
    # VOLTE_WAIT_BYE=1: the far end hangs up; hold_ms is then the longest wait for it.
    [ "${VOLTE_WAIT_BYE:-0}" != 1 ] || extra+=(-set waitbye 1 -recv_timeout "$hold")
    ME=ue5 ME_PORT=$LAB_UE5_SIP_PORT ME_MPORT=$LAB_UE5_RTP_PORT call volte-uac "$1" volte-mo.xml "${extra[@]}" ;;
  volte-uac-cancel)
    [ $# -eq 1 ] || usage
    extra=(-recv_timeout 30000)
    [ "${VOLTE_REQUIRE:-0}" != 1 ] || extra+=(-set require 1)
    ME=ue5 ME_PORT=$LAB_UE5_SIP_PORT ME_MPORT=$LAB_UE5_RTP_PORT call volte-uac-cancel "$1" volte-mo-cancel.xml "${extra[@]}" ;;
  load-uac)
    [ $# -eq 4 ] || usage
    for n in "$2" "$3" "$4"; do is_int "$n" || usage; done
    load_call "$1" "$2" "$3" "$4" ;;
  load-calls)
    [ $# -eq 4 ] || usage
    for n in "$2" "$3" "$4"; do is_int "$n" || usage; done
    load_calls "$1" "$2" "$3" "$4" ;;
  deregister)
    # a credentials file's user only (an outside IMS): its binding at UE_IP:UE_PORT (default 5090) removed
    [ $# -eq 0 ] || usage
    [ -n "$EXT_USER" ] || die "deregister is for a user of a credentials file (UE_CREDENTIALS, UE_LOGIN)"
    REG_EXPIRES=0 register_credentials "${UE_PORT:-$LAB_UE2_SIP_PORT}"
    if [[ $UE_IP == *:* ]]; then c="[$UE_IP]:${UE_PORT:-$LAB_UE2_SIP_PORT}"; else c="$UE_IP:${UE_PORT:-$LAB_UE2_SIP_PORT}"; fi
    echo "run-ue: $EXT_IMPI de-registered its contact $c at $KAMAILIO" ;;
  *) usage ;;
esac
