#!/usr/bin/env bash
# External-IMS mode tried against the lab's own 3GPP core started separately, as an outside IMS would be
# (docs/ims-sim.md "External IMS", docs/compliance.md "External mode trial"). In a private network
# namespace of its own (loopback, plus a veth pair with a default route: Chromium gathers no ICE
# candidate without one):
#   1. the "outside" IMS, NOT started by ./lab: ims-sim/3gpp/run-core.sh (P/I/S-CSCF + HSS on
#      127.0.0.1) and ue1 (SIPp, IMS-AKA, answers and echoes);
#   2. ./lab compliance --ims external --pcscf pcscf.ims.lab --dns 127.0.0.1:53 --domain ims.lab --credentials F
#      --call-to ue1 --sipp-caller (the P-CSCF found by name in the outside core's DNS, RFC 3263:
#      NAPTR → SRV → A), where F (mode 0600) holds carol's IMS-AKA line under the login carla
#      (login ≠ IMPU user part): the gateway and rtpengine only, carla registers sip:carol@ims.lab at the
#      P-CSCF, calls ue1 (whose message log, LAB_EXT_CALLEE_LOG, shows the P-Asserted-Identity), is called
#      by the lab's SIPp ue2 at sip:carol@ims.lab; passes when external-registration, -mo-call,
#      -asserted-identity, -mt-call and -deregistration pass;
#   3. the same toward the light Kamailio (ims-sim/start-kamailio.sh) and its ue1, with a digest line
#      "carla carol-web-only digest carol@ims.lab sip:carol@ims.lab carol-secret" (the SIP password is not
#      the web one): registration, MO call to ue1 with the identity check, de-registration must pass.
# Usage: harness/tests/ims-external.sh     Logs: out/ims-external/logs/, reports out/ims-external/report-{aka,digest}.json
# (out/compliance/ is the last run's). About 3 min.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
LAB_SELF="$ROOT/harness/tests/ims-external.sh"   # what netns_enter re-executes inside the namespace
for lib in log addresses procs netns components; do
  # shellcheck source=/dev/null
  source "$ROOT/harness/lib/$lib.sh"
done

if [[ ${LAB_IN_NETNS:-} != 1 ]]; then
  [[ -x $ROOT/ims-sim/3gpp/hss/build/hss ]] || die "build the HSS first (./lab test --ims 3gpp, or ims-sim/3gpp/build-hss.sh)"
  lab_prepare_run ims-external
fi
netns_enter "$@"
lab_use_run ims-external
procs_install_traps
ip link add ext0 type veth peer name ext1 && ip addr add 198.18.9.1/24 dev ext0 && ip link set ext1 up && ip link set ext0 up &&
  ip route add default dev ext0 || die "cannot set up the extra link"

# one run of ./lab compliance --ims external against the outside core now up; its report kept as
# out/ims-external/report-NAME.json. The checks WANT (space-separated) must pass.
verdict=0
external_run() {  # NAME CREDENTIALS-LINE WANT PCSCF EXTRA-OPTION...  (the called UE's message log: LAB_EXT_CALLEE_LOG)
  local name=$1 line=$2 want=$3 pcscf=$4 creds="$LAB_RUN_DIR/credentials-$1.txt" rc ok; shift 4
  (umask 077 && printf '%s\n' "$line" >"$creds") || die "cannot write $creds"
  log "[$name] ./lab compliance --ims external --pcscf $pcscf --domain ims.lab --credentials $(rel "$creds") $*"
  "$ROOT/lab" compliance --ims external --pcscf "$pcscf" --domain ims.lab --credentials "$creds" "$@"
  rc=$?
  cp "$ROOT/out/compliance/report.json" "$LAB_RUN_DIR/report-$name.json" 2>/dev/null
  node - "$LAB_RUN_DIR/report-$name.json" "$name" "$want" <<'JS'
const fs = require('fs');
const [file, name, want] = process.argv.slice(2);
const r = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { checks: [], summary: 'no report' };
const ids = want.split(' ');
const bad = ids.filter((id) => r.checks.find((c) => c.id === id)?.status !== 'pass');
console.log(`ims-external [${name}]: ${r.summary}; ${ids.length - bad.length}/${ids.length} wanted checks pass${bad.length ? ` (not: ${bad.join(', ')})` : ''}`);
process.exit(bad.length || r.ims !== 'external' ? 1 : 0);
JS
  ok=$?
  ((ok == 0)) || { echo "ims-external [$name]: FAILED (lab compliance exit $rc; logs: out/compliance/logs/)"; verdict=1; }
}

