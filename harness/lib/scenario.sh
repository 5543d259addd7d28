# shellcheck shell=bash
# `./lab scenario NAME --browsers N --duration S [--netem SPEC | --netem-up SPEC --netem-down SPEC |
# --impairment NAME] [--browser chromium|firefox]` (docs/scenarios.md): the lab in private namespaces
# with the browser topology, then harness/scenario/run.mjs (pages, link impairment, capture, report).

SCENARIO_MJS="$ROOT/harness/scenario/run.mjs"
LINKDELAY_SRC="$ROOT/harness/link/linkdelay.c"
LINKDELAY_BIN="$ROOT/out/build/linkdelay"

# scenario_build_linkdelay — the delay line of the link impairments (harness/link/linkdelay.c), built when stale.
scenario_build_linkdelay() {
  [[ -x $LINKDELAY_BIN && $LINKDELAY_BIN -nt $LINKDELAY_SRC ]] && return 0
  mkdir -p "$(dirname "$LINKDELAY_BIN")"
  log "building the link's delay line: $(rel "$LINKDELAY_BIN")"
  quiet_run "$BUILD_LOGS/linkdelay.log" cc -O2 -Wall -o "$LINKDELAY_BIN" "$LINKDELAY_SRC" -lnetfilter_queue ||
    { fail "building $(rel "$LINKDELAY_BIN") failed (log: $(rel "$BUILD_LOGS/linkdelay.log"))"; return 1; }
}

cmd_scenario() {
  local out duration=30 keep=''
  [[ ${1:-} != "" && ${1:-} != -* ]] || usage_error "scenario needs a name: basic, lossy, congested, video or variable-capacity"
  # --browser is ./lab's (which browser); the rest goes to run.mjs, which checks it (exit 2, one line)
  local pass=("--name" "$1")
  shift
  while (($#)); do
    case $1 in
      --browser) [[ ${2:-} == chromium || ${2:-} == firefox ]] || usage_error "--browser takes chromium or firefox"; LAB_BROWSER=$2; shift 2 ;;
      --browser=chromium | --browser=firefox) LAB_BROWSER=${1#--browser=}; shift ;;
      --browsers | --duration | --netem | --netem-up | --netem-down | --impairment)
        [[ $# -ge 2 ]] || usage_error "$1 needs a value"
        [[ $1 == --duration ]] && duration=$2
        pass+=("$1" "$2"); shift 2 ;;
      --keep-logs) keep=archive; shift ;;
      *) usage_error "unknown option for scenario: $1" ;;
    esac
  done
  LAB_BROWSER=${LAB_BROWSER:-chromium}
  export LAB_BROWSER
  ensure_packages
  build_harness || exit 1
  out=$(node "$SCENARIO_MJS" "${pass[@]}" --check 2>&1) || { printf 'lab: %s\n' "${out#scenario: }" >&2; exit 2; }
  log "scenario $out"
  build_gateway && { build_media_relay; (($? != 1)); } && scenario_build_linkdelay || exit 1
  [[ -x $ROOT/media-relay/build/delaymeter/delaymeter ]] || die "delaymeter is not built (media-relay/build)"
  lab_prepare_run "scenario/${pass[1]}" "$keep"
  [[ $duration =~ ^[0-9]+$ ]] || duration=30
  netns_run scenario_in_netns "$duration" "${pass[@]}"
}

# scenario_in_netns DURATION --name NAME RUN_ARGS... — the namespace phase of `./lab scenario` (in-netns.sh): the
# browser topology, the lab, then run.mjs with --name NAME RUN_ARGS (its --check passed on the host).
scenario_in_netns() {
  local duration=$1 rc timeout_s envs
  shift
  local pass=("$@")
  netns_topology
  lab_use_run "scenario/${pass[1]}"
  procs_install_traps
  lab_start_all || exit 1
  mapfile -t envs < <(lab_run_env)
  timeout_s=$((duration + 180))
  log "running the scenario: node harness/scenario/run.mjs (stopped after ${timeout_s}s at the latest)"
  run_foreground scenario "$timeout_s" env "${envs[@]}" node "$SCENARIO_MJS" "${pass[@]}"
  rc=$?
  procs_cleanup
  if [[ -f $LAB_RUN_DIR/report.json ]]; then
    log "report: $(rel "$LAB_RUN_DIR")/report.html and report.json; logs: $(rel "$LAB_LOGDIR")/"
  else
    log "no report was written; logs: $(rel "$LAB_LOGDIR")/"
  fi
  ((rc == 0)) || fail "scenario failed: the runner exited with status $rc (log: $(rel "$LAB_LOGDIR")/scenario.log)"
  exit "$rc"
}
