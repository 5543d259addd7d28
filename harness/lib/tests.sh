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

# test_only_files — the files named by LAB_TEST_ONLY (comma-separated), one per line; fails on a
# name without a file.
test_only_files() {
  local n f
  local -a names
  IFS=, read -r -a names <<<"$LAB_TEST_ONLY"
  for n in "${names[@]}"; do
    f="$ROOT/harness/tests/${n%.test.mjs}.test.mjs"
    [[ -f $f ]] || { fail "--only: no integration test file $(rel "$f")"; return 1; }
    echo "$f"
  done
}

# run_node_tests — the integration tests against the running lab; sets LAB_T_INTEG.
run_node_tests() {
  local logf="$LAB_LOGDIR/integration.log" envs pass fail cancelled
  local -a targets=("$ROOT/harness/tests/")
  mapfile -t envs < <(lab_run_env)
  # ims3gpp.test.mjs needs the 3GPP core (--ims 3gpp), the other files the light core's UEs
  if [[ -n ${LAB_TEST_ONLY:-} ]]; then
    mapfile -t targets < <(test_only_files)
  elif [[ ${LAB_IMS:-} == 3gpp ]]; then
    targets=("$ROOT/harness/tests/ims3gpp.test.mjs")
  else
    mapfile -t targets < <(printf '%s\n' "$ROOT"/harness/tests/*.test.mjs | grep -v '/ims3gpp\.test\.mjs$')
  fi
  # One test file at a time: each asserts that rtpengine holds no session after its calls.
  log "integration tests: node --test --test-concurrency=1 --test-reporter=spec ${targets[*]#"$ROOT/"}"
  run_foreground integration 780 env "${envs[@]}" node --test --test-concurrency=1 --test-reporter=spec "${targets[@]}"
  local rc=$?
  pass=$(sed -nE 's/^ℹ pass ([0-9]+)$/\1/p' "$logf" | tail -n 1)
  fail=$(sed -nE 's/^ℹ fail ([0-9]+)$/\1/p' "$logf" | tail -n 1)
  cancelled=$(sed -nE 's/^ℹ cancelled ([0-9]+)$/\1/p' "$logf" | tail -n 1)
  fail=$((${fail:-0} + ${cancelled:-0}))
  if ((rc == 0)); then
    LAB_T_INTEG="integration ok (${pass:-0} passed, $fail failed)"
  elif [[ -n $pass ]]; then
    LAB_T_INTEG="integration FAILED ($pass passed, $fail failed)"
  else
    LAB_T_INTEG="integration FAILED (node --test exit $rc, see $(rel "$logf"))"
  fi
}
