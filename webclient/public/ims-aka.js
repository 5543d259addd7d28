// IMS-AKA for the page's SIP-over-WebSocket client (webclient/public/sip-ws-client.js; docs/ims-sim.md "eP-CSCF on
// the 3GPP core"): the USIM side of a 401 with `algorithm=AKAv1-MD5` (HTTP Digest AKA, RFC 3310).
//   - Milenage (TS 35.206) f1 and f2-f5 with the operator variant OPc, on WebCrypto's AES-128. WebCrypto has no
//     AES-ECB: one block E_K(x) is the first block of AES-CBC(x) with a zero IV (CBC's first block is E_K(x ⊕ IV)).
//     No maintained npm package implements Milenage; tests: harness/tests/ims-aka.test.mjs (TS 35.208 sets 1-6).
//   - The challenge's nonce is base64(RAND ‖ AUTN ‖ server data); AUTN = SQN⊕AK ‖ AMF ‖ MAC-A. The network is
//     authenticated when MAC-A = f1(K, SQN, RAND, AMF); a wrong MAC-A refuses the challenge (TS 33.102 6.3.3).
//   - The digest answer is RFC 2617's MD5 digest with RES (its octets) as the password; MD5 over raw octets is
//     @noble/hashes' (vendored by harness/lib/vendor.sh), since JsSIP's own MD5 UTF-8-encodes its input.
// The subscriber's IMPI, K and OPc are the user's settings (a softphone's SIM data), never served by the gateway.
import { md5 } from './vendor/noble-legacy.js';

const HEX = /^[0-9a-fA-F]+$/;

export function hexToBytes(hex, n, what) {
  if (typeof hex !== 'string' || hex.length !== 2 * n || !HEX.test(hex)) throw new Error(`${what} must be ${2 * n} hex digits`);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(b) {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

const xor = (a, b) => a.map((x, i) => x ^ b[i]);
// rot(x, r): x cyclically rotated left by r bits (r a multiple of 8 in Milenage)
const rot = (x, r) => x.map((_, i) => x[(i + r / 8) % 16]);
const constant = (last) => { const c = new Uint8Array(16); c[15] = last; return c; };

export class Milenage {
  #key;
  #opc;

  // k, opc: 16 octets each (Uint8Array)
  constructor(k, opc) {
    if (!(k instanceof Uint8Array) || k.length !== 16 || !(opc instanceof Uint8Array) || opc.length !== 16) {
      throw new Error('Milenage needs K and OPc of 16 octets each');
    }
    this.#key = crypto.subtle.importKey('raw', k, { name: 'AES-CBC' }, false, ['encrypt']);
    this.#opc = opc;
  }

  async #e(block) {
    const out = await crypto.subtle.encrypt({ name: 'AES-CBC', iv: new Uint8Array(16) }, await this.#key, block);
    return new Uint8Array(out, 0, 16).slice();
  }

  // OUTn = E_K(rot(TEMP ⊕ OPc, r) ⊕ c) ⊕ OPc, TEMP = E_K(RAND ⊕ OPc)
  async #out(temp, r, c) {
    return xor(await this.#e(xor(rot(xor(temp, this.#opc), r), c)), this.#opc);
  }

  // f1/f1*: MAC-A (or, with AMF 0000 for a resync, MAC-S) of SQN (6 octets) and AMF (2)
  async f1(rand, sqn, amf) {
    const temp = await this.#e(xor(rand, this.#opc));
    const in1 = new Uint8Array(16);
    in1.set(sqn, 0); in1.set(amf, 6); in1.set(sqn, 8); in1.set(amf, 14);
    const out1 = xor(await this.#e(xor(temp, rot(xor(in1, this.#opc), 64))), this.#opc);
    return { macA: out1.slice(0, 8), macS: out1.slice(8, 16) };
  }

  // f2 (RES), f3 (CK), f4 (IK), f5 (AK) and f5* (AK for AUTS)
  async f2345(rand) {
    const temp = await this.#e(xor(rand, this.#opc));
    const out2 = await this.#out(temp, 0, constant(1));
    return {
      res: out2.slice(8, 16),
      ak: out2.slice(0, 6),
      ck: await this.#out(temp, 32, constant(2)),
      ik: await this.#out(temp, 64, constant(4)),
      akStar: (await this.#out(temp, 96, constant(8))).slice(0, 6),
    };
  }
}

function base64ToBytes(s) {
  let bin;
  try {
    bin = atob(s);
  } catch {
    return null;
  }
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

// The USIM's answer to a nonce: { res, sqn, ck, ik } when the network proved itself (MAC-A), else an Error whose
// message says why (no AKA nonce, MAC failure).
export async function akaChallenge(milenage, nonce) {
  const n = base64ToBytes(nonce);
  if (!n || n.length < 32) throw new Error('the AKA nonce is not base64 of RAND and AUTN (32 octets or more)');
  const rand = n.slice(0, 16);
  const autn = n.slice(16, 32);
  const { res, ak, ck, ik } = await milenage.f2345(rand);
  const sqn = xor(autn.slice(0, 6), ak);
  const amf = autn.slice(6, 8);
  const { macA } = await milenage.f1(rand, sqn, amf);
  if (bytesToHex(macA) !== bytesToHex(autn.slice(8, 16))) {
    throw new Error('the network failed authentication: MAC-A of AUTN does not match (wrong K/OPc, or not this subscriber\'s network)');
  }
  return { res, sqn, amf, ck, ik };
}

// RFC 3310 §3.2 / RFC 2617: HA1 = MD5(IMPI ":" realm ":" RES), with RES as octets; hex
export function akaHa1(impi, realm, res) {
  const head = new TextEncoder().encode(`${impi}:${realm}:`);
  const all = new Uint8Array(head.length + res.length);
  all.set(head, 0);
  all.set(res, head.length);
  return bytesToHex(md5(all));
}

const md5hex = (s) => bytesToHex(md5(new TextEncoder().encode(s)));

// The whole Authorization header value for an AKAv1-MD5 challenge (qop "auth" when offered, RFC 2617 §3.2.2)
export function akaAuthorization({ impi, realm, nonce, opaque, qop, uri, method, res, cnonce, nc = 1 }) {
  const ha1 = akaHa1(impi, realm, res);
  const ha2 = md5hex(`${method}:${uri}`);
  const ncHex = nc.toString(16).padStart(8, '0');
  const useQop = qop && qop.split(',').map((q) => q.trim()).includes('auth');
  const response = useQop ? md5hex(`${ha1}:${nonce}:${ncHex}:${cnonce}:auth:${ha2}`) : md5hex(`${ha1}:${nonce}:${ha2}`);
  const p = [`Digest username="${impi}"`, `realm="${realm}"`, `nonce="${nonce}"`, `uri="${uri}"`, `response="${response}"`,
    'algorithm=AKAv1-MD5'];
  if (useQop) p.push('qop=auth', `cnonce="${cnonce}"`, `nc=${ncHex}`);
  if (opaque != null) p.push(`opaque="${opaque}"`);
  return p.join(', ');
}
