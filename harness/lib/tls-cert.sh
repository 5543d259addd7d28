#!/usr/bin/env bash
# Usage: tls-cert.sh DIR NAME HOST...
# A self-signed TLS certificate for the lab (docs/security.md "TLS"): DIR/NAME.crt (PEM, mode 0644) and
# DIR/NAME.key (PEM PKCS#8, mode 0600), ECDSA P-256, valid 365 days, CN = the first HOST, one
# subjectAltName per HOST (IP: for an IPv4/IPv6 address, DNS: otherwise). Used by `./lab up --bind`
# for the gateway's HTTPS/WSS side, by ./lab test for Kamailio's SIP over TLS, and by the tests that
# start a TLS gateway of their own. An existing pair with the same SANs is kept (same fingerprint on
# every `./lab up`, so a browser exception stays valid); otherwise it is replaced.
set -euo pipefail

die() { echo "tls-cert: $*" >&2; exit 2; }
(($# >= 3)) || die "usage: tls-cert.sh DIR NAME HOST..."
dir=$1 name=$2; shift 2
command -v openssl >/dev/null 2>&1 || die "openssl not found (apt-get install openssl)"
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "bad certificate name '$name'"

sans=()
for h in "$@"; do
  if [[ $h =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ || $h == *:* ]]; then
    sans+=("IP:$h")
  elif [[ $h =~ ^[A-Za-z0-9.-]+$ ]]; then
    sans+=("DNS:$h")
  else
    die "not a host name or address: '$h'"
  fi
done
san=$(IFS=,; echo "${sans[*]}")

mkdir -p "$dir"
crt="$dir/$name.crt" key="$dir/$name.key"
if [[ -s $crt && -s $key ]] &&
  [[ $(openssl x509 -in "$crt" -noout -ext subjectAltName 2>/dev/null | tail -n +2 | tr -d ' ' | sed 's/IPAddress:/IP:/g') == "$san" ]] &&
  openssl x509 -in "$crt" -noout -checkend 86400 >/dev/null 2>&1; then
  exit 0
fi
umask 077
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
  -subj "/O=WebRTC-IMS lab/CN=$1" -addext "subjectAltName=$san" \
  -addext "basicConstraints=critical,CA:FALSE" -addext "extendedKeyUsage=serverAuth,clientAuth" \
  -keyout "$key.tmp" -out "$crt.tmp" 2>"$dir/$name.openssl.log" ||
  { cat "$dir/$name.openssl.log" >&2; die "openssl could not make the certificate"; }
chmod 600 "$key.tmp"
chmod 644 "$crt.tmp"
mv "$key.tmp" "$key"
mv "$crt.tmp" "$crt"
rm -f "$dir/$name.openssl.log"
