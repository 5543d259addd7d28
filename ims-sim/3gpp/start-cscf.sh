#!/usr/bin/env bash
# start-cscf.sh pcscf|icscf|scscf <rundir> — writes <rundir>/kamailio.cfg (and cdp.xml for the
# I-/S-CSCF) from kamailio/, checks it with `kamailio -c`, then execs Kamailio in the foreground
# (logs on stderr; $! of the caller is Kamailio's main PID; SIGTERM stops it and its children).
# IMS3_CHECK_ONLY=1: write and check the configuration, exit 0 when Kamailio takes it (no Kamailio started).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"
role="${1:-}"; rundir="${2:-}"
case "$role" in
  pcscf) port=$IMS3_PCSCF_PORT; dport= ;;
  icscf) port=$IMS3_ICSCF_PORT; dport=$IMS3_ICSCF_DIAMETER_PORT ;;
  scscf) port=$IMS3_SCSCF_PORT; dport=$IMS3_SCSCF_DIAMETER_PORT ;;
  *) echo "usage: $0 pcscf|icscf|scscf <rundir>" >&2; exit 2 ;;
esac
[ -n "$rundir" ] || { echo "usage: $0 $role <rundir>" >&2; exit 2; }
KAMAILIO_BIN="${KAMAILIO_BIN:-$(command -v kamailio || echo /usr/sbin/kamailio)}"
MPATH="${KAMAILIO_MPATH:-/usr/lib/x86_64-linux-gnu/kamailio/modules}"
[ -x "$KAMAILIO_BIN" ] || { echo "kamailio not found: apt-get install kamailio kamailio-ims-modules kamailio-mysql-modules" >&2; exit 2; }
[ -f "$MPATH/ims_icscf.so" ] || { echo "Kamailio IMS modules missing in $MPATH: apt-get install kamailio-ims-modules kamailio-mysql-modules" >&2; exit 2; }
[[ $IMS3_AUTHBAN_FAILS =~ ^[1-9][0-9]*$ && $IMS3_AUTHBAN_SECONDS =~ ^[1-9][0-9]*$ ]] ||
  { echo "IMS3_AUTHBAN_FAILS and IMS3_AUTHBAN_SECONDS must be whole numbers of 1 or more (got '$IMS3_AUTHBAN_FAILS', '$IMS3_AUTHBAN_SECONDS')" >&2; exit 2; }
mkdir -p "$rundir"
rundir="$(cd "$rundir" && pwd)"
# the trusted nodes as one Kamailio regex over "$si:$sp" (dots as [.]: no backslashes through sed)
trusted_re=
for n in $IMS3_TRUSTED_NODES; do
  [[ $n == *:* ]] || n="$n:[0-9]+"
  trusted_re+="${trusted_re:+|}${n//./[.]}"
done
trusted_re="^(${trusted_re:-none})\$"
# IPv6 on Gm: the P-CSCF also listens on IMS3_GM6_ADDR (pcscf.cfg's WITH_GM6 part)
defines=()
gm6=
if [[ $role == pcscf && -n $IMS3_GM6_ADDR ]]; then
  [[ $IMS3_GM6_ADDR =~ ^[0-9A-Fa-f:]+$ && $IMS3_GM6_ADDR == *:* ]] || { echo "IMS3_GM6_ADDR must be an IPv6 address without brackets, not '$IMS3_GM6_ADDR'" >&2; exit 2; }
  defines=(-A WITH_GM6)
  gm6="[$IMS3_GM6_ADDR]"
