#!/usr/bin/env bash
# Usage: haproxy-config.sh [--pem CERT_AND_KEY] FILE BIND_ADDR:PORT STATS_ADDR:PORT GATEWAY_ADDR:PORT... — writes FILE,
# HAProxy's configuration in front of the gateways (gateway i is the i-th GATEWAY_ADDR:PORT, its tokens start g<i>.):
# a login goes to any (round robin, health-checked); anything that carries a token (WebSocket subprotocol
# lab.token.g<i>..., Bearer g<i>...., /api/v1/sessions/g<i>....) goes to gateway i, the one that issued it and holds
# the session. The browsers reach it on BIND_ADDR:PORT, its stats page on STATS_ADDR:PORT. --pem (cert + key in one
# file): HAProxy terminates TLS for the browsers (https/wss only) and tells the gateways so (X-Forwarded-Proto); it
# must read each request to route it by its token, which TLS passthrough (SNI only) could not.
# The one writer of that configuration: scaleout.sh's start_haproxy (`./lab up --gateways G`, bench scale-out, the
# soak's and docker's hosts) and harness/tests/scale-out.test.mjs (its own two gateways) call it alike.
set -u -o pipefail
pem=
[[ ${1:-} == --pem ]] && { pem=${2:?--pem needs a file}; shift 2; }
(($# >= 4)) || { echo "usage: haproxy-config.sh [--pem CERT_AND_KEY] FILE BIND_ADDR:PORT STATS_ADDR:PORT GATEWAY_ADDR:PORT..." >&2; exit 2; }
out=$1 bind=$2 stats=$3
shift 3
targets=("$@") n=$#
{
  # a request to a gateway that does not answer the connect goes to another (a login right after a gateway died)
  printf '%s\n' 'global' '  maxconn 4096' '' 'defaults' '  mode http' '  timeout connect 2s' '  timeout client 60s' \
    '  timeout server 60s' '  timeout tunnel 1h' '  retries 2' '  option redispatch 1' ''
  printf 'frontend browsers\n  bind %s%s\n' "$bind" "${pem:+ ssl crt $pem alpn http/1.1}"
  [[ -n $pem ]] && printf '  http-request set-header X-Forwarded-Proto https\n'

  # the gateways' host-only endpoints: not through here (scrapers reach each gateway on its own host)
  printf '  http-request deny deny_status 403 if { path_beg /actuator } || { path_beg /api/v1/rtpengine } || { path_beg /api/v1/setup-timelines }\n'
  # the client's address for the gateways (login limits per address): set, never appended to what a client sent
  printf '  http-request set-header X-Forwarded-For %%[src]\n'
  # and the port it came to (with TLS the gateways would otherwise build their URLs with https's default 443)
  printf '  http-request set-header X-Forwarded-Port %%[dst_port]\n'
  for ((i = 1; i <= n; i++)); do
    printf '  acl to_g%d req.hdr(sec-websocket-protocol) -m beg lab.token.g%d.\n' "$i" "$i"
    printf '  acl to_g%d req.hdr(authorization) -m beg "Bearer g%d."\n' "$i" "$i"
    printf '  acl to_g%d path_beg /api/v1/sessions/g%d.\n' "$i" "$i"
    printf '  use_backend g%d if to_g%d\n' "$i" "$i"
  done
  # a check every second, answered within a second; 2 missed in a row mark a gateway down (~2-3 s): quick enough that
  # a browser logging in again after its gateway died reaches a live one (and its logout the backup, below).
  # Measured with 3 misses of up to 2 s each, a dead gateway stayed "up" ~6-9 s: the page's login right after the
  # takeover (~3 s) had its logout refused (503) and its login took 4 s (scale-failover, 2026-11-27 16:05).
  printf '  default_backend any\n\nbackend any\n  balance roundrobin\n  option httpchk GET /api/v1/health\n'
  for ((i = 1; i <= n; i++)); do
    printf '  server g%d %s check inter 1s fall 2 on-marked-down shutdown-sessions\n' "$i" "${targets[i - 1]}"
  done
  # a gateway marked down (its host gone: 2 checks missed, ~2-3 s) gets its browsers' WebSockets closed here
  # (on-marked-down shutdown-sessions): a killed process's sockets close by themselves (its kernel sends FIN), but
  # for a host that vanishes (power, network) HAProxy would otherwise hold them open toward a host that never answers,
  # and the browser would never learn that its gateway is gone (docs/scale-out.md "A gateway host that does not come back")
  # With gateway i down, its tokens go to the others (backup): they know no such session, except the page's logout
  # of it, answered with the calls another gateway ended for it (docs/scale-out.md)
  for ((i = 1; i <= n; i++)); do
    # (each server's state is the one checked in backend any: track, no second health check per gateway)
    printf '\nbackend g%d\n  server g%d %s track any/g%d on-marked-down shutdown-sessions\n' "$i" "$i" "${targets[i - 1]}" "$i"
    for ((j = 1; j <= n; j++)); do
      ((j == i)) || printf '  server g%d %s track any/g%d backup\n' "$j" "${targets[j - 1]}" "$j"
    done
  done
  printf '\nfrontend stats\n  bind %s\n  stats enable\n  stats uri /\n' "$stats"
} >"$out"
