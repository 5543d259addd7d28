// The lab's addresses and ports on the Node side: JS's one definition (bash: harness/lib/addresses.sh,
// which ./lab uses to start the components; docs/architecture.md lists them all).
export const ADDRESSES = Object.freeze({
  gatewayHttp: 'http://127.0.0.1:8088', // default of LAB_GW when ./lab did not set it
  gatewaySip: '127.0.0.1:5070',
  pcscf: '127.0.0.1:5060',
  scscf: '127.0.0.1:5062',
});
