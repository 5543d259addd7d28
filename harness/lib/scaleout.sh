# shellcheck shell=bash
# Scale-out on one machine (issue #14, docs/scale-out.md): `./lab up --gateways G --relays R`.
# R > 1: one redis-server and R rtpengine instances, each persisting its calls in its own Redis database
# (rtpengine's --redis/--redis-write), every gateway balancing its calls across all of them
# (lab.rtpengine.ng = the list). G > 1: G gateways, each registering its own users with Kamailio (its own
# Contact: MT calls reach the instance that holds the user, no Kamailio change), behind HAProxy on the
# browser port, which routes a session's REST requests and WebSocket by the token's gateway prefix.
# With G = R = 1 nothing here runs: the lab starts as always.

LAB_GATEWAYS=${LAB_GATEWAYS:-1}
LAB_RELAYS=${LAB_RELAYS:-1}

scale_out() { ((LAB_GATEWAYS > 1 || LAB_RELAYS > 1)); }

# relay_ng I — relay I's ng address (1-based).
relay_ng() { printf '%s:%d' "${LAB_RTPENGINE_NG%:*}" $((${LAB_RTPENGINE_NG##*:} + 10 * ($1 - 1))); }

# relay_ng_list — every relay's ng address, comma-separated (the gateways' lab.rtpengine.ng).
relay_ng_list() {
  local i out=()
  for ((i = 1; i <= LAB_RELAYS; i++)); do out+=("$(relay_ng "$i")"); done
  (IFS=,; echo "${out[*]}")
}

# relay_name I / gateway_name I — component names: the first keeps the lab's usual one.
relay_name() { (($1 == 1)) && echo rtpengine || echo "rtpengine$1"; }
gateway_name() { (($1 == 1)) && echo gateway || echo "gateway$1"; }
gateway_http_port() { echo $((LAB_SCALE_GW_HTTP_BASE + $1)); }
gateway_sip_port() { echo $((LAB_SCALE_GW_SIP_BASE + 4 * ($1 - 1))); }

redis_ping() { [[ $(redis-cli -h "${LAB_REDIS%:*}" -p "${LAB_REDIS##*:}" ping 2>/dev/null) == PONG ]]; }

start_redis() {
  mkdir -p "$LAB_RUN_DIR/redis"
  # no RDB/AOF files: the lab's Redis holds the relays' live calls only while the lab is up
  proc_start redis redis-server --bind "${LAB_REDIS%:*}" --port "${LAB_REDIS##*:}" --save '' --appendonly no \
    --dir "$LAB_RUN_DIR/redis" --daemonize no
  proc_wait_ready redis "$LAB_LAST_PID" 15 "PONG on $LAB_REDIS" redis_ping
}

# start_relay I — rtpengine instance I (1-based) of LAB_RELAYS, its calls in Redis database I.
start_relay() {
  local i=$1 name ng span lo hi pub
  local -a ifaces=()
  name=$(relay_name "$i")
  ng=$(relay_ng "$i")
  # the relays share 30000-30999 (LAB_SCALE_PORT_SPAN ports from 30000; bench scale-out's sweep: 30000-39999)
  span=$((${LAB_SCALE_PORT_SPAN:-1000} / LAB_RELAYS))
  lo=$((30000 + span * (i - 1)))
  hi=$((lo + span - 1))
  pub=$(lab_pub_addr)
  [[ -n $pub ]] && ifaces=("--interface=pub/$pub" "--interface=${LAB_RTPENGINE_IFACES[1]}")
  proc_start "$name" env RTPENGINE_NG="$ng" RTPENGINE_DTMF_LOG="$LAB_RTPENGINE_DTMF_LOG" \
    RTPENGINE_PORT_MIN="$lo" RTPENGINE_PORT_MAX="$hi" ${ifaces[0]:+RTPENGINE_IFACE="${ifaces[0]#--interface=}"} \
    bash "$ROOT/media-relay/start-rtpengine.sh" "${ifaces[@]:1}" --redis="$LAB_REDIS/$i" --redis-write="$LAB_REDIS/$i"
  proc_wait_ready "$name" "$LAB_LAST_PID" 20 "ng ping answer on $ng" python3 "$ROOT/media-relay/ng-ping.py" "$ng" 1
}

# haproxy_config FILE — HAProxy in front of the gateways: a login goes to any (round robin, health-checked);
# anything that carries a token (WebSocket subprotocol lab.token.g<i>..., Bearer g<i>...., /api/v1/sessions/g<i>....)
# goes to gateway i, the one that issued it and holds the session.
haproxy_config() {
  local i
  {
    printf '%s\n' 'global' '  maxconn 4096' '' 'defaults' '  mode http' '  timeout connect 2s' '  timeout client 60s' \
      '  timeout server 60s' '  timeout tunnel 1h' ''
    printf 'frontend browsers\n  bind %s:%s\n' "$LAB_BIND" "$LAB_GW_PORT"
    # the gateways' host-only endpoints would see HAProxy's loopback address as the client: not through here
    printf '  http-request deny deny_status 403 if { path_beg /actuator } || { path_beg /api/v1/rtpengine } || { path_beg /api/v1/setup-timelines }\n'
    # the client's address for the gateways (login limits per address): set, never appended to what a client sent
    printf '  http-request set-header X-Forwarded-For %%[src]\n'
    for ((i = 1; i <= LAB_GATEWAYS; i++)); do
      printf '  acl to_g%d req.hdr(sec-websocket-protocol) -m beg lab.token.g%d.\n' "$i" "$i"
      printf '  acl to_g%d req.hdr(authorization) -m beg "Bearer g%d."\n' "$i" "$i"
      printf '  acl to_g%d path_beg /api/v1/sessions/g%d.\n' "$i" "$i"
      printf '  use_backend g%d if to_g%d\n' "$i" "$i"
    done
    printf '  default_backend any\n\nbackend any\n  balance roundrobin\n  option httpchk GET /api/v1/health\n'
    for ((i = 1; i <= LAB_GATEWAYS; i++)); do
      printf '  server g%d 127.0.0.1:%d check inter 2s\n' "$i" "$(gateway_http_port "$i")"
    done
    for ((i = 1; i <= LAB_GATEWAYS; i++)); do
      printf '\nbackend g%d\n  server g%d 127.0.0.1:%d\n' "$i" "$i" "$(gateway_http_port "$i")"
    done
    printf '\nfrontend stats\n  bind %s\n  stats enable\n  stats uri /\n' "$LAB_HAPROXY_STATS"
  } >"$1"
}

start_haproxy() {
  local cfg="$LAB_RUN_DIR/haproxy.cfg"
  haproxy_config "$cfg"
  haproxy -c -q -f "$cfg" >/dev/null 2>&1 || { fail "haproxy refuses $(rel "$cfg"): $(haproxy -c -f "$cfg" 2>&1 | grep -m1 ALERT)"; return 1; }
  proc_start haproxy haproxy -db -f "$cfg"
  proc_wait_ready haproxy "$LAB_LAST_PID" 15 "200 from $(gw_url)/api/v1/health through HAProxy" http_200 "$(gw_url)/api/v1/health"
}

# scale_ports — the ports the scale-out components need free (beside LAB_PORTS).
scale_ports() {
  local i
  for ((i = 2; i <= LAB_RELAYS; i++)); do echo "$(($(relay_ng "$i" | sed 's/.*://')))/udp"; done
  ((LAB_RELAYS > 1)) && echo "${LAB_REDIS##*:}/tcp"
  if ((LAB_GATEWAYS > 1)); then
    for ((i = 1; i <= LAB_GATEWAYS; i++)); do
      echo "$(gateway_http_port "$i")/tcp"; echo "$(gateway_sip_port "$i")/udp"; echo "$(gateway_sip_port "$i")/tcp"
    done
    echo "${LAB_HAPROXY_STATS##*:}/tcp"
  fi
}

# scale_start_media_and_gateways — what lab_start_all starts instead of the one rtpengine and gateway.
scale_start_relays() {
  local i
  if ((LAB_RELAYS > 1)); then
    start_redis || return 1
    for ((i = 1; i <= LAB_RELAYS; i++)); do start_relay "$i" || return 1; done
  else
    start_rtpengine
  fi
}

scale_start_gateways() {
  local i
  local LAB_GW_NG=$LAB_RTPENGINE_NG
  ((LAB_RELAYS > 1)) && LAB_GW_NG=$(relay_ng_list)
  local -a extra=()
  read -r -a extra <<<"${LAB_SCALE_GW_ARGS:-}" # bench scale-out: the load quotas
  # LAB_GW_MIN_SE (./lab test and compliance: 2): RFC 4028's tests (dialog.test.mjs) use 4 s session
  # intervals, so the gateway accepts down to that (lab.ims.min-se; default 90, the RFC's floor)
  [[ -n ${LAB_GW_MIN_SE:-} ]] && extra+=(--lab.ims.min-se="$LAB_GW_MIN_SE")
  # LAB_SIP_TEST_PEER (./lab test and compliance): the harness's raw-SIP peer is trusted beside the P-CSCF
  [[ ${LAB_SIP_TEST_PEER:-} == 1 ]] && extra+=(--lab.sip.trusted-sources="$LAB_PCSCF,$LAB_SIP_TEST_PEER_ADDR")
  if ((LAB_GATEWAYS == 1)); then start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" "${LAB_IMS_TRANSPORT:-udp}" "${extra[@]}"; return; fi
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do
    # rtpengine has one DTMF log destination: the first gateway's (docs/scale-out.md). Only HAProxy (on
    # loopback) reaches the gateways, and only its X-Forwarded-For is believed: the client's address for the
    # per-address login limits and the host-only endpoints.
    GW_BIND=127.0.0.1 LAB_GW_DTMF_LOG=$( ((i == 1)) && echo "$LAB_RTPENGINE_DTMF_LOG") \
      start_gateway "$(gateway_name "$i")" "$(gateway_http_port "$i")" "$(gateway_sip_port "$i")" udp \
      --lab.api.token-prefix="g$i." --server.forward-headers-strategy=native \
      '--server.tomcat.remoteip.internal-proxies=127\.0\.0\.1' "${extra[@]}" || return 1
  done
  start_haproxy
}

# scale_print — pids and ports of the scale-out components (./lab up).
scale_print() {
  scale_out || return 0
  local i pid
  for ((i = 1; i <= LAB_RELAYS; i++)); do
    pid=$(awk -v n="$(relay_name "$i")" '$1 == n {print $2}' "$LAB_PIDS" | tail -1)
    log "relay $i: $(relay_name "$i") pid $pid, ng $(relay_ng "$i")$( ((LAB_RELAYS > 1)) && echo ", Redis database $i on $LAB_REDIS")"
  done
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do
    pid=$(awk -v n="$(gateway_name "$i")" '$1 == n {print $2}' "$LAB_PIDS" | tail -1)
    if ((LAB_GATEWAYS > 1)); then
      log "gateway $i: pid $pid, HTTP 127.0.0.1:$(gateway_http_port "$i"), SIP $(gateway_sip_port "$i"), tokens g$i.*"
    else
      log "gateway: pid $pid, HTTP $LAB_GW_PORT"
    fi
  done
  ((LAB_GATEWAYS > 1)) && log "HAProxy: pid $(awk '$1 == "haproxy" {print $2}' "$LAB_PIDS" | tail -1), browsers on $(gw_url), stats http://$LAB_HAPROXY_STATS/"
  return 0
}

# cmd_bench_scale_out [--calls N] [--duration S] [--cps-steps R1,R2,...] [--step-seconds S] [--hold S] [--no-sweep] —
# ./lab bench scale-out: on one gateway + one rtpengine, then on two of each behind HAProxy, in one private network
# namespace: first a capacity sweep (constant-rate steps up to the first failing one, setup-rate --sustained's
# criterion), then the same MO load on both (rtpengine2 SIGKILLed and restarted mid-run in 2x2);
# harness/bench/scale-out.mjs measures each and writes out/bench/scale-out/report.*.
cmd_bench_scale_out() {
  local calls=40 duration=40 cps=10 steps=10,25,50,75,100 step_s=30 hold=5 sweep=1 cfg g r dir rc=0 gws i n v prev=0 est
  local -a orig=("$@")
  while (($#)); do
    case $1 in
      --calls) [[ ${2:-} =~ ^[1-9][0-9]*$ && $2 -le 200 ]] || usage_error "bench scale-out: --calls needs 1..200"; calls=$2; shift 2 ;;
      --duration) [[ ${2:-} =~ ^[1-9][0-9]*$ && $2 -ge 10 && $2 -le 120 ]] || usage_error "bench scale-out: --duration needs 10..120 (s)"; duration=$2; shift 2 ;;
      --cps-steps) [[ ${2:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*){0,7}$ ]] || usage_error "bench scale-out: --cps-steps needs 1 to 8 rates, e.g. 10,20,40"
        for v in ${2//,/ }; do
          ((v <= 200 && v > prev)) || usage_error "bench scale-out: --cps-steps: rates rising, each 1..200 calls/s (got $2)"; prev=$v
        done
        steps=$2; shift 2 ;;
      --step-seconds) [[ ${2:-} =~ ^[1-9][0-9]*$ && $2 -ge 10 && $2 -le 120 ]] || usage_error "bench scale-out: --step-seconds needs 10..120"; step_s=$2; shift 2 ;;
      --hold) [[ ${2:-} =~ ^[1-9][0-9]*$ && $2 -le 30 ]] || usage_error "bench scale-out: --hold needs 1..30 (s)"; hold=$2; shift 2 ;;
      --no-sweep) sweep=0; shift ;;
      *) usage_error "unknown option for bench scale-out: $1" ;;
    esac
  done
  if [[ ${LAB_IN_NETNS:-} != 1 ]]; then
    ensure_packages
    build_harness && build_gateway || exit 1
    build_media_relay || [[ -x $ROOT/media-relay/build/loadgen/loadgen ]] || exit 1
    lab_prepare_run bench/scale-out
  fi
  netns_enter bench scale-out "${orig[@]}"
  lab_use_run bench/scale-out
  procs_install_traps
  # two users, so that HAProxy's round robin puts one session on each gateway; the quotas lifted as in every bench
  awk -F: '$1 == "alice" || $1 == "bob"' "$ROOT/ims-sim/users.txt" >"$LAB_RUN_DIR/users.txt"
  chmod 600 "$LAB_RUN_DIR/users.txt"
  # the sweep holds up to cps x hold calls at once: the relays get 30000-39999 (as setup-rate --sustained)
  export RTPENGINE_PORT_MAX=39999 LAB_SCALE_PORT_SPAN=10000
  n=$(tr ',' '\n' <<<"$steps" | wc -l)
  est=$((2 * (calls / cps + duration + 60)))
  ((sweep)) && est=$((est + 2 * n * (step_s + hold + 20)))
  log "bench scale-out: on 1x1 then 2x2$( ((sweep)) && echo ", each: capacity sweep $steps calls/s ($step_s s steps, calls held $hold s, up to the first failing step), then") $calls calls at $cps/s, $duration s media (at most about $((est / 60 + 1)) min)"
  for cfg in 1x1 2x2; do
    g=${cfg%x*} r=${cfg#*x}
    LAB_GATEWAYS=$g LAB_RELAYS=$r
    dir="$LAB_RUN_DIR/$cfg"
    mkdir -p "$dir"
    LAB_SCALE_GW_ARGS="$BENCH_GATEWAY_LOAD_ARGS" lab_start_all || { rc=1; break; }
    gws=()
    if ((g > 1)); then for ((i = 1; i <= g; i++)); do gws+=("http://127.0.0.1:$(gateway_http_port "$i")"); done; else gws=("$(gw_url)"); fi
    local -a common=(--config "$cfg" --out "$dir" --gateway "$(gw_url)" --gateways "$(IFS=,; echo "${gws[*]}")"
      --relays "$( ((r > 1)) && relay_ng_list || echo "$LAB_RTPENGINE_NG")")
    if ((sweep)); then
      run_foreground "sweep-$cfg" $((n * (step_s + hold + 60) + 60)) env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" \
        node "$ROOT/harness/bench/scale-out.mjs" sweep "${common[@]}" --cps-steps "$steps" --step-seconds "$step_s" --hold "$hold" || rc=1
    fi
    ((rc == 0)) && run_foreground "bench-$cfg" $((calls / cps + duration + 120)) env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" \
      node "$ROOT/harness/bench/scale-out.mjs" phase "${common[@]}" \
      --users "$LAB_RUN_DIR/users.txt" --calls "$calls" --cps "$cps" --duration "$duration" \
      $( ((r > 1)) && echo --kill "$(relay_name "$r")") || rc=1
    procs_cleanup
    mv "$LAB_PIDS" "$dir/pids" # the next configuration's CPU sampler must not follow this one's pids
    ((rc == 0)) || break
  done
  LAB_GATEWAYS=1 LAB_RELAYS=1
  if ((rc == 0)); then
    node "$ROOT/harness/bench/scale-out.mjs" report --out "$LAB_RUN_DIR" || rc=1
  fi
  log "report: $(rel "$LAB_RUN_DIR")/report.html and report.json; logs: $(rel "$LAB_LOGDIR")/"
  exit "$rc"
}
