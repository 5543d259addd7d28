# shellcheck shell=bash
# shellcheck disable=SC2034 # the BENCH_* variables set here are read by cmd_bench and bench_in_netns
# `./lab bench`: the host phase (validate, build the C++ tools), then, inside the private network
# namespace, the components a run needs under supervision and the orchestrator
# harness/bench/bench.mjs (capture, load, CPU sampling, delaymeter, report) with a hard time cap.

BENCH_MJS="$ROOT/harness/bench/bench.mjs"
# LAB_MEDIA_RELAY_BUILD=DIR: use the tools of another media-relay CMake build directory, unbuilt.
BENCH_BUILD_DIR=${LAB_MEDIA_RELAY_BUILD:-$ROOT/media-relay/build}
BENCH_LOADGEN="$BENCH_BUILD_DIR/loadgen/loadgen"
BENCH_DELAYMETER="$BENCH_BUILD_DIR/delaymeter/delaymeter"

# bench_check ARGS... — validate the bench arguments; sets BENCH_NAME, BENCH_MODE, BENCH_EXPECTED,
# BENCH_CAP (cmd_bench exports them for bench_in_netns) (registrations and sipp: also BENCH_USERS and BENCH_LOAD_ARGS, the gateway's load configuration). Bad usage (and "not yet" profiles) exits 2 with bench.mjs's one-line reason.
bench_check() {
  local out rc kv
  out=$(node "$BENCH_MJS" --check "$@" 2>&1)
  rc=$?
  if ((rc != 0)); then
    printf 'lab: %s\n' "${out#bench: }" >&2
    exit "$rc"
  fi
  for kv in $out; do
    case $kv in
      name=*) BENCH_NAME=${kv#name=} ;;
      mode=*) BENCH_MODE=${kv#mode=} ;;
      expected_s=*) BENCH_EXPECTED=${kv#expected_s=} ;;
      cap_s=*) BENCH_CAP=${kv#cap_s=} ;;
      users=*) BENCH_USERS=${kv#users=} ;;
      load_args=*) BENCH_LOAD_ARGS=${kv#load_args=} ;;
    esac
  done
}

# bench_build MODE — the C++ tools (and for setup-rate the gateway); a failed rebuild falls back to
# binaries that are already there (the tools' sources may be mid-edit), with a warning.
bench_build() {
  local rc=0
  [[ $1 == registrations ]] && { build_gateway; return; } # no media: loadgen and delaymeter are not needed
  # the data-channel endpoint and the aiortc peers of harness/bench/dc-load.py; no rtpengine, gateway or loadgen
  [[ $1 == datachannel ]] && { build_media_relay && build_pyenv; return; }
  if [[ -n ${LAB_MEDIA_RELAY_BUILD:-} ]]; then
    [[ -x $BENCH_LOADGEN && -x $BENCH_DELAYMETER ]] ||
      { fail "LAB_MEDIA_RELAY_BUILD=$LAB_MEDIA_RELAY_BUILD has no loadgen/loadgen and delaymeter/delaymeter"; return 1; }
    log "using loadgen and delaymeter from LAB_MEDIA_RELAY_BUILD=$LAB_MEDIA_RELAY_BUILD (not rebuilt)"
  else
    build_media_relay
    rc=$?
  fi
  if ((rc == 2)); then fail "media-relay/CMakeLists.txt is missing: cannot build loadgen and delaymeter"; return 1; fi
  if ((rc != 0)); then
    [[ -x $BENCH_LOADGEN && -x $BENCH_DELAYMETER ]] || return 1
    log "warning: the media-relay build failed; using the loadgen and delaymeter binaries already built"
  fi
  if [[ $1 != profile && $1 != capacity ]]; then
    # grep reads all of it: grep -q would exit at the first match and loadgen's SIGPIPE fail the pipe (pipefail)
    "$BENCH_LOADGEN" --help 2>/dev/null | grep -- '--user' >/dev/null || {
      printf 'lab: bench %s: not yet: this loadgen build has no --gateway mode (docs/loadgen.md)\n' "$1" >&2
      exit 2
    }
    build_gateway || return 1
  fi
}

