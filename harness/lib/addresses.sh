# shellcheck shell=bash
# shellcheck disable=SC2034 # read by the files that source this one
# The one place for the addresses and ports the lab's bash scripts use (docs/architecture.md
# "Components, addresses and ports"). ./lab, harness/tests/ims-sim.sh and media-relay's CTest
# scripts source it; the components' own start scripts take them as arguments or environment.
# (Java: signaling-gw's GatewayProperties; C++: loadgen's config.h; Python: media-relay/ng-ping.py.)

LAB_RTPENGINE_NG=127.0.0.1:2223        # rtpengine ng control (UDP)
LAB_RTPENGINE_DTMF_LOG=127.0.0.1:2224  # rtpengine --dtmf-log-dest -> the gateway's DTMF log listener (UDP)
LAB_PCSCF=127.0.0.1:5060               # Kamailio P-CSCF (UDP + TCP); the S-CSCF is :5062
LAB_SCSCF_PORT=5062
LAB_GW_PORT=8088                       # the gateway's HTTP + WebSocket side (host: --bind, default 127.0.0.1)
LAB_GW_SIP_PORT=5070                   # the gateway's SIP side toward Kamailio (UDP)
LAB_GW_TCP_PORT=8089                   # ./lab test's second gateway, SIP over TCP
LAB_GW_TCP_SIP_PORT=5072
LAB_IMS_DOMAIN=ims.lab
