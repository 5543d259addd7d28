# shellcheck shell=bash
# shellcheck disable=SC2034 # the BENCH_* variables set here are read by cmd_bench in ./lab
# `./lab bench`: the host phase (validate, build the C++ tools), then, inside the private network
# namespace, the components a run needs under supervision and the orchestrator
# harness/bench/bench.mjs (capture, load, CPU sampling, delaymeter, report) with a hard time cap.

BENCH_MJS="$ROOT/harness/bench/bench.mjs"
# LAB_MEDIA_RELAY_BUILD=DIR: use the tools of another media-relay CMake build directory, unbuilt.
BENCH_BUILD_DIR=${LAB_MEDIA_RELAY_BUILD:-$ROOT/media-relay/build}
BENCH_LOADGEN="$BENCH_BUILD_DIR/loadgen/loadgen"
BENCH_DELAYMETER="$BENCH_BUILD_DIR/delaymeter/delaymeter"

# bench_check ARGS... — validate the bench arguments; sets BENCH_NAME, BENCH_MODE, BENCH_EXPECTED,
# BENCH_CAP. Bad usage (and "not yet" profiles) exits 2 with bench.mjs's one-line reason.
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
    esac
  done
}

# bench_build MODE — the C++ tools (and for setup-rate the gateway); a failed rebuild falls back to
# binaries that are already there (the tools' sources may be mid-edit), with a warning.
bench_build() {
  local rc=0
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
    "$BENCH_LOADGEN" --help 2>/dev/null | grep -q -- '--user' || {
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
BENCH_GATEWAY_LOAD_ARGS="--lab.limits.calls-per-user=100000 --lab.limits.calls-total=100000 --lab.api.ws-messages-per-second=100000 --lab.api.max-sessions=100000"
export BENCH_GATEWAY_LOAD_ARGS
bench_start() {
  local ports=("${LAB_RTPENGINE_NG##*:}/udp") gw_args=()
  [[ $1 == profile || $1 == capacity ]] || ports=("${LAB_PORTS[@]}")
  ports_free "${ports[@]}" || return 1
  # sustained setup: cps x hold calls at once (1000 at 200/s x 5 s) need more than 30000-30999's ~300
  if [[ $1 == setup-sustained ]]; then
    RTPENGINE_PORT_MAX=39999 start_rtpengine || return 1
  else
    start_rtpengine || return 1
  fi
  BENCH_RTPENGINE_PID=$LAB_LAST_PID
  [[ $1 == profile || $1 == capacity ]] && return 0
  read -r -a gw_args <<<"$BENCH_GATEWAY_LOAD_ARGS ${BENCH_GATEWAY_ARGS:-}"
  log "gateway quotas lifted for load: $BENCH_GATEWAY_LOAD_ARGS"
  [[ -n ${BENCH_GATEWAY_ARGS:-} ]] && log "gateway started with BENCH_GATEWAY_ARGS: ${BENCH_GATEWAY_ARGS}"
  # UE_QUIET: ue1 keeps no SIP message log under load
  start_kamailio && start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" udp "${gw_args[@]}" && UE_QUIET=1 start_ue ue1 uas
}
