#!/usr/bin/env bash
# Usage: start-kamailio.sh <rundir>
# One Kamailio = P-CSCF on $KAMAILIO_PORT (5060) + S-CSCF/registrar on $SCSCF_PORT (5062).
# Generates kamailio.cfg and the digest credentials table (db_text) into <rundir>,
# checks the config, then execs Kamailio in the foreground (logs on stderr), so the
# caller's $! is Kamailio's main PID. Nothing under /etc is read or changed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KAMAILIO_BIN="${KAMAILIO_BIN:-kamailio}"
# defaults from the lab's address table (harness/addresses.env; ./lab passes them anyway)
# shellcheck source=../harness/addresses.env
. "$HERE/../harness/addresses.env"
KAMAILIO_ADDR="${KAMAILIO_ADDR:-${LAB_PCSCF%:*}}"
# An IPv6 address (./lab --ipv6), with or without brackets: bare where Kamailio compares it with a source ($si),
# in brackets where a port or URI follows (listen=, Route, Service-Route, $fs; RFC 3261 §25.1).
KAMAILIO_ADDR="${KAMAILIO_ADDR#[}"
KAMAILIO_ADDR="${KAMAILIO_ADDR%]}"
KAMAILIO_HOST="$KAMAILIO_ADDR"
[[ "$KAMAILIO_ADDR" == *:* ]] && KAMAILIO_HOST="[$KAMAILIO_ADDR]"
KAMAILIO_PORT="${KAMAILIO_PORT:-${LAB_PCSCF##*:}}"   # P-CSCF
SCSCF_PORT="${SCSCF_PORT:-$LAB_SCSCF_PORT}"         # S-CSCF/registrar, same process
IMS_DOMAIN="${IMS_DOMAIN:-$LAB_IMS_DOMAIN}"
IMS_USERS="${IMS_USERS:-$HERE/users.txt}"
KAMAILIO_MPATH="${KAMAILIO_MPATH:-/usr/lib/x86_64-linux-gnu/kamailio/modules/}"
# Shared memory pool in MB. Kamailio's default (64) ran out at 150 calls/s in the SIP-only setup-rate
# bench (~750 calls x 3 hops of transactions and dialogs, plus their wait timers): `build_cell(): could
# not allocate shared memory`, then 500s. 256 MB keeps the light core from being the SIP-only bound.
KAMAILIO_SHM_MB="${KAMAILIO_SHM_MB:-256}"
# Largest SIP message accepted (bytes); larger ones get 513 Message Too Large (docs/ims-sim.md "Hardening").
KAMAILIO_MAX_MSG="${KAMAILIO_MAX_MSG:-16384}"
# SIP over TLS at the P-CSCF (docs/security.md "SIP over TLS"): all three set = a tls listener on
# $KAMAILIO_ADDR:$KAMAILIO_TLS_PORT with this PEM certificate + key; CA = the certificates Kamailio trusts
# when it connects to a UE over TLS (a gateway's TLS contact). Unset: no TLS.
KAMAILIO_TLS_PORT="${KAMAILIO_TLS_PORT:-$LAB_PCSCF_TLS_PORT}"
KAMAILIO_TLS_CERT="${KAMAILIO_TLS_CERT:-}"
KAMAILIO_TLS_KEY="${KAMAILIO_TLS_KEY:-}"
KAMAILIO_TLS_CA="${KAMAILIO_TLS_CA:-}"
# eP-CSCF for WICs using Gm (docs/ims-sim.md "eP-CSCF for WICs using Gm"): set KAMAILIO_WIC_KEY_FILE (the HS256 key
# the gateway, as WAF, signs access tokens with; 32 bytes or more) for SIP over WebSocket on
# $KAMAILIO_ADDR:$KAMAILIO_WS_PORT (ws), plus wss on KAMAILIO_WSS_ADDR:KAMAILIO_WSS_PORT when that address is set
# (needs the TLS pair above). Media through rtpengine at KAMAILIO_RTPENGINE_NG; KAMAILIO_RTPENGINE_IFACES "BROWSER IMS"
# names its two interfaces (empty: one unnamed); KAMAILIO_RTPENGINE_ICE_LITE=1 (default) makes it ICE-lite toward
# the browser as on the gateway path. KAMAILIO_WS_ORIGINS: the page origins allowed to open a WebSocket (empty: any).
KAMAILIO_WIC_KEY_FILE="${KAMAILIO_WIC_KEY_FILE:-}"
KAMAILIO_WS_PORT="${KAMAILIO_WS_PORT:-$LAB_PCSCF_WS_PORT}"
KAMAILIO_WSS_ADDR="${KAMAILIO_WSS_ADDR:-}"
KAMAILIO_WSS_PORT="${KAMAILIO_WSS_PORT:-$LAB_PCSCF_WSS_PORT}"
KAMAILIO_RTPENGINE_NG="${KAMAILIO_RTPENGINE_NG:-$LAB_RTPENGINE_NG}"
KAMAILIO_RTPENGINE_IFACES="${KAMAILIO_RTPENGINE_IFACES:-}"
KAMAILIO_RTPENGINE_ICE_LITE="${KAMAILIO_RTPENGINE_ICE_LITE:-1}"
KAMAILIO_WS_ORIGINS="${KAMAILIO_WS_ORIGINS:-}"
# Failed-authentication throttling at the P-CSCF (docs/ims-sim.md "Hardening"): AUTHBAN_FAILS failed
# REGISTER authentications (403) of one user, or from one source address:port, within about
# AUTHBAN_SECONDS (this window of AUTHBAN_SECONDS and the one before added up), ban that user / source for AUTHBAN_SECONDS
# (403 with Retry-After).
KAMAILIO_AUTHBAN_FAILS="${KAMAILIO_AUTHBAN_FAILS:-10}"
KAMAILIO_AUTHBAN_SECONDS="${KAMAILIO_AUTHBAN_SECONDS:-60}"
# Sources never banned as a source ("ADDR[:PORT] ..."; no port = any): nodes that REGISTER many users
# from one socket, such as the gateway (./lab passes its SIP sockets). Their users are still counted.
KAMAILIO_TRUSTED_NODES="${KAMAILIO_TRUSTED_NODES:-}"

