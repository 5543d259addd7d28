# shellcheck shell=bash
# `./lab demo` (see harness/lib/help.txt): one MO and one MT call through the lab in private namespaces,
# their audio checked (harness/runner/demo.mjs), out/demo/report.json + report.html.

cmd_demo() {
  local keep=''
  while (($#)); do
    case $1 in
      --ims) [[ ${2:-} =~ ^(plain|volte|3gpp)$ ]] || usage_error "--ims takes plain, volte or 3gpp"; LAB_IMS=$2; shift 2 ;;
      --ims=plain | --ims=volte | --ims=3gpp) LAB_IMS=${1#--ims=}; shift ;;
      --codec) [[ ${2:-} =~ ^(PCMA|PCMU|G722|AMR-WB|AMR)$ ]] || usage_error "--codec takes PCMA, PCMU, G722, AMR-WB or AMR"; LAB_CODEC=$2; shift 2 ;;
      --volte) LAB_DEMO_VOLTE=1; shift ;; # the precondition UEs on the core chosen by --ims (plain: as --ims volte)
      --ipv6) LAB_IPV6=1; shift ;; # the IMS side on IPv6 (harness/lib/ipv6.sh)
      --client) [[ ${2:-} == gateway || ${2:-} == sip-ws ]] || usage_error "--client takes gateway or sip-ws"; LAB_CLIENT=$2; shift 2 ;;
      --client=gateway | --client=sip-ws) LAB_CLIENT=${1#--client=}; shift ;;
      --datachannel) LAB_DEMO_DATACHANNEL=1; shift ;; # data-channel calls with the aiortc IMS UE (harness/runner/demo-datachannel.mjs)
      --rtt) LAB_DEMO_RTT=1; shift ;; # real-time text calls with the RFC 4103 UE (harness/runner/demo-rtt.mjs)
      --netem) [[ -n ${2:-} ]] || usage_error "--netem needs a spec, e.g. --netem \"loss 5%\""; LAB_DEMO_NETEM=$2; shift 2 ;;
      --netem=*) LAB_DEMO_NETEM=${1#--netem=}; shift ;;
      --keep-logs) keep=archive; shift ;;
      --browser) [[ ${2:-} == chromium || ${2:-} == firefox ]] || usage_error "--browser takes chromium or firefox"; LAB_BROWSER=$2; shift 2 ;;
      --browser=chromium | --browser=firefox) LAB_BROWSER=${1#--browser=}; shift ;;
      *) usage_error "unknown option for demo: $1" ;;
    esac
  done
  [[ -z ${LAB_CODEC:-} || ${LAB_IMS:-plain} == plain ]] || usage_error "--codec works with --ims plain only"
  # IPv6-only Gm is the VoLTE case: on the 3GPP core --ipv6 calls the precondition UEs (as --volte)
  [[ ${LAB_IPV6:-} != 1 || ${LAB_IMS:-plain} != 3gpp ]] || LAB_DEMO_VOLTE=1
  if [[ ${LAB_DEMO_VOLTE:-} == 1 ]]; then
    [[ -z ${LAB_CODEC:-} ]] || usage_error "--volte and --codec exclude each other"
    [[ ${LAB_IMS:-plain} != plain ]] || LAB_IMS=volte
  fi
  if [[ ${LAB_CLIENT:-gateway} == sip-ws ]]; then
    [[ ${LAB_IMS:-plain} =~ ^(plain|3gpp)$ && -z ${LAB_CODEC:-} && ${LAB_IPV6:-} != 1 && ${LAB_DEMO_VOLTE:-} != 1 ]] ||
      usage_error "--client sip-ws runs on the light core or --ims 3gpp, with the plain UEs over IPv4 (no --ims volte, --volte, --codec or --ipv6)"
  fi
  if [[ ${LAB_DEMO_DATACHANNEL:-} == 1 ]]; then
    # --ims 3gpp: the bootstrap channel through the core's DCSF and MF first (harness/runner/demo-datachannel.mjs)
    [[ ${LAB_IMS:-plain} =~ ^(plain|3gpp)$ && -z ${LAB_CODEC:-} && ${LAB_IPV6:-} != 1 && ${LAB_CLIENT:-gateway} == gateway && ${LAB_DEMO_VOLTE:-} != 1 ]] ||
      usage_error "--datachannel runs on the light core or --ims 3gpp, through the gateway over IPv4 (no --ims volte, --volte, --codec, --ipv6 or --client sip-ws)"
  fi
  if [[ ${LAB_DEMO_RTT:-} == 1 ]]; then
    [[ ${LAB_IMS:-plain} == plain && -z ${LAB_CODEC:-} && ${LAB_IPV6:-} != 1 && ${LAB_CLIENT:-gateway} == gateway && ${LAB_DEMO_VOLTE:-} != 1 && ${LAB_DEMO_DATACHANNEL:-} != 1 ]] ||
      usage_error "--rtt runs on the light core through the gateway over IPv4 (no --ims, --volte, --codec, --ipv6, --client sip-ws or --datachannel)"
  fi
  [[ -z ${LAB_DEMO_NETEM:-} || ${LAB_DEMO_RTT:-} == 1 ]] || usage_error "--netem goes with --rtt (the browser's link of the real-time-text demo)"
  LAB_BROWSER=${LAB_BROWSER:-chromium}
  LAB_CLIENT=${LAB_CLIENT:-gateway}
  export LAB_IMS LAB_CODEC LAB_BROWSER LAB_DEMO_VOLTE LAB_IPV6 LAB_CLIENT LAB_DEMO_DATACHANNEL LAB_DEMO_RTT LAB_DEMO_NETEM
  ims3_lab_packages
  ensure_packages
  ims3_lab_build && build_gateway && build_harness && { build_media_relay; (($? != 1)); } && need_script harness/runner/demo.mjs || exit 1
  # --datachannel: the endpoint (media-relay/datachannel) and the aiortc IMS UE (out/pyenv) are needed
  if [[ ${LAB_DEMO_DATACHANNEL:-} == 1 || ${LAB_DEMO_RTT:-} == 1 ]]; then build_media_relay && build_pyenv || exit 1; fi
  lab_prepare_run demo "$keep"
  netns_run demo_in_netns
}

# demo_in_netns — the namespace phase of `./lab demo` (in-netns.sh; the options reach it as the exported LAB_*):
# the browser topology, the lab, the calls, the report.
demo_in_netns() {
  local rc envs
  netns_topology
  ipv6_netns_setup
  lab_use_run demo
  procs_install_traps
  lab_start_all || exit 1
  mapfile -t envs < <(lab_run_env)
  local runner=demo.mjs
  [[ ${LAB_DEMO_DATACHANNEL:-} == 1 ]] && runner=demo-datachannel.mjs
  [[ ${LAB_DEMO_RTT:-} == 1 ]] && runner=demo-rtt.mjs
  log "running the calls: node harness/runner/$runner"
  run_foreground runner 600 env "${envs[@]}" node "$ROOT/harness/runner/$runner"
  rc=$?
  procs_cleanup
  if [[ -f $LAB_RUN_DIR/report.html || -f $LAB_RUN_DIR/report.json ]]; then
    log "report: $(rel "$LAB_RUN_DIR")/report.html and report.json; logs: $(rel "$LAB_LOGDIR")/"
  else
    log "no report was written; logs: $(rel "$LAB_LOGDIR")/"
  fi
  ((rc == 0)) || fail "demo failed: the runner exited with status $rc (log: $(rel "$LAB_LOGDIR")/runner.log)"
  exit "$rc"
}
