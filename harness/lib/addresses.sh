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
LAB_PCSCF_TLS_PORT=5061                # the P-CSCF's SIP over TLS (demo/test only: harness/tests/tls.test.mjs)
LAB_GW_PORT=8088                       # the gateway's HTTP + WebSocket side (host: --bind, default 127.0.0.1)
LAB_GW_SIP_PORT=5070                   # the gateway's SIP side toward Kamailio (UDP)
LAB_GW_TCP_PORT=8089                   # ./lab test's second gateway, SIP over TCP
LAB_GW_TCP_SIP_PORT=5072
LAB_IMS_DOMAIN=ims.lab
# The harness's raw-SIP peer (harness/kit/sip.mjs): test, compliance and soak runs add it to the gateway's
# lab.sip.trusted-sources beside the P-CSCF (any port of it), so malformed SIP can be sent straight to the
# gateway; the P-CSCF's own address from another port stays refused (docs/security.md "SIP sources").
LAB_SIP_TEST_PEER_ADDR=127.0.0.9

# The media topology of demo/test/compliance (harness/lib/netns.sh, docs/media.md "Topology"): the
# browsers run in namespaces of their own and reach the gateway's HTTP/WS side and rtpengine's
# browser-facing interface ("pub") over a veth link; rtpengine's IMS-facing interface ("ims") stays
# on loopback with Kamailio and the SIPp UEs. Addresses only from 198.18.0.0/15 (RFC 2544), and only
# inside namespaces the lab creates.
LAB_PUB_ADDR=198.18.0.1                # core end of the browser link: gateway HTTP/WS, rtpengine "pub"
LAB_BROWSER_ADDR=198.18.0.2            # the browser namespace's end (default route via LAB_PUB_ADDR)
LAB_NAT_CORE_ADDR=198.18.1.1           # core end of the link to the NAT router
LAB_NAT_OUT_ADDR=198.18.1.2            # the NAT router's outside address: all the core sees of the NATed browser
LAB_NAT_IN_ADDR=198.19.0.1             # the NAT router's inside address (the NATed browser's default route)
LAB_BROWSER_NAT_ADDR=198.19.0.2        # the browser behind the NAT (never routed from the core)
LAB_STUN=$LAB_NAT_CORE_ADDR:3478      # coturn: STUN for server-reflexive candidates, and TURN (REST-API secret) for relayed ones
LAB_TURN_PORTS=49160-49399             # coturn's relay ports (the TURN allocations' addresses)
# a symmetric NAT (random source port per mapping) whose firewall lets UDP out only to the TURN server
# (harness/tests/turn.test.mjs): a browser behind it has media only through a TURN relay
LAB_SNAT_CORE_ADDR=198.18.2.1          # core end of the link to the symmetric NAT
LAB_SNAT_OUT_ADDR=198.18.2.2           # the symmetric NAT's outside address
LAB_SNAT_IN_ADDR=198.19.1.1            # its inside address (the browser's default route)
LAB_BROWSER_SNAT_ADDR=198.19.1.2       # the browser behind the symmetric NAT (never routed from the core)
LAB_RTPENGINE_IFACES=(pub/$LAB_PUB_ADDR ims/127.0.0.1) # rtpengine --interface=NAME/ADDR, browser side first
LAB_NS_BROWSER=lab-browser             # namespace names (in the lab's own mount namespace: no clash with other runs)
LAB_NS_NAT=lab-nat
LAB_NS_BROWSER_NAT=lab-browser-nat
LAB_NS_SNAT=lab-snat
LAB_NS_BROWSER_SNAT=lab-browser-snat

# Scale-out (`./lab up --gateways G --relays R`, docs/scale-out.md). Relay i (1-based) has its ng port at
# LAB_RTPENGINE_NG's + 10*(i-1) and a 1/R share of 30000-30999; each persists its calls in its own database of
# one redis-server. Gateway i has HTTP LAB_SCALE_GW_HTTP_BASE+i, SIP LAB_SCALE_GW_SIP_BASE+4*(i-1) and token
# prefix g<i>.; HAProxy takes the browsers on LAB_GW_PORT and routes each session to the gateway of its token.
LAB_REDIS=127.0.0.1:6379
LAB_SCALE_GW_HTTP_BASE=8100            # gateway i: HTTP 8101, 8102, ... (behind HAProxy on LAB_GW_PORT)
LAB_SCALE_GW_SIP_BASE=5070             # gateway i: SIP 5070, 5074, 5078, ...
LAB_HAPROXY_STATS=127.0.0.1:8404       # HAProxy's stats page (per-gateway sessions and requests)
