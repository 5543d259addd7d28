// The JsSIP socket of a WIC that registers with IMS-AKA over the WebSocket (TS 24.371 §6 "IMS authentication",
// docs/ims-sim.md "eP-CSCF on the 3GPP core"). JsSIP 3.13 answers only MD5 digest challenges and lets
// `authorization_jwt` overwrite its own digest Authorization header, so a WIC that needs both the access token and
// AKA uses this socket (JsSIP's documented custom-socket interface) around JsSIP.WebSocketInterface:
//   - every request it sends but CANCEL gets `Authorization: Bearer <token>` (RFC 8898, TS 24.371 §7.2), beside
//     any Digest Authorization JsSIP put in;
//   - a 401 with `algorithm=AKAv1-MD5` is answered by the USIM side (ims-aka.js: MAC-A checked, RES from Milenage):
//     JsSIP is handed HA1 = MD5(IMPI:realm:RES) and the challenge as plain MD5, so it computes the digest
//     response (RFC 3310's response is RFC 2617's with RES as the password) and resends the REGISTER with CSeq+1;
//     the Authorization of that REGISTER goes out as algorithm=AKAv1-MD5 again. A challenge whose AUTN fails the
//     MAC check is handed to JsSIP unchanged, which refuses it: the REGISTER fails (onAkaError says why).
// Messages are handed on in the order they came, also while a challenge is being computed.
import { Milenage, akaChallenge, akaHa1 } from './ims-aka.js';

const AKA_CHALLENGE = /^WWW-Authenticate:[ \t]*Digest[ \t]+(.*)$/im;

// the value of one auth-param (quoted or token) of a challenge
export function authParam(params, name) {
  const m = new RegExp(`(?:^|,)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^,\\s]+))`, 'i').exec(params);
  return m ? (m[1] ?? m[2]) : null;
}

export class AkaSocket {
  #inner;
  #milenage;
  #impi;
  #answered = new Set(); // nonces this socket answered with AKA
  #chain = Promise.resolve();

  // inner: a JsSIP socket (JsSIP.WebSocketInterface); impi, k and opc: the subscriber's (hex K/OPc);
  // token(): the access token in force; onAka({ realm, ha1, sqn }): before JsSIP sees the challenge;
  // onAkaError(message): a challenge the USIM refused
  constructor(inner, { impi, k, opc, token, onAka, onAkaError = () => {} }) {
    this.#inner = inner;
    this.#impi = impi;
    this.#milenage = new Milenage(k, opc);
    this.token = token;
    this.onAka = onAka;
    this.onAkaError = onAkaError;
    inner.onconnect = () => this.onconnect();
    inner.ondisconnect = (...a) => this.ondisconnect(...a);
    inner.ondata = (data) => { this.#chain = this.#chain.then(() => this.#receive(data)); };
  }

  get via_transport() { return this.#inner.via_transport; }
  set via_transport(v) { this.#inner.via_transport = v; }
  get url() { return this.#inner.url; }
  get sip_uri() { return this.#inner.sip_uri; }
  connect() { return this.#inner.connect(); }
  disconnect() { return this.#inner.disconnect(); }
  isConnected() { return this.#inner.isConnected(); }
  isConnecting() { return this.#inner.isConnecting(); }

  send(message) {
    return this.#inner.send(this.outgoing(message));
  }

  // what goes on the wire for a message JsSIP sends (exported for the unit tests)
  outgoing(message) {
    if (typeof message !== 'string' || message.startsWith('SIP/2.0')) return message;
    const eol = message.indexOf('\r\n');
    const method = message.slice(0, message.indexOf(' '));
    if (eol < 0 || method === 'CANCEL') return message;
    let head = message;
    // JsSIP wrote the answer to an AKA challenge as MD5 (the hash is the same): name the algorithm it answers
    head = head.replace(/^(Authorization:[ \t]*Digest[^\r\n]*)$/im, (line) => {
      const nonce = authParam(line.replace(/^Authorization:[ \t]*Digest[ \t]+/i, ''), 'nonce');
      return this.#answered.has(nonce) ? line.replace(/algorithm=MD5\b/i, 'algorithm=AKAv1-MD5') : line;
    });
    if (!/^Authorization:[ \t]*Bearer[ \t]/im.test(head.slice(0, head.indexOf('\r\n\r\n') + 2))) {
      head = `${head.slice(0, eol)}\r\nAuthorization: Bearer ${this.token()}${head.slice(eol)}`;
    }
    return head;
  }

  // a message from the eP-CSCF, handed to JsSIP (exported for the unit tests through ondata)
  async #receive(data) {
    const text = typeof data === 'string' ? data : null;
    const headEnd = text ? text.indexOf('\r\n\r\n') : -1;
    const m = text && text.startsWith('SIP/2.0 401') ? AKA_CHALLENGE.exec(text.slice(0, headEnd < 0 ? undefined : headEnd)) : null;
    if (!m || !/algorithm\s*=\s*"?AKAv1-MD5"?/i.test(m[1])) {
      this.ondata(data);
      return;
    }
    const realm = authParam(m[1], 'realm');
    const nonce = authParam(m[1], 'nonce');
    try {
      const { res, sqn } = await akaChallenge(this.#milenage, nonce ?? '');
      this.#answered.add(nonce);
      this.onAka({ realm, ha1: akaHa1(this.#impi, realm, res), sqn });
      this.ondata(text.replace(m[0], m[0].replace(/algorithm\s*=\s*"?AKAv1-MD5"?/i, 'algorithm=MD5')));
    } catch (e) {
      this.onAkaError(e.message);
      this.ondata(data);
    }
  }
}
