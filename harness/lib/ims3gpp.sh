# shellcheck shell=bash
# `--ims 3gpp` (issue #13): the lab on the 3GPP IMS core of ims-sim/3gpp (P-CSCF → I-CSCF → S-CSCF,
# HSS over Cx, its own DNS and MariaDB) instead of the light Kamailio. The gateway registers with
# IMS-AKA from ims-sim/3gpp/gateway-credentials.txt, the SIPp UEs with the keys of
# ims-sim/3gpp/sipp/ue-keys.txt. docs/ims-sim.md "3GPP mode".

LAB_IMS3_DIR="$ROOT/ims-sim/3gpp"
LAB_IMS3_CREDENTIALS="$LAB_IMS3_DIR/gateway-credentials.txt"
# The P-CSCF's port is LAB_PCSCF's (checked with the other components); these are the rest of the core's
# (harness/addresses.env; ims-sim/3gpp/env.sh gives the core the same).
LAB_IMS3_PORTS=(53/udp 53/tcp "$LAB_IMS3_DB_PORT/tcp" "$LAB_IMS3_MF_PORT/tcp" "$LAB_IMS3_HSS_DIAMETER_PORT/tcp" "$LAB_IMS3_ICSCF_DIAMETER_PORT/tcp"
  "$LAB_IMS3_SCSCF_DIAMETER_PORT/tcp" "$LAB_IMS3_ICSCF_PORT/udp" "$LAB_IMS3_ICSCF_PORT/tcp" "$LAB_IMS3_SCSCF_PORT/udp" "$LAB_IMS3_SCSCF_PORT/tcp")

ims3_lab_wanted() { [[ ${LAB_IMS:-} == 3gpp ]]; }
# the core's packages and HSS are needed: --ims 3gpp, or the 3GPP or external pass of `./lab test`, or its
# scale-hosts.test.mjs (the hosts layout with the 3GPP core on its IMS host: LAB_TEST_HOSTS_3GPP, tests.sh)
ims3_lab_needed() { ims3_lab_wanted || [[ ${LAB_TEST_3GPP_PASS:-} == 1 || ${LAB_TEST_EXT_PASS:-} == 1 || ${LAB_TEST_HOSTS_3GPP:-} == 1 ]]; }

# ims3_lab_packages — with --ims 3gpp, the core's Debian packages (ims-sim/3gpp/packages.sh) are
# needed too: add them to LAB_PACKAGES before ensure_packages runs.
ims3_lab_packages() {
  ims3_lab_needed || return 0
  # shellcheck source=../../ims-sim/3gpp/packages.sh
  source "$LAB_IMS3_DIR/packages.sh"
  LAB_PACKAGES+=("${IMS3_PACKAGES[@]}")
}

# ims3_lab_build — host phase, when the core is needed: build the HSS (CMake) when it is missing or
# older than its sources.
ims3_lab_build() {
  ims3_lab_needed || return 0
  local bin="$LAB_IMS3_DIR/hss/build/hss" logf="$ROOT/out/build/hss.log"
  if [[ -x $bin ]] && [[ -z $(find "$LAB_IMS3_DIR/hss/src" "$LAB_IMS3_DIR/hss/CMakeLists.txt" -newer "$bin" -print -quit) ]]; then
    return 0
  fi
  mkdir -p "$(dirname "$logf")"
  log "building the HSS: ims-sim/3gpp/build-hss.sh (log: $(rel "$logf"))"
  if ! "$LAB_IMS3_DIR/build-hss.sh" --no-test >"$logf" 2>&1; then
    show_tail "$logf"
    fail "building the HSS failed (log: $(rel "$logf"))"
    return 1
  fi
}

# start_ims3gpp — the whole core as one component, in a mount namespace of its own (its resolv.conf
# names the core's dnsmasq: Kamailio and cdp resolve through libc).
start_ims3gpp() {
  need_script ims-sim/3gpp/run-core.sh || return 1
  ports_free "${LAB_IMS3_PORTS[@]}" || return 1
  # the SIPp UEs (ue1 here, the runner's ue2 later) register with IMS-AKA: run-ue.sh reads IMS_AKA_KEYS
  export IMS_AKA_KEYS="$LAB_IMS3_DIR/sipp/ue-keys.txt"
  # the P-CSCF as eP-CSCF for WICs using Gm (ims-sim/3gpp/kamailio/pcscf-wic.cfg): the run's token key (the gateway
  # signs with it), ws on loopback, wss on the browser link with the run's certificate, the lab's rtpengine
  local -a wic=()
  if wic_enabled; then
    wic_prepare || return 1
    wic=(IMS3_WIC_KEY_FILE="$(wic_key)" IMS3_WS_PORT="$LAB_PCSCF_WS_PORT" IMS3_WSS_PORT="$LAB_PCSCF_WSS_PORT"
      IMS3_RTPENGINE_NG="$LAB_RTPENGINE_NG" IMS3_WS_ORIGINS="$(gw_url)")
    [[ -n $(lab_pub_addr) ]] && wic+=(IMS3_RTPENGINE_IFACES="${LAB_RTPENGINE_IFACES[0]%%/*} ${LAB_RTPENGINE_IFACES[1]%%/*}")
    wic_wss && wic+=(IMS3_WSS_ADDR="$LAB_PUB_ADDR" IMS3_TLS_CERT="$LAB_RUN_DIR/tls/lab.crt" IMS3_TLS_KEY="$LAB_RUN_DIR/tls/lab.key")
  fi
  proc_start ims3gpp env "${wic[@]}" unshare --mount -- bash "$LAB_IMS3_DIR/run-core.sh" "$LAB_LOGDIR/ims3gpp"
  proc_wait_ready ims3gpp "$LAB_LAST_PID" 120 "DNS, MariaDB, HSS, S-/I-/P-CSCF up, Diameter connections open" \
    grep -q '^ims3: ready' "$LAB_LOGDIR/ims3gpp.log"
}

