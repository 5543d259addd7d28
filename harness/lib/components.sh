# shellcheck shell=bash
# The lab's components (docs/architecture.md): how each is started, which ports it needs free
# and how it is known to be ready. Addresses come from addresses.sh; only the gateway's
# HTTP side follows --bind (the SIP side talks to Kamailio on loopback). With LAB_TOPOLOGY=1
# (netns_topology: demo, test, compliance) rtpengine gets its two named interfaces, the gateway
# picks them per leg, and its HTTP/WS side listens on the browser link (LAB_PUB_ADDR). `./lab up
# --bind ADDR` with a non-loopback ADDR does the same with ADDR as the browser-facing side.

LAB_BIND=${LAB_BIND:-127.0.0.1}
# TLS on the main gateway's HTTP/WS side (docs/security.md "TLS"): LAB_TLS=1 (./lab up with a
# non-loopback --bind, or --tls-cert/--tls-key) serves https:// and wss:// only, with the PEM pair
# LAB_TLS_CERT/LAB_TLS_KEY (./lab up generates one with harness/lib/tls-cert.sh unless given).
LAB_TLS=${LAB_TLS:-0}
# The IMS side's call model for the demo runner: plain (ue1/ue2) or volte (ue4/ue5, preconditions).
export LAB_IMS=${LAB_IMS:-plain}

# gw_url [PORT [TLS]] — the gateway's base URL, reachable also when it listens on all addresses
# (TLS 1: https; default LAB_TLS for the main port, plain for the others).
gw_url() {
  local host=$LAB_BIND port=${1:-$LAB_GW_PORT} tls=${2:-} scheme=http
  [[ $host == 0.0.0.0 ]] && host=127.0.0.1
  [[ -z $tls && $port == "$LAB_GW_PORT" ]] && tls=$LAB_TLS
  [[ $tls == 1 ]] && scheme=https
  printf '%s://%s:%s' "$scheme" "$host" "$port"
}

# -k: a health probe on this host; the certificate (maybe the user's, for a host name) is not its business
# (from the browsers' host: client_exec, scaleout.sh — with `up --gateways/--relays` a namespace of its own)
http_200() { [[ $(client_exec curl --noproxy '*' -k -s -o /dev/null -m 2 -w '%{http_code}' "$1") == 200 ]]; }

# lab_tls_sans — the names the generated certificate is for: the --bind address, or with 0.0.0.0 every
# address of this host plus its name.
lab_tls_sans() {
  if [[ $LAB_BIND != 0.0.0.0 ]]; then echo "$LAB_BIND"; return; fi
  local a h
  for a in 127.0.0.1 $(hostname -I 2>/dev/null); do [[ $a == *:* ]] || echo "$a"; done
  h=$(hostname 2>/dev/null) && [[ $h =~ ^[A-Za-z0-9.-]+$ ]] && echo "$h"
  return 0
}

# lab_tls_prepare — with LAB_TLS=1 and no user pair: a self-signed one in out/tls/ (kept across runs
# while its SANs stay the same, so a browser's exception stays valid).
lab_tls_prepare() {
  [[ $LAB_TLS == 1 ]] || return 0
  if [[ -z ${LAB_TLS_CERT:-} ]]; then
    local -a sans
    mapfile -t sans < <(lab_tls_sans)
    bash "$ROOT/harness/lib/tls-cert.sh" "$ROOT/out/tls" gateway "${sans[@]}" || { fail "could not generate the TLS certificate"; return 1; }
    LAB_TLS_CERT="$ROOT/out/tls/gateway.crt" LAB_TLS_KEY="$ROOT/out/tls/gateway.key"
    log "TLS: self-signed certificate $(rel "$LAB_TLS_CERT") for ${sans[*]} (key $(rel "$LAB_TLS_KEY"), mode 0600)"
  fi
  export LAB_TLS_CERT LAB_TLS_KEY
}

# lab_test_cert — (demo/test topology) a self-signed pair for 127.0.0.1 and the browser link's address in
# the run directory, for the tests that start TLS servers of their own (gateway HTTPS, Kamailio SIP/TLS);
# the integration tests trust it (NODE_EXTRA_CA_CERTS, lab_run_env).
lab_test_cert() {
  [[ ${LAB_TOPOLOGY:-} == 1 ]] || return 0
  bash "$ROOT/harness/lib/tls-cert.sh" "$LAB_RUN_DIR/tls" lab "$LAB_PUB_ADDR" 127.0.0.1 ||
    { fail "could not generate the test TLS certificate"; return 1; }
}