fi
# eP-CSCF for WICs using Gm (kamailio/pcscf-wic.cfg, docs/ims-sim.md "eP-CSCF on the 3GPP core"): with
# IMS3_WIC_KEY_FILE (the HS256 key the gateway, as WAF, signs access tokens with) the P-CSCF also takes SIP over
# WebSocket on IMS3_ADDR:IMS3_WS_PORT (ws), and wss on IMS3_WSS_ADDR:IMS3_WSS_PORT when that address is set (with
# IMS3_TLS_CERT/IMS3_TLS_KEY); media through rtpengine at IMS3_RTPENGINE_NG (IMS3_RTPENGINE_IFACES "BROWSER IMS":
# its two interfaces, empty: one unnamed), ICE-lite toward the browser; IMS3_WS_ORIGINS: the page origins allowed.
wic_define=()
ws_port='' wss_addr='' wss_port='' rtpe_ng='' rtpe_b2i='' rtpe_i2b='' lite_b='' lite_f='' origins_re='.*'
if [[ $role == pcscf && -n ${IMS3_WIC_KEY_FILE:-} ]]; then
  die() { echo "pcscf: $*" >&2; exit 2; }
  [[ -r $IMS3_WIC_KEY_FILE ]] || die "IMS3_WIC_KEY_FILE '$IMS3_WIC_KEY_FILE' is not readable"
  (($(stat -c %s "$IMS3_WIC_KEY_FILE") >= 32)) || die "IMS3_WIC_KEY_FILE: an HS256 key needs 32 bytes or more"
  ws_port=$IMS3_WS_PORT wss_port=$IMS3_WSS_PORT wss_addr=${IMS3_WSS_ADDR:-} rtpe_ng=$IMS3_RTPENGINE_NG
  [[ $ws_port =~ ^[0-9]+$ && $wss_port =~ ^[0-9]+$ ]] || die "IMS3_WS_PORT and IMS3_WSS_PORT must be numbers"
  [[ $rtpe_ng =~ ^[0-9.]+:[0-9]+$ ]] || die "IMS3_RTPENGINE_NG must be ADDR:PORT, got '$rtpe_ng'"
  wic_define=(-A WITH_WIC)
  if [[ -n $wss_addr ]]; then
    [[ $wss_addr =~ ^[0-9.]+$ ]] || die "IMS3_WSS_ADDR must be an IPv4 address, got '$wss_addr'"
    [[ -r ${IMS3_TLS_CERT:-} && -r ${IMS3_TLS_KEY:-} ]] || die "IMS3_WSS_ADDR needs IMS3_TLS_CERT and IMS3_TLS_KEY (readable PEM files)"
    wic_define+=(-A WITH_WSS)
    printf '[server:default]\nmethod = TLSv1.2+\ncertificate = %s\nprivate_key = %s\nverify_certificate = no\nrequire_certificate = no\n' \
      "$IMS3_TLS_CERT" "$IMS3_TLS_KEY" >"$rundir/tls.cfg"
  fi
  if [[ -n ${IMS3_RTPENGINE_IFACES:-} ]]; then
    read -r b i <<<"$IMS3_RTPENGINE_IFACES"
    [[ $b =~ ^[A-Za-z0-9_]+$ && $i =~ ^[A-Za-z0-9_]+$ ]] || die "IMS3_RTPENGINE_IFACES must be 'BROWSER IMS' interface names"
    rtpe_b2i="direction=$b direction=$i" rtpe_i2b="direction=$i direction=$b"
  fi
  lite_b='ICE-lite=backward' lite_f='ICE-lite=forward'
  if [[ -n ${IMS3_WS_ORIGINS:-} ]]; then
    origins_re=
    for o in $IMS3_WS_ORIGINS; do
      [[ $o =~ ^https?://[A-Za-z0-9.:-]+$ ]] || die "IMS3_WS_ORIGINS: '$o' is not scheme://host[:port]"
      origins_re+="${origins_re:+|}${o//./[.]}"
    done
    origins_re="^(${origins_re})\$"
  fi
  # read by ims-sim/wic_token.py (shared with the light core's eP-CSCF) in every Kamailio process
  export KAMAILIO_WIC_KEY_FILE="$IMS3_WIC_KEY_FILE" KAMAILIO_WIC_AUDIENCE="$IMS3_DOMAIN"
fi
fill() {
  sed -e "s|@ROLE@|$role|g; s|@ADDR@|$IMS3_ADDR|g; s|@GM6@|$gm6|g; s|@PORT@|$port|g; s|@DOMAIN@|$IMS3_DOMAIN|g" \
      -e "s|@MPATH@|$MPATH|g; s|@RUNDIR@|$rundir|g; s|@DB_PORT@|$IMS3_DB_PORT|g" \
      -e "s|@HSS_PORT@|$IMS3_HSS_DIAMETER_PORT|g; s|@DIAMETER_PORT@|$dport|g" \
      -e "s#@TRUSTED_NODES_RE@#$trusted_re#g" \
      -e "s|@AUTHBAN_FAILS@|$IMS3_AUTHBAN_FAILS|g; s|@AUTHBAN_SECONDS@|$IMS3_AUTHBAN_SECONDS|g; s|@AUTHBAN_KEEP@|$((2 * IMS3_AUTHBAN_SECONDS))|g" \
      -e "s|@IPSEC_CLIENT_PORT@|$((IMS3_PCSCF_PORT + 40))|g; s|@IPSEC_SERVER_PORT@|$((IMS3_PCSCF_PORT + 41))|g" \
      -e "s|@WSPORT@|$ws_port|g; s|@WSSADDR@|$wss_addr|g; s|@WSSPORT@|${wss_port:-0}|g; s|@RTPENGINE_NG@|$rtpe_ng|g" \
      -e "s|@WIC_PY@|$HERE/../wic_token.py|g; s#@WS_ORIGINS_RE@#$origins_re#g" \
      -e "s|@RTPE_B2I@|$rtpe_b2i|g; s|@RTPE_I2B@|$rtpe_i2b|g; s|@RTPE_LITE_B@|$lite_b|g; s|@RTPE_LITE_F@|$lite_f|g" "$@"
}
wic_cfg=()
((${#wic_define[@]})) && wic_cfg=("$HERE/kamailio/pcscf-wic.cfg")
{ echo "#!KAMAILIO"; fill "$HERE/kamailio/common.cfg" "$HERE/kamailio/$role.cfg" "${wic_cfg[@]}"; } > "$rundir/kamailio.cfg"
[ -z "$dport" ] || fill "$HERE/kamailio/cdp.xml.tmpl" > "$rundir/cdp.xml"
# the S-CSCF's DCSF route (bootstrap data channel), included by scscf.cfg
[[ $role != scscf ]] || fill "$HERE/kamailio/dcsf.cfg" | sed "s|@MF@|$IMS3_ADDR:$IMS3_MF_PORT|g" > "$rundir/dcsf.cfg"
defines+=("${wic_define[@]}")
if ! out="$("$KAMAILIO_BIN" -c "${defines[@]}" -f "$rundir/kamailio.cfg" 2>&1)"; then
  echo "$role: configuration check failed:" >&2
  grep -E 'ERROR|CRITICAL|error' <<<"$out" | head -20 >&2
  exit 2
fi
[[ ${IMS3_CHECK_ONLY:-0} != 1 ]] || exit 0
exec "$KAMAILIO_BIN" -DD -E "${defines[@]}" -f "$rundir/kamailio.cfg" -Y "$rundir" -P "$rundir/kamailio.pid" -m 64 -M 8
