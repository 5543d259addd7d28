# shellcheck shell=bash
# Scale-out as separate hosts (issues #14, #28; docs/scale-out.md): `./lab up --gateways G --relays R` (G or R > 1)
# and `./lab bench scale-out`. Every gateway, every relay, Kamailio (with the SIPp UEs), Redis and HAProxy runs in
# a network namespace of its own ("host"), each with one address on the lab bridge (harness/addresses.env
# LAB_HOSTS_*), all on the lab's usual ports: no port arithmetic, no component reaching another through loopback.
#   labh-sw        the bridge br0 (and nothing else); every host's veth ends here
#   labh-ims       LAB_HOSTS_IMS_ADDR: Kamailio's P-CSCF/S-CSCF (LAB_PCSCF's ports), the SIPp UEs beside it; with
#                  --ims 3gpp the 3GPP core instead (DNS, MariaDB, HSS, S-, I-, P-CSCF on their usual ports)
#   labh-redis     LAB_HOSTS_REDIS_ADDR: redis-server (R > 1 or G > 1), relay i's calls in database i, the
#                  gateways' failover state (leases, calls' dialogs, registrations) in database 0
#   labh-relay<i>  LAB_HOSTS_RELAY_BASE + i: rtpengine, ng + media on its own address. R > 1: that is a service
#                  address (VRRP, keepalived) on the host LAB_HOSTS_RELAY_HOST_BASE + i, and relay i is the standby
#                  of relay i-1 (relay 1 of relay R): it holds that relay's calls too (Redis keyspace notifications)
#                  and takes its service address over when that host dies; its ng listens on the host's own
#                  address, and ng to a service address it holds is forwarded there (nft)
#   labh-gw<i>     LAB_HOSTS_GW_BASE + i: the gateway, HTTP LAB_GW_PORT + SIP LAB_GW_SIP_PORT on its own address
#   labh-haproxy   LAB_HOSTS_HAPROXY_ADDR: HAProxy (G > 1) on LAB_GW_PORT, the browsers' entry
#   client         LAB_HOSTS_CLIENT_ADDR: where browsers, loadgen and the harness sit — ./lab's own private
#                  namespace in test/bench (a veth into it), the namespace labh-client with `./lab up`
# R > 1: every gateway balances its calls across all relays (lab.rtpengine.ng = the list). G > 1: each gateway
# registers its own users with Kamailio (its own Contact: MT calls reach the host that holds the user), behind
# HAProxy, which routes a session's REST requests and WebSocket by the token's gateway prefix.
# With G = R = 1 nothing here runs: the lab starts as always (one namespace, loopback).

LAB_GATEWAYS=${LAB_GATEWAYS:-1}
LAB_RELAYS=${LAB_RELAYS:-1}
LAB_HOSTS_MAX=16          # --gateways/--relays: memory, not addresses, is the limit (each gateway is a JVM)
LAB_HOSTS_CREATED=()      # namespaces this ./lab created: procs_cleanup deletes them (unless `up` keeps them)

# (LAB_HOSTS_FORCE=1: bench scale-out's 1x1 on the same layout as its scaled configuration)
scale_out() { ((LAB_GATEWAYS > 1 || LAB_RELAYS > 1)) || [[ ${LAB_HOSTS_FORCE:-} == 1 ]]; }