# proc_is PID COMM — the process has exec'd COMM (run-ue.sh execs sipp only once it has registered).
proc_is() { [[ $(cat "/proc/$1/comm" 2>/dev/null) == "$2" ]]; }

# need_script PATH — a component's start script must exist before we try to start it.
need_script() { [[ -f $ROOT/$1 ]] || { fail "$1 is missing"; return 1; }; }

# lab_pub_addr — rtpengine's browser-facing address when it has two interfaces ("pub" + "ims"), or
# nothing (one unnamed interface on 127.0.0.1): the topology's LAB_PUB_ADDR, or up's routable --bind.
lab_pub_addr() {
  if [[ ${LAB_TOPOLOGY:-} == 1 ]]; then
    echo "$LAB_PUB_ADDR"
  elif [[ $LAB_BIND != 127.* && $LAB_BIND != 0.0.0.0 ]]; then
    echo "$LAB_BIND"
  fi
}

start_rtpengine() {
  need_script media-relay/start-rtpengine.sh && need_script media-relay/ng-ping.py || return 1
  local -a ifaces=()
  local pub
  pub=$(lab_pub_addr)
  # the first --interface is start-rtpengine.sh's RTPENGINE_IFACE, the others are extra arguments
  [[ -n $pub ]] && ifaces=("--interface=pub/$pub" "--interface=${LAB_RTPENGINE_IFACES[1]}")
  proc_start rtpengine env RTPENGINE_NG="$LAB_RTPENGINE_NG" RTPENGINE_DTMF_LOG="$LAB_RTPENGINE_DTMF_LOG" \
    ${ifaces[0]:+RTPENGINE_IFACE="${ifaces[0]#--interface=}"} bash "$ROOT/media-relay/start-rtpengine.sh" "${ifaces[@]:1}"
  proc_wait_ready rtpengine "$LAB_LAST_PID" 20 "ng ping answer on $LAB_RTPENGINE_NG" \
    python3 "$ROOT/media-relay/ng-ping.py" "$LAB_RTPENGINE_NG" 1
}

# start_datachannel — the data-channel endpoint (media-relay/datachannel, docs/datachannel.md), supervised
# like rtpengine: its control protocol on LAB_DATACHANNEL_CTL (ng-style, so ng-ping.py's ping is its readiness),
# the browser leg on rtpengine's browser-facing address (lab_pub_addr; the loopback address without one), the
# IMS leg on the loopback address, ports LAB_DATACHANNEL_PORT_MIN-MAX. Skipped (one line) when media-relay
# was not built in this run's tree (./lab up builds no C++); datachannel.test.mjs then fails saying so.
start_datachannel() {
  local bin="$ROOT/media-relay/build/datachannel/datachannel" pub
  pub=$(lab_pub_addr)
  if [[ ! -x $bin ]]; then
    log "datachannel endpoint not started: $(rel "$bin") is not built"
    return 0
  fi
  need_script media-relay/ng-ping.py || return 1
  proc_start datachannel "$bin" --listen "$LAB_DATACHANNEL_CTL" --browser-addr "${pub:-$LAB_LOOPBACK}" --ims-addr "$LAB_LOOPBACK" \
    --port-min "$LAB_DATACHANNEL_PORT_MIN" --port-max "$LAB_DATACHANNEL_PORT_MAX"
  proc_wait_ready datachannel "$LAB_LAST_PID" 10 "control ping answer on $LAB_DATACHANNEL_CTL" \
    python3 "$ROOT/media-relay/ng-ping.py" "$LAB_DATACHANNEL_CTL" 1 || return 1
  LAB_DATACHANNEL_UP=1 # the gateways drive it (start_gateway: --lab.datachannel.ng)
}

# lab_turn_addr — where coturn listens (ADDR:PORT), or nothing when the run has none: the topology's
# LAB_STUN (demo/test/compliance: STUN for the NAT tests, TURN for turn.test.mjs), or `./lab up --turn`'s
# bound address, port 3478.
lab_turn_addr() {
  if [[ ${LAB_TOPOLOGY:-} == 1 ]]; then
    echo "$LAB_STUN"
  elif [[ ${LAB_TURN:-} == 1 ]]; then
    echo "$LAB_BIND:${LAB_STUN##*:}"
  fi
}

