# shellcheck shell=bash
# The parts of `./lab test` that are not the lab itself: Maven unit tests (on the host, since
# Maven may need to fetch plugins) and the media-relay CTest suite. Each sets a status phrase
# for the final summary line.

# run_unit_tests — mvn test with Surefire's "Tests run:" lines shown; sets LAB_T_UNIT, LAB_T_SUREFIRE.
run_unit_tests() {
  local logf="$LAB_LOGDIR/unit-maven.log" rc totals run='' failures='' errors='' skipped=''
  log "unit tests: mvn -B test (Surefire lines below, full log: $(rel "$logf"))"
  # --foreground: mvn stays in our process group, so a Ctrl-C on the terminal reaches it too.
  (cd "$ROOT" && timeout --foreground 600 mvn -B -ntp test) 2>&1 | tee "$logf" |
    grep --line-buffered -E 'Tests run:|\[ERROR\]|BUILD (SUCCESS|FAILURE)'
  rc=${PIPESTATUS[0]}
  # Surefire's per-module totals are the "Tests run:" lines without "Time elapsed".
  totals=$(grep -E '^\[[A-Z]+\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+[[:space:]]*$' "$logf" |
    sed -E 's/.*Tests run: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+), Skipped: ([0-9]+).*/\1 \2 \3 \4/' |
    awk '{r+=$1; f+=$2; e+=$3; s+=$4; n++} END {if (n) printf "%d %d %d %d", r, f, e, s}')
  if [[ -n $totals ]]; then
    read -r run failures errors skipped <<<"$totals"
    LAB_T_SUREFIRE="Tests run: $run, Failures: $failures, Errors: $errors, Skipped: $skipped"
  else
    LAB_T_SUREFIRE="Tests run: 0 (Surefire printed no totals)"
  fi
  if ((rc == 0)); then
    LAB_T_UNIT="unit ok (${run:-0} tests)"
  elif [[ -n $totals ]] && ((failures + errors > 0)); then
    LAB_T_UNIT="unit FAILED ($((failures + errors)) of $run tests failed)"
  else
    ((rc == 124)) && fail "mvn test did not finish within 600s"
    show_tail "$logf" 30
    LAB_T_UNIT="unit FAILED (mvn exit $rc, see $(rel "$logf"))"
  fi
  export LAB_T_UNIT LAB_T_SUREFIRE
}

# run_ctest — CTest in media-relay/build (already configured and built); sets LAB_T_RELAY.
run_ctest() {
  local logf="$LAB_LOGDIR/ctest.log" n
  log "media-relay tests: ctest --test-dir media-relay/build"
  if run_foreground ctest 240 ctest --test-dir "$ROOT/media-relay/build" --output-on-failure; then
    n=$(grep -oE 'tests failed out of [0-9]+' "$logf" | grep -oE '[0-9]+$')
    LAB_T_RELAY="media-relay ok (${n:-0} tests)"
  else
    LAB_T_RELAY="media-relay FAILED (see $(rel "$logf"))"
  fi
}

# test_only_files [CORE] — the files named by LAB_TEST_ONLY (comma-separated), one per line; fails on a
# name without a file. CORE (without --ims each file runs on the core it needs): light, the files of the light
# core's pass; 3gpp, the ims3gpp*.test.mjs ones (the 3GPP pass); external, ims-external (the external pass).
test_only_files() {
  local n f core=${1:-}
  local -a names
  IFS=, read -r -a names <<<"$LAB_TEST_ONLY"
  for n in "${names[@]}"; do
    f="$ROOT/harness/tests/${n%.test.mjs}.test.mjs"
    [[ -f $f ]] || { fail "--only: no integration test file $(rel "$f")"; return 1; }
    case $core in
      light) [[ $f =~ /(ims3gpp[^/]*|ims-external)\.test\.mjs$ ]] && continue ;;
      3gpp) [[ $f =~ /ims3gpp[^/]*\.test\.mjs$ ]] || continue ;;
      external) [[ $f == */ims-external.test.mjs ]] || continue ;;
    esac
    echo "$f"
  done
}

