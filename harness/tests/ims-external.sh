#!/usr/bin/env bash
# External mode tested the way users use it (issue #23; docs/connecting-your-ims.md "Tried against the lab's own
# core"): the lab's 3GPP core started as an outsider, and `./lab compliance --ims external` toward it by name, over
# IPv4 and then over IPv6. In a private network namespace of its own (this script re-executes itself there; ./lab
# test --only ims-external and the full ./lab test run it so):
#   1. the outside IMS in namespace LAB_NS_OUTSIDE, NOT started by ./lab: ims-sim/3gpp/run-core.sh (DNS, MariaDB,
#      HSS, P/I/S-CSCF) on LAB_OUTSIDE_CORE_ADDR with its own home domain LAB_OUTSIDE_DOMAIN and its own DNS
#      (dnsmasq on LAB_OUTSIDE_CORE_ADDR:53: NAPTR → SRV → A of pcscf.<domain>), its subscribers those of
#      ims-sim/3gpp/subscribers.txt moved to that domain. Its P-CSCF and DNS also listen on LAB_OUTSIDE_CORE_ADDR6
#      (a ULA of fd00:1ab:8::/64), where pcscf.<domain> has its AAAA record (IMS3_GM6_ADDR). The lab reaches it over
#      a veth link from LAB_OUTSIDE_LAB_ADDR / LAB_OUTSIDE_LAB_ADDR6: no loopback between them, no route anywhere else.
#   2. a credentials file (mode 0600) as an operator would hand it out: carol's IMS-AKA line under the login carla
#      (login ≠ IMPU user part: the gateway must call as sip:carol@<domain>), ue2's (the second identity, played
#      by the lab's SIPp UEs) and gina's, a SIP digest subscription (IMPI, IMPU, SIP password);
#   3. IPv4: ./lab compliance --ims external --pcscf pcscf.<domain> --dns <core>:53 --domain <domain> --credentials F
#      --bind LAB_OUTSIDE_BIND, exactly as a user types it;
#   4. IPv6 against the same running core: the lab's end of the link loses its IPv4 address (Gm is IPv6 only: no
#      IPv4 path to the core is left), then the same command with --dns <core's IPv6> --ipv6: the gateway finds
#      the P-CSCF by NAPTR → SRV → AAAA, its SIP side, rtpengine's IMS interface and the far-end UE are IPv6, the
#      browsers stay on IPv4 (--bind).
# Each run passes when it has 0 failed checks and the checks WANTED below pass. Reports: out/ims-external/ipv4/ and
# ipv6/ (report.json, junit.xml, the run's logs/); out/compliance/ is the last run's.
# Prints "ims-external: IPv4 N pass, 0 fail, M not-applicable, W/W wanted; IPv6 ..." and exits 0 when both passed.
# Usage: harness/tests/ims-external.sh [ipv4|ipv6] (default both)   Logs: out/ims-external/logs/ (the core's:
# logs/outside-core/).
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
for lib in log addresses procs netns components updown; do
  # shellcheck source=/dev/null
  source "$ROOT/harness/lib/$lib.sh"
done
WANTED="external-registration external-registration-digest external-reg-event external-mo-call external-asserted-identity external-mt-call external-session-timers external-early-media external-preconditions-mo external-preconditions-mt external-dtmf external-hold external-deregistration"

if [[ ${LAB_IN_NETNS:-} != 1 ]]; then
  [[ -x $ROOT/ims-sim/3gpp/hss/build/hss ]] || die "build the HSS first (./lab test --only ims-external does, or ims-sim/3gpp/build-hss.sh)"
  lab_prepare_run ims-external
  netns_exec "$ROOT/harness/tests/ims-external.sh" "$@" # this script again, inside a private network namespace
fi
netns_setup
lab_use_run ims-external
procs_install_traps

