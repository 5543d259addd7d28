#!/usr/bin/env bash
# run-core.sh LOGDIR — the whole 3GPP core (core.sh: DNS, DB, HSS, S-, I-, P-CSCF) as one foreground
# component, for `./lab ... --ims 3gpp` (harness/lib/ims3gpp.sh starts it under `unshare --mount`, so the
# resolv.conf bind mount that points Kamailio and cdp at our dnsmasq stays private to the core).
# Prints "ims3: ready" once every part answers; SIGTERM/SIGINT stop the parts by PID (newest first) and
# drop the MariaDB data directory (state, not a log). Exits 1 when a part fails to start or stops.
# Logs: LOGDIR/{dnsmasq,mariadb,hss,scscf,icscf,pcscf}.log. /tmp is a private tmpfs (ims3_private_tmp):
# cdp's /tmp/cdp_send_* FIFOs do not pile up on the host.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=core.sh
. "$HERE/core.sh"
L="${1:-}"
[ -n "$L" ] || { echo "usage: run-core.sh LOGDIR" >&2; exit 2; }
mkdir -p "$L/run" || exit 2
L="$(cd "$L" && pwd)"
stop() {
  ims3_down
  ((${IMS3_KEEP_DB:-0})) || rm -rf "$L/run/db/data"
}
trap 'echo "ims3: stopping"; stop; exit 0' TERM INT
# Kamailio 5.6's ims_dialog can segfault at shutdown after a call (3gpp-notes): no 80 MB core files
((${IMS3_KEEP_CORES:-0})) || ulimit -c 0
# XRES in the HSS log: sipp-scenarios/run-ue.sh tells SIPp's RES-with-0x00 failure apart with it
export HSS_ARGS="${HSS_ARGS:---log-vectors}"
ims3_private_tmp "$L" || echo "ims3: no private /tmp ($L or $HERE is under /tmp): cdp's /tmp/cdp_send_* FIFOs stay behind"
ims3_resolv "$L" || { echo "ims3: cannot bind-mount $L/run/resolv.conf on /etc/resolv.conf (run me in a private mount namespace)"; exit 1; }
if ! ims3_up "$L"; then
  echo "ims3: $IMS3_ERROR"
  stop
  exit 1
fi
echo "ims3: ready (P-CSCF $IMS3_ADDR:$IMS3_PCSCF_PORT, domain $IMS3_DOMAIN; logs in $L)"
wait -n "${IMS3_PIDS[@]}"
echo "ims3: a part of the core stopped (exit $?): $(for n in "${!IMS3_PID[@]}"; do kill -0 "${IMS3_PID[$n]}" 2>/dev/null || printf '%s ' "$n"; done)"
stop
exit 1