# bench_start MODE — rtpengine for every run; Kamailio, the gateway and SIPp ue1 for the modes through
# the gateway (setup-rate, setup-sustained, gateway). The gateway starts with no media flags, as
# `./lab up` starts it: the bench measures the shipped default. BENCH_GATEWAY_ARGS="--lab.x=y ..." adds
# gateway arguments to compare a configuration (the report records them). Sets BENCH_RTPENGINE_PID.
#
# The one exception to "as shipped": the gateway's edge quotas (docs/security.md) are sized for people,
# and a load generator is one user placing hundreds of calls on one WebSocket, so the bench lifts the
# quotas (and nothing else: no media or SIP setting) with BENCH_GATEWAY_LOAD_ARGS; the report records it.
# (`registrations` sets its own load arguments: registrations.mjs gatewayLoadArgs.)
BENCH_GATEWAY_LOAD_ARGS="--lab.limits.calls-per-user=100000 --lab.limits.calls-total=100000 --lab.api.ws-messages-per-second=100000 --lab.api.max-sessions=100000"
export BENCH_GATEWAY_LOAD_ARGS
bench_start() {
  local ports=("${LAB_RTPENGINE_NG##*:}/udp") gw_args=()
  if [[ $1 == datachannel ]]; then # the endpoint alone: harness/bench/datachannel.mjs drives it over its control port
    ports_free "${LAB_DATACHANNEL_CTL##*:}/udp" && start_datachannel || return 1
    [[ ${LAB_DATACHANNEL_UP:-} == 1 ]] || { fail "the data-channel endpoint did not start (media-relay/build/datachannel/datachannel)"; return 1; }
    return 0
  fi
  [[ $1 == profile || $1 == capacity ]] || ports=("${LAB_PORTS[@]}")
  ports_free "${ports[@]}" || return 1
  # sustained setup: cps x hold calls at once (1000 at 200/s x 5 s) need more than 30000-30999's ~300;
  # sipp: R x hold calls up at once, captured, so below the ephemeral ports (sipp.mjs SIPP_RELAY_PORTS)
  if [[ $1 == sipp ]]; then
    RTPENGINE_PORT_MAX=32767 start_rtpengine || return 1
  elif [[ $1 == setup-sustained ]]; then
    RTPENGINE_PORT_MAX=39999 start_rtpengine || return 1
  else
    start_rtpengine || return 1
  fi
  BENCH_RTPENGINE_PID=$LAB_LAST_PID
  [[ $1 == profile || $1 == capacity ]] && return 0
  read -r -a gw_args <<<"${BENCH_GATEWAY_ARGS:-}"
  [[ -n ${BENCH_GATEWAY_ARGS:-} ]] && log "gateway started with BENCH_GATEWAY_ARGS: ${BENCH_GATEWAY_ARGS}"
  if [[ $1 == registrations ]]; then
    # N subscribers in Kamailio's table and $LAB_USERS_FILE; the gateway configured for the load (login
    # limits, session cap, short expiry: registrations.mjs gatewayLoadArgs); no UEs, no calls
    local load=()
    IFS=, read -r -a load <<<"$BENCH_LOAD_ARGS"
    log "gateway configured for load: ${load[*]}"
    provision_users "$BENCH_USERS" "$LAB_RUN_DIR/users.txt" && start_kamailio &&
      start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" udp "${load[@]}" "${gw_args[@]}"
    return
  fi
  local quotas=()
  read -r -a quotas <<<"$BENCH_GATEWAY_LOAD_ARGS"
  log "gateway quotas lifted for load: $BENCH_GATEWAY_LOAD_ARGS"
  if [[ $1 == sipp ]]; then
    # N subscribers (Kamailio's table and $LAB_USERS_FILE), logged in by loadgen --answer: the quotas lifted,
    # U logins from one address allowed (sipp.mjs sippGatewayArgs); SIPp is the caller, no UAS
    local load=()
    IFS=, read -r -a load <<<"$BENCH_LOAD_ARGS"
    log "gateway configured for $BENCH_USERS users: ${load[*]}"
    provision_users "$BENCH_USERS" "$LAB_RUN_DIR/users.txt" && start_kamailio &&
      start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" udp "${quotas[@]}" "${load[@]}" "${gw_args[@]}"
    return
  fi
  # UE_QUIET: ue1 keeps no SIP message log under load
  start_kamailio && start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" udp "${quotas[@]}" "${gw_args[@]}" && UE_QUIET=1 start_ue ue1 uas
}

