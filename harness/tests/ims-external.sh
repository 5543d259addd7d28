#!/usr/bin/env bash
# External-IMS mode tried against the lab's own 3GPP core started separately, as an outside IMS would be
# (docs/ims-sim.md "External IMS", docs/compliance.md "External mode trial"). In a private network
# namespace of its own (loopback, plus a veth pair with a default route: Chromium gathers no ICE
# candidate without one):
#   1. the "outside" IMS, NOT started by ./lab: ims-sim/3gpp/run-core.sh (P/I/S-CSCF + HSS on
#      127.0.0.1) and ue1 (SIPp, IMS-AKA, answers and echoes);
#   2. ./lab compliance --ims external --pcscf 127.0.0.1:5060 --domain ims.lab --credentials F
#      --call-to ue1 --sipp-caller, where F (mode 0600) holds carol's IMS-AKA line: the gateway and
#      rtpengine only, carol registers at the P-CSCF, calls ue1, is called by the lab's SIPp ue2;
#   3. passes when out/compliance/report.json has external-registration, external-mo-call,
#      external-mt-call and external-deregistration passed.
# Usage: harness/tests/ims-external.sh     Logs: out/ims-external/logs/ (+ out/compliance/). About 2 min.
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

# 1. the outside IMS
proc_start outside-core unshare --mount -- bash "$ROOT/ims-sim/3gpp/run-core.sh" "$LAB_LOGDIR/outside-core"
proc_wait_ready outside-core "$LAB_LAST_PID" 120 "the 3GPP core up" grep -q '^ims3: ready' "$LAB_LOGDIR/outside-core.log" || exit 1
proc_start outside-ue1 env LAB_LOGDIR="$LAB_LOGDIR" KAMAILIO=127.0.0.1:5060 IMS_AKA_KEYS="$ROOT/ims-sim/3gpp/sipp/ue-keys.txt" \
  bash "$ROOT/sipp-scenarios/run-ue.sh" uas
proc_wait_ready outside-ue1 "$LAB_LAST_PID" 30 "ue1 registered at the outside core" proc_is "$LAB_LAST_PID" sipp || exit 1

# 2. the lab in external mode toward it
creds="$LAB_RUN_DIR/credentials.txt"
(umask 077 && grep '^carol ' "$ROOT/ims-sim/3gpp/gateway-credentials.txt" >"$creds") || die "cannot write $creds"
log "running: ./lab compliance --ims external --pcscf 127.0.0.1:5060 --domain ims.lab --credentials $(rel "$creds") --call-to ue1 --sipp-caller"
"$ROOT/lab" compliance --ims external --pcscf 127.0.0.1:5060 --domain ims.lab --credentials "$creds" --call-to ue1 --sipp-caller
rc=$?
procs_cleanup

# 3. the verdict
node - "$ROOT/out/compliance/report.json" <<'JS'
const r = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const want = ['external-registration', 'external-mo-call', 'external-mt-call', 'external-deregistration'];
const bad = want.filter((id) => r.checks.find((c) => c.id === id)?.status !== 'pass');
console.log(`ims-external: ${r.summary}; ${want.length - bad.length}/${want.length} external checks pass${bad.length ? ` (not: ${bad.join(', ')})` : ''}`);
process.exit(bad.length || r.ims !== 'external' ? 1 : 0);
JS
ok=$?
((ok == 0)) && exit 0
echo "ims-external: FAILED (lab compliance exit $rc; logs: $(rel "$LAB_LOGDIR")/, out/compliance/logs/)"
exit 1
