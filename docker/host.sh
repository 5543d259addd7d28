#!/usr/bin/env bash
# Usage (a container's command in docker/compose.yaml): host.sh ROLE — one host of the scale-out layout
# (docs/scale-out.md, `./lab up --gateways 2 --relays 2`) as a container: ROLE is redis, relay<i>, ims, gw<i> or
# haproxy. The container is the host (LAB_IN_CONTAINER=1): it has the host's address on the lab's network
# (198.18.16.0/24, harness/addresses.env LAB_HOSTS_*), and the lab's own functions (harness/lib/scaleout.sh,
# components.sh) start the component in it exactly as on a namespace host, with the same arguments. The repo is
# mounted read-only at /lab (built on the machine: the gateway jar, the web client's vendored libraries); the run
# directory (logs, generated configuration) is /run/lab. Prints "READY ROLE" once the component answers, then its
# log; exits (and the container with it) when the component does, and stops it on SIGTERM.
set -u -o pipefail
ROOT=${LAB_ROOT:-/lab}
role=${1:?usage: host.sh redis|relay<i>|ims|gw<i>|haproxy}
for f in log addresses deps build procs netns components ims3gpp imsext scaleout; do
  # shellcheck source=/dev/null
  source "$ROOT/harness/lib/$f.sh"
done
LAB_IN_CONTAINER=1 LAB_GATEWAYS=2 LAB_RELAYS=2 LAB_CLIENT_NETNS= # the hosts of compose.yaml
LAB_RUN_DIR=/run/lab LAB_LOGDIR=/run/lab/logs LAB_PIDS=/run/lab/pids
export LAB_IN_CONTAINER LAB_CLIENT_NETNS
mkdir -p "$LAB_LOGDIR" && : >"$LAB_PIDS" || exit 1
cd "$ROOT" || exit 1
procs_install_traps
hosts_addresses
# the host's address (podman-compose 1.0.3 cannot give one: podman gave this container one from the network's
# --ip-range), and that address as the source of everything this host sends on the lab's subnet
case $role in
  redis) addr=$LAB_HOSTS_REDIS_ADDR ;;
  relay[1-9]*) addr=$(relay_host_addr "${role#relay}") ;;
  ims) addr=$LAB_HOSTS_IMS_ADDR ;;
  gw[1-9]*) addr=$(gateway_addr "${role#gw}") ;;
  haproxy) addr=$LAB_HOSTS_HAPROXY_ADDR ;;
  *) fail "unknown role $role (redis, relay<i>, ims, gw<i>, haproxy)"; exit 2 ;;
esac
ip addr add "$addr/${LAB_HOSTS_NET#*/}" dev eth0 && ip route replace "$LAB_HOSTS_NET" dev eth0 src "$addr" ||
  { fail "$role: cannot take the host's address $addr on eth0 (NET_ADMIN?)"; exit 1; }
log "$role: host address $addr"
# wait_for WHAT CMD... — the containers start together: each waits (up to 180 s) for what it needs from the others
wait_for() {
  local what=$1 end=$((SECONDS + 180)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < end)) || { fail "$role: $what did not answer within 180 s"; return 1; }
    sleep 1
  done
  log "$role: $what answers"
}
redis_up() { [[ $(redis-cli -h "${LAB_REDIS%:*}" -p "${LAB_REDIS##*:}" ping) == PONG ]]; }
relays_up() {
  local i
  for ((i = 1; i <= LAB_RELAYS; i++)); do python3 "$ROOT/media-relay/ng-ping.py" "$(relay_ng "$i")" 1 || return 1; done
}
relays_and_pcscf_up() { relays_up && python3 "$ROOT/harness/lib/sip-options.py" "$LAB_PCSCF" 1; }
gateways_up() {
  local i
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do http_200 "$(gateway_url "$i")/api/v1/health" || return 1; done
}
case $role in
  relay*) wait_for "Redis on $LAB_REDIS" redis_up ;;
  gw*) wait_for "every relay's ng and the P-CSCF" relays_and_pcscf_up ;;
  haproxy) wait_for "every gateway's health" gateways_up ;;
esac || exit 1
case $role in
  redis) start_redis ;;
  relay[1-9]*) start_relay "${role#relay}" ;;
  ims) hosts_start_ims && LAB_PROC_NETNS= LAB_UE_IP=$LAB_HOSTS_IMS_ADDR start_ue ue1 uas ;;
  gw[1-9]*) LAB_PROC_NETNS= hosts_start_gateway "${role#gw}" ;;
  haproxy) start_haproxy ;;
esac || exit 1
echo "READY $role"
tail -n +1 -F "$LAB_LOGDIR"/*.log &
# the container lives as long as every component it started: one that exits ends it (the EXIT trap stops the rest)
mapfile -t started < <(awk 'NF == 2' "$LAB_PIDS")
while :; do
  for l in "${started[@]}"; do
    proc_alive "${l#* }" || { log "${l% *} (pid ${l#* }) exited"; exit 1; }
  done
  sleep 1
done