# provision_users N FILE — the lab's own users (ims-sim/users.txt: alice … and the UEs) plus N generated
# subscribers u00001 … uNNNNN with random passwords (16 base64url characters from Python's `secrets`) into
# FILE, mode 0600, under out/ (never in the repo). Exports IMS_USERS=FILE (start-kamailio.sh builds
# Kamailio's digest table from it) and LAB_USERS_FILE=FILE (the load tools read the passwords there:
# harness/bench/registrations.mjs, setup-rate.mjs's credentials()). `./lab up --users N`, `./lab bench
# registrations --users N`.
provision_users() {
  local n=$1 file=$2
  [[ $n =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 99999)) || { fail "--users wants a number of users in 1..99999, not '$n'"; return 1; }
  mkdir -p "$(dirname "$file")" && rm -f "$file" || return 1
  (
    umask 077
    python3 - "$n" "$ROOT/ims-sim/users.txt" >"$file" <<'PY'
import secrets, sys
n, base = int(sys.argv[1]), sys.argv[2]
with open(base, encoding="utf-8") as f:
    lab = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
print(f"# generated by ./lab --users {n}: the lab's users ({base}) and u00001..u{n:05d}; mode 0600, do not commit")
print("\n".join(lab))
for i in range(1, n + 1):
    print(f"u{i:05d}:{secrets.token_urlsafe(12)}")
PY
  ) || { fail "cannot write the users file $(rel "$file")"; return 1; }
  chmod 600 "$file" || return 1
  export IMS_USERS=$file LAB_USERS_FILE=$file
  log "provisioned $n subscribers u00001..u$(printf '%05d' "$n") (random passwords) in $(rel "$file") (mode 0600)"
}

cmd_bench() {
  [[ ${1:-} == scale-out ]] && cmd_bench_scale_out "${@:2}" # harness/lib/scaleout.sh
  # bench_check already runs node: the harness's npm deps come first (on a fresh clone too)
  ensure_packages
  build_harness || exit 1
  bench_check "$@"
  bench_build "$BENCH_MODE" || exit 1
  lab_prepare_run "bench/$BENCH_NAME"
  export BENCH_NAME BENCH_MODE BENCH_EXPECTED BENCH_CAP BENCH_USERS BENCH_LOAD_ARGS
  netns_run bench_in_netns "$@"
}

# bench_in_netns ARGS... — the namespace phase of `./lab bench ARGS...` (in-netns.sh; bench_check's BENCH_* exported by
# the host phase): the components of BENCH_MODE, then bench.mjs with ARGS, stopped after BENCH_CAP s at the latest.
bench_in_netns() {
  local rc extra=()
  lab_use_run "bench/$BENCH_NAME"
  procs_install_traps
  log "bench $BENCH_NAME: expected about ${BENCH_EXPECTED}s, stopped after ${BENCH_CAP}s at the latest"
  bench_start "$BENCH_MODE" || exit 1
  [[ $BENCH_MODE == profile || $BENCH_MODE == capacity || $BENCH_MODE == datachannel ]] || extra=(--gateway "$(gw_url)")
  [[ $BENCH_MODE == datachannel ]] || extra+=(--rtpengine-pid "$BENCH_RTPENGINE_PID")
  run_foreground bench "$BENCH_CAP" env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" \
    node "$BENCH_MJS" --out "$LAB_RUN_DIR" "${extra[@]}" "$@"
  rc=$?
  procs_cleanup
  log "report: $(rel "$LAB_RUN_DIR")/report.html and report.json; logs: $(rel "$LAB_LOGDIR")/"
  ((rc == 0)) || fail "bench $BENCH_NAME failed (exit $rc; log: $(rel "$LAB_LOGDIR")/bench.log)"
  exit "$rc"
}