# start_turn — coturn (Debian's) as a STUN and TURN server on lab_turn_addr, relaying from the same address
# (ports LAB_TURN_PORTS). TURN allocations need credentials of the TURN REST API (use-auth-secret): a random
# shared secret in $LAB_RUN_DIR/turn/secret (mode 0600) that the gateway also reads (lab.webrtc.turn-secret-
# file) to hand each page credentials that expire with its session. The secret is in coturn's config file (mode 0600), never on a
# command line (docs/security.md "TURN"). STUN Binding requests need no credentials.
start_turn() {
  local addr dir
  addr=$(lab_turn_addr)
  [[ -n $addr ]] || return 0
  dir=$LAB_RUN_DIR/turn
  mkdir -p "$dir" && (umask 077 && openssl rand -hex 32 >"$dir/secret" && {
    printf '%s\n' "listening-ip=${addr%:*}" "listening-port=${addr##*:}" "relay-ip=${addr%:*}" \
      "min-port=${LAB_TURN_PORTS%-*}" "max-port=${LAB_TURN_PORTS#*-}" use-auth-secret "realm=$LAB_IMS_DOMAIN" \
      fingerprint no-cli no-tls no-dtls simple-log log-file=stdout "pidfile=$dir/turnserver.pid" "userdb=$dir/turndb"
    [[ ${addr%:*} == 127.* ]] && echo allow-loopback-peers # rtpengine on loopback (./lab up without --bind)
    # the relay reaches rtpengine's browser-facing address and nothing else (no other host or local service)
    echo "denied-peer-ip=0.0.0.0-255.255.255.255"
    echo "allowed-peer-ip=$(turn_peer_addr)"
    echo "static-auth-secret=$(cat "$dir/secret")"
  } >"$dir/turnserver.conf") || { fail "cannot write coturn's configuration in $(rel "$dir")"; return 1; }
  proc_start turn turnserver -c "$dir/turnserver.conf"
  proc_wait_ready turn "$LAB_LAST_PID" 15 "UDP $addr bound" turn_bound "$addr"
}

# turn_peer_addr — the one address coturn may relay to: rtpengine's browser-facing one (lab_pub_addr, else
# its single interface on the bound loopback address).
turn_peer_addr() {
  local pub
  pub=$(lab_pub_addr)
  echo "${pub:-$LAB_BIND}"
}

turn_bound() { [[ -n $(ss -H -lun "src ${1%:*} and sport = :${1##*:}" 2>/dev/null) ]]; }

# turn_gateway_args — the gateway's TURN options for `./lab up --turn` (none otherwise: TURN costs a relay hop,
# so only turn.test.mjs's own gateway uses the topology's TURN server).
turn_gateway_args() {
  [[ ${LAB_TURN:-} == 1 ]] || return 0
  printf '%s\n' "--lab.webrtc.turn-uris=turn:$(lab_turn_addr)?transport=udp" "--lab.webrtc.turn-secret-file=$LAB_RUN_DIR/turn/secret"
}

# The eP-CSCF for WICs using Gm on the light core (docs/ims-sim.md "eP-CSCF for WICs using Gm"): the HS256 key the
# gateway (WAF) signs access tokens with and Kamailio checks them with, new per run (mode 0600, never printed).
wic_key() { echo "$LAB_RUN_DIR/wic/token.key"; }
# wic_enabled — the eP-CSCF runs beside the light core on one host over IPv4: not in the hosts layout of
# --gateways/--relays (Kamailio on a host of its own, rtpengine's ng and the browser link elsewhere) nor with --ipv6
wic_enabled() { ! { declare -F scale_out >/dev/null && scale_out; } && [[ ${LAB_IPV6:-} != 1 ]]; }
wic_prepare() {
  [[ -s $(wic_key) ]] && return 0
  (umask 077 && mkdir -p "$LAB_RUN_DIR/wic" && head -c 32 /dev/urandom >"$(wic_key)") || { fail "could not write the WIC token key"; return 1; }
}
# wic_wss — the eP-CSCF takes wss on the browser link (demo/test topology, with the run's certificate), else only ws on loopback
wic_wss() { [[ ${LAB_TOPOLOGY:-} == 1 && -f ${LAB_RUN_DIR}/tls/lab.crt ]]; }
# wic_ws_url — the eP-CSCF's WebSocket URL the page is given (lab.wic.ws-url)
wic_ws_url() {
  if wic_wss; then echo "wss://$LAB_PUB_ADDR:$LAB_PCSCF_WSS_PORT"; else echo "ws://${LAB_PCSCF%:*}:$LAB_PCSCF_WS_PORT"; fi
}
# wic_gateway_args — the gateway as WAF: the token key and the eP-CSCF's URL (the light core's, or the 3GPP core's
# P-CSCF: ims3gpp.sh start_ims3gpp)
wic_gateway_args() {
  if ext_mode || ! wic_enabled || [[ ! -s $(wic_key) ]]; then return 0; fi
  printf '%s\n' "--lab.wic.key-file=$(wic_key)" "--lab.wic.ws-url=$(wic_ws_url)"
}