# start_ims_core — the IMS core the run asked for: the 3GPP one, or the light Kamailio.
start_ims_core() {
  ext_mode && return 0 # --ims external: the IMS is someone else's (imsext.sh)
  if ims3_lab_wanted; then start_ims3gpp; else start_kamailio; fi
}

# ims3_gateway_proxy — what the gateway is told of its P-CSCF (lab.ims.proxy): with --ims 3gpp the name the
# core's DNS publishes (pcscf.<domain>: NAPTR → SRV → A, ims-sim/3gpp/start-dns.sh), found as a UE finds it
# (RFC 3263, TS 24.229 §9.2.1); with --ims external --pcscf as given (HOST:PORT or a name); else LAB_PCSCF.
ims3_gateway_proxy() {
  if ims3_lab_wanted; then echo "pcscf.$LAB_IMS_DOMAIN"; elif ext_mode; then echo "$LAB_EXT_PCSCF"; else echo "$LAB_PCSCF"; fi
}

# ims3_gateway_args — the gateway's extra arguments with --ims 3gpp: its credentials file, the
# reg-event subscription (RFC 3680) the S-CSCF serves, and the core's DNS (on the P-CSCF's address, port 53).
ims3_gateway_args() {
  ims3_lab_wanted && printf '%s\n' "--lab.ims.credentials=$LAB_IMS3_CREDENTIALS" "--lab.ims.reg-event=true" \
    "--lab.ims.dns=${LAB_PCSCF%:*}:53"
  # external: reg-event too (TS 24.229 §5.1.1.3; a core that does not serve it answers the SUBSCRIBE with an error, logged)
  ext_mode && printf '%s\n' "--lab.ims.credentials=$LAB_EXT_CREDENTIALS" "--lab.ims.reg-event=true" ${LAB_EXT_DNS:+"--lab.ims.dns=$LAB_EXT_DNS"}
  return 0
}

# ims3_start_ues — the same SIPp UEs as on the light core, each an HSS subscriber registering with
# IMS-AKA (subscribers.txt, sipp/ue-keys.txt): ue1 echoes, ue3 hangs up, ue4 VoLTE MT, ue6 DTMF, ue7
# video, ue8 re-INVITEs; ue2/ue5/ue9 are the tests' callers. So the core-agnostic integration tests
# (./lab compliance --ims 3gpp) run here unchanged.
ims3_start_ues() {
  ext_mode && return 0
  start_ue ue1 uas && start_ue ue3 uas-bye && start_ue ue4 volte-uas && start_ue ue6 uas-dtmf && start_ue ue7 uas-video &&
    start_ue ue8 uas-reinvite
}

# ims3_print_access SHOWN_ADDR — `./lab up --ims 3gpp`: where the page is, the logins of the
# credentials file, whom to call.
ims3_print_access() {
  local login kind browser=() pool=0
  while read -r login _ kind _; do
    [[ -z $login || $login == \#* ]] && continue
    if [[ $kind == pool ]]; then pool=$((pool + 1)); continue; fi
    browser+=("$login ($kind)")
  done <"$LAB_IMS3_CREDENTIALS"
  ((pool == 0)) || browser+=("or as a guest (POST /api/v1/sessions {\"guest\":true}: $pool pool identities)")
  log "the lab is up on the 3GPP IMS core. Web client: $(up_web_url "$1")"
  # passwords are never printed (they would stay in terminal scroll-back and CI logs): where to read them
  log "log in as: ${browser[*]}; the passwords are in $(rel "$LAB_IMS3_CREDENTIALS") (second column)"
  log "call ue1 (answers and echoes the audio); logs: $(rel "$LAB_LOGDIR")/ and $(rel "$LAB_LOGDIR")/ims3gpp/"
  log "stop it with: ./lab down"
}

# ims3_test_pass — the default `./lab test` (no --ims, no --only) ends with a pass on the 3GPP core,
# after the light core's components are stopped: the same lab with --ims 3gpp and
# harness/tests/ims3gpp*.test.mjs (about a minute). Logs in out/test/logs/ims3gpp-pass/; sets LAB_T_INTEG_3GPP.
ims3_test_pass() {
  local main_logdir=$LAB_LOGDIR main_integ=${LAB_T_INTEG:-} main_counts
  main_counts=$(vars_as_globals LAB_T_NPASS LAB_T_NFAIL LAB_T_NRC LAB_T_NRAN LAB_T_NBROKEN) # run_node_tests' totals (tests.sh)
  LAB_IMS=3gpp LAB_TEST_PASS_CORE=3gpp
  export LAB_IMS LAB_TEST_PASS_CORE
  unset LAB_WITH_TCP_GW
  LAB_LOGDIR="$LAB_RUN_DIR/logs/ims3gpp-pass"
  mkdir -p "$LAB_LOGDIR"
  procs_install_traps # procs_cleanup of the first pass reset them
  log "the 3GPP core pass (as ./lab test --ims 3gpp): harness/tests/ims3gpp*.test.mjs; logs: $(rel "$LAB_LOGDIR")/"
  if lab_start_all; then
    run_node_tests
  else
    LAB_T_INTEG="integration FAILED (the lab on the 3GPP core did not start, see $(rel "$LAB_LOGDIR")/)"
  fi
  procs_cleanup
  LAB_T_INTEG_3GPP="3gpp ${LAB_T_INTEG}"
  LAB_T_INTEG=$main_integ
  eval "$main_counts"
  LAB_LOGDIR=$main_logdir
}
