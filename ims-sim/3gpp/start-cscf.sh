#!/usr/bin/env bash
# start-cscf.sh pcscf|icscf|scscf <rundir> — writes <rundir>/kamailio.cfg (and cdp.xml for the
# I-/S-CSCF) from kamailio/, checks it with `kamailio -c`, then execs Kamailio in the foreground
# (logs on stderr; $! of the caller is Kamailio's main PID; SIGTERM stops it and its children).
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
fill() {
  sed -e "s|@ROLE@|$role|g; s|@ADDR@|$IMS3_ADDR|g; s|@GM6@|$gm6|g; s|@PORT@|$port|g; s|@DOMAIN@|$IMS3_DOMAIN|g" \
      -e "s|@MPATH@|$MPATH|g; s|@RUNDIR@|$rundir|g; s|@DB_PORT@|$IMS3_DB_PORT|g" \
      -e "s|@HSS_PORT@|$IMS3_HSS_DIAMETER_PORT|g; s|@DIAMETER_PORT@|$dport|g" \
      -e "s#@TRUSTED_NODES_RE@#$trusted_re#g" \
      -e "s|@AUTHBAN_FAILS@|$IMS3_AUTHBAN_FAILS|g; s|@AUTHBAN_SECONDS@|$IMS3_AUTHBAN_SECONDS|g; s|@AUTHBAN_KEEP@|$((2 * IMS3_AUTHBAN_SECONDS))|g" \
      -e "s|@IPSEC_CLIENT_PORT@|$((IMS3_PCSCF_PORT + 40))|g; s|@IPSEC_SERVER_PORT@|$((IMS3_PCSCF_PORT + 41))|g" "$@"
}
{ echo "#!KAMAILIO"; fill "$HERE/kamailio/common.cfg" "$HERE/kamailio/$role.cfg"; } > "$rundir/kamailio.cfg"
[ -z "$dport" ] || fill "$HERE/kamailio/cdp.xml.tmpl" > "$rundir/cdp.xml"
# the S-CSCF's DCSF route (bootstrap data channel), included by scscf.cfg
[[ $role != scscf ]] || fill "$HERE/kamailio/dcsf.cfg" | sed "s|@MF@|$IMS3_ADDR:$IMS3_MF_PORT|g" > "$rundir/dcsf.cfg"
if ! out="$("$KAMAILIO_BIN" -c "${defines[@]}" -f "$rundir/kamailio.cfg" 2>&1)"; then
  echo "$role: configuration check failed:" >&2
  grep -E 'ERROR|CRITICAL|error' <<<"$out" | head -20 >&2
  exit 2
fi
exec "$KAMAILIO_BIN" -DD -E "${defines[@]}" -f "$rundir/kamailio.cfg" -Y "$rundir" -P "$rundir/kamailio.pid" -m 64 -M 8
