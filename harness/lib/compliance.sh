# shellcheck shell=bash
# `./lab compliance` (docs/compliance.md): runs only the integration tests that the
# catalogue harness/compliance/checks.mjs names, with a JSON-lines reporter next to the spec one,
# and maps their results onto the checks (out/compliance/report.json + report.html).

# run_compliance_tests — node --test on the catalogue's tests against the running lab; returns
# node's exit status (the verdict comes from the mapping, not from it).
run_compliance_tests() {
  local plan="$LAB_RUN_DIR/plan.txt" pattern envs
  local -a files
  # only the checks of the core the run is on (LAB_COMPLIANCE_CORE: light, 3gpp or external)
  node "$ROOT/harness/compliance/run.mjs" plan "$plan" "${LAB_COMPLIANCE_CORE:-light}" || { fail "cannot read the compliance catalogue"; return 2; }
  pattern=$(head -n 1 "$plan")
  mapfile -t files < <(tail -n +2 "$plan" | sed "s|^|$ROOT/|")
  mapfile -t envs < <(lab_run_env)
  # One file at a time (each asserts that rtpengine holds no session after its calls); tests of those
  # files that no check names are skipped by the name pattern.
  log "compliance tests: node --test ${files[*]#"$ROOT/"} (only the tests checks.mjs names)"
  run_foreground compliance-tests 780 env "${envs[@]}" node --test --test-concurrency=1 \
    --test-name-pattern="$pattern" \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter="$ROOT/harness/compliance/jsonl-reporter.mjs" --test-reporter-destination="$LAB_RUN_DIR/test-results.jsonl" \
    "${files[@]}"
}
