# shellcheck shell=bash
# `./lab soak --minutes M --cps R [--hold S] [--gateways G --relays R]` (docs/soak.md): on the host, validate and
# build; inside a private network namespace, rtpengine, Kamailio with the lab's users plus generated ones, the
# gateway and SIPp ue1 — or, with G or R > 1, the hosts layout of `./lab up --gateways G --relays R` (scaleout.sh:
# each gateway, relay, Kamailio with the UEs, Redis and HAProxy on a namespace host of its own, inside the soak's
# private namespace) — then harness/soak/soak.mjs (calls both ways, bad input, faults, sampling, report) with a cap.

SOAK_MJS="$ROOT/harness/soak/soak.mjs"
# The soak lifts one quota, calls per user: every MT call goes to one user (alice, loadgen --answer), about
# cps x (hold + 2) of them at once. Every other limit (WebSocket rate, logins, m-lines …) stays as shipped:
# the bad input checks that those limits answer with their errors.
SOAK_GATEWAY_ARGS="--lab.limits.calls-per-user=1000"

# The hosts layout's gateways also send OPTIONS to the P-CSCF every 2 s (lab.ims.keepalive-ms): when Kamailio comes
# back from the soak's restart, which forgets every registration, they register their users again at once.
SOAK_HOSTS_GATEWAY_ARGS="--lab.ims.keepalive-ms=2000"

# soak_hosts G R — the hosts layout for the soak (as `./lab up --gateways G --relays R`, scaleout.sh) inside the soak's
# private namespace, the soak itself on the client host (this namespace); writes $LAB_RUN_DIR/hosts.json, what
# soak.mjs needs to reach and kill them (kit/failover.mjs).
soak_hosts() {
  local i sep
  LAB_GATEWAYS=$1 LAB_RELAYS=$2
  # the bad-input SIP peer is the client host: trusted beside the P-CSCF (gateway_extra_args)
  LAB_SIP_TEST_PEER=1 LAB_SIP_TEST_PEER_ADDR=$LAB_HOSTS_CLIENT_ADDR
  LAB_SCALE_GW_ARGS="$SOAK_GATEWAY_ARGS $SOAK_HOSTS_GATEWAY_ARGS"
  log "gateways started with $LAB_SCALE_GW_ARGS (the soak's lifted quota and the keepalive)"
  provision_users 9 "$LAB_RUN_DIR/users.txt" && lab_start_all || return 1
  {
    printf '{"entry":"%s","client":"%s","client_dev":"vh-client","prefix_len":%s,"pcscf":"%s","ims_addr":"%s","ims_ns":"%s",' \
      "$(hosts_entry_url)" "$LAB_HOSTS_CLIENT_ADDR" "${LAB_HOSTS_NET#*/}" "$LAB_PCSCF" "$LAB_HOSTS_IMS_ADDR" "$(host_ns ims)"
    printf '"gateway_sip":"%s:%s","ue1_log":"%s","gateways":[' "$(gateway_addr 1)" "$LAB_GW_SIP_PORT" "$LAB_LOGDIR/sipp-uas-ue1-messages.log"
    sep=
    for ((i = 1; i <= LAB_GATEWAYS; i++)); do
      printf '%s{"index":%d,"name":"%s","url":"%s","ns":"%s"}' "$sep" "$i" "$(gateway_name "$i")" "$(gateway_url "$i")" "$(host_ns "gw$i")"; sep=,
    done
    printf '],"relays":['
    sep=
    for ((i = 1; i <= LAB_RELAYS; i++)); do
      printf '%s{"index":%d,"name":"%s","vrrp":"vrrp%d","ns":"%s","ng":"%s"}' "$sep" "$i" "$(relay_name "$i")" "$i" "$(host_ns "relay$i")" "$(relay_ng "$i")"; sep=,
    done
    printf ']}\n'
  } >"$LAB_RUN_DIR/hosts.json"
}

cmd_soak() {
  local out cap gws rls
  ensure_packages
  build_harness || exit 1
  out=$(node "$SOAK_MJS" --check "$@" 2>&1) || { printf 'lab: %s\n%s\n' "${out#soak: }" "$USAGE" >&2; exit 2; }
  cap=$(sed -n 's/.*cap_s=\([0-9]*\).*/\1/p' <<<"$out")
  gws=$(sed -n 's/.* gateways=\([0-9]*\).*/\1/p' <<<"$out") rls=$(sed -n 's/.* relays=\([0-9]*\).*/\1/p' <<<"$out")
  bench_build gateway || exit 1   # loadgen (with its gateway mode) and the gateway
  lab_prepare_run soak
  netns_run soak_in_netns "$cap" "$gws" "$rls" "$(sed -n 's/.*expected_s=\([0-9]*\).*/\1/p' <<<"$out")" "$@"
}

# soak_in_netns CAP GATEWAYS RELAYS EXPECTED ARGS... — the namespace phase of `./lab soak ARGS...` (in-netns.sh), with
# what soak.mjs --check made of ARGS: the lab (or the hosts layout), then soak.mjs, stopped after CAP s at the latest.
soak_in_netns() {
  local cap=$1 gws=$2 rls=$3 expected=$4 rc gw_args=()
  shift 4
  local args=("$@")
  lab_use_run soak
  procs_install_traps
  log "soak: about $expected s, stopped after ${cap}s at the latest"
  if ((gws > 1 || rls > 1)); then
    soak_hosts "$gws" "$rls" || exit 1
    run_foreground soak "$cap" env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" LAB_USERS_FILE="$LAB_USERS_FILE" \
      SOAK_GATEWAY_ARGS="$SOAK_GATEWAY_ARGS $SOAK_HOSTS_GATEWAY_ARGS" SOAK_HOSTS="$LAB_RUN_DIR/hosts.json" \
      node "$SOAK_MJS" --out "$LAB_RUN_DIR" --gateway "$(hosts_entry_url)" "${args[@]}"
  else
    ports_free "${LAB_PORTS[@]}" || exit 1
    read -r -a gw_args <<<"$SOAK_GATEWAY_ARGS"
    gw_args+=(--lab.sip.trusted-sources="$LAB_PCSCF,$LAB_SIP_TEST_PEER_ADDR") # the bad-input peer (kit/sip.mjs) beside the P-CSCF
    log "gateway started with $SOAK_GATEWAY_ARGS (the soak's one lifted quota)"
    # 9 generated users (8 MO callers, 1 that vanishes mid-call) beside the lab's own, mode 0600
    provision_users 9 "$LAB_RUN_DIR/users.txt" && start_rtpengine && start_kamailio &&
      start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" udp "${gw_args[@]}" && UE_QUIET=1 start_ue ue1 uas || exit 1
    run_foreground soak "$cap" env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" LAB_USERS_FILE="$LAB_USERS_FILE" \
      SOAK_GATEWAY_ARGS="$SOAK_GATEWAY_ARGS" node "$SOAK_MJS" --out "$LAB_RUN_DIR" --gateway "$(gw_url)" "${args[@]}"
  fi
  rc=$?
  procs_cleanup
  log "report: $(rel "$LAB_RUN_DIR")/report.html and report.json; logs: $(rel "$LAB_LOGDIR")/"
  ((rc == 0)) || fail "soak failed (exit $rc; the report's \"why\" says what; log: $(rel "$LAB_LOGDIR")/soak.log)"
  exit "$rc"
}
