#!/usr/bin/env bash
# selftest.sh — the 3GPP IMS core end to end, from real components, in a private network and
# mount namespace (loopback only; /etc/resolv.conf bind-mounted to our own dnsmasq):
# HSS (freeDiameter + libosmocore Milenage), dnsmasq, MariaDB, P-/I-/S-CSCF (Kamailio 5.6 IMS
# modules); two SIPp UEs register with IMS-AKA and one calls the other (MO: P-CSCF → S-CSCF →
# I-CSCF (LIR) → S-CSCF (MT) → P-CSCF → UE). A tcpdump capture of SIP and Diameter is checked
# with tshark. Exit 0 only when every check passed; everything started is stopped by PID.
# Usage: ims-sim/3gpp/selftest.sh    Logs: $IMS3_LOGDIR (default: a new /tmp/ims3-selftest.* dir)
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
if [ -z "${IMS3_SELFTEST_IN_NS:-}" ]; then
  # on the host (apt needs the network): install what is missing, like ./lab does
  # shellcheck source=../../harness/lib/log.sh
  . "$ROOT/harness/lib/log.sh"
  # shellcheck source=../../harness/lib/deps.sh
  . "$ROOT/harness/lib/deps.sh"
  # shellcheck source=packages.sh
  . "$HERE/packages.sh"
  LAB_PACKAGES=("${IMS3_PACKAGES[@]}")
  ensure_packages
  un=(unshare --net --mount)
  ((EUID == 0)) || un=(unshare --user --map-root-user --net --mount)
  exec "${un[@]}" -- python3 "$ROOT/harness/lib/subreaper.py" env IMS3_SELFTEST_IN_NS=1 bash "$0" "$@"
fi
# shellcheck source=../../harness/lib/log.sh
. "$ROOT/harness/lib/log.sh"
# shellcheck source=../../harness/lib/netns.sh
. "$ROOT/harness/lib/netns.sh"
# shellcheck source=core.sh
. "$HERE/core.sh"
export IMS3_LOGDIR="${IMS3_LOGDIR:-$(mktemp -d /tmp/ims3-selftest.XXXXXX)}"
L="$IMS3_LOGDIR"; R="$L/run"
mkdir -p "$R"
PIDS=()
passed=0; failed=0

cleanup() {
  local i
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[i]}" 2>/dev/null; done
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do wait "${PIDS[i]}" 2>/dev/null; done
  ims3_down
  ((${IMS3_KEEP_DB:-0})) || rm -rf "$L/run/db/data"  # state, not a log
}
trap cleanup EXIT
trap 'exit 130' INT TERM

check() {  # name command...
  local name="$1"; shift
  if "$@" >>"$L/selftest.out" 2>&1; then
    passed=$((passed + 1)); echo "PASS $name"
  else
    failed=$((failed + 1)); echo "FAIL $name (see $L)"
  fi
}
fails() { ! "$@"; }
has() { grep -q -- "$2" "$L/$1"; }
abort() { echo "ABORT: $*"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }

alive() { kill -0 "$1" 2>/dev/null; }

netns_setup
# Kamailio 5.6's ims_dialog can segfault at shutdown after a call (3gpp-notes): no 80 MB cores in /
((${IMS3_KEEP_CORES:-0})) || ulimit -c 0
# Our DNS for everything in this mount namespace (Kamailio and cdp resolve through libc/resolv.conf)
ims3_resolv "$L" || abort "cannot bind-mount resolv.conf (needs a mount namespace)"

# --- the HSS and its unit tests --------------------------------------------------------------
check "HSS builds, unit tests pass (Milenage TS 35.208 sets 1-6, AUTS, table)" "$HERE/build-hss.sh"
[ -x "$HERE/hss/build/hss" ] || abort "no HSS binary"
opc_of() {  # K OP -> OPc = AES_K(OP) xor OP
  python3 - "$1" "$2" <<'PY'
import subprocess, sys
k, op = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2])
enc = subprocess.run(["openssl", "enc", "-aes-128-ecb", "-nopad", "-K", k.hex()], input=op,
                     capture_output=True, check=True).stdout
