#!/usr/bin/env bash
# Usage: hosts-up.sh RUN_DIR GATEWAYS RELAYS — the scale-out hosts layout (harness/lib/scaleout.sh, the same
# functions as `./lab up --gateways G --relays R`; LAB_IMS=3gpp: with the 3GPP core on the IMS host, as `./lab up
# --gateways G --relays R --ims 3gpp`) under the lab's own supervisor (procs.sh), for an integration test
# that needs it beside the lab it runs in (harness/tests/scale-hosts.test.mjs). Inside ./lab's private namespace
# only (LAB_IN_NETNS=1: the hosts' names live in its private /run/netns, ./lab's namespace is the client host).
# Prints "READY <entry URL>" once every component answers; SIGTERM stops them newest first and deletes the
# namespaces. RUN_DIR gets pids (the components' "NAME PID" lines, kit/restart.mjs reads them), logs/, netns.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
(($# == 3)) && [[ $2 =~ ^[1-9]$ && $3 =~ ^[1-9]$ ]] || { echo "usage: hosts-up.sh RUN_DIR GATEWAYS(1-9) RELAYS(1-9)" >&2; exit 2; }
[[ ${LAB_IN_NETNS:-} == 1 ]] || { echo "hosts-up.sh: only inside ./lab's private network namespace (./lab test)" >&2; exit 2; }
for f in log addresses deps build procs netns components ims3gpp imsext scaleout; do
  # shellcheck source=/dev/null
  source "$ROOT/harness/lib/$f.sh"
done
cd "$ROOT" || exit 1
LAB_RUN_DIR=$(realpath -m "$1") LAB_GATEWAYS=$2 LAB_RELAYS=$3
LAB_LOGDIR="$LAB_RUN_DIR/logs" LAB_PIDS="$LAB_RUN_DIR/pids"
# the harness's raw-SIP peer (LAB_SIP_TEST_PEER_ADDR, a loopback address of ./lab's namespace) cannot reach the hosts:
# the gateways keep their default SIP source, the P-CSCF (with --ims 3gpp found by name: its address over TCP, whose
# connections to a gateway come from ephemeral ports; a configured ADDR:PORT would take those only from a P-CSCF on the
# gateway's own host, sip/SipSources)
unset LAB_SIP_TEST_PEER
mkdir -p "$LAB_LOGDIR" && : >"$LAB_PIDS" || exit 1
procs_install_traps
hosts_start_all || exit 1
echo "READY $(hosts_entry_url)"
while :; do sleep 1; done # until SIGTERM: the EXIT trap stops everything (procs_cleanup, hosts_teardown)
