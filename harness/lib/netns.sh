# shellcheck shell=bash
# `demo`, `test`, `compliance` and `bench` run the whole lab in private namespaces (network + mount):
# no port can clash with the host, and nothing reaches a real network. demo/test/compliance then add
# the media topology (netns_topology, docs/media.md "Topology"): browser namespaces on veth links, so
# the browsers reach the gateway and rtpengine over a routable address, never loopback.

# netns_exec CMD [ARGS...] — replace this process by CMD inside new network and mount namespaces (same pid, so
# signals sent to ./lab still reach it), as a child subreaper so that it reaps what its components orphan, with
# LAB_IN_NETNS=1. Non-root users get a user namespace too. The mount namespace keeps the browser namespaces' names
# (/run/netns) private to this run: they vanish with it. CMD runs netns_setup first.
netns_exec() {
  local -a un=(unshare --net --mount --propagation private)
  ((EUID == 0)) || un=(unshare --user --map-root-user --net --mount --propagation private)
  log "entering a private network namespace"
  exec "${un[@]}" -- python3 "$ROOT/harness/lib/subreaper.py" env LAB_IN_NETNS=1 "$@"
}

# netns_run FUNC [ARGS...] — a ./lab command's namespace phase, after its host phase: FUNC (a *_in_netns function of
# harness/lib) with ARGS, run by harness/lib/in-netns.sh in new namespaces (netns_exec). ./lab is not run again.
netns_run() { netns_exec bash "$ROOT/harness/lib/in-netns.sh" "$@"; }

# netns_setup — inside the namespace: bring loopback up; refuse to run on a real network.
netns_setup() {
  local links
  links=$(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | tr '\n' ' ')
  [[ $links == "lo " ]] || die "LAB_IN_NETNS is set but this network namespace has more than loopback ($links)"
  ip link set lo up || die "cannot bring up loopback in the private network namespace"
}

# netns_veth NS_A IF_A ADDR_A NS_B IF_B ADDR_B — a veth pair between two namespaces ("" = the lab's
# core namespace, where ./lab runs), both ends addressed and up.
netns_veth() {
  local -a a=(ip) b=(ip)
  [[ -n $1 ]] && a=(ip -n "$1")
  [[ -n $4 ]] && b=(ip -n "$4")
  "${a[@]}" link add "$2" type veth peer name "$5" netns "${4:-$$}" &&
    "${a[@]}" addr add "$3" dev "$2" && "${a[@]}" link set "$2" up &&
    "${b[@]}" addr add "$6" dev "$5" && "${b[@]}" link set "$5" up
}