# 1. IMS-AKA toward the 3GPP core (P/I/S-CSCF + HSS) and its ue1, both started here, not by ./lab
proc_start outside-core unshare --mount -- bash "$ROOT/ims-sim/3gpp/run-core.sh" "$LAB_LOGDIR/outside-core"
proc_wait_ready outside-core "$LAB_LAST_PID" 120 "the 3GPP core up" grep -q '^ims3: ready' "$LAB_LOGDIR/outside-core.log" || exit 1
proc_start outside-ue1 env LAB_LOGDIR="$LAB_LOGDIR" KAMAILIO=127.0.0.1:5060 IMS_AKA_KEYS="$ROOT/ims-sim/3gpp/sipp/ue-keys.txt" \
  bash "$ROOT/sipp-scenarios/run-ue.sh" uas
proc_wait_ready outside-ue1 "$LAB_LAST_PID" 30 "ue1 registered at the outside core" proc_is "$LAB_LAST_PID" sipp || exit 1
# carol's IMS-AKA credentials under another login (carla): the gateway must call as her registered identity
# (sip:carol@ims.lab), not as the login, or the core's P-CSCF refuses the INVITE (docs/ims-sim.md "Registered identities")
export LAB_EXT_CALLEE_LOG="$LAB_LOGDIR/sipp-uas-ue1-messages.log"
external_run aka "$(grep '^carol ' "$ROOT/ims-sim/3gpp/gateway-credentials.txt" | sed 's/^carol /carla /')" \
  "external-registration external-mo-call external-asserted-identity external-mt-call external-deregistration" pcscf.ims.lab --dns 127.0.0.1:53 --call-to ue1 --sipp-caller
procs_cleanup

# 2. digest with IMPI/IMPU/SIP password (not the web password) toward the light Kamailio and its ue1
procs_install_traps
mkdir -p "$LAB_RUN_DIR/kamailio"
proc_start outside-kamailio env KAMAILIO_ADDR=127.0.0.1 KAMAILIO_PORT=5060 SCSCF_PORT="$LAB_SCSCF_PORT" IMS_DOMAIN=ims.lab \
  bash "$ROOT/ims-sim/start-kamailio.sh" "$LAB_RUN_DIR/kamailio"
proc_wait_ready outside-kamailio "$LAB_LAST_PID" 20 "SIP answer to OPTIONS" python3 "$ROOT/harness/lib/sip-options.py" 127.0.0.1:5060 1 || exit 1
proc_start outside-ue1-digest env LAB_LOGDIR="$LAB_LOGDIR" KAMAILIO=127.0.0.1:5060 IMS_USERS="$ROOT/ims-sim/users.txt" \
  bash "$ROOT/sipp-scenarios/run-ue.sh" uas
proc_wait_ready outside-ue1-digest "$LAB_LAST_PID" 30 "ue1 registered" proc_is "$LAB_LAST_PID" sipp || exit 1
external_run digest "carla carol-web-only digest carol@ims.lab sip:carol@ims.lab carol-secret" \
  "external-registration external-mo-call external-asserted-identity external-deregistration" 127.0.0.1:5060 --call-to ue1
procs_cleanup
((verdict == 0)) && echo "ims-external: all passed"
exit "$verdict"
