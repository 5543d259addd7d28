# shellcheck shell=bash
# Debian packages of the 3GPP core, as "package:command" entries in the format of
# harness/lib/deps.sh's LAB_PACKAGES (a package counts as present when dpkg has it, or its command
# is on PATH). selftest.sh installs the missing ones with deps.sh's ensure_packages.
# kamailio-utils-modules: http_client, the S-CSCF's DCSF route asking the MF (kamailio/dcsf.cfg)
IMS3_PACKAGES=(
  kamailio:kamailio kamailio-ims-modules: kamailio-mysql-modules: kamailio-presence-modules:
  kamailio-utils-modules:
  mariadb-server:mariadbd dnsmasq-base:dnsmasq
  libfreediameter-dev: freediameter-extensions: libosmocore-dev: libssl-dev:
  cmake:cmake build-essential: pkg-config:pkg-config
  sip-tester:sipp tcpdump:tcpdump tshark:tshark python3-cryptography: openssl:openssl
  util-linux:unshare iproute2:ip
)