start_kamailio() {
  need_script ims-sim/start-kamailio.sh || return 1
  mkdir -p "$LAB_RUN_DIR/kamailio"
  local -a tls=() wic=()
  if wic_enabled; then
    wic_prepare || return 1
    wic=(KAMAILIO_WIC_KEY_FILE="$(wic_key)" KAMAILIO_RTPENGINE_NG="$LAB_RTPENGINE_NG" KAMAILIO_WS_ORIGINS="$(gw_url)")
    [[ -n $(lab_pub_addr) ]] && wic+=(KAMAILIO_RTPENGINE_IFACES="${LAB_RTPENGINE_IFACES[0]%%/*} ${LAB_RTPENGINE_IFACES[1]%%/*}")
    wic_wss && wic+=(KAMAILIO_WSS_ADDR="$LAB_PUB_ADDR")
  fi
  # demo/test: the P-CSCF also takes SIP over TLS on LAB_PCSCF_TLS_PORT with the run's certificate
  # (lab_test_cert), for harness/tests/tls.test.mjs's gateway (docs/security.md "SIP over TLS")
  [[ -f ${LAB_RUN_DIR}/tls/lab.crt ]] && tls=(KAMAILIO_TLS_PORT="$LAB_PCSCF_TLS_PORT" KAMAILIO_TLS_CERT="$LAB_RUN_DIR/tls/lab.crt"
    KAMAILIO_TLS_KEY="$LAB_RUN_DIR/tls/lab.key" KAMAILIO_TLS_CA="$LAB_RUN_DIR/tls/lab.crt")
  # the gateway REGISTERs every browser user from its SIP socket: the P-CSCF's failed-authentication ban
  # counts its users, never the socket itself (docs/ims-sim.md "Hardening"; its own login limits stand there)
  local gw_host=${LAB_SIP_HOST:-127.0.0.1}
  proc_start kamailio env "${tls[@]}" "${wic[@]}" KAMAILIO_ADDR="${LAB_PCSCF%:*}" KAMAILIO_PORT="${LAB_PCSCF##*:}" SCSCF_PORT="$LAB_SCSCF_PORT" \
    KAMAILIO_TRUSTED_NODES="${LAB_KAMAILIO_TRUSTED:-$gw_host:$LAB_GW_SIP_PORT $gw_host:$LAB_GW_TCP_SIP_PORT}" \
    IMS_DOMAIN="$LAB_IMS_DOMAIN" bash "$ROOT/ims-sim/start-kamailio.sh" "$LAB_RUN_DIR/kamailio"
  proc_wait_ready kamailio "$LAB_LAST_PID" 20 "SIP answer to OPTIONS on $LAB_PCSCF" \
    client_exec python3 "$ROOT/harness/lib/sip-options.py" "$LAB_PCSCF" 1
}

