// The lab's addresses and ports on the Node side, read from the one table harness/addresses.env (bash
// sources the same file through harness/lib/addresses.sh; docs/architecture.md lists them all).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TABLE_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../addresses.env');

// parseTable(text) -> { NAME: value } of a KEY=value file in addresses.env's format: `# comment` lines,
// a comment after a space, ${NAME} for an earlier name's value. Throws on any other line (with its number).
export function parseTable(text, file = TABLE_FILE) {
  const table = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) return;
    const m = /^([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line);
    if (!m) throw new Error(`${file}:${i + 1}: not NAME=value: ${raw}`);
    table[m[1]] = m[2].replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (_, name) => {
      if (!(name in table)) throw new Error(`${file}:${i + 1}: \${${name}} is not an earlier name`);
      return table[name];
    });
  });
  return table;
}

// The raw table: LAB.LAB_GW_PORT === '8088' etc. (values are strings, as in bash).
export const LAB = Object.freeze(parseTable(fs.readFileSync(TABLE_FILE, 'utf8')));

const at = (port) => `${LAB.LAB_LOOPBACK}:${port}`;
export const ADDRESSES = Object.freeze({
  gatewayHttp: `http://${at(LAB.LAB_GW_PORT)}`, // default of LAB_GW when ./lab did not set it
  gatewaySip: at(LAB.LAB_GW_SIP_PORT),
  pcscf: LAB.LAB_PCSCF,
  // the harness's raw-SIP peer (kit/sip.mjs): ./lab test/compliance/soak trust it beside the P-CSCF (addresses.env)
  sipTestPeer: LAB.LAB_SIP_TEST_PEER_ADDR,
  scscf: at(LAB.LAB_SCSCF_PORT),
  pcscfTls: at(LAB.LAB_PCSCF_TLS_PORT), // the P-CSCF's SIP over TLS (demo/test only; tls.test.mjs)
  rtpengineNg: LAB.LAB_RTPENGINE_NG,   // rtpengine's ng control (UDP)
  // The media topology of demo/test/compliance (docs/media.md "Topology").
  pub: LAB.LAB_PUB_ADDR,                 // gateway HTTP/WS and rtpengine's browser-facing interface "pub"
  browser: LAB.LAB_BROWSER_ADDR,         // the browser namespace (LAB_BROWSER_NS)
  natOutside: LAB.LAB_NAT_OUT_ADDR,      // the NAT router: all the core sees of the NATed browser
  browserBehindNat: LAB.LAB_BROWSER_NAT_ADDR, // the browser behind the NAT (LAB_BROWSER_NAT_NS)
  stun: LAB.LAB_STUN,                    // coturn on the core's link to the NAT: STUN, and TURN (REST-API secret)
  snatOutside: LAB.LAB_SNAT_OUT_ADDR,    // the symmetric NAT (UDP only to coturn): all the core sees of the browser behind it
  browserBehindSnat: LAB.LAB_BROWSER_SNAT_ADDR, // the browser behind the symmetric NAT (LAB_BROWSER_SNAT_NS)
});

// asPattern(value) -> the value as RegExp source text (its dots and brackets escaped), for tests that match a
// table address inside a log line or header: new RegExp(`from ${asPattern(ADDRESSES.gatewaySip)}`).
export const asPattern = (value) => String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
