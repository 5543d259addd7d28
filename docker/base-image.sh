#!/usr/bin/env bash
# Usage: docker/base-image.sh TARBALL — the lab's container base image, from Debian's own packages (no registry
# image): mmdebstrap makes a Debian bookworm root file system with the packages the lab's hosts run (Kamailio with
# its modules, rtpengine, SIPp, Redis, HAProxy, keepalived, a Java 17 runtime, iproute2, nftables, curl, python3) into TARBALL,
# from the same mirror apt uses on this machine. `podman import TARBALL` turns it into an image (./lab docker does).
set -euo pipefail
out=${1:?usage: base-image.sh TARBALL}
mirror=$(awk '/^URIs:/ && !/security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n $mirror ]] || mirror=$(awk '/^deb / && !/security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
pkgs=(kamailio kamailio-websocket-modules kamailio-tls-modules kamailio-outbound-modules kamailio-python3-modules
  python3-jwt rtpengine-daemon sip-tester redis-server haproxy keepalived openjdk-17-jre-headless
  iproute2 nftables procps curl python3 ca-certificates)
mkdir -p "$(dirname "$out")"
# --variant=apt: essential packages + apt, then the list; the image's apt lists are removed (no network needed
# at run time); docs are left out to keep it small (man pages stay: Java's update-alternatives links one)
exec mmdebstrap --variant=apt --include="$(IFS=,; echo "${pkgs[*]}")" \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
  bookworm "$out" "$mirror"