# the outsider's namespace, the veth link to it (IPv4 and IPv6), and an address of its own for the browsers' side
FAMILIES=${1:-ipv4 ipv6}
[[ $FAMILIES =~ ^(ipv4|ipv6|ipv4\ ipv6)$ ]] || die "usage: ims-external.sh [ipv4|ipv6]"
dom=$LAB_OUTSIDE_DOMAIN core=$LAB_OUTSIDE_CORE_ADDR core6=$LAB_OUTSIDE_CORE_ADDR6
mkdir -p /run/netns && mount -t tmpfs -o size=64k,mode=755 lab-netns /run/netns || die "cannot mount a private /run/netns"
ip netns add "$LAB_NS_OUTSIDE" && ip -n "$LAB_NS_OUTSIDE" link set lo up &&
  netns_veth "" vx-lab "$LAB_OUTSIDE_LAB_ADDR/24" "$LAB_NS_OUTSIDE" vx-core "$core/24" &&
  ip -6 addr add "$LAB_OUTSIDE_LAB_ADDR6/64" dev vx-lab nodad && ip -n "$LAB_NS_OUTSIDE" -6 addr add "$core6/64" dev vx-core nodad &&
  ip link add vx-pub type veth peer name vx-pub-end && ip addr add "$LAB_OUTSIDE_BIND/24" dev vx-pub &&
  ip link set vx-pub up && ip link set vx-pub-end up &&
  ip route add default via "$core" ||
  die "cannot set up the link to the outside core's namespace (IPv6 switched off? sysctl net.ipv6.conf.all.disable_ipv6)"
# (the default route: Chromium gathers no ICE candidate without one; it leads only to the outside core)

# 1. the outside core, started as its operator would: its own subscribers, domain, DNS and addresses
subs="$LAB_RUN_DIR/outside-subscribers.txt"
(umask 077 && sed "s/@ims\.lab\b/@$dom/g" "$ROOT/ims-sim/3gpp/subscribers.txt" >"$subs") || die "cannot write $subs" # K, OPc: 0600
log "the outside IMS: ims-sim/3gpp/run-core.sh in namespace $LAB_NS_OUTSIDE on $core and [$core6], domain $dom (logs: $(rel "$LAB_LOGDIR")/outside-core/)"
proc_start outside-core ip netns exec "$LAB_NS_OUTSIDE" env IMS3_ADDR="$core" IMS3_GM6_ADDR="$core6" IMS3_DOMAIN="$dom" IMS3_SUBSCRIBERS="$subs" \
  IMS3_TRUSTED_NODES="$LAB_OUTSIDE_LAB_ADDR:$LAB_GW_SIP_PORT $LAB_OUTSIDE_LAB_ADDR6:$LAB_GW_SIP_PORT" bash "$ROOT/ims-sim/3gpp/run-core.sh" "$LAB_LOGDIR/outside-core"
proc_wait_ready outside-core "$LAB_LAST_PID" 150 "the outside core up" grep -q '^ims3: ready' "$LAB_LOGDIR/outside-core.log" || exit 1

# 2. the credentials the operator hands out: IMPI, IMPUs, K, OPc, AMF of two subscribers
creds="$LAB_RUN_DIR/credentials.txt"
line() {  # LOGIN WEB-PASSWORD SUBSCRIBER: "LOGIN WEB-PASSWORD aka IMPI IMPUS K OPc AMF" from the outside core's table
  awk -v l="$1" -v p="$2" -v i="$3@$dom" '$1 == i {print l, p, "aka", $1, $2, $3, $4, $5}' "$subs"
}
digest() {  # LOGIN WEB-PASSWORD SUBSCRIBER: "LOGIN WEB-PASSWORD digest IMPI IMPUS SIP-PASSWORD" of a digest subscription
  awk -v l="$1" -v p="$2" -v i="$3@$dom" '$1 == i && $7 == "digest" {print l, p, "digest", $1, $2, $8}' "$subs"
}
(umask 077 && { line carla carla-web-password carol && line ue2 ue2-web-password ue2 && digest gina gina-web-password gina; } >"$creds") ||
  die "cannot write $creds"
