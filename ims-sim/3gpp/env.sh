# shellcheck shell=bash
# Addresses and ports of the 3GPP IMS core (sourced by the start scripts and selftest.sh).
# Everything is on one loopback address; the nodes differ by port. Override by exporting first. The
# defaults come from the lab's one address table, harness/addresses.env (read in a subshell: sourcing
# this file leaves the caller's LAB_* variables alone).
ims3_table() { (. "$(dirname "${BASH_SOURCE[0]}")/../../harness/addresses.env" && printf '%s' "${!1}"); }
IMS3_ADDR="${IMS3_ADDR:-$(ims3_table LAB_LOOPBACK)}"
IMS3_DOMAIN="${IMS3_DOMAIN:-$(ims3_table LAB_IMS_DOMAIN)}"
IMS3_PCSCF_PORT="${IMS3_PCSCF_PORT:-$(p=$(ims3_table LAB_PCSCF) && echo "${p##*:}")}"   # SIP, UEs and the gateway talk to it
IMS3_ICSCF_PORT="${IMS3_ICSCF_PORT:-$(ims3_table LAB_IMS3_ICSCF_PORT)}"   # SIP, home-domain entry (DNS SRV of the domain)
IMS3_SCSCF_PORT="${IMS3_SCSCF_PORT:-$(ims3_table LAB_IMS3_SCSCF_PORT)}"   # SIP, registrar and session control
IMS3_HSS_DIAMETER_PORT="${IMS3_HSS_DIAMETER_PORT:-$(ims3_table LAB_IMS3_HSS_DIAMETER_PORT)}"
IMS3_ICSCF_DIAMETER_PORT="${IMS3_ICSCF_DIAMETER_PORT:-$(ims3_table LAB_IMS3_ICSCF_DIAMETER_PORT)}"
IMS3_SCSCF_DIAMETER_PORT="${IMS3_SCSCF_DIAMETER_PORT:-$(ims3_table LAB_IMS3_SCSCF_DIAMETER_PORT)}"
# Trusted nodes (TS 24.229 5.4.1.1, TS 33.203 trusted node authentication): who may send a REGISTER with
# integrity-protected="auth-done" (a WebRTC eP-CSCF/WAF that authenticated the user itself, TS 24.371).
# Space-separated ADDR:PORT or ADDR (any port); the lab's gateway sends SIP from LAB_LOOPBACK:LAB_GW_SIP_PORT.
IMS3_TRUSTED_NODES="${IMS3_TRUSTED_NODES:-$(ims3_table LAB_LOOPBACK):$(ims3_table LAB_GW_SIP_PORT)}"
# Failed-authentication throttling at the P-CSCF (docs/ims-sim.md "3GPP mode"): this many failed REGISTER
# authentications (403) of one IMPI, or from one source ADDR:PORT (not a trusted node), within about
# IMS3_AUTHBAN_SECONDS (this window and the one before added up), ban that IMPI / source for IMS3_AUTHBAN_SECONDS (403, Retry-After).
IMS3_AUTHBAN_FAILS="${IMS3_AUTHBAN_FAILS:-10}"
IMS3_AUTHBAN_SECONDS="${IMS3_AUTHBAN_SECONDS:-60}"
# IPv6 on Gm (./lab demo --ims 3gpp --ipv6, docs/ims-sim.md "IPv6 on Gm"): an IPv6 address (no brackets) the P-CSCF
# and the DNS also listen on, published as pcscf.<domain>'s AAAA record; the nodes behind the P-CSCF stay on IMS3_ADDR.
# Empty: IPv4 only.
IMS3_GM6_ADDR="${IMS3_GM6_ADDR:-}"
IMS3_DB_PORT="${IMS3_DB_PORT:-$(ims3_table LAB_IMS3_DB_PORT)}"         # MariaDB, I-CSCF tables only
# The MF of the bootstrap data channel (dcsf/mf.py, docs/datachannel.md "Bootstrap"): its HTTP interface for the
# S-CSCF's DCSF route, and the Python with aiortc it runs on (the harness's venv, ./lab builds it: build_pyenv).
IMS3_MF_PORT="${IMS3_MF_PORT:-$(ims3_table LAB_IMS3_MF_PORT)}"
IMS3_MF_PYTHON="${IMS3_MF_PYTHON:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/out/pyenv/bin/python}"
IMS3_DNS_PORT="${IMS3_DNS_PORT:-53}"         # resolv.conf has no port: 53 whenever Kamailio uses it
IMS3_SUBSCRIBERS="${IMS3_SUBSCRIBERS:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/subscribers.txt}"
# eP-CSCF for WICs using Gm (kamailio/pcscf-wic.cfg; start-cscf.sh): off unless IMS3_WIC_KEY_FILE is set (./lab does,
# harness/lib/ims3gpp.sh). ws on IMS3_ADDR:IMS3_WS_PORT; wss on IMS3_WSS_ADDR:IMS3_WSS_PORT when IMS3_WSS_ADDR is set.
IMS3_WIC_KEY_FILE="${IMS3_WIC_KEY_FILE:-}"
IMS3_WS_PORT="${IMS3_WS_PORT:-$(ims3_table LAB_PCSCF_WS_PORT)}"
IMS3_WSS_ADDR="${IMS3_WSS_ADDR:-}"
IMS3_WSS_PORT="${IMS3_WSS_PORT:-$(ims3_table LAB_PCSCF_WSS_PORT)}"
IMS3_RTPENGINE_NG="${IMS3_RTPENGINE_NG:-$(ims3_table LAB_RTPENGINE_NG)}"
