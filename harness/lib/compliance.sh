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

cmd_compliance() {
  local bind=''
  LAB_COMPLIANCE_CORE=light
  while (($#)); do
    case $1 in
      --ims) [[ ${2:-} == 3gpp || ${2:-} == external ]] || usage_error "compliance --ims takes 3gpp or external"
        LAB_IMS=$2; LAB_COMPLIANCE_CORE=$2; shift 2 ;;
      --ims=3gpp | --ims=external) LAB_IMS=${1#--ims=}; LAB_COMPLIANCE_CORE=$LAB_IMS; shift ;;
      --bind) [[ -n ${2:-} && ${2:-} != --* ]] || usage_error "--bind needs an address"; bind=$2; shift 2 ;;
      --bind=*) bind=${1#--bind=}; shift ;;
      *)
        ext_option "$1" "${2-}"
        ((EXT_TAKEN > 0)) || usage_error "unknown option for compliance: $1"
        shift "$EXT_TAKEN" ;;
    esac
  done
  export LAB_IMS LAB_COMPLIANCE_CORE
  if [[ -n $bind ]]; then
    # the light and 3GPP cores run in a private namespace of their own: no address of this host to bind
    [[ $LAB_IMS == external ]] || usage_error "compliance --bind goes with --ims external (the other cores run in a private network namespace)"
    [[ $bind =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || usage_error "--bind wants an IPv4 address, not '$bind'"
    LAB_BIND=$bind
    [[ $LAB_BIND == 127.* ]] || LAB_TLS=1 # beyond loopback the browser side is HTTPS/WSS only (docs/security.md "TLS")
    export LAB_BIND LAB_TLS
  fi
  ext_check
  if ext_mode; then compliance_external; exit $?; fi
  ims3_lab_packages
  ensure_packages
  ims3_lab_build && build_gateway && build_harness && need_script harness/compliance/run.mjs || exit 1
  lab_prepare_run compliance
  netns_run compliance_in_netns
}

# compliance_in_netns — the namespace phase of `./lab compliance` on the light or the 3GPP core (in-netns.sh; the
# core as the exported LAB_IMS, LAB_COMPLIANCE_CORE): the browser topology, the lab, the catalogue's tests, the report.
compliance_in_netns() {
  local rc started
  netns_topology
  lab_use_run compliance
  procs_install_traps
  started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  export LAB_GW_MIN_SE=2 # RFC 4028 checks with 4 s session intervals (harness/lib/components.sh)
  export LAB_SIP_TEST_PEER=1 # raw SIP from the harness's peer address is trusted (harness/lib/scaleout.sh)
  lab_start_all || exit 1
  run_compliance_tests
  procs_cleanup
  node "$ROOT/harness/compliance/run.mjs" report "$LAB_RUN_DIR/test-results.jsonl" "$LAB_RUN_DIR" "$started" "$LAB_COMPLIANCE_CORE"
  rc=$?
  ((rc == 2)) && die "no compliance report was written"
  log "report: $(rel "$LAB_RUN_DIR")/report.html, report.json and junit.xml; logs: $(rel "$LAB_LOGDIR")/"
  echo "lab compliance: $(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).summary)' "$LAB_RUN_DIR/report.json")"
  exit "$rc"
}