die() { echo "start-kamailio: $*" >&2; exit 2; }

[ $# -eq 1 ] || die "usage: start-kamailio.sh <rundir>"
RUNDIR="$1"
command -v "$KAMAILIO_BIN" >/dev/null 2>&1 || die "'$KAMAILIO_BIN' not found (apt-get install kamailio)"
[ -r "$IMS_USERS" ] || die "users file '$IMS_USERS' not readable"
[ -d "$KAMAILIO_MPATH" ] || die "module dir '$KAMAILIO_MPATH' not found"
[[ "$KAMAILIO_PORT" =~ ^[0-9]+$ && "$SCSCF_PORT" =~ ^[0-9]+$ ]] || die "KAMAILIO_PORT and SCSCF_PORT must be numbers"
[[ "$KAMAILIO_TLS_PORT" =~ ^[0-9]+$ ]] || die "KAMAILIO_TLS_PORT must be a number"
tls_define=()
if [[ -n "$KAMAILIO_TLS_CERT$KAMAILIO_TLS_KEY$KAMAILIO_TLS_CA" ]]; then
  for f in "$KAMAILIO_TLS_CERT" "$KAMAILIO_TLS_KEY" "$KAMAILIO_TLS_CA"; do
    [[ -n "$f" && -r "$f" ]] || die "TLS needs KAMAILIO_TLS_CERT, KAMAILIO_TLS_KEY and KAMAILIO_TLS_CA as readable files (got '$f')"
  done
  [[ "$KAMAILIO_TLS_PORT" != "$KAMAILIO_PORT" && "$KAMAILIO_TLS_PORT" != "$SCSCF_PORT" ]] || die "KAMAILIO_TLS_PORT must differ from the UDP/TCP ports"
  tls_define=(-A WITH_TLS)
fi
wic_define=()
rtpe_b2i='' rtpe_i2b='' lite_b='' lite_f='' origins_re='.*'
if [[ -n "$KAMAILIO_WIC_KEY_FILE" ]]; then
  [[ -r "$KAMAILIO_WIC_KEY_FILE" ]] || die "KAMAILIO_WIC_KEY_FILE '$KAMAILIO_WIC_KEY_FILE' is not readable"
  (( $(stat -c %s "$KAMAILIO_WIC_KEY_FILE") >= 32 )) || die "KAMAILIO_WIC_KEY_FILE: an HS256 key needs 32 bytes or more"
  [[ "$KAMAILIO_WS_PORT" =~ ^[0-9]+$ && "$KAMAILIO_WSS_PORT" =~ ^[0-9]+$ ]] || die "KAMAILIO_WS_PORT and KAMAILIO_WSS_PORT must be numbers"
  [[ "$KAMAILIO_RTPENGINE_NG" =~ ^[0-9.]+:[0-9]+$ ]] || die "KAMAILIO_RTPENGINE_NG must be ADDR:PORT, got '$KAMAILIO_RTPENGINE_NG'"
  wic_define=(-A WITH_WIC)
  if [[ -n "$KAMAILIO_WSS_ADDR" ]]; then
    ((${#tls_define[@]})) || die "KAMAILIO_WSS_ADDR needs the TLS pair (KAMAILIO_TLS_CERT, KAMAILIO_TLS_KEY, KAMAILIO_TLS_CA)"
    [[ "$KAMAILIO_WSS_ADDR" =~ ^[0-9.]+$ ]] || die "KAMAILIO_WSS_ADDR must be an IPv4 address, got '$KAMAILIO_WSS_ADDR'"
    wic_define+=(-A WITH_WSS)
  fi
  if [[ -n "$KAMAILIO_RTPENGINE_IFACES" ]]; then
    read -r b i <<<"$KAMAILIO_RTPENGINE_IFACES"
    [[ "$b" =~ ^[A-Za-z0-9_]+$ && "$i" =~ ^[A-Za-z0-9_]+$ ]] || die "KAMAILIO_RTPENGINE_IFACES must be 'BROWSER IMS' interface names"
    rtpe_b2i="direction=$b direction=$i" rtpe_i2b="direction=$i direction=$b"
  fi
  [[ "$KAMAILIO_RTPENGINE_ICE_LITE" == 1 ]] && lite_b='ICE-lite=backward' lite_f='ICE-lite=forward'
  if [[ -n "$KAMAILIO_WS_ORIGINS" ]]; then
    origins_re=
    for o in $KAMAILIO_WS_ORIGINS; do
      [[ $o =~ ^https?://[A-Za-z0-9.:-]+$ ]] || die "KAMAILIO_WS_ORIGINS: '$o' is not scheme://host[:port]"
      origins_re+="${origins_re:+|}${o//./[.]}"
    done
    origins_re="^(${origins_re})\$"
  fi
  # read by ims-sim/wic_token.py in every Kamailio process
  export KAMAILIO_WIC_KEY_FILE KAMAILIO_WIC_AUDIENCE="$IMS_DOMAIN"
fi
[[ "$KAMAILIO_AUTHBAN_FAILS" =~ ^[1-9][0-9]*$ ]] || die "KAMAILIO_AUTHBAN_FAILS must be a number of failures (1 or more), got '$KAMAILIO_AUTHBAN_FAILS'"
[[ "$KAMAILIO_AUTHBAN_SECONDS" =~ ^[1-9][0-9]*$ ]] || die "KAMAILIO_AUTHBAN_SECONDS must be a number of seconds (1 or more), got '$KAMAILIO_AUTHBAN_SECONDS'"
# the trusted nodes as one Kamailio regex over "$si:$sp" (dots as [.]: no backslashes through sed)
trusted_re=
for n in $KAMAILIO_TRUSTED_NODES; do
  [[ $n =~ ^[0-9A-Za-z.:]+$ ]] || die "KAMAILIO_TRUSTED_NODES: '$n' is not ADDR or ADDR:PORT"
  [[ $n == *:* ]] || n="$n:[0-9]+"
  trusted_re+="${trusted_re:+|}${n//./[.]}"
done
trusted_re="^(${trusted_re:-none})\$"
[[ "$KAMAILIO_MAX_MSG" =~ ^[0-9]+$ ]] || die "KAMAILIO_MAX_MSG must be a number of bytes, got '$KAMAILIO_MAX_MSG'"
[[ "$KAMAILIO_SHM_MB" =~ ^[0-9]+$ ]] || die "KAMAILIO_SHM_MB must be a number of MB, got '$KAMAILIO_SHM_MB'"
[ "$KAMAILIO_PORT" != "$SCSCF_PORT" ] || die "KAMAILIO_PORT (P-CSCF) and SCSCF_PORT (S-CSCF) must differ, both are $SCSCF_PORT"
mkdir -p "$RUNDIR/db" || die "cannot create '$RUNDIR/db'"
RUNDIR="$(cd "$RUNDIR" && pwd)"
DBDIR="$RUNDIR/db"
CFG="$RUNDIR/kamailio.cfg"

# The table holds passwords (./lab --users N: generated ones): readable by this user only.
umask 077
# db_text tables: 'version' (auth_db checks subscriber's schema version) and 'subscriber'
# with plain-text passwords (calculate_ha1=1). ':' and '\' are escaped as db_text requires.
printf 'table_name(string) table_version(int) \nsubscriber:7\n' > "$DBDIR/version"
{
  echo 'id(int,auto) username(string) domain(string,null) password(string) ha1(string,null) ha1b(string,null) '
  id=0
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    case "$line" in ''|'#'*) continue ;; esac
    user="${line%%:*}"
    pass="${line#*:}"
    [ "$user" != "$line" ] && [ -n "$user" ] || die "bad line in $IMS_USERS: '$line' (want user:password)"
    id=$((id + 1))
    # no subshell per line: 10 000 users (./lab --users) are written in about a second
    esc_pass="${pass//\\/\\\\}"
    esc_pass="${esc_pass//:/\\:}"
    printf '%d:%s:%s:%s:::\n' "$id" "$user" "$IMS_DOMAIN" "$esc_pass"
  done < "$IMS_USERS"
  [ "$id" -gt 0 ] || die "no users in $IMS_USERS"
} > "$DBDIR/subscriber.tmp"
mv "$DBDIR/subscriber.tmp" "$DBDIR/subscriber"

sed -e "s|@ADDR@|$KAMAILIO_ADDR|g" -e "s|@HOST@|$KAMAILIO_HOST|g" -e "s|@PORT@|$KAMAILIO_PORT|g" -e "s|@SPORT@|$SCSCF_PORT|g" \
    -e "s|@DOMAIN@|$IMS_DOMAIN|g" -e "s|@DBDIR@|$DBDIR|g" -e "s|@MPATH@|$KAMAILIO_MPATH|g" -e "s|@MAXSIZE@|$KAMAILIO_MAX_MSG|g" \
    -e "s|@TLSPORT@|$KAMAILIO_TLS_PORT|g" -e "s|@RUNDIR@|$RUNDIR|g" \
    -e "s|@AUTHBAN_FAILS@|$KAMAILIO_AUTHBAN_FAILS|g" -e "s|@AUTHBAN_SECONDS@|$KAMAILIO_AUTHBAN_SECONDS|g" \
    -e "s|@AUTHBAN_KEEP@|$((2 * KAMAILIO_AUTHBAN_SECONDS))|g" \
    -e "s#@TRUSTED_NODES_RE@#$trusted_re#g" \
    -e "s|@WSPORT@|$KAMAILIO_WS_PORT|g" -e "s|@WSSADDR@|$KAMAILIO_WSS_ADDR|g" -e "s|@WSSPORT@|$KAMAILIO_WSS_PORT|g" \
    -e "s|@RTPENGINE_NG@|$KAMAILIO_RTPENGINE_NG|g" -e "s|@HERE@|$HERE|g" -e "s#@WS_ORIGINS_RE@#$origins_re#g" \
    -e "s|@RTPE_B2I@|$rtpe_b2i|g" -e "s|@RTPE_I2B@|$rtpe_i2b|g" -e "s|@RTPE_LITE_B@|$lite_b|g" -e "s|@RTPE_LITE_F@|$lite_f|g" \
    "$HERE/kamailio.cfg.tmpl" > "$CFG"

if ((${#tls_define[@]})); then
  # server side: any client (UEs present no certificate); client side (toward a UE's TLS contact): only
  # peers whose certificate chains to KAMAILIO_TLS_CA
  cat >"$RUNDIR/tls.cfg" <<EOF
[server:default]
method = TLSv1.2+
certificate = $KAMAILIO_TLS_CERT
private_key = $KAMAILIO_TLS_KEY
verify_certificate = no
require_certificate = no

[client:default]
method = TLSv1.2+
verify_certificate = yes
require_certificate = yes
ca_list = $KAMAILIO_TLS_CA
EOF
fi

# Fail fast with Kamailio's own message when the generated config does not parse.
if ! check_out="$("$KAMAILIO_BIN" -c "${tls_define[@]}" "${wic_define[@]}" -f "$CFG" -Y "$RUNDIR" 2>&1)"; then
  echo "$check_out" | grep -E 'ERROR|CRITICAL' | head -5 >&2
  die "config check failed for $CFG"
fi

# -DD: no daemonizing, main process stays ours; -E: log to stderr; -Y: runtime dir in rundir;
# -m: shared memory pool (MB).
exec "$KAMAILIO_BIN" -DD -E -m "$KAMAILIO_SHM_MB" "${tls_define[@]}" "${wic_define[@]}" -f "$CFG" -Y "$RUNDIR"
