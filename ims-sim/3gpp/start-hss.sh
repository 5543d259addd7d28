#!/usr/bin/env bash
# start-hss.sh <rundir> — writes <rundir>/freeDiameter.conf (+ a throw-away TLS certificate,
# which freeDiameter insists on even though every peer here is No_TLS) and execs the HSS in the
# foreground: Diameter node hss.<domain> on <addr>:3868, Cx toward the I-CSCF and S-CSCF.
# Builds hss/build/hss first when missing. Subscriber table: $IMS3_SUBSCRIBERS.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"
rundir="${1:-}"
[ -n "$rundir" ] || { echo "usage: $0 <rundir>" >&2; exit 2; }
HSS_BIN="$HERE/hss/build/hss"
[ -x "$HSS_BIN" ] || "$HERE/build-hss.sh" --no-test
FDX=/usr/lib/freeDiameter
[ -f "$FDX/dict_dcca_3gpp.fdx" ] || { echo "freeDiameter dictionaries missing: apt-get install freediameter-extensions" >&2; exit 2; }
mkdir -p "$rundir"
rundir="$(cd "$rundir" && pwd)"
"$HSS_BIN" --check -s "$IMS3_SUBSCRIBERS" || exit 2
if [ ! -f "$rundir/hss.key" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=hss.$IMS3_DOMAIN" \
    -keyout "$rundir/hss.key" -out "$rundir/hss.crt" 2>/dev/null
fi
cat > "$rundir/freeDiameter.conf" <<CONF
Identity = "hss.$IMS3_DOMAIN";
Realm = "$IMS3_DOMAIN";
Port = $IMS3_HSS_DIAMETER_PORT;
SecPort = 0;
No_SCTP;
No_IPv6;
AppServThreads = 2;
TLS_Cred = "$rundir/hss.crt", "$rundir/hss.key";
TLS_CA = "$rundir/hss.crt";
LoadExtension = "$FDX/dict_nasreq.fdx";
LoadExtension = "$FDX/dict_dcca.fdx";
LoadExtension = "$FDX/dict_dcca_3gpp.fdx";
ConnectPeer = "icscf.$IMS3_DOMAIN" { ConnectTo = "$IMS3_ADDR"; Port = $IMS3_ICSCF_DIAMETER_PORT; No_TLS; };
ConnectPeer = "scscf.$IMS3_DOMAIN" { ConnectTo = "$IMS3_ADDR"; Port = $IMS3_SCSCF_DIAMETER_PORT; No_TLS; };
CONF
# the control FIFO: `echo "rtr sip:user@domain" > <rundir>/control` de-registers a user from the network (RTR)
[ -p "$rundir/control" ] || { rm -f "$rundir/control"; mkfifo -m 600 "$rundir/control"; }
exec "$HSS_BIN" -c "$rundir/freeDiameter.conf" -l "$IMS3_ADDR" -s "$IMS3_SUBSCRIBERS" --control "$rundir/control" ${HSS_ARGS:-}