print(bytes(a ^ b for a, b in zip(enc, op)).hex())
PY
}
keys_match() {
  local impi k op opc
  while read -r impi k op; do
    [[ -z $impi || $impi == \#* ]] && continue
    opc=$(awk -v i="$impi" '$1 == i {print $4}' "$IMS3_SUBSCRIBERS")
    [ "$(opc_of "$k" "$op")" = "$opc" ] || { echo "OPc of $impi differs"; return 1; }
    echo "$impi: OPc $opc = AES_K(OP) xor OP"
  done < "$HERE/sipp/ue-keys.txt"
}
check "UE keys (sipp/ue-keys.txt) match the HSS table's OPc" keys_match
usim_ok() {  # aka-ue.py's Milenage against TS 35.208 test set 1
  python3 - "$HERE/sipp/aka-ue.py" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("akaue", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
u = m.Usim(bytes.fromhex("465b5ce8b199b49faa5f0a2ee238a6bc"), bytes.fromhex("cdc202d5123e20f62b6d676ac72cb318"))
r = bytes.fromhex("23553cbe9637a89d218ae64dae47bf35")
got = [u.opc.hex(), *(x.hex() for x in u.f1(r, bytes.fromhex("ff9bb4d0b607"), bytes.fromhex("b9b9"))),
       *(x.hex() for x in u.f2345(r)), u.f5star(r).hex()]
want = ["cd63cb71954a9f4e48a5994e37a02baf", "4a9ffac354dfafb3", "01cfaf9ec4e871e9", "a54211d5e3ba50bf",
        "b40ba9a3c58b2a05bbf0d987b21bf8cb", "f769bcd751044604127672711c6d3441", "aa689c648370", "451e8beca43b"]
print("aka-ue.py Milenage:", got)
sys.exit(0 if got == want else 1)
PY
}
check "aka-ue.py's USIM (Milenage on cryptography's AES) matches TS 35.208 set 1" usim_ok

# --- capture of SIP and Diameter on loopback ---------------------------------------------------
tcpdump -i lo -n -s 0 -U --immediate-mode -w "$L/ims.pcap" \
  "port $IMS3_PCSCF_PORT or port $IMS3_ICSCF_PORT or port $IMS3_SCSCF_PORT or port $IMS3_HSS_DIAMETER_PORT or portrange 5081-5086" \
  >"$L/tcpdump.log" 2>&1 & PIDS+=($!); TCPDUMP=$!
ims3_wait 5 grep -q listening "$L/tcpdump.log"

# --- DNS, DB, HSS, CSCFs (core.sh, step by step) -------------------------------------------
ims3_start_dns "$L"
check "dnsmasq: hss.$IMS3_DOMAIN resolves to $IMS3_ADDR" ims3_wait 5 ims3_dns_ready
ims3_start_db "$L"
check "MariaDB: I-CSCF tables with the S-CSCF list" ims3_wait 60 ims3_db_ready
export HSS_ARGS=--log-vectors  # XRES in the HSS log: the SIPp RES-0x00 retry below reads it
ims3_start_hss "$L"
check "HSS up (freeDiameter, Cx)" ims3_wait 15 ims3_hss_ready "$L"
alive "${IMS3_PID[hss]}" || abort "HSS stopped: $(tail -3 "$L/hss.log")"
for role in scscf icscf pcscf; do ims3_start_cscf "$L" "$role"; done
for role in scscf icscf pcscf; do
  port_var="IMS3_${role^^}_PORT"
  check "$role answers SIP OPTIONS on ${!port_var}" ims3_wait 15 ims3_sip_ready "$role"
done
# the Diameter connections cdp → HSS (freeDiameter logs the peer state machine)
check "Diameter: I-CSCF ↔ HSS connection open" ims3_wait 45 ims3_peer_open "$L" icscf
check "Diameter: S-CSCF ↔ HSS connection open" ims3_wait 45 ims3_peer_open "$L" scscf

# --- UEs -------------------------------------------------------------------------------------
scen() {  # impi -> a register scenario with that UE's keys
  local impi=$1 k op
  read -r _ k op < <(awk -v i="$impi" '$1 == i' "$HERE/sipp/ue-keys.txt")
  sed -e "s|@IMPI@|$impi|g; s|@K@|${K_OVERRIDE:-$k}|g; s|@OP@|$op|g; s|@DOMAIN@|$IMS3_DOMAIN|g" \
    "$HERE/sipp/register-aka.xml.tmpl" > "$L/register-$impi.xml"
  echo "$L/register-$impi.xml"
}
register() {  # user port [name]
  local user=$1 port=$2 name=${3:-$1} s
  s=$(scen "$user@$IMS3_DOMAIN")
  sipp -sf "$s" -s "$user" -i "$IMS3_ADDR" -p "$port" -m 1 -nostdin -default_behaviors -bye -recv_timeout 8000 \
    -trace_msg -message_file "$L/register-$name-messages.log" -trace_err -error_file "$L/register-$name-errors.log" \
    "$IMS3_ADDR:$IMS3_PCSCF_PORT" >"$L/register-$name.out" 2>&1
}
# SIPp 3.6.1 passes the AKA RES through strlen(): a challenge whose RES holds a 0x00 byte gets a
# wrong response (403). The HSS logs each XRES (--log-vectors); only that case is retried.
vectors_of() { grep "MAR $1@.* xres=" "$L/hss.log"; }
register_aka() {  # user port
  local i before
  for i in 1 2 3; do
    before=$(vectors_of "$1" | wc -l)
    register "$1" "$2" && return 0
    vectors_of "$1" | tail -n +"$((before + 1))" | grep -Eq 'xres=([0-9a-f]{2})*00' || return 1
    echo "register $1: a vector's RES had a 0x00 byte (SIPp strlen bug), retry $i" | tee -a "$L/selftest.out"
  done
  return 1
}
check "ue1 registers with IMS-AKA (401 challenge, then 200)" register_aka ue1 5081
check "ue2 registers with IMS-AKA" register_aka ue2 5082
check "... the 401 carried an AKAv1-MD5 challenge" has register-ue1-messages.log 'WWW-Authenticate: Digest .*algorithm=AKAv1-MD5'
check "... the second REGISTER answered it (Authorization with algorithm=AKAv1-MD5 and a response)" \
  bash -c "grep -E '^Authorization: Digest ' '$L/register-ue1-messages.log' | grep -v 'response=\"\"' | grep -q 'AKAv1-MD5'"
check "... 200 has Service-Route orig@scscf" has register-ue1-messages.log "^Service-Route: <sip:orig@scscf.$IMS3_DOMAIN:$IMS3_SCSCF_PORT;lr>"
check "... 200 has the P-CSCF's Path" has register-ue1-messages.log "^Path: <sip:term@pcscf.$IMS3_DOMAIN:$IMS3_PCSCF_PORT;lr>"
check "... 200 lists the implicit set (P-Associated-URI tel:+15550001)" has register-ue1-messages.log "P-Associated-URI:.*tel:+15550001"
check "HSS: UAR (first registration), MAR (vector), SAR (registration) for ue1" bash -c \
  "grep -q 'UAR ue1@$IMS3_DOMAIN sip:ue1@$IMS3_DOMAIN -> 2001' '$L/hss.log' && grep -Eq 'MAR ue1@$IMS3_DOMAIN vector 1 sqn=00000000002[1-9a-f]' '$L/hss.log' && grep -q 'SAR ue1@$IMS3_DOMAIN sip:ue1@$IMS3_DOMAIN type=1 server=sip:scscf.$IMS3_DOMAIN:$IMS3_SCSCF_PORT -> 2001' '$L/hss.log'"
check "I-CSCF chose the S-CSCF from its MariaDB list (UAA with capabilities)" has icscf.log "I-CSCF REGISTER for sip:ue1@$IMS3_DOMAIN to S-CSCF sip:scscf.$IMS3_DOMAIN:$IMS3_SCSCF_PORT"

# --- a call ue2 → ue1 -------------------------------------------------------------------------
sipp -sf "$HERE/sipp/uas.xml" -s ue1 -i "$IMS3_ADDR" -p 5081 -mp 6000 -m 1 -nostdin -timeout 40s \
  -trace_msg -message_file "$L/uas-ue1-messages.log" -trace_err -error_file "$L/uas-ue1-errors.log" \
  >"$L/uas-ue1.out" 2>&1 & PIDS+=($!); UAS=$!
sleep 0.5
call() {  # caller port callee name
  sipp -sf "$HERE/sipp/uac.xml" -set caller "$1" -s "$3" -i "$IMS3_ADDR" -p "$2" -mp 6100 -m 1 -nostdin \
    -recv_timeout 10000 -trace_msg -message_file "$L/uac-$4-messages.log" \
    -trace_err -error_file "$L/uac-$4-errors.log" "$IMS3_ADDR:$IMS3_PCSCF_PORT" >"$L/uac-$4.out" 2>&1
}
check "call ue2 → ue1: INVITE/180/200/ACK/BYE/200" call ue2 5082 ue1 ue2-ue1
uas_done() { wait "$UAS"; }
check "... ue1 (UAS) saw the whole dialog" uas_done
check "... MO at the P-CSCF, Service-Route to the S-CSCF" has pcscf.log "P-CSCF originating INVITE sip:ue1@$IMS3_DOMAIN for sip:ue2@$IMS3_DOMAIN"
check "... S-CSCF originating leg" has scscf.log "S-CSCF originating INVITE sip:ue1@$IMS3_DOMAIN"
check "... I-CSCF LIR for sip:ue1@$IMS3_DOMAIN (found by DNS SRV)" has icscf.log "I-CSCF LIR for sip:ue1@$IMS3_DOMAIN"
check "... HSS answered the LIR with the S-CSCF" has hss.log "LIR sip:ue1@$IMS3_DOMAIN server=sip:scscf.$IMS3_DOMAIN:$IMS3_SCSCF_PORT -> 2001"
check "... S-CSCF terminating leg to ue1's contact via the Path" has scscf.log "S-CSCF terminating INVITE to sip:ue1@$IMS3_ADDR:5081"
check "... P-CSCF terminating leg" has pcscf.log "P-CSCF terminating INVITE sip:ue1@$IMS3_ADDR:5081"
check "... INVITE at ue1 carries P-Asserted-Identity <sip:ue2@$IMS3_DOMAIN>" has uas-ue1-messages.log "^P-Asserted-Identity: <sip:ue2@$IMS3_DOMAIN>"
rr_set() {  # the INVITE at ue1: P-CSCF (MT), S-CSCF (MT), S-CSCF (MO), P-CSCF (MO), top first
  local got
  got=$(awk '/^INVITE /{f=1} f && /^Record-Route:/{print} f && /^$/{exit}' "$L/uas-ue1-messages.log" |
        sed -E 's/^Record-Route: //; s/;ftag=[^;>]*//g; s/;did=[^;>]*//g' | tr -d '\r\n')
  echo "Record-Route at ue1: $got"
  [ "$got" = "<sip:$IMS3_ADDR;lr=on><sip:$IMS3_ADDR:$IMS3_SCSCF_PORT;lr=on><sip:$IMS3_ADDR:$IMS3_SCSCF_PORT;lr=on><sip:$IMS3_ADDR;lr=on>" ]
}
check "... Record-Route: P-CSCF, S-CSCF (MT) then S-CSCF, P-CSCF (MO)" rr_set
check "... BYE loose-routed by the S-CSCF" has scscf.log "S-CSCF in-dialog BYE loose-routed"

# --- failures that must fail -----------------------------------------------------------------
register_badkey() { K_OVERRIDE=4a4b4c4d4e4f41424344454647484950 register ue2 5083 ue2-badkey; }
check "a UE with a wrong K refuses the network (AUTN's MAC-A fails at the UE)" fails register_badkey
check "... after the 401 it sent nothing more" bash -c \
  "grep -q '^SIP/2.0 401' '$L/register-ue2-badkey-messages.log' && [ \$(grep -c '^REGISTER ' '$L/register-ue2-badkey-messages.log') -eq 1 ]"
aka_ue() {  # name user port mode
  local k op
  read -r _ k op < <(awk -v i="$2@$IMS3_DOMAIN" '$1 == i' "$HERE/sipp/ue-keys.txt")
  python3 "$HERE/sipp/aka-ue.py" --impi "$2@$IMS3_DOMAIN" --user "$2" --k "$k" --op "$op" \
    --addr "$IMS3_ADDR" --port "$3" --pcscf "$IMS3_ADDR:$IMS3_PCSCF_PORT" "$4" >"$L/aka-ue-$1.log" 2>&1
}
check "a wrong RES (right key) gets 403 from the S-CSCF" aka_ue wrong-res bob 5086 wrong-res
check "... the S-CSCF found the response wrong" has scscf.log "S-CSCF REGISTER sip:bob@$IMS3_DOMAIN: wrong AKA response"
check "an AUTS with a wrong MAC-S is refused (no new challenge)" aka_ue bad-auts ue2 5084 bad-auts
check "... HSS: MAC-S did not verify, SQN unchanged" has hss.log "MAR ue2@$IMS3_DOMAIN: AUTS does not verify (MAC-S)"
check "resync: the UE refuses the SQN with AUTS, gets SQN_MS+1, registers (aka-ue.py resync)" aka_ue resync alice 5085 resync
check "... HSS verified the AUTS and restarted from SQN_MS+1" has hss.log "MAR alice@$IMS3_DOMAIN vector 1 after resync (AUTS verified) sqn=000000000086"
check "call to bob (known, not registered) fails" fails call ue2 5082 bob ue2-bob
check "... HSS LIA: identity not registered (5003)" has hss.log "LIR sip:bob@$IMS3_DOMAIN -> 5003"
check "... the caller got 480" has uac-ue2-bob-messages.log "^SIP/2.0 480"
check "call to unknown carol fails" fails call ue2 5082 carol ue2-carol
check "... HSS LIA: user unknown (5001)" has hss.log "LIR sip:carol@$IMS3_DOMAIN -> 5001"
check "... the caller got 604" has uac-ue2-carol-messages.log "^SIP/2.0 604"

# --- the capture -----------------------------------------------------------------------------
sleep 0.5; kill "$TCPDUMP" 2>/dev/null; wait "$TCPDUMP" 2>/dev/null
tshark_has() {  # display-filter what
  local n
  n=$(tshark -r "$L/ims.pcap" -d "tcp.port==$IMS3_HSS_DIAMETER_PORT,diameter" -d "udp.port==$IMS3_ICSCF_PORT,sip" \
      -d "udp.port==$IMS3_SCSCF_PORT,sip" -d "udp.port==5081,sip" -d "udp.port==5082,sip" -Y "$1" 2>/dev/null | wc -l)
  echo "$2: $n packets"; [ "$n" -gt 0 ]
}
# the ladder of the whole run, SIP and Diameter, for humans
tshark -r "$L/ims.pcap" -d "tcp.port==$IMS3_HSS_DIAMETER_PORT,diameter" -d "udp.port==$IMS3_ICSCF_PORT,sip" \
  -d "udp.port==$IMS3_SCSCF_PORT,sip" -d "udp.port==5081,sip" -d "udp.port==5082,sip" -Y 'sip || diameter' \
  -T fields -e frame.time_relative -e udp.srcport -e udp.dstport -e tcp.srcport -e tcp.dstport -e _ws.col.Info \
  >"$L/ladder.txt" 2>/dev/null
check "capture: 401 with AKAv1-MD5 to the UE" tshark_has 'sip.Status-Code == 401 && sip.WWW-Authenticate contains "AKAv1-MD5"' "401 AKA"
check "capture: Diameter Cx UAR, MAR, SAR, LIR answered with success" bash -c "
  $(declare -f tshark_has); L='$L' IMS3_HSS_DIAMETER_PORT=$IMS3_HSS_DIAMETER_PORT IMS3_ICSCF_PORT=$IMS3_ICSCF_PORT IMS3_SCSCF_PORT=$IMS3_SCSCF_PORT
  for c in 300 301 302 303; do tshark_has \"diameter.cmd.code == \$c && diameter.flags.request == 0\" \"answer \$c\" || exit 1; done"
check "capture: MAA carries SIP-Authenticate (RAND||AUTN), CK and IK" tshark_has \
  'diameter.cmd.code == 303 && diameter.flags.request == 0 && diameter.3GPP-SIP-Authenticate && diameter.Confidentiality-Key && diameter.Integrity-Key' "MAA"

for name in dnsmasq mariadb hss scscf icscf pcscf; do
  alive "${IMS3_PID[$name]}" || { echo "FAIL $name stopped during the run"; failed=$((failed + 1)); }
done
echo "$passed passed, $failed failed (logs: $L)"
[ "$failed" -eq 0 ]
