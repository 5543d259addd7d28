# shellcheck shell=bash
# Issue #17 prototype: the lab on a routable topology of network namespaces (addresses only from
# 198.18.0.0/15, RFC 2544, and only inside namespaces created here).
#
#   s17-core   lo (Kamailio, SIPp UEs, gateway SIP, rtpengine "ims" = 127.0.0.1)
#              vc-br  198.18.0.1/24  gateway HTTP/WS + rtpengine "pub" interface
#              vc-nat 198.18.1.1/24  toward the NAT router
#   s17-br     vb     198.18.0.2/24 (default via 198.18.0.1)  a browser on the gateway's link (no NAT)
#   s17-nat    vn-out 198.18.1.2/24 (default via 198.18.1.1), vn-in 198.19.0.1/24; masquerades vn-out
#   s17-brnat  vbn    198.19.0.2/24 (default via 198.19.0.1)  a browser behind that NAT
#
# Usage (root, or inside `unshare --user --map-root-user --net --mount` plus `ip netns` support):
#   source prototypes/issue17/topology.sh; topo_up; ...; topo_down
# Then: ip netns exec s17-core CMD / ip netns exec s17-br CMD.
TOPO_NS=(s17-core s17-br s17-nat s17-brnat)
TOPO_PUB=198.18.0.1

topo_down() {
  local ns
  for ns in "${TOPO_NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}

# topo_veth NS_A IF_A ADDR_A NS_B IF_B ADDR_B — one veth pair between two namespaces, both ends up.
topo_veth() {
  ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
    ip -n "$1" addr add "$3" dev "$2" && ip -n "$1" link set "$2" up &&
    ip -n "$4" addr add "$6" dev "$5" && ip -n "$4" link set "$5" up
}

topo_up() {
  local ns
  topo_down
  for ns in "${TOPO_NS[@]}"; do
    ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
  done
  topo_veth s17-core vc-br 198.18.0.1/24 s17-br vb 198.18.0.2/24 || return 1
  topo_veth s17-core vc-nat 198.18.1.1/24 s17-nat vn-out 198.18.1.2/24 || return 1
  topo_veth s17-nat vn-in 198.19.0.1/24 s17-brnat vbn 198.19.0.2/24 || return 1
  # Browsers need a default route: without one, Chromium without media permission (and Firefox) find
  # no "default" interface to gather on and offer no candidate at all.
  ip -n s17-br route add default via 198.18.0.1 &&
    ip -n s17-nat route add default via 198.18.1.1 &&
    ip -n s17-brnat route add default via 198.19.0.1 &&
    ip netns exec s17-nat sysctl -qw net.ipv4.ip_forward=1 || return 1
  # Masquerading router: everything from the inside leaves with 198.18.1.2 (a port-restricted cone
  # NAT in practice: Linux conntrack keeps the source port when it can).
  ip netns exec s17-nat nft -f - <<'NFT' || return 1
table ip nat {
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "vn-out" masquerade
  }
}
NFT
  # The core never routes to the NAT's inside: only 198.18.1.2 is visible from there.
}