# netns_topology — inside the lab's namespace (after netns_setup): the browser namespaces.
#   core (./lab, all components)  lo 127.0.0.1: Kamailio, SIPp UEs, gateway SIP, rtpengine "ims", ng
#                                 vc-br  LAB_PUB_ADDR/24: gateway HTTP/WS, rtpengine "pub"
#                                 vc-nat LAB_NAT_CORE_ADDR/24
#   LAB_NS_BROWSER                vb     LAB_BROWSER_ADDR/24, default via LAB_PUB_ADDR
#   LAB_NS_NAT                    vn-out LAB_NAT_OUT_ADDR/24 (default via LAB_NAT_CORE_ADDR),
#                                 vn-in  LAB_NAT_IN_ADDR/24; forwards, masquerades out of vn-out
#   LAB_NS_BROWSER_NAT            vbn    LAB_BROWSER_NAT_ADDR/24, default via LAB_NAT_IN_ADDR
#   LAB_NS_SNAT                   vs-out LAB_SNAT_OUT_ADDR/24 (default via LAB_SNAT_CORE_ADDR),
#                                 vs-in  LAB_SNAT_IN_ADDR/24; a symmetric NAT (masquerade random) that
#                                 forwards UDP only toward the TURN server (LAB_STUN)
#   LAB_NS_BROWSER_SNAT           vbs    LAB_BROWSER_SNAT_ADDR/24, default via LAB_SNAT_IN_ADDR
# The browsers need a default route: without one Chromium without media permission gathers no ICE
# candidate at all (docs/notes/browser-topology-spike.md).
netns_topology() {
  local ns
  mkdir -p /run/netns && mount -t tmpfs -o size=64k,mode=755 lab-netns /run/netns ||
    die "cannot mount a private /run/netns for the browser namespaces"
  for ns in "$LAB_NS_BROWSER" "$LAB_NS_NAT" "$LAB_NS_BROWSER_NAT" "$LAB_NS_SNAT" "$LAB_NS_BROWSER_SNAT"; do
    ip netns add "$ns" && ip -n "$ns" link set lo up || die "cannot create network namespace $ns"
  done
  netns_veth "" vc-br "$LAB_PUB_ADDR/24" "$LAB_NS_BROWSER" vb "$LAB_BROWSER_ADDR/24" &&
    netns_veth "" vc-nat "$LAB_NAT_CORE_ADDR/24" "$LAB_NS_NAT" vn-out "$LAB_NAT_OUT_ADDR/24" &&
    netns_veth "$LAB_NS_NAT" vn-in "$LAB_NAT_IN_ADDR/24" "$LAB_NS_BROWSER_NAT" vbn "$LAB_BROWSER_NAT_ADDR/24" &&
    ip -n "$LAB_NS_BROWSER" route add default via "$LAB_PUB_ADDR" &&
    ip -n "$LAB_NS_NAT" route add default via "$LAB_NAT_CORE_ADDR" &&
    ip -n "$LAB_NS_BROWSER_NAT" route add default via "$LAB_NAT_IN_ADDR" &&
    ip netns exec "$LAB_NS_NAT" sysctl -qw net.ipv4.ip_forward=1 &&
    netns_veth "" vc-snat "$LAB_SNAT_CORE_ADDR/24" "$LAB_NS_SNAT" vs-out "$LAB_SNAT_OUT_ADDR/24" &&
    netns_veth "$LAB_NS_SNAT" vs-in "$LAB_SNAT_IN_ADDR/24" "$LAB_NS_BROWSER_SNAT" vbs "$LAB_BROWSER_SNAT_ADDR/24" &&
    ip -n "$LAB_NS_SNAT" route add default via "$LAB_SNAT_CORE_ADDR" &&
    ip -n "$LAB_NS_BROWSER_SNAT" route add default via "$LAB_SNAT_IN_ADDR" &&
    ip netns exec "$LAB_NS_SNAT" sysctl -qw net.ipv4.ip_forward=1 || die "cannot set up the browser namespaces' links"
  # The core never gets a route to the NAT's inside: it only ever sees LAB_NAT_OUT_ADDR.
  ip netns exec "$LAB_NS_NAT" nft -f - <<'NFT' || die "cannot set up masquerading in $LAB_NS_NAT (nft)"
table ip nat {
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "vn-out" masquerade
  }
}
NFT
  # The symmetric NAT: a random source port for every mapping (masquerade random: a new destination gets a
  # new port, so a server-reflexive address learnt from one server is useless toward another), and a
  # firewall that forwards UDP only toward the TURN server (TCP, e.g. the page and its WebSocket, passes).
  ip netns exec "$LAB_NS_SNAT" nft -f - <<NFT || die "cannot set up the symmetric NAT in $LAB_NS_SNAT (nft)"
table ip nat {
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "vs-out" masquerade random
  }
}
table ip filter {
  chain forward {
    type filter hook forward priority filter; policy accept;
    iifname "vs-in" meta l4proto udp ip daddr != ${LAB_STUN%:*} drop
    iifname "vs-in" udp dport != ${LAB_STUN##*:} drop
  }
}
NFT
  LAB_TOPOLOGY=1
  LAB_BIND=$LAB_PUB_ADDR
  export LAB_TOPOLOGY LAB_BIND
  log "browser namespaces: $LAB_NS_BROWSER ($LAB_BROWSER_ADDR) and $LAB_NS_BROWSER_NAT ($LAB_BROWSER_NAT_ADDR, behind $LAB_NS_NAT's NAT $LAB_NAT_OUT_ADDR), $LAB_NS_BROWSER_SNAT ($LAB_BROWSER_SNAT_ADDR, behind $LAB_NS_SNAT's symmetric NAT, UDP only to TURN); gateway and rtpengine \"pub\" on $LAB_PUB_ADDR"
}