# The media test files (harness/tests/NAME.test.mjs) that run once per browser of LAB_BROWSERS; the
# other files run in the first browser only (docs/media.md "Browser matrix").
LAB_MEDIA_TESTS=(calls midcall transcoding video audio browser-nat browser-mdns dtmf phone dialog turn sip-ws scale-failover)

# The first browser's files (harness/tests/NAME.test.mjs, none of them a media file) that a full run (no --only) with a
# side namespace runs there, in its light lab after the other browsers' media files, instead of in this namespace's
# pass: with them, this one's first-browser pass was the run's longest part (18.6-22.8 minutes against the side's
# 10-13 in the clean-clone replicas of sessions 19-21), and these three (about 4.6 minutes together) each start
# components of their own (their own gateways, Kamailio, relays, Redis) and need nothing of this namespace.
LAB_SIDE_FIRST_TESTS=(faults ipv6 scale-out)

# node_side_first_targets FILE... — the files of LAB_SIDE_FIRST_TESTS among FILE..., one per line; none with --only.
node_side_first_targets() {
  [[ -z ${LAB_TEST_ONLY:-} ]] || return 0
  node_named_targets LAB_SIDE_FIRST_TESTS "$@"
}

# node_named_targets ARRAY FILE... — the files harness/tests/NAME.test.mjs of the NAMEs in the array ARRAY (in its
# order) that are among FILE..., one per line.
node_named_targets() {
  local -n names=$1
  local n f
  shift
  for n in "${names[@]}"; do
    f="$ROOT/harness/tests/$n.test.mjs"
    [[ -f $f ]] || continue
    printf '%s\n' "$@" | grep -qxF "$f" && echo "$f"
  done
  return 0
}

