# shellcheck shell=bash
# `./lab soak --minutes M --cps R [--hold S]` (docs/soak.md): on the host, validate and build; inside a
# private network namespace, rtpengine, Kamailio with the lab's users plus generated ones, the gateway and
# SIPp ue1, then harness/soak/soak.mjs (calls both ways, bad input, faults, sampling, report) with a cap.

SOAK_MJS="$ROOT/harness/soak/soak.mjs"
# The soak lifts one quota, calls per user: every MT call goes to one user (alice, loadgen --answer), about
# cps x (hold + 2) of them at once. Every other limit (WebSocket rate, logins, m-lines …) stays as shipped:
# the bad input checks that those limits answer with their errors.
SOAK_GATEWAY_ARGS="--lab.limits.calls-per-user=1000"

cmd_soak() {
  local args=("$@") out rc cap gw_args=()
  [[ ${LAB_IN_NETNS:-} != 1 ]] && { ensure_packages; build_harness || exit 1; }
  out=$(node "$SOAK_MJS" --check "$@" 2>&1) || { printf 'lab: %s\n%s\n' "${out#soak: }" "$USAGE" >&2; exit 2; }
  cap=$(sed -n 's/.*cap_s=\([0-9]*\).*/\1/p' <<<"$out")
  if [[ ${LAB_IN_NETNS:-} != 1 ]]; then
    bench_build gateway || exit 1   # loadgen (with its gateway mode) and the gateway
    lab_prepare_run soak
  fi
  netns_enter soak "${args[@]}"
  lab_use_run soak
  procs_install_traps
  log "soak: about $(sed -n 's/.*expected_s=\([0-9]*\).*/\1/p' <<<"$out") s, stopped after ${cap}s at the latest"
  ports_free "${LAB_PORTS[@]}" || exit 1
  read -r -a gw_args <<<"$SOAK_GATEWAY_ARGS"
  gw_args+=(--lab.sip.trusted-sources="$LAB_PCSCF,$LAB_SIP_TEST_PEER_ADDR") # the bad-input peer (kit/sip.mjs) beside the P-CSCF
  log "gateway started with $SOAK_GATEWAY_ARGS (the soak's one lifted quota)"
  # 9 generated users (8 MO callers, 1 that vanishes mid-call) beside the lab's own, mode 0600
  provision_users 9 "$LAB_RUN_DIR/users.txt" && start_rtpengine && start_kamailio &&
    start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" udp "${gw_args[@]}" && UE_QUIET=1 start_ue ue1 uas || exit 1
  run_foreground soak "$cap" env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" LAB_USERS_FILE="$LAB_USERS_FILE" \
    SOAK_GATEWAY_ARGS="$SOAK_GATEWAY_ARGS" node "$SOAK_MJS" --out "$LAB_RUN_DIR" --gateway "$(gw_url)" "${args[@]}"
  rc=$?
  procs_cleanup
  log "report: $(rel "$LAB_RUN_DIR")/report.html and report.json; logs: $(rel "$LAB_LOGDIR")/"
  ((rc == 0)) || fail "soak failed (exit $rc; the report's \"why\" says what; log: $(rel "$LAB_LOGDIR")/soak.log)"
  exit "$rc"
}
