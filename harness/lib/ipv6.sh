# shellcheck shell=bash
# `./lab demo --ipv6` (docs/ims-sim.md "IPv6 on Gm"): the IMS side of the lab on IPv6 only — the light Kamailio's
# P-CSCF and S-CSCF, the gateway's SIP side, rtpengine's IMS-facing interface and the SIPp UEs on LAB_IMS6_ADDR
# (a ULA on the lab namespace's loopback) — while the browsers keep reaching the gateway and rtpengine's "pub"
# interface over IPv4. rtpengine translates between the two families (TS 23.334 IPv4/IPv6 interworking). With
# --ims 3gpp only Gm is IPv6: the P-CSCF (and the core's DNS) listen there too, the nodes behind it stay IPv4.

# ipv6_wanted — whether this run puts the IMS side on IPv6.
ipv6_wanted() { [[ ${LAB_IPV6:-} == 1 ]]; }

# ipv6_apply — point the IMS side's addresses at LAB_IMS6_ADDR (before anything starts; the SIPp UEs the runner
# and the tests start read KAMAILIO and UE_IP from the environment).
ipv6_apply() {
  ipv6_wanted || return 0
  LAB_PCSCF="[$LAB_IMS6_ADDR]:${LAB_PCSCF##*:}"
  LAB_SIP_HOST=$LAB_IMS6_ADDR
  LAB_RTPENGINE_IFACES[1]="ims/$LAB_IMS6_ADDR"
  KAMAILIO=$LAB_PCSCF
  UE_IP=$LAB_IMS6_ADDR
  export LAB_IPV6 LAB_PCSCF LAB_SIP_HOST KAMAILIO UE_IP
  # --ims 3gpp: the P-CSCF and the core's DNS also listen on the IPv6 address, pcscf.<domain> gets its AAAA record
  # (the gateway, IPv6, asks for AAAA), the I-/S-CSCF, HSS and database stay on LAB_LOOPBACK behind the P-CSCF;
  # the gateway's IPv6 SIP socket is a trusted node too (ims-sim/3gpp/env.sh)
  if ims3_lab_wanted; then
    IMS3_GM6_ADDR=$LAB_IMS6_ADDR
    IMS3_TRUSTED_NODES="$LAB_LOOPBACK:$LAB_GW_SIP_PORT $LAB_IMS6_ADDR:$LAB_GW_SIP_PORT"
    export IMS3_GM6_ADDR IMS3_TRUSTED_NODES
  fi
}

# ipv6_netns_setup — inside the lab's namespace: LAB_IMS6_ADDR on loopback (nodad: usable at once).
ipv6_netns_setup() {
  ipv6_wanted || return 0
  [[ ${LAB_IN_NETNS:-} == 1 ]] || die "--ipv6 runs only in the lab's own namespace (demo)"
  ip -6 addr add "$LAB_IMS6_ADDR/128" dev lo nodad ||
    die "cannot add $LAB_IMS6_ADDR to loopback in the lab's namespace (is IPv6 switched off? sysctl net.ipv6.conf.all.disable_ipv6)"
  ipv6_apply
  log "IPv6 on Gm: Kamailio, the gateway's SIP side, rtpengine's IMS interface and the SIPp UEs on [$LAB_IMS6_ADDR]; browsers on IPv4"
}
