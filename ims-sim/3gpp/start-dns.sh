#!/usr/bin/env bash
# start-dns.sh <rundir> — execs dnsmasq in the foreground as the DNS of the lab's private
# namespace: A records of the nodes, NAPTR + SRV of the home domain pointing at the I-CSCF, and the
# P-CSCF published as operators do for UEs (TS 24.229 §9.2.1, RFC 3263): NAPTR at pcscf.<domain>
# (SIP+D2U before SIP+D2T) → SRV _sip._udp/_sip._tcp.pcscf.<domain> → pcscf.<domain> A.
# Nothing is forwarded upstream (--no-resolv), /etc/hosts is not read. --local-ttl: with the
# default TTL 0 Kamailio ignored the SRV records (3gpp-notes).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"
rundir="${1:-}"
[ -n "$rundir" ] || { echo "usage: $0 <rundir>" >&2; exit 2; }
command -v dnsmasq >/dev/null || { echo "dnsmasq missing: apt-get install dnsmasq-base" >&2; exit 2; }
mkdir -p "$rundir"
d=$IMS3_DOMAIN a=$IMS3_ADDR
# IPv6 on Gm: the DNS answers on the IPv6 address too, and pcscf.<domain> has an AAAA record there
v6=()
pcscf_rec="pcscf.$d,$a"
if [ -n "$IMS3_GM6_ADDR" ]; then
  v6=(--listen-address="$IMS3_GM6_ADDR")
  pcscf_rec="pcscf.$d,$a,$IMS3_GM6_ADDR"
fi
exec dnsmasq --keep-in-foreground --log-facility=- --no-resolv --no-hosts --no-poll \
  --conf-file=/dev/null --pid-file="$rundir/dnsmasq.pid" --user=root --group=root \
  --listen-address="$a" "${v6[@]}" --bind-interfaces --port="$IMS3_DNS_PORT" --local-ttl=60 \
  --local="/$d/" --log-queries \
  --host-record="$d,$a" --host-record="$pcscf_rec" --host-record="icscf.$d,$a" \
  --host-record="scscf.$d,$a" --host-record="hss.$d,$a" \
  --naptr-record="$d,10,50,s,SIP+D2U,,_sip._udp.$d" \
  --naptr-record="$d,20,50,s,SIP+D2T,,_sip._tcp.$d" \
  --srv-host="_sip._udp.$d,icscf.$d,$IMS3_ICSCF_PORT,0,10" \
  --srv-host="_sip._tcp.$d,icscf.$d,$IMS3_ICSCF_PORT,0,10" \
  --naptr-record="pcscf.$d,10,50,s,SIP+D2U,,_sip._udp.pcscf.$d" \
  --naptr-record="pcscf.$d,20,50,s,SIP+D2T,,_sip._tcp.pcscf.$d" \
  --srv-host="_sip._udp.pcscf.$d,pcscf.$d,$IMS3_PCSCF_PORT,10,10" \
  --srv-host="_sip._tcp.pcscf.$d,pcscf.$d,$IMS3_PCSCF_PORT,10,10"