# host_addr BASE I — BASE's last octet + I (LAB_HOSTS_RELAY_BASE/LAB_HOSTS_GW_BASE).
host_addr() { printf '%s.%d' "${1%.*}" $((${1##*.} + $2)); }
relay_addr() { host_addr "$LAB_HOSTS_RELAY_BASE" "$1"; }
# relay_host_addr I — relay host I's own address: with R > 1 not the service address, which moves (start_relay)
relay_host_addr() {
  if ((LAB_RELAYS > 1)); then host_addr "$LAB_HOSTS_RELAY_HOST_BASE" "$1"; else relay_addr "$1"; fi
}
# relay_standby_for I — the relay whose service address and calls relay I stands by for: the one before it
relay_standby_for() { (($1 == 1)) && echo "$LAB_RELAYS" || echo $(($1 - 1)); }
gateway_addr() { host_addr "$LAB_HOSTS_GW_BASE" "$1"; }
# host_ns NAME — the namespace of host NAME (ims, redis, haproxy, relay<i>, gw<i>, client, sw).
host_ns() { printf '%s%s' "$LAB_NS_HOSTS_PREFIX" "$1"; }

# relay_ng I — relay I's ng address (1-based): its host's address, the lab's ng port.
relay_ng() { printf '%s:%s' "$(relay_addr "$1")" "${LAB_RTPENGINE_NG##*:}"; }

# relay_ng_list — every relay's ng address, comma-separated (the gateways' lab.rtpengine.ng).
relay_ng_list() {
  local i out=()
  for ((i = 1; i <= LAB_RELAYS; i++)); do out+=("$(relay_ng "$i")"); done
  (IFS=,; echo "${out[*]}")
}

# relay_name I / gateway_name I — component names: the first keeps the lab's usual one.
relay_name() { (($1 == 1)) && echo rtpengine || echo "rtpengine$1"; }
gateway_name() { (($1 == 1)) && echo gateway || echo "gateway$1"; }
gateway_http_port() { echo "$LAB_GW_PORT"; }
# gateway_http_target I — where HAProxy reaches gateway I (harness/lib/haproxy-config.sh's GATEWAY_ADDR:PORT).
gateway_http_target() { printf '%s:%s' "$(gateway_addr "$1")" "$(gateway_http_port "$1")"; }
gateway_url() { printf 'http://%s:%s' "$(gateway_addr "$1")" "$LAB_GW_PORT"; }

# hosts_entry_url — the browsers' entry: HAProxy (G > 1) or the one gateway's host.
# With TLS (`up --tls-cert/--tls-key`) https: HAProxy terminates it (haproxy-config.sh --pem), a lone gateway serves it itself.
hosts_entry_url() {
  local scheme=http
  [[ ${LAB_TLS:-0} == 1 ]] && scheme=https
  if ((LAB_GATEWAYS > 1)); then printf '%s://%s:%s' "$scheme" "$LAB_HOSTS_HAPROXY_ADDR" "$LAB_GW_PORT"
  else printf '%s://%s:%s' "$scheme" "$(gateway_addr 1)" "$LAB_GW_PORT"; fi
}

# client_exec CMD... — CMD where the browsers sit (the client host): here in test/bench, labh-client with `up`.
client_exec() {
  if [[ -n ${LAB_CLIENT_NETNS:-} ]]; then ip netns exec "$LAB_CLIENT_NETNS" "$@"; else "$@"; fi
}

# host_netns NAME — host NAME's namespace (host_ns); empty in a container of its own (docker/host.sh sets
# LAB_IN_CONTAINER=1: the container is the host)
host_netns() { [[ ${LAB_IN_CONTAINER:-} == 1 ]] || host_ns "$1"; }
# on_host NAME CMD... — CMD on host NAME
on_host() {
  local ns
  ns=$(host_netns "$1"); shift
  if [[ -n $ns ]]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# asked on Redis's own host: only the relays may reach it from the bridge (start_redis)
redis_ping() { [[ $(on_host redis redis-cli -h "${LAB_REDIS%:*}" -p "${LAB_REDIS##*:}" ping 2>/dev/null) == PONG ]]; }

# hosts_netns_dir — `ip netns` keeps names in /run/netns: inside ./lab's private mount namespace (test, bench) a
# tmpfs of its own, so the names vanish with the run (netns_topology mounts the same for the browsers).
hosts_netns_dir() {
  [[ ${LAB_IN_NETNS:-} == 1 ]] || return 0
  mountpoint -q /run/netns 2>/dev/null && [[ ${LAB_TOPOLOGY:-} == 1 || -n ${LAB_HOSTS_TMPFS:-} ]] && return 0
  mkdir -p /run/netns && mount -t tmpfs -o size=64k,mode=755 lab-netns /run/netns && LAB_HOSTS_TMPFS=1 ||
    { fail "cannot mount a private /run/netns for the hosts' namespaces"; return 1; }
}

# hosts_add NAME ADDR — namespace host NAME with ADDR/prefix on a veth whose other end is on the bridge. No other
# route: the hosts reach each other and the client host, nothing else.
hosts_add() {
  local ns sw plen=${LAB_HOSTS_NET#*/}
  ns=$(host_ns "$1") sw=$(host_ns sw)
  ip netns add "$ns" || { fail "cannot create network namespace $ns"; return 1; }
  LAB_HOSTS_CREATED+=("$ns")
  ip -n "$ns" link set lo up && ip -n "$sw" link add "h-$1" type veth peer name eth0 netns "$ns" &&
    ip -n "$sw" link set "h-$1" master br0 && ip -n "$sw" link set "h-$1" up &&
    ip -n "$ns" addr add "$2/$plen" dev eth0 && ip -n "$ns" link set eth0 up ||
    { fail "cannot wire host $ns ($2) to the lab bridge"; return 1; }
}

# hosts_setup — the bridge and one namespace per component of this run (G gateways, R relays). The client end:
# a veth into ./lab's own namespace when that is private (test, bench: LAB_IN_NETNS), else namespace labh-client
# (`./lab up` runs on the host, whose network the lab never touches).
hosts_setup() {
  local i sw plen=${LAB_HOSTS_NET#*/}
  hosts_netns_dir || return 1
  sw=$(host_ns sw)
  if [[ -e /run/netns/$sw ]]; then
    fail "network namespace $sw exists already: the lab's hosts are up (./lab down), or another run's"
    return 1
  fi
  ip netns add "$sw" || { fail "cannot create network namespace $sw (root needed)"; return 1; }
  LAB_HOSTS_CREATED+=("$sw")
  ip -n "$sw" link set lo up && ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up ||
    { fail "cannot create the lab bridge in $sw"; return 1; }
  if [[ ${LAB_IN_NETNS:-} == 1 ]]; then
    LAB_CLIENT_NETNS=
    ip -n "$sw" link add h-client type veth peer name vh-client netns "$$" && ip -n "$sw" link set h-client master br0 &&
      ip -n "$sw" link set h-client up && ip addr add "$LAB_HOSTS_CLIENT_ADDR/$plen" dev vh-client && ip link set vh-client up || { fail "cannot wire ./lab's namespace to the lab bridge"; return 1; }
  else
    hosts_add client "$LAB_HOSTS_CLIENT_ADDR" || return 1
    LAB_CLIENT_NETNS=$(host_ns client)
  fi
  hosts_add ims "$LAB_HOSTS_IMS_ADDR" || return 1
  hosts_need_redis && { hosts_add redis "$LAB_HOSTS_REDIS_ADDR" || return 1; }
  for ((i = 1; i <= LAB_RELAYS; i++)); do hosts_add "relay$i" "$(relay_host_addr "$i")" || return 1; done
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do hosts_add "gw$i" "$(gateway_addr "$i")" || return 1; done
  ((LAB_GATEWAYS > 1)) && { hosts_add haproxy "$LAB_HOSTS_HAPROXY_ADDR" || return 1; }
  export LAB_CLIENT_NETNS
  [[ -n ${LAB_RUN_DIR:-} ]] && printf '%s\n' "${LAB_HOSTS_CREATED[@]}" >"$LAB_RUN_DIR/netns"
  log "hosts: bridge in $sw ($LAB_HOSTS_NET); $(ims3_lab_wanted && echo "the 3GPP core" || echo Kamailio) + UEs $LAB_HOSTS_IMS_ADDR, $LAB_RELAYS relay(s) from $(relay_addr 1), $LAB_GATEWAYS gateway(s) from $(gateway_addr 1)$( ((LAB_GATEWAYS > 1)) && echo ", HAProxy $LAB_HOSTS_HAPROXY_ADDR"); clients at $LAB_HOSTS_CLIENT_ADDR${LAB_CLIENT_NETNS:+ (namespace $LAB_CLIENT_NETNS)}"
}

# hosts_teardown — delete the namespaces this ./lab created (their processes are stopped by then).
hosts_teardown() {
  local i
  # ./lab's own end of the client veth first: a deleted namespace is torn down asynchronously, and a veth that
  # outlives it would block the next configuration's (bench scale-out: "File exists")
  [[ ${LAB_IN_NETNS:-} == 1 ]] && ip link del vh-client 2>/dev/null
  for ((i = ${#LAB_HOSTS_CREATED[@]} - 1; i >= 0; i--)); do ip netns del "${LAB_HOSTS_CREATED[i]}" 2>/dev/null; done
  LAB_HOSTS_CREATED=()
  return 0
}

# hosts_need_redis — Redis runs with several relays (their calls, the standbys) or several gateways (the gateway
# failover's leases and dialogs, docs/scale-out.md).
hosts_need_redis() { ((LAB_RELAYS > 1 || LAB_GATEWAYS > 1)); }

start_redis() {
  local i relays=()
  mkdir -p "$LAB_RUN_DIR/redis"
  for ((i = 1; i <= LAB_RELAYS; i++)); do relays+=("$(relay_host_addr "$i")" "$(relay_addr "$i")"); done
  ((LAB_GATEWAYS > 1)) && for ((i = 1; i <= LAB_GATEWAYS; i++)); do relays+=("$(gateway_addr "$i")"); done
  # Redis has no password here: its host takes its port from the relays' and gateways' addresses only (nft), so Redis's
  # protected mode (loopback only) is off; nothing but the lab's hosts is on the bridge anyway
  on_host redis nft -f - <<NFT || { fail "cannot restrict Redis's port to the relays and gateways (nft on host redis)"; return 1; }
table inet redis {
  chain input {
    type filter hook input priority filter; policy accept;
    iifname "eth0" tcp dport ${LAB_REDIS##*:} ip saddr != { $(IFS=,; echo "${relays[*]}") } drop
  }
}
NFT
  # no RDB/AOF files: the lab's Redis holds the relays' live calls only while the lab is up. Keyspace notifications
  # (K, all events A): each relay's standby follows that relay's database (rtpengine --subscribe-keyspace)
  LAB_PROC_NETNS=$(host_netns redis) proc_start redis redis-server --bind "${LAB_REDIS%:*}" --port "${LAB_REDIS##*:}" --save '' \
    --appendonly no --protected-mode no --dir "$LAB_RUN_DIR/redis" --daemonize no --notify-keyspace-events KA
  proc_wait_ready redis "$LAB_LAST_PID" 15 "PONG on $LAB_REDIS" redis_ping
}

# keepalived_config I FILE — VRRP (v3, keepalived) on relay host I: MASTER of its own service address, BACKUP of the
# service address of the relay it stands by for (relay_standby_for). A host that dies stops its adverts; after three
# missed ones (0.75 s) its standby adds the address and sends gratuitous ARPs, so the browsers' and the UEs' packets
# to it reach the standby. Router ids are the relay numbers (one VRRP instance per service address on the bridge).
keepalived_config() {
  local i=$1 p plen=${LAB_HOSTS_NET#*/}
  p=$(relay_standby_for "$i")
  {
    printf 'global_defs {\n  router_id %s\n  vrrp_version 3\n  script_user root\n}\n' "$(host_ns "relay$i")"
    printf 'vrrp_instance relay%d {\n  interface eth0\n  state MASTER\n  virtual_router_id %d\n  priority 200\n  advert_int 0.25\n  virtual_ipaddress {\n    %s/%s dev eth0\n  }\n}\n' \
      "$i" "$i" "$(relay_addr "$i")" "$plen"
    printf 'vrrp_instance relay%d {\n  interface eth0\n  state BACKUP\n  virtual_router_id %d\n  priority 100\n  advert_int 0.25\n  virtual_ipaddress {\n    %s/%s dev eth0\n  }\n}\n' \
      "$p" "$p" "$(relay_addr "$p")" "$plen"
  } >"$2"
}

# relay_ns I — relay I's namespace; empty in a container of its own (docker/host.sh: LAB_IN_CONTAINER=1)
relay_ns() { host_netns "relay$1"; }

# relay_holds_addr I ADDR — host relay<I> has ADDR on its link now (keepalived added it).
relay_holds_addr() {
  local ns
  ns=$(relay_ns "$1")
  ip ${ns:+-n "$ns"} -4 -o addr show dev eth0 | grep -q " $2/"
}

# start_relay I — rtpengine on host relay<I>: ng and media (both legs) on its service address, its DTMF log to the
# first gateway. R > 1: its calls in Redis database I; keepalived holds the service address (keepalived_config);
# rtpengine also has the service address of the relay it stands by for as a second interface and follows that
# relay's database (rtpengine's "Redis keyspace notifications" redundancy: its calls are "foreign" calls here, with
# their sockets bound on that address, ip_nonlocal_bind). Its ng listens on the host's own address (rtpengine 10.5
# takes one ng address) and nft forwards ng sent to any other address of the host (the service addresses it holds,
# relay i's own and the standby's once it moved here) to it: conntrack sends the reply from the address that was
# asked, which is where the gateways' connected ng sockets take replies from.
start_relay() {
  local i=$1 name ng addr lo=30000 hi=${RTPENGINE_PORT_MAX:-30999} p ns listen iface
  local -a redis=()
  name=$(relay_name "$i") ng=$(relay_ng "$i") addr=$(relay_addr "$i") ns=$(relay_ns "$i")
  listen=$ng iface=$addr
  if ((LAB_RELAYS > 1)); then
    p=$(relay_standby_for "$i")
    # (a container gets the sysctl from its runtime: docker/compose.yaml)
    [[ -z $ns ]] || ip netns exec "$ns" sysctl -qw net.ipv4.ip_nonlocal_bind=1 || { fail "cannot allow non-local binds on $ns"; return 1; }
    keepalived_config "$i" "$LAB_RUN_DIR/keepalived-relay$i.conf"
    LAB_PROC_NETNS=$ns proc_start "vrrp$i" keepalived --dont-fork --log-console --log-detail --vrrp \
      --use-file="$LAB_RUN_DIR/keepalived-relay$i.conf" --pid="$LAB_RUN_DIR/keepalived-relay$i.pid" \
      --vrrp_pid="$LAB_RUN_DIR/keepalived-relay$i-vrrp.pid"
    proc_wait_ready "vrrp$i" "$LAB_LAST_PID" 15 "service address $addr on ${ns:-this host}" relay_holds_addr "$i" "$addr"
    listen="$(relay_host_addr "$i"):${ng##*:}" iface="r$i/$addr"
    on_host "relay$i" nft -f - <<NFT || { fail "cannot forward ng on the service addresses to $listen (nft on host relay$i)"; return 1; }
table ip relay_ng {
  chain prerouting {
    type nat hook prerouting priority dstnat; policy accept;
    udp dport ${ng##*:} ip daddr != ${listen%:*} dnat to $listen
  }
  chain output {
    type nat hook output priority -100; policy accept;
    udp dport ${ng##*:} ip daddr != ${listen%:*} fib daddr type local dnat to $listen
  }
}
NFT
    # --endpoint-learning=immediate: rtpengine writes a call's DTLS-SRTP keys to Redis when it confirms the browser's
    # address; "delayed" (its default) confirms only 3 s after the last offer/answer, so a relay that died in a call's
    # first ~3 s left its standby a copy without keys: silent, lost. "immediate" confirms (and writes) at the first
    # SRTP packet. The hosts have no NAT between them: the first packet's source is the ICE-selected one.
    redis=(--redis="$LAB_REDIS/$i" --redis-write="$LAB_REDIS/$i" --interface="r$p/$(relay_addr "$p")" --subscribe-keyspace="$p"
      --endpoint-learning=immediate)
  fi
  LAB_PROC_NETNS=$ns proc_start "$name" env RTPENGINE_NG="$listen" \
    RTPENGINE_DTMF_LOG="$(gateway_addr 1):${LAB_RTPENGINE_DTMF_LOG##*:}" RTPENGINE_PORT_MIN="$lo" RTPENGINE_PORT_MAX="$hi" \
    RTPENGINE_IFACE="$iface" bash "$ROOT/media-relay/start-rtpengine.sh" "${redis[@]}"
  proc_wait_ready "$name" "$LAB_LAST_PID" 20 "ng ping answer on $ng" client_exec python3 "$ROOT/media-relay/ng-ping.py" "$ng" 1
}

# start_haproxy — HAProxy on its host, its configuration written by harness/lib/haproxy-config.sh.
start_haproxy() {
  local cfg="$LAB_RUN_DIR/haproxy.cfg" HAPROXY_PEM=
  if [[ ${LAB_TLS:-0} == 1 ]]; then
    # HAProxy wants the certificate and its key in one file: the run's copy, readable by this user only
    HAPROXY_PEM="$LAB_RUN_DIR/haproxy.pem"
    (umask 077 && cat "$LAB_TLS_CERT" "$LAB_TLS_KEY" >"$HAPROXY_PEM") || { fail "cannot write $(rel "$HAPROXY_PEM")"; return 1; }
  fi
  local i targets=()
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do targets+=("$(gateway_http_target "$i")"); done
  bash "$ROOT/harness/lib/haproxy-config.sh" ${HAPROXY_PEM:+--pem "$HAPROXY_PEM"} "$cfg" "$LAB_HOSTS_HAPROXY_ADDR:$LAB_GW_PORT" \
    "$LAB_HAPROXY_STATS" "${targets[@]}" || { fail "cannot write $(rel "$cfg")"; return 1; }
  haproxy -c -q -f "$cfg" >/dev/null 2>&1 || { fail "haproxy refuses $(rel "$cfg"): $(haproxy -c -f "$cfg" 2>&1 | grep -m1 ALERT)"; return 1; }
  LAB_PROC_NETNS=$(host_netns haproxy) proc_start haproxy haproxy -db -f "$cfg"
  proc_wait_ready haproxy "$LAB_LAST_PID" 15 "200 from $(hosts_entry_url)/api/v1/health through HAProxy" http_200 "$(hosts_entry_url)/api/v1/health"
}

# gateway_extra_args — the options every lab gateway gets from the run, one a line: the load quotas (bench scale-out:
# LAB_SCALE_GW_ARGS); LAB_GW_MIN_SE (./lab test and compliance: 2; RFC 4028's tests use 4 s session intervals, so the
# gateway accepts down to that, lab.ims.min-se; default 90, the RFC's floor); LAB_SIP_TEST_PEER (./lab test and
# compliance: the harness's raw-SIP peer is trusted beside the P-CSCF).
gateway_extra_args() {
  local -a extra=()
  read -r -a extra <<<"${LAB_SCALE_GW_ARGS:-}"
  [[ -n ${LAB_GW_MIN_SE:-} ]] && extra+=(--lab.ims.min-se="$LAB_GW_MIN_SE")
  [[ ${LAB_SIP_TEST_PEER:-} == 1 ]] && extra+=(--lab.sip.trusted-sources="$LAB_PCSCF,$LAB_SIP_TEST_PEER_ADDR")
  ((${#extra[@]})) && printf '%s\n' "${extra[@]}"
  return 0
}

# start_main_gateway — the lab's one gateway when it is not scaled out (components.sh lab_start_all).
start_main_gateway() {
  local -a extra=()
  mapfile -t extra < <(gateway_extra_args)
  start_gateway gateway "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" "${LAB_IMS_TRANSPORT:-udp}" "${extra[@]}"
}

# hosts_start_gateway I — gateway I on host gw<I> (LAB_PROC_NETNS: its namespace; empty in a container of its own,
# docker/host.sh): HTTP and SIP on its own address; P-CSCF, relays on theirs.
hosts_start_gateway() {
  local i=$1
  local LAB_GW_NG
  LAB_GW_NG=$(relay_ng_list)
  local -a extra=() front=()
  mapfile -t extra < <(gateway_extra_args)
  # only HAProxy's X-Forwarded-For is believed: the client's address for the per-address login limits and the
  # host-only endpoints; the token prefix tells HAProxy which gateway holds a session
  # the gateway failover (docs/scale-out.md): a lease, the calls' dialogs and the registrations in Redis database 0
  ((LAB_GATEWAYS > 1)) && front=(--lab.api.token-prefix="g$i." --server.forward-headers-strategy=native
    "--server.tomcat.remoteip.internal-proxies=${LAB_HOSTS_HAPROXY_ADDR//./\\.}" --lab.failover.redis="$LAB_REDIS"
    --lab.failover.gateway-id="gw$i")
  # every gateway's SIP port is the same: its rtpengine sessions get a prefix of its own (gw<i>-), so that each
  # one's list, reconciler and cleanup see only its own calls on the shared relays. rtpengine has one DTMF log
  # destination: the first gateway's (docs/scale-out.md).
  # TLS: HAProxy terminates it (G > 1, plain HTTP behind it on the bridge), a lone gateway serves it itself
  GW_BIND=$(gateway_addr "$i") GW_TLS=$( ((LAB_GATEWAYS > 1)) && echo 0 || echo "${LAB_TLS:-0}") LAB_SIP_HOST=$(gateway_addr "$i") GW_LEGS=0 \
    LAB_GW_DTMF_LOG=$( ((i == 1)) && echo "$(gateway_addr 1):${LAB_RTPENGINE_DTMF_LOG##*:}") \
    start_gateway "$(gateway_name "$i")" "$LAB_GW_PORT" "$LAB_GW_SIP_PORT" udp "${front[@]}" \
    --lab.rtpengine.session-prefix="gw$i-" "${extra[@]}"
}

# hosts_start_gateways — every gateway on its host, then HAProxy in front of them (G > 1).
hosts_start_gateways() {
  local i
  # side by side (GW_LATER, components.sh), waited for together: one JVM start's wait, not G
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do GW_LATER=1 LAB_PROC_NETNS=$(host_ns "gw$i") hosts_start_gateway "$i" || return 1; done
  gateways_ready || return 1
  ((LAB_GATEWAYS > 1)) && { start_haproxy || return 1; }
  return 0
}

# hosts_start_ims — the IMS core on the IMS host, trusting every gateway host's SIP address: the light Kamailio, or
# with --ims 3gpp the 3GPP core (hosts_start_ims3gpp).
hosts_start_ims() {
  local i gw_nodes=()
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do gw_nodes+=("$(gateway_addr "$i"):$LAB_GW_SIP_PORT"); done
  if ims3_lab_wanted; then hosts_start_ims3gpp "${gw_nodes[*]}"; return; fi
  LAB_PROC_NETNS=$(host_netns ims) LAB_KAMAILIO_TRUSTED="${gw_nodes[*]}" start_kamailio
}

# hosts_start_ims3gpp "NODE..." — --ims 3gpp on the hosts: the whole 3GPP core (ims-sim/3gpp/run-core.sh: its DNS,
# MariaDB, HSS, S-, I-, P-CSCF) on the IMS host, every part on the host's address (IMS3_ADDR) and its usual port, as
# the one-gateway layout has it on loopback; the gateway hosts' SIP addresses (NODE: ADDR:PORT) are its trusted nodes
# (TS 24.229 5.4.1.1: web-authenticated users, erin). The gateways find the P-CSCF by the core's DNS on that address
# (ims3gpp.sh ims3_gateway_args: LAB_PCSCF is the IMS host's, hosts_addresses); the UEs register with IMS-AKA. Its
# own mount namespace (unshare): the resolv.conf that names the core's dnsmasq, a private /tmp.
hosts_start_ims3gpp() {
  need_script ims-sim/3gpp/run-core.sh || return 1
  export IMS_AKA_KEYS="$LAB_IMS3_DIR/sipp/ue-keys.txt" # hosts_start_ues: run-ue.sh registers them with IMS-AKA
  LAB_PROC_NETNS=$(host_netns ims) proc_start ims3gpp env IMS3_ADDR="$LAB_HOSTS_IMS_ADDR" IMS3_TRUSTED_NODES="$1" \
    unshare --mount -- bash "$LAB_IMS3_DIR/run-core.sh" "$LAB_LOGDIR/ims3gpp"
  proc_wait_ready ims3gpp "$LAB_LAST_PID" 120 "DNS, MariaDB, HSS, S-/I-/P-CSCF up on $LAB_HOSTS_IMS_ADDR, Diameter connections open" \
    grep -q '^ims3: ready' "$LAB_LOGDIR/ims3gpp.log"
}

# hosts_start_ues — the SIPp UEs on the IMS host, their media on its address.
hosts_start_ues() {
  local ue
  for ue in "ue1 uas" "ue3 uas-bye" "ue4 volte-uas" "ue6 uas-dtmf" "ue7 uas-video" "ue8 uas-reinvite"; do
    # shellcheck disable=SC2086 # name and scenario
    LAB_PROC_NETNS=$(host_netns ims) LAB_UE_IP=$LAB_HOSTS_IMS_ADDR start_ue $ue || return 1
  done
}

# hosts_addresses — the address table as the hosts see it: the P-CSCF on the IMS host, the browsers' entry on
# HAProxy's (or the gateway's)
hosts_addresses() {
  LAB_PCSCF="$LAB_HOSTS_IMS_ADDR:${LAB_PCSCF##*:}"
  LAB_BIND=$(hosts_entry_url) LAB_BIND=${LAB_BIND#*://} LAB_BIND=${LAB_BIND%:*}
  export LAB_PCSCF LAB_BIND
}

# hosts_start_all — what lab_start_all starts with G or R > 1: the hosts, then the components on them, in
# dependency order (relays, Kamailio, gateways, HAProxy, the UEs). The browsers' URL (gw_url) becomes the entry's.
hosts_start_all() {
  local i
  hosts_setup || return 1
  hosts_addresses
  if hosts_need_redis; then start_redis || return 1; fi
  for ((i = 1; i <= LAB_RELAYS; i++)); do start_relay "$i" || return 1; done
  hosts_start_ims && hosts_start_gateways && hosts_start_ues
}

# scale_print — pids and addresses of the scale-out hosts (./lab up).
scale_print() {
  scale_out || return 0
  local i pid
  for ((i = 1; i <= LAB_RELAYS; i++)); do
    pid=$(awk -v n="$(relay_name "$i")" '$1 == n {print $2}' "$LAB_PIDS" | tail -1)
    log "relay $i: $(relay_name "$i") pid $pid, host $(host_ns "relay$i") ($(relay_host_addr "$i")), ng $(relay_ng "$i")$( ((LAB_RELAYS > 1)) && echo ", Redis database $i on $LAB_REDIS, standby of relay $(relay_standby_for "$i") (vrrp$i pid $(awk -v n="vrrp$i" '$1 == n {print $2}' "$LAB_PIDS" | tail -1))")"
  done
  for ((i = 1; i <= LAB_GATEWAYS; i++)); do
    pid=$(awk -v n="$(gateway_name "$i")" '$1 == n {print $2}' "$LAB_PIDS" | tail -1)
    log "gateway $i: pid $pid, host $(host_ns "gw$i"), HTTP $(gateway_url "$i"), SIP $(gateway_addr "$i"):$LAB_GW_SIP_PORT$( ((LAB_GATEWAYS > 1)) && echo ", tokens g$i.*")"
  done
  if ims3_lab_wanted; then
    log "the 3GPP core (DNS, MariaDB, HSS, S-, I-, P-CSCF; logs $(rel "$LAB_LOGDIR")/ims3gpp/) and the UEs: host $(host_ns ims), P-CSCF pcscf.$LAB_IMS_DOMAIN = $LAB_PCSCF (the core's DNS on ${LAB_PCSCF%:*}:53)"
  else
    log "Kamailio and the UEs: host $(host_ns ims), P-CSCF $LAB_PCSCF"
  fi
  ((LAB_GATEWAYS > 1)) && log "HAProxy: pid $(awk '$1 == "haproxy" {print $2}' "$LAB_PIDS" | tail -1), host $(host_ns haproxy), browsers on $(hosts_entry_url), stats http://$LAB_HAPROXY_STATS/"
  log "the browsers' host is namespace $LAB_CLIENT_NETNS ($LAB_HOSTS_CLIENT_ADDR): e.g. ip netns exec $LAB_CLIENT_NETNS media-relay/build/loadgen/loadgen --gateway $(hosts_entry_url) ..."
  return 0
}

# cmd_bench_scale_out [--scaled GxR] [--calls N] [--duration S] [--cps-steps R1,R2,...] [--step-seconds S] [--hold S]
# [--no-sweep] — ./lab bench scale-out: on one gateway + one rtpengine, then on G gateways + R relays (default 3x3)
# behind HAProxy, each configuration's components on hosts of their own (network namespaces on the lab bridge, as
# `./lab up --gateways/--relays`), inside one private namespace: first a capacity sweep (constant-rate steps up to
# the first failing one, setup-rate --sustained's criterion), then the same MO load on both (the last relay's
# host dies mid-run when R > 1: its standby carries its calls on; then, when G > 1, the last gateway's host dies: a live
# gateway ends its calls from Redis); harness/bench/scale-out.mjs measures each and writes
# out/bench/scale-out/report.*.
cmd_bench_scale_out() {
  local calls=40 duration=40 steps=10,25,50,75,100 step_s=30 hold=5 sweep=1 scaled=3x3 v prev=0
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
      --scaled) [[ ${2:-} =~ ^([1-9][0-9]?)x([1-9][0-9]?)$ && ${BASH_REMATCH[1]} -le $LAB_HOSTS_MAX && ${BASH_REMATCH[2]} -le $LAB_HOSTS_MAX && $2 != 1x1 ]] ||
        usage_error "bench scale-out: --scaled needs GATEWAYSxRELAYS, each 1..$LAB_HOSTS_MAX, not 1x1 (e.g. 3x3)"; scaled=$2; shift 2 ;;
      *) usage_error "unknown option for bench scale-out: $1" ;;
    esac
  done
  ensure_packages
  build_harness && build_gateway || exit 1
  # LAB_MEDIA_RELAY_BUILD: loadgen from another build, as in the other benches (bench.sh bench_build)
  if [[ -n ${LAB_MEDIA_RELAY_BUILD:-} ]]; then
    [[ -x $LAB_MEDIA_RELAY_BUILD/loadgen/loadgen ]] || die "LAB_MEDIA_RELAY_BUILD=$LAB_MEDIA_RELAY_BUILD has no loadgen/loadgen"
  else
    build_media_relay || [[ -x $ROOT/media-relay/build/loadgen/loadgen ]] || exit 1
  fi
  lab_prepare_run bench/scale-out
  netns_run bench_scale_out_in_netns "$calls" "$duration" "$steps" "$step_s" "$hold" "$sweep" "$scaled"
}

# bench_scale_out_in_netns CALLS DURATION CPS_STEPS STEP_SECONDS HOLD SWEEP(0|1) GxR — the namespace phase of
# `./lab bench scale-out` (in-netns.sh), with the options cmd_bench_scale_out checked.
bench_scale_out_in_netns() {
  local calls=$1 duration=$2 steps=$3 step_s=$4 hold=$5 sweep=$6 scaled=$7 cps=10 cfg g r dir rc=0 gws i n est
  local -a hosts=()
  lab_use_run bench/scale-out
  procs_install_traps
  # one user per gateway (at least two), so that HAProxy's round robin puts one session on each; the quotas lifted
  # as in every bench
  awk -F: -v n=$((${scaled%x*} > 2 ? ${scaled%x*} : 2)) '!/^#/ && NF == 2 && $1 !~ /^ue[0-9]/ && k < n { print; k++ }' \
    "$ROOT/ims-sim/users.txt" >"$LAB_RUN_DIR/users.txt"
  chmod 600 "$LAB_RUN_DIR/users.txt"
  # the sweep holds up to cps x hold calls at once: every relay gets 30000-39999 (as setup-rate --sustained)
  export RTPENGINE_PORT_MAX=39999
  # 1x1 on the same layout as the scaled configuration: the gateway and the relay on hosts of their own
  LAB_HOSTS_FORCE=1
  n=$(tr ',' '\n' <<<"$steps" | wc -l)
  est=$((2 * (calls / cps + duration + 60)))
  ((sweep)) && est=$((est + 2 * n * (step_s + hold + 20)))
  log "bench scale-out: on 1x1 then $scaled (every gateway and relay a host of its own)$( ((sweep)) && echo ", each: capacity sweep $steps calls/s ($step_s s steps, calls held $hold s, up to the first failing step), then") $calls calls at $cps/s, $duration s media (at most about $((est / 60 + 1)) min)"
  for cfg in 1x1 "$scaled"; do
    g=${cfg%x*} r=${cfg#*x}
    LAB_GATEWAYS=$g LAB_RELAYS=$r
    dir="$LAB_RUN_DIR/$cfg"
    mkdir -p "$dir"
    LAB_SCALE_GW_ARGS="$BENCH_GATEWAY_LOAD_ARGS" lab_start_all || { rc=1; break; }
    gws=() hosts=()
    for ((i = 1; i <= g; i++)); do gws+=("$(gateway_url "$i")") hosts+=("$(host_ns "gw$i")"); done
    local -a common=(--config "$cfg" --out "$dir" --gateway "$(hosts_entry_url)" --gateways "$(IFS=,; echo "${gws[*]}")"
      --gateway-hosts "$(IFS=,; echo "${hosts[*]}")" --relays "$(relay_ng_list)" --local-ip "$LAB_HOSTS_CLIENT_ADDR")
    if ((sweep)); then
      run_foreground "sweep-$cfg" $((n * (step_s + hold + 60) + 60)) env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" \
        node "$ROOT/harness/bench/scale-out.mjs" sweep "${common[@]}" --cps-steps "$steps" --step-seconds "$step_s" --hold "$hold" || rc=1
    fi
    ((rc == 0)) && run_foreground "bench-$cfg" $((calls / cps + duration + 120)) env LAB_ROOT="$ROOT" LAB_LOGDIR="$LAB_LOGDIR" LAB_PIDS="$LAB_PIDS" \
      node "$ROOT/harness/bench/scale-out.mjs" phase "${common[@]}" \
      --users "$LAB_RUN_DIR/users.txt" --calls "$calls" --cps "$cps" --duration "$duration" \
      $( ((r > 1)) && echo --kill "$(relay_name "$r")" --kill-vrrp "vrrp$r" --kill-host "$(host_ns "relay$r")" --ims-host "$(host_ns ims)") \
      $( ((g > 1)) && echo --kill-gateway "$(gateway_name "$g")" --kill-gateway-host "$(host_ns "gw$g")" --kill-gateway-index "$g" \
        --ue-log "$LAB_LOGDIR/sipp-uas-ue1-messages.log") || rc=1
    procs_cleanup
    mv "$LAB_PIDS" "$dir/pids" # the next configuration's CPU sampler must not follow this one's pids
    ((rc == 0)) || break
  done
  LAB_GATEWAYS=1 LAB_RELAYS=1 LAB_HOSTS_FORCE=
  if ((rc == 0)); then
    node "$ROOT/harness/bench/scale-out.mjs" report --out "$LAB_RUN_DIR" --scaled "$scaled" || rc=1
  fi
  log "report: $(rel "$LAB_RUN_DIR")/report.html and report.json; logs: $(rel "$LAB_LOGDIR")/"
  exit "$rc"
}
