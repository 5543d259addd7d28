// The lab's addresses and ports on the Node side: JS's one definition (bash: harness/lib/addresses.sh,
// which ./lab uses to start the components; docs/architecture.md lists them all).
export const ADDRESSES = Object.freeze({
  gatewayHttp: 'http://127.0.0.1:8088', // default of LAB_GW when ./lab did not set it
  gatewaySip: '127.0.0.1:5070',
  pcscf: '127.0.0.1:5060',
  // the harness's raw-SIP peer (kit/sip.mjs): ./lab test/compliance/soak trust it beside the P-CSCF (addresses.sh)
  sipTestPeer: '127.0.0.9',
  scscf: '127.0.0.1:5062',
  pcscfTls: '127.0.0.1:5061',   // the P-CSCF's SIP over TLS (demo/test only; tls.test.mjs)
  // The media topology of demo/test/compliance (docs/media.md "Topology"; addresses.sh has the same).
  pub: '198.18.0.1',            // gateway HTTP/WS and rtpengine's browser-facing interface "pub"
  browser: '198.18.0.2',        // the browser namespace (LAB_BROWSER_NS)
  natOutside: '198.18.1.2',     // the NAT router: all the core sees of the NATed browser
  browserBehindNat: '198.19.0.2', // the browser behind the NAT (LAB_BROWSER_NAT_NS)
  stun: '198.18.1.1:3478',      // coturn on the core's link to the NAT: STUN, and TURN (REST-API secret)
  snatOutside: '198.18.2.2',    // the symmetric NAT (UDP only to coturn): all the core sees of the browser behind it
  browserBehindSnat: '198.19.1.2', // the browser behind the symmetric NAT (LAB_BROWSER_SNAT_NS)
});