# start_gateway [NAME HTTP_PORT SIP_PORT TRANSPORT [EXTRA_ARG...]] — the signaling gateway (default:
# the lab's one, HTTP 8088, SIP 5070, UDP toward Kamailio). GW_BIND overrides LAB_BIND for this one,
# LAB_GW_NG the rtpengine ng address(es) (scaleout.sh: every relay's).
start_gateway() {
  local name=${1:-gateway} http_port=${2:-$LAB_GW_PORT} sip_port=${3:-$LAB_GW_SIP_PORT} transport=${4:-${LAB_IMS_TRANSPORT:-udp}} url ims_args
  local bind=${GW_BIND:-$LAB_BIND} tls=${GW_TLS:-$LAB_TLS}
  local -a legs=() ssl=()
  shift $(($# < 4 ? $# : 4))
  [[ -f $GATEWAY_JAR ]] || { fail "$(rel "$GATEWAY_JAR") is missing (build failed?)"; return 1; }
  url=$(LAB_BIND=$bind gw_url "$http_port" "$tls") # where this one listens (GW_BIND)
  # Spring Boot reads the PEM pair itself; the port then speaks TLS only (a plain request gets no page)
  [[ $tls == 1 ]] && ssl=(--server.ssl.certificate="file:$LAB_TLS_CERT" --server.ssl.certificate-private-key="file:$LAB_TLS_KEY")
  # GW_LEGS=0: rtpengine with one interface for both legs (a scale-out relay host, scaleout.sh)
  [[ -n $(lab_pub_addr) && ${GW_LEGS:-1} == 1 ]] && legs=(--lab.rtpengine.browser-interface="${LAB_RTPENGINE_IFACES[0]%%/*}"
    --lab.rtpengine.ims-interface="${LAB_RTPENGINE_IFACES[1]%%/*}")
  mapfile -t ims_args < <(ims3_gateway_args; turn_gateway_args; wic_gateway_args)
  # the data-channel endpoint, when this run started it: the gateway sends it each SDP's data-channel section
  [[ ${LAB_DATACHANNEL_UP:-} == 1 ]] && ims_args+=(--lab.datachannel.ng="$LAB_DATACHANNEL_CTL") # --ims 3gpp: the IMS-AKA credentials file (ims3gpp.sh); --turn
  local -a jvm
  mapfile -t jvm < <(gateway_java) # the jar, or its extracted copy with the class-data sharing archive (build.sh)
  proc_start "$name" java "${jvm[@]}" --server.address="$bind" --server.port="$http_port" "${ssl[@]}" "${legs[@]}" \
    --lab.sip.host="${LAB_SIP_HOST:-127.0.0.1}" --lab.sip.port="$sip_port" --lab.ims.transport="$transport" \
    --lab.ims.proxy="$(ims3_gateway_proxy)" --lab.ims.domain="$LAB_IMS_DOMAIN" \
    --lab.rtpengine.ng="${LAB_GW_NG:-$LAB_RTPENGINE_NG}" --lab.rtpengine.dtmf-log="${LAB_GW_DTMF_LOG-$LAB_RTPENGINE_DTMF_LOG}" --lab.webclient.dir="$ROOT/webclient/public" "${ims_args[@]}" "$@"
  # GW_LATER=1: started only; gateways_ready waits for it (two gateways start side by side, one JVM start's wait)
  if [[ ${GW_LATER:-} == 1 ]]; then LAB_GW_STARTING+=("$name $LAB_LAST_PID $url"); return 0; fi
  proc_wait_ready "$name" "$LAB_LAST_PID" 120 "200 from $url/api/v1/health" http_200 "$url/api/v1/health"
}

# gateways_ready — wait for each gateway started with GW_LATER=1 (start_gateway) to answer its health check.
LAB_GW_STARTING=()
gateways_ready() {
  local entry name pid url rc=0
  for entry in "${LAB_GW_STARTING[@]}"; do
    read -r name pid url <<<"$entry"
    proc_wait_ready "$name" "$pid" 120 "200 from $url/api/v1/health" http_200 "$url/api/v1/health" || { rc=1; break; }
  done
  LAB_GW_STARTING=()
  return "$rc"
}

# The test run adds a second gateway (LAB_GW_TCP_PORT) that speaks SIP over TCP toward Kamailio.

# start_ue NAME SCENARIO [ARG] — a SIPp UE that registers, then answers calls (ARG: run-ue.sh's
# optional argument of SCENARIO, e.g. uas-bye's bye_after_ms).
start_ue() {
  local name=$1 scenario=$2
  need_script sipp-scenarios/run-ue.sh || return 1
  proc_start "$name" env LAB_LOGDIR="$LAB_LOGDIR" KAMAILIO="$LAB_PCSCF" IMS_USERS="$ROOT/ims-sim/users.txt" ${LAB_UE_IP:+UE_IP="$LAB_UE_IP"} \
    bash "$ROOT/sipp-scenarios/run-ue.sh" "$scenario" "${@:3}"
  proc_wait_ready "$name" "$LAB_LAST_PID" 30 "REGISTER done and SIPp UAS running" \
    proc_is "$LAB_LAST_PID" sipp
}

# The fixed ports of the components (docs/architecture.md), checked before anything starts.
LAB_PORTS=("${LAB_RTPENGINE_NG##*:}/udp" "${LAB_RTPENGINE_DTMF_LOG##*:}/udp" "${LAB_PCSCF##*:}/udp" "${LAB_PCSCF##*:}/tcp"
  "$LAB_SCSCF_PORT/udp" "$LAB_SCSCF_PORT/tcp" "$LAB_GW_PORT/tcp" "$LAB_GW_SIP_PORT/udp" "$LAB_GW_SIP_PORT/tcp" "$LAB_PCSCF_WS_PORT/tcp" "$LAB_UE1_SIP_PORT/udp" "$LAB_UE3_SIP_PORT/udp" "$LAB_UE4_SIP_PORT/udp" "$LAB_UE6_SIP_PORT/udp" "$LAB_UE7_SIP_PORT/udp" "$LAB_UE8_SIP_PORT/udp")

# lab_start_all — the whole IMS side plus the gateway, in dependency order.
# With LAB_WITH_TCP_GW=1 (./lab test) the SIP-over-TCP gateway is started too.
lab_start_all() {
  if scale_out; then hosts_start_all; return; fi # --gateways/--relays: each component on a host of its own (scaleout.sh)
  local ports=("${LAB_PORTS[@]}")
  [[ ${LAB_WITH_TCP_GW:-} == 1 ]] && ports+=("$LAB_GW_TCP_PORT/tcp" "$LAB_GW_TCP_SIP_PORT/udp" "$LAB_GW_TCP_SIP_PORT/tcp")
  [[ ${LAB_TOPOLOGY:-} == 1 ]] && ports+=("$LAB_PCSCF_TLS_PORT/tcp")
  [[ -n $(lab_turn_addr) ]] && ports+=("${LAB_STUN##*:}/udp")
  ports_free "${ports[@]}" "${LAB_DATACHANNEL_CTL##*:}/udp" && lab_test_cert && start_rtpengine && start_turn && start_datachannel && start_ims_core ||
    return 1
  # the gateways start side by side (GW_LATER) and are waited for together: one JVM start's wait, not two
  GW_LATER=1 start_main_gateway || return 1
  if [[ ${LAB_WITH_TCP_GW:-} == 1 ]]; then
    # short registrations, so the tests see the gateway refresh them (re-REGISTER at 80 %: 8 s)
    # rtpengine has one DTMF log destination: the main gateway's (LAB_GW_DTMF_LOG empty = not listened to)
    # it listens on every address of the namespace: the browsers reach it on LAB_PUB_ADDR, loadgen's
    # CTest (media-relay/loadgen/tests/integration_gateway.sh) on 127.0.0.1
    GW_LATER=1 GW_BIND=0.0.0.0 GW_TLS=0 LAB_GW_DTMF_LOG='' start_gateway gateway-tcp "$LAB_GW_TCP_PORT" "$LAB_GW_TCP_SIP_PORT" tcp --lab.ims.register-expires=10 || return 1
  fi
  gateways_ready || return 1
  if ims3_lab_wanted || ext_mode; then ims3_start_ues; return; fi # ext_mode: no UE of ours (imsext.sh)
  start_ue ue1 uas && start_ue ue3 uas-bye && start_ue ue4 volte-uas && start_ue ue6 uas-dtmf && start_ue ue7 uas-video &&
    start_ue ue8 uas-reinvite
}

# lab_run_env — what the runner and the integration tests are told about the running lab.
lab_run_env() {
  printf '%s\n' "LAB_GW=$(gw_url)" "LAB_OUT=$LAB_RUN_DIR" "LAB_PIDS=$LAB_PIDS" \
    "LAB_ROOT=$ROOT" "LAB_LOGDIR=$LAB_LOGDIR" "LAB_IMS=$LAB_IMS"
  [[ ${LAB_TOPOLOGY:-} == 1 ]] && printf '%s\n' "LAB_BROWSER_NS=$LAB_NS_BROWSER" "LAB_BROWSER_NAT_NS=$LAB_NS_BROWSER_NAT" "LAB_STUN=$LAB_STUN" \
    "LAB_BROWSER_SNAT_NS=$LAB_NS_BROWSER_SNAT" "LAB_TURN_URI=turn:$LAB_STUN?transport=udp" "LAB_TURN_SECRET=$LAB_RUN_DIR/turn/secret"
  [[ ${LAB_WITH_TCP_GW:-} == 1 ]] && printf '%s\n' "LAB_GW_TCP=$(gw_url "$LAB_GW_TCP_PORT")"
  [[ -n ${LAB_RUN_DIR:-} && -s $(wic_key) ]] && printf '%s\n' "LAB_WIC_WS=$(wic_ws_url)"
  # the demo/test certificate (lab_test_cert): Node trusts it, the TLS tests serve it
  [[ -f ${LAB_RUN_DIR:-}/tls/lab.crt ]] && printf '%s\n' "NODE_EXTRA_CA_CERTS=$LAB_RUN_DIR/tls/lab.crt" \
    "LAB_TEST_CERT=$LAB_RUN_DIR/tls/lab.crt" "LAB_TEST_KEY=$LAB_RUN_DIR/tls/lab.key"
  return 0
}

# lab_supervisor_alive PID — PID still runs a run's supervisor: ./lab (its host phase), harness/lib/in-netns.sh (a
# command's namespace phase, the same pid) or the test scripts that prepare a run of their own (ims-sim.sh, ims-external.sh).
lab_supervisor_alive() {
  proc_alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -Eq '(^|/)(lab|in-netns\.sh|ims-sim\.sh|ims-external\.sh) '
}

# lab_reap_leftovers DIR — stop the components an earlier run in DIR left running because its ./lab was
# killed (SIGKILL, a lost terminal: no EXIT trap ran), newest first. Only when that run's ./lab (DIR/supervisor)
# is gone, and only pids that still run their component's command (up_pid_is): a recycled pid is never
# signalled. Not for out/up, whose components outlive ./lab up on purpose (./lab down stops them).
lab_reap_leftovers() {
  local dir=$1 sup name pid
  [[ -f $dir/pids && -f $dir/supervisor && $dir != "$ROOT/out/up" ]] || return 0
  sup=$(<"$dir/supervisor")
  [[ $sup =~ ^[0-9]+$ ]] || return 0
  lab_supervisor_alive "$sup" && return 0
  # the runners first (run_foreground: timeout + node + the load tools they started, one process group)
  while read -r name pid _; do
    [[ -n ${pid:-} ]] && proc_alive "$pid" || continue
    [[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == "timeout --kill-after="* ]] || continue
    log "$name (pid $pid) was left running by an interrupted run in $(rel "$dir"): stopping it"
    proc_stop "$name" "$pid"
  done < <([[ -f $dir/runners ]] && tac "$dir/runners")
  # what its Node side started (harness/kit/procs.mjs's ledger; a pid counts only with its recorded start time)
  while read -r name pid; do
    log "$name (pid $pid) was left running by an interrupted run in $(rel "$dir"): stopping it"
    proc_stop "$name" "$pid"
  done < <(procs_children "$dir/children")
  while read -r name pid _; do
    [[ -n ${pid:-} ]] && up_pid_is "$name" "$pid" || continue
    log "$name (pid $pid) was left running by an interrupted run in $(rel "$dir"): stopping it"
    proc_stop "$name" "$pid"
  done < <(tac "$dir/pids")
}

# lab_prepare_run RUN [archive] — a fresh out/RUN with logs/ and an empty pids file; first stops what an
# interrupted run there left behind (lab_reap_leftovers). out/RUN/supervisor holds this ./lab's pid (the
# namespace phase keeps it: netns_exec execs).
lab_prepare_run() {
  LAB_RUN_DIR="$ROOT/out/$1"
  lab_reap_leftovers "$LAB_RUN_DIR"
  if [[ -e $LAB_RUN_DIR ]]; then
    if [[ ${2:-} == archive ]]; then
      local old
      old="$LAB_RUN_DIR-$(date -r "$LAB_RUN_DIR" +%Y%m%d-%H%M%S)"
      mv "$LAB_RUN_DIR" "$old" && log "previous run kept in $(rel "$old")"
    else
      rm -rf "$LAB_RUN_DIR"
    fi
  fi
  lab_use_run "$1"
  : >"$LAB_PIDS"
  echo "$$" >"$LAB_RUN_DIR/supervisor"
}

# lab_use_run RUN — point the supervision variables at out/RUN (prepared by the host phase).
lab_use_run() {
  LAB_RUN_DIR="$ROOT/out/$1"
  LAB_LOGDIR="$LAB_RUN_DIR/logs"
  LAB_PIDS="$LAB_RUN_DIR/pids"
  mkdir -p "$LAB_LOGDIR"
}