# node_test_targets — the integration files of this pass, one per line: ims3gpp*.test.mjs need the 3GPP core
# (--ims 3gpp), ims-external.test.mjs an outside IMS (./lab compliance --ims external), the other files the light
# core's UEs; with --only the named ones of this pass's core (LAB_TEST_PASS_CORE).
node_test_targets() {
  if [[ -n ${LAB_TEST_ONLY:-} ]]; then
    test_only_files "${LAB_TEST_PASS_CORE:-}"
  elif [[ ${LAB_IMS:-} == 3gpp ]]; then
    printf '%s\n' "$ROOT"/harness/tests/ims3gpp*.test.mjs
  else
    printf '%s\n' "$ROOT"/harness/tests/*.test.mjs | grep -Ev '/(ims3gpp[^/]*|ims-external)\.test\.mjs$'
  fi
}

# node_media_targets FILE... — the media files (LAB_MEDIA_TESTS) among FILE..., one per line.
node_media_targets() { node_named_targets LAB_MEDIA_TESTS "$@"; }

# node_other_browsers_wanted — some browser after the first of LAB_BROWSERS has media files to run in this pass.
node_other_browsers_wanted() {
  local -a kinds targets
  IFS=, read -r -a kinds <<<"${LAB_BROWSERS:-chromium,firefox}"
  ((${#kinds[@]} > 1)) || return 1
  mapfile -t targets < <(node_test_targets 2>/dev/null)
  [[ -n $(node_media_targets "${targets[@]}") ]]
}

# run_node_tests [WHICH] — the integration tests against the running lab; sets LAB_T_INTEG. Every file runs
# with the first browser of LAB_BROWSERS (default chromium,firefox), the media files again with each
# other one (LAB_BROWSER set for the run; the tests put the browser in their titles). WHICH: all (default);
# first, the first browser's pass alone, without the side's files (node_side_first_targets); others, the other
# browsers' passes, then the first browser's pass over the side's files (the side namespace's, test_side_in_netns).
# The passes' counts are in LAB_T_N* (node_tests_add).
run_node_tests() {
  local which=${1:-all} kind first=1 firstkind
  local -a targets media kinds sidefiles=()
  mapfile -t targets < <(node_test_targets)
  [[ $which == all ]] || mapfile -t sidefiles < <(node_side_first_targets "${targets[@]}")
  node_tests_reset
  IFS=, read -r -a kinds <<<"${LAB_BROWSERS:-chromium,firefox}"
  for kind in "${kinds[@]}"; do
    if ((first)); then
      first=0 firstkind=$kind
      [[ $which == others ]] && continue
      if ((${#sidefiles[@]})); then
        mapfile -t targets < <(printf '%s\n' "${targets[@]}" | grep -vxF -f <(printf '%s\n' "${sidefiles[@]}"))
      fi
      run_node_pass "$kind" "integration" "${targets[@]}" || LAB_T_NRC=1
    else
      [[ $which == first ]] && break
      mapfile -t media < <(node_media_targets "${targets[@]}")
      ((${#media[@]})) || continue
      run_node_pass "$kind" "integration-$kind" "${media[@]}" || LAB_T_NRC=1
    fi
    node_tests_add "$kind"
  done
  if [[ $which == others ]] && ((${#sidefiles[@]})); then
    run_node_pass "$firstkind" "integration-side-$firstkind" "${sidefiles[@]}" || LAB_T_NRC=1
    node_tests_add "$firstkind in the side namespace"
  fi
  node_tests_verdict
}

# node_tests_reset / node_tests_add BROWSER / node_tests_verdict — the integration passes' totals: LAB_T_NPASS,
# LAB_T_NFAIL, LAB_T_NRC (1 when a pass failed), LAB_T_NRAN ("chromium 332/332, firefox 80/80 +3 skipped"),
# LAB_T_NBROKEN (passes that printed no totals); node_tests_add adds run_node_pass's LAB_T_* of BROWSER's pass,
# node_tests_verdict sets LAB_T_INTEG from the totals.
node_tests_reset() { LAB_T_NPASS=0 LAB_T_NFAIL=0 LAB_T_NRC=0 LAB_T_NRAN='' LAB_T_NBROKEN=''; }
node_tests_add() {
  local skipped=''
  LAB_T_NPASS=$((LAB_T_NPASS + LAB_T_PASS)) LAB_T_NFAIL=$((LAB_T_NFAIL + LAB_T_FAIL))
  [[ -n $LAB_T_BROKEN ]] && LAB_T_NBROKEN+="${LAB_T_NBROKEN:+; }$LAB_T_BROKEN"
  ((${LAB_T_SKIP:-0} > 0)) && skipped=" +$LAB_T_SKIP skipped"
  LAB_T_NRAN+="${LAB_T_NRAN:+, }$1 $LAB_T_PASS/$((LAB_T_PASS + LAB_T_FAIL))$skipped"
}
# vars_as_globals VAR... — the set ones of VAR... as `declare -g` lines: sourced or eval'd inside a function they set
# the globals again (the side namespace's result file, ims3_test_pass keeping the run's totals); an unset one is left out.
vars_as_globals() {
  { declare -p "$@" 2>/dev/null || :; } | sed 's/^declare -[-a-zA-Z]* /declare -g /'
}
node_tests_verdict() {
  if ((LAB_T_NRC == 0)); then
    LAB_T_INTEG="integration ok ($LAB_T_NPASS passed, $LAB_T_NFAIL failed; $LAB_T_NRAN)"
  elif [[ -z $LAB_T_NBROKEN ]]; then
    LAB_T_INTEG="integration FAILED ($LAB_T_NPASS passed, $LAB_T_NFAIL failed; $LAB_T_NRAN)"
  else
    LAB_T_INTEG="integration FAILED ($LAB_T_NBROKEN; $LAB_T_NPASS passed, $LAB_T_NFAIL failed)"
  fi
}

# run_node_pass BROWSER LOGNAME FILE... — one node --test run with LAB_BROWSER=BROWSER; sets
# LAB_T_PASS, LAB_T_FAIL (failed + cancelled), LAB_T_SKIP and LAB_T_BROKEN (set when node --test printed no totals).
run_node_pass() {
  local kind=$1 name=$2 logf="$LAB_LOGDIR/$2.log" envs cancelled rc; shift 2
  mapfile -t envs < <(lab_run_env)
  # One test file at a time: each asserts that rtpengine holds no session after its calls.
  # The cap (40 min) guards against a hang, not a slow host: Chromium's full pass takes 18-20 min on a quiet hour of
  # this 2-core VM and took over 25 (the cap until session 21, which cut it before its last file) on a slow one.
  log "integration tests in $kind: node --test --test-concurrency=1 --test-reporter=spec ${*#"$ROOT/"}"
  run_foreground "$name" 2400 env "${envs[@]}" LAB_BROWSER="$kind" node --test --test-concurrency=1 --test-reporter=spec "$@"
  rc=$?
  LAB_T_PASS=$(sed -nE 's/^ℹ pass ([0-9]+)$/\1/p' "$logf" | tail -n 1)
  LAB_T_FAIL=$(sed -nE 's/^ℹ fail ([0-9]+)$/\1/p' "$logf" | tail -n 1)
  cancelled=$(sed -nE 's/^ℹ cancelled ([0-9]+)$/\1/p' "$logf" | tail -n 1)
  LAB_T_SKIP=$(sed -nE 's/^ℹ skipped ([0-9]+)$/\1/p' "$logf" | tail -n 1)
  LAB_T_BROKEN=
  [[ -z $LAB_T_PASS ]] && LAB_T_BROKEN="node --test exit $rc in $kind, see $(rel "$logf")"
  LAB_T_PASS=${LAB_T_PASS:-0}
  LAB_T_FAIL=$((${LAB_T_FAIL:-0} + ${cancelled:-0}))
  return "$rc"
}

cmd_test() {
  while (($#)); do
    case $1 in
      --only) [[ -n ${2:-} ]] || usage_error "--only needs test names, e.g. --only calls,volte"; LAB_TEST_ONLY=$2; shift 2 ;;
      --only=*) LAB_TEST_ONLY=${1#--only=}; shift ;;
      --ims) [[ ${2:-} == 3gpp ]] || usage_error "test --ims takes 3gpp"; LAB_IMS=3gpp; shift 2 ;;
      --ims=3gpp) LAB_IMS=3gpp; shift ;;
      *) usage_error "unknown option for test: $1" ;;
    esac
  done
  export LAB_IMS
  # the full run ends with a pass on the 3GPP core (ims3gpp.sh's ims3_test_pass, about 90 s) and the external pass
  # (imsext.sh's ext_test_pass_start: the 3GPP core as an outsider, in the background from the second browser's
  # pass on); without --ims, --only runs each named file in
  # the pass of the core it needs (the light core's files in the first, LAB_TEST_PASS_CORE=light)
  if [[ $LAB_IMS != 3gpp ]]; then
    if [[ -z ${LAB_TEST_ONLY:-} ]]; then
      export LAB_TEST_3GPP_PASS=1 LAB_TEST_EXT_PASS=1
    else
      export LAB_TEST_PASS_CORE=light
      [[ -n $(test_only_files 3gpp 2>/dev/null) ]] && export LAB_TEST_3GPP_PASS=1
      [[ -n $(test_only_files external 2>/dev/null) ]] && export LAB_TEST_EXT_PASS=1
    fi
  fi
  # scale-hosts.test.mjs starts the hosts layout with the 3GPP core (harness/lib/scaleout.sh): its packages and HSS
  [[ -z ${LAB_TEST_ONLY:-} || ,$LAB_TEST_ONLY, =~ ,scale-hosts(\.test\.mjs)?, ]] && export LAB_TEST_HOSTS_3GPP=1
  ims3_lab_packages
  ensure_packages
  ims3_lab_build || exit 1
  test_side_reap
  lab_prepare_run test
  if [[ -n ${LAB_TEST_ONLY:-} ]]; then
    test_only_files >/dev/null || exit 2
    export LAB_TEST_ONLY
    LAB_T_UNIT="unit skipped (--only)"
    LAB_T_RELAY=
    # scale-out.test.mjs and tls.test.mjs drive calls with loadgen (media-relay/build); impairment.test.mjs reads its
    # captures with delaymeter (media-relay/build/delaymeter)
    if [[ ,$LAB_TEST_ONLY, == *,scale-out,* || ,$LAB_TEST_ONLY, == *,tls,* || ,$LAB_TEST_ONLY, == *,impairment,* ]]; then build_media_relay || exit 1; fi
    # datachannel.test.mjs, rtt.test.mjs: the endpoint (media-relay/datachannel) and the aiortc peers (out/pyenv)
    # datachannel-calls.test.mjs, rtt-calls.test.mjs: the same, through the gateway (the IMS UE harness/runner/dc-ue.py)
    # ims3gpp-datachannel.test.mjs: the endpoint, and the 3GPP core's MF (ims-sim/3gpp/dcsf/mf.py) on aiortc
    if [[ ,$LAB_TEST_ONLY, == *,datachannel,* || ,$LAB_TEST_ONLY, == *,rtt,* || ,$LAB_TEST_ONLY, == *,datachannel-calls,* || ,$LAB_TEST_ONLY, == *,rtt-calls,* || ,$LAB_TEST_ONLY, == *,ims3gpp-datachannel,* ]]; then build_media_relay && build_pyenv || exit 1; fi
  else
    build_pyenv || fail "no python venv: datachannel.test.mjs and rtt.test.mjs will fail (their aiortc peers are missing)"
    # media-relay's C++ build beside the unit tests: they share nothing, the build keeps both cores busy and the
    # unit tests about one, so side by side they take ~50 s less than one after the other
    local relay_pid
    build_media_relay &
    relay_pid=$!
    if [[ -f $ROOT/pom.xml ]]; then run_unit_tests; else LAB_T_UNIT="unit FAILED (no pom.xml)"; fi
    wait "$relay_pid"
    case $? in 0) LAB_T_RELAY=built ;; 1) LAB_T_RELAY="media-relay FAILED (build)" ;; *) LAB_T_RELAY= ;; esac
  fi
  LAB_T_INTEG=
  if [[ ! -d $ROOT/harness/tests ]]; then
    LAB_T_INTEG="integration FAILED (no harness/tests)"
  elif ! { build_gateway && build_harness; }; then
    LAB_T_INTEG="integration FAILED (build)"
  fi
  export LAB_T_UNIT LAB_T_SUREFIRE LAB_T_RELAY LAB_T_INTEG
  netns_run test_in_netns
}

# test_in_netns — the namespace phase of `./lab test` (in-netns.sh; what the host phase chose and built reaches it
# as the exported LAB_TEST_* and LAB_T_*): the browser topology, the lab, CTest and the Node passes, the summary.
# With a side namespace (test_side_wanted) this one runs CTest and the first browser's pass, the side the rest.
test_in_netns() {
  netns_topology
  lab_use_run test
  procs_install_traps
  node_tests_reset
  if [[ -z ${LAB_T_INTEG:-} && ${LAB_TEST_PASS_CORE:-} == light && -z $(test_only_files light) ]]; then
    LAB_T_INTEG="integration: no file of the light core named" # --only named files of the other passes only
    LAB_T_SKIP_LIGHT=1
  fi
  local side=0
  if [[ -z ${LAB_T_INTEG:-} ]]; then
    ims3_lab_wanted || export LAB_WITH_TCP_GW=1 # the integration tests also cover SIP over TCP (light core)
    export LAB_GW_MIN_SE=2 # RFC 4028 tests with 4 s session intervals (harness/lib/components.sh)
    export LAB_SIP_TEST_PEER=1 # raw SIP from the harness's peer address is trusted (harness/lib/scaleout.sh)
    if test_side_wanted; then
      test_side_start
      side=1
    fi
    if lab_start_all; then
      # CTest with the lab up: the load generator's integration run needs the real rtpengine.
      [[ ${LAB_T_RELAY:-} == built ]] && run_ctest
      if ((side)); then run_node_tests first; else run_node_tests; fi
    else
      LAB_T_INTEG="integration FAILED (the lab did not start, see $(rel "$LAB_LOGDIR")/)"
      [[ ${LAB_T_RELAY:-} == built ]] && run_ctest
    fi
  elif [[ ${LAB_T_RELAY:-} == built ]]; then
    run_ctest
  fi
  if ((side)); then
    # the side namespace outlives this lab's cleanup: this lab's processes stop first, then its result is waited for
    procs_forget "$LAB_SIDE_ENTRY"
    procs_cleanup
    procs_install_traps # the cleanup above reset them; a Ctrl-C now also stops the side namespace
    LAB_STARTED+=("$LAB_SIDE_ENTRY")
    test_side_finish
    procs_cleanup
  else
    procs_cleanup
    local built=1
    [[ $LAB_T_INTEG == *"(build)"* || $LAB_T_INTEG == *"(no harness/tests)"* ]] && built=0
    ((built)) && test_tail_passes
  fi
  local parts=("${LAB_T_UNIT:-unit FAILED (not run)}") summary status=0
  [[ -n ${LAB_T_RELAY:-} ]] && parts+=("$LAB_T_RELAY")
  [[ ${LAB_T_SKIP_LIGHT:-0} == 1 ]] || parts+=("$LAB_T_INTEG")
  [[ -n ${LAB_T_INTEG_3GPP:-} ]] && parts+=("$LAB_T_INTEG_3GPP")
  [[ -n ${LAB_T_INTEG_EXT:-} ]] && parts+=("$LAB_T_INTEG_EXT")
  summary=$(printf '%s, ' "${parts[@]}")
  summary=${summary%, }
  [[ $summary == *FAILED* ]] && status=1
  log "unit totals: ${LAB_T_SUREFIRE:-none}; logs: $(rel "$LAB_LOGDIR")/"
  echo "lab test: $summary"
  exit "$status"
}

# test_tail_passes — the passes after the light core's: the 3GPP core's (ims3gpp.sh ims3_test_pass) and the external
# one (imsext.sh), as the run wants them (LAB_TEST_3GPP_PASS, LAB_TEST_EXT_PASS). Both: side by side, the external one
# in the background (its own namespaces and core, nothing of this run's), the 3GPP one in a subshell whose cleanup
# stops its own lab only. Sets LAB_T_INTEG_3GPP, LAB_T_INTEG_EXT.
test_tail_passes() {
  procs_install_traps # a cleanup before reset them; a Ctrl-C now also stops these passes
  if [[ ${LAB_TEST_3GPP_PASS:-} == 1 && ${LAB_TEST_EXT_PASS:-} == 1 ]]; then
    ext_test_pass_start
    (
      LAB_STARTED=()
      ims3_test_pass
      printf '%s\n' "$LAB_T_INTEG_3GPP" >"$LAB_RUN_DIR/3gpp-pass.result"
    )
    LAB_T_INTEG_3GPP=$(cat "$LAB_RUN_DIR/3gpp-pass.result" 2>/dev/null) ||
      LAB_T_INTEG_3GPP="3gpp integration FAILED (the pass ended without a result, see $(rel "$LAB_LOGDIR")/ims3gpp-pass/)"
    ext_test_pass_finish
    procs_cleanup
  else
    [[ ${LAB_TEST_3GPP_PASS:-} == 1 ]] && ims3_test_pass
    [[ ${LAB_TEST_EXT_PASS:-} == 1 ]] && ext_test_pass
  fi
  return 0
}

# The side namespace of `./lab test`: the first browser's pass (every light-core file but LAB_SIDE_FIRST_TESTS;
# Chromium: 15-20 minutes) keeps the two cores ~30 % busy, mostly waiting on calls, timers and restarts. So the rest
# runs beside it, in private network and mount namespaces of its own (its own browser namespaces, light lab, ports and
# out/test/side/): each other browser's pass over the media files, the first browser's over LAB_SIDE_FIRST_TESTS, then
# test_tail_passes. The side shares nothing with this namespace (each file still asserts that its own rtpengine holds
# no session after its calls).

# test_side_wanted — a side namespace has work: light-core files (test_side_node_wanted), the 3GPP or the external pass.
test_side_wanted() {
  [[ ${LAB_IMS:-} != 3gpp ]] || return 1
  [[ ${LAB_TEST_3GPP_PASS:-} == 1 || ${LAB_TEST_EXT_PASS:-} == 1 ]] || test_side_node_wanted
}

# test_side_node_wanted — the side namespace has light-core files to run: another browser's media files, or the
# first browser's files of LAB_SIDE_FIRST_TESTS.
test_side_node_wanted() {
  local -a targets
  node_other_browsers_wanted && return 0
  mapfile -t targets < <(node_test_targets 2>/dev/null)
  [[ -n $(node_side_first_targets "${targets[@]}") ]]
}

# test_side_start — the side namespace in the background (test_side_in_netns); its output goes to its log and
# test_side_finish prints it. Sets LAB_SIDE_PID.
test_side_start() {
  local logf="$LAB_LOGDIR/side.log" what=()
  local browsers=${LAB_BROWSERS:-chromium,firefox}
  local -a targets sidefiles
  node_other_browsers_wanted && what+=("the media files in ${browsers#*,}")
  mapfile -t targets < <(node_test_targets 2>/dev/null)
  mapfile -t sidefiles < <(node_side_first_targets "${targets[@]}")
  ((${#sidefiles[@]})) && what+=("$(basename -a "${sidefiles[@]}" | sed 's/\.test\.mjs$//' | paste -sd, | sed 's/,/, /g') in ${browsers%%,*}")
  [[ ${LAB_TEST_3GPP_PASS:-} == 1 ]] && what+=("the 3GPP pass")
  [[ ${LAB_TEST_EXT_PASS:-} == 1 ]] && what+=("the external pass")
  log "the side namespace, in the background beside this pass: $(printf '%s, ' "${what[@]}" | sed 's/, $//') (its own lab, nothing shared); its output follows when it ends; logs: out/test/side/logs/"
  mkdir -p "$ROOT/out/test/side"
  : >"$logf"
  proc_spawn test-side "$logf" bash -c 'ROOT=$1 && source "$ROOT/harness/lib/all.sh" && netns_run test_side_in_netns' _ "$ROOT"
  LAB_SIDE_PID=$LAB_LAST_PID
  # stopped (a Ctrl-C) it stops its own lab first: up to a minute before it is killed
  procs_forget "test-side $LAB_SIDE_PID"
  LAB_SIDE_ENTRY="test-side $LAB_SIDE_PID 60"
  LAB_STARTED+=("$LAB_SIDE_ENTRY") # a run killed outright: test_side_reap
}

# test_side_finish — wait for the side namespace, print its output, add its results to this run's (LAB_T_INTEG,
# LAB_T_INTEG_3GPP, LAB_T_INTEG_EXT).
test_side_finish() {
  local rc result="$ROOT/out/test/side/result" np=$LAB_T_NPASS nf=$LAB_T_NFAIL nrc=$LAB_T_NRC nran=$LAB_T_NRAN nbroken=$LAB_T_NBROKEN
  log "waiting for the side namespace (log: out/test/logs/side.log)"
  wait "$LAB_SIDE_PID"
  rc=$?
  log "the side namespace's output (it ran in the background, exit $rc; logs: out/test/side/logs/):"
  cat "$LAB_LOGDIR/side.log"
  if [[ -f $result ]]; then
    # shellcheck source=/dev/null
    source "$result"
  else
    LAB_T_NRC=1 LAB_T_NBROKEN="the side namespace ended without a result (exit $rc), see out/test/logs/side.log"
    LAB_T_NPASS=0 LAB_T_NFAIL=0 LAB_T_NRAN='' LAB_T_SIDE_NODE=
    test_side_node_wanted && LAB_T_SIDE_NODE=1
    [[ ${LAB_TEST_3GPP_PASS:-} == 1 ]] && LAB_T_INTEG_3GPP="3gpp integration FAILED (the side namespace ended without a result, see out/test/logs/side.log)"
    [[ ${LAB_TEST_EXT_PASS:-} == 1 ]] && LAB_T_INTEG_EXT="external FAILED (the side namespace ended without a result, see out/test/logs/side.log)"
  fi
  if [[ -n ${LAB_T_SIDE_NODE:-} ]]; then
    LAB_T_NPASS=$((np + LAB_T_NPASS)) LAB_T_NFAIL=$((nf + LAB_T_NFAIL)) LAB_T_NRC=$((nrc || LAB_T_NRC))
    LAB_T_NRAN="$nran${LAB_T_NRAN:+, $LAB_T_NRAN}" LAB_T_NBROKEN="$nbroken${LAB_T_NBROKEN:+${nbroken:+; }$LAB_T_NBROKEN}"
    # this namespace's lab did not start: its verdict stays
    [[ $LAB_T_INTEG == *"did not start"* ]] || node_tests_verdict
  fi
  return 0
}

# test_side_reap — what the side namespace of an interrupted ./lab test left running (its ./lab gone): the side's
# supervisor stopped (its traps stop its lab), then its components (lab_reap_leftovers).
test_side_reap() {
  local dir="$ROOT/out/test" main side
  [[ -f $dir/side/supervisor ]] || return 0
  main=$(<"$dir/supervisor") side=$(<"$dir/side/supervisor")
  if [[ $side =~ ^[0-9]+$ && $main =~ ^[0-9]+$ ]] && ! lab_supervisor_alive "$main" && lab_supervisor_alive "$side"; then
    log "test-side (pid $side) was left running by an interrupted run in out/test: stopping it"
    proc_stop test-side "$side" 60
  fi
  lab_reap_leftovers "$dir/side"
}

# test_side_in_netns — the side namespace's phase (in-netns.sh, started by test_side_start): its browser topology, a
# light lab for the other browsers' media files, then test_tail_passes; its results in out/test/side/result.
test_side_in_netns() {
  netns_topology
  lab_use_run test/side
  : >"$LAB_PIDS"
  echo "$$" >"$LAB_RUN_DIR/supervisor"
  procs_install_traps
  local result="$LAB_RUN_DIR/result"
  rm -f "$result"
  node_tests_reset
  LAB_T_SIDE_NODE=
  if test_side_node_wanted; then
    LAB_T_SIDE_NODE=1
    if lab_start_all; then
      run_node_tests others
    else
      LAB_T_NRC=1 LAB_T_NBROKEN="the side namespace's lab did not start, see $(rel "$LAB_LOGDIR")/"
    fi
    procs_cleanup
  fi
  test_tail_passes
  vars_as_globals LAB_T_SIDE_NODE LAB_T_NPASS LAB_T_NFAIL LAB_T_NRC LAB_T_NRAN LAB_T_NBROKEN LAB_T_INTEG_3GPP LAB_T_INTEG_EXT \
    >"$result.tmp" && mv "$result.tmp" "$result"
}