[[ $(wc -l <"$creds") == 3 ]] || die "carol, ue2 or gina (digest) missing in $subs"

# run FAMILY — 3./4. the lab toward the outside core by name, as a user types it, over IPv4 or IPv6; its report in
# $LAB_RUN_DIR/FAMILY/; appends "IPv4 <summary>, W/W wanted" to SUMMARY and returns 1 when the run did not pass.
SUMMARY=() FAILED=0
run() {
  local fam=$1 label opts rc verdict
  opts=(--ims external --pcscf "pcscf.$dom" --dns "$core" --domain "$dom" --credentials "$creds" --bind "$LAB_OUTSIDE_BIND")
  label=IPv4
  if [[ $fam == ipv6 ]]; then
    label=IPv6
    opts=(--ims external --pcscf "pcscf.$dom" --dns "$core6" --ipv6 --domain "$dom" --credentials "$creds" --bind "$LAB_OUTSIDE_BIND")
  fi
  log "$label: ./lab compliance ${opts[*]}"
  "$ROOT/lab" compliance "${opts[@]}"
  rc=$?
  mkdir -p "$LAB_RUN_DIR/$fam" && rm -rf "$LAB_RUN_DIR/$fam/logs"
  for f in report.json junit.xml; do cp "$ROOT/out/compliance/$f" "$LAB_RUN_DIR/$fam/$f" 2>/dev/null; done
  cp -r "$ROOT/out/compliance/logs" "$LAB_RUN_DIR/$fam/logs" 2>/dev/null
  verdict=$(node - "$LAB_RUN_DIR/$fam/report.json" "$WANTED" "$label" <<'JS'
const fs = require('fs');
const [file, want, label] = process.argv.slice(2);
const r = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { checks: [], summary: 'no report written' };
const ids = want.split(' ');
const bad = ids.filter((id) => r.checks.find((c) => c.id === id)?.status !== 'pass');
const failed = r.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.error}`);
const family = label === 'IPv6' ? 'ipv6' : 'ipv4';
const wrongFamily = r.external && r.external.family !== family ? [`the run reached the P-CSCF over ${r.external.family}, not ${family}`] : [];
console.log(`${label} ${r.summary}, ${ids.length - bad.length}/${ids.length} wanted${bad.length ? ` (not: ${bad.join(', ')})` : ''}`);
for (const f of [...failed, ...wrongFamily]) console.log(`ims-external: ${label} FAILED ${f}`);
process.exit(bad.length || failed.length || wrongFamily.length || r.ims !== 'external' ? 1 : 0);
JS
  )
  local ok=$?
  SUMMARY+=("$(head -n 1 <<<"$verdict")")
  tail -n +2 <<<"$verdict"
  if ((ok != 0)); then
    echo "ims-external: $label FAILED (lab compliance exit $rc; its logs: $(rel "$LAB_RUN_DIR")/$fam/logs/, the core's: $(rel "$LAB_LOGDIR")/outside-core/)"
    FAILED=1
  fi
}

for fam in $FAMILIES; do
  if [[ $fam == ipv6 ]]; then
    # Gm IPv6 only: the lab's end of the link keeps its ULA alone (its IPv4 address and the default route through
    # the core go); the browsers' default route stays, on the --bind link, leading nowhere
    ip addr del "$LAB_OUTSIDE_LAB_ADDR/24" dev vx-lab && ip route replace default dev vx-pub ||
      die "cannot take IPv4 off the link to the outside core"
    log "IPv6: the link to the outside core is IPv6 only now: $(ip -o addr show dev vx-lab | awk '{print $3, $4}' | tr '\n' ' ')"
  fi
  run "$fam"
done
procs_cleanup
echo "ims-external: $(IFS=';'; echo "${SUMMARY[*]}" | sed 's/;/; /g')"
((FAILED == 0)) || { echo "ims-external: FAILED"; exit 1; }
echo "ims-external: all passed"
