// Raw SIP over UDP at the gateway's SIP port (harness/tests/sip-robustness.test.mjs, ./lab soak) or at
// Kamailio (ims-hardening.test.mjs): a socket
// that sends SIP text (LF -> CRLF, ${PLACEHOLDERS} filled) and collects what comes back.
import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { ADDRESSES } from './addresses.mjs';

export const sipHeader = (text, name) => text.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim();

// sipSocket(address, {target}) -> {address, port, got, send(template, vars), sendRaw(text, toPort),
// waitFor(re, key, ms), ack(sent, final), close()}. `target` ("host:port") is where it sends: the gateway's
// SIP port by default, the lab's Kamailio for harness/tests/ims-hardening.test.mjs. `got` keeps every
// message received (for diagnostics); waitFor consumes each message once.
// The default address is the harness's raw-SIP peer, which ./lab test trusts beside the P-CSCF (its 127.0.0.1
// from any port but 5060 is refused, as a forger's would be: docs/security.md "SIP sources").
export async function sipSocket(address = ADDRESSES.sipTestPeer, { target = ADDRESSES.gatewaySip } = {}) {
  const [host, targetPort] = target.split(':');
  const sock = dgram.createSocket('udp4');
  const got = [];
  const unread = [];
  const waiters = [];
  sock.on('message', (buf) => {
    const text = buf.toString('latin1');
    got.push(text);
    const w = waiters.find((x) => x.match(text));
    if (w) { waiters.splice(waiters.indexOf(w), 1); w.resolve(text); } else unread.push(text);
  });
  await new Promise((resolve, reject) => { sock.once('error', reject); sock.bind(0, address, resolve); });
  const port = sock.address().port;
  const api = {
    address,
    port,
    got,
    // SIP text as it is (LF -> CRLF), to the target or to another port on the target's host.
    sendRaw(text, toPort = Number(targetPort)) {
      sock.send(Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'latin1'), toPort, host);
    },
    // Octets exactly as given (binary bodies, RFC 4475's messages).
    sendBytes(buf, toPort = Number(targetPort)) {
      sock.send(buf, toPort, host);
    },
    // A template: ${PORT} ${GW} ${BRANCH} ${CALLID} ${FROMTAG} ${LENGTH} and `vars` filled in.
    send(template, vars = {}) {
      const v = { PORT: port, GW: target, BRANCH: `z9hG4bK${randomBytes(6).toString('hex')}`,
        CALLID: randomBytes(8).toString('hex'), FROMTAG: randomBytes(4).toString('hex'), ...vars };
      let text = template.replace(/\r?\n/g, '\r\n');
      const split = text.indexOf('\r\n\r\n');
      const body = split < 0 ? '' : text.slice(split + 4);
      v.LENGTH = v.LENGTH ?? Buffer.byteLength(body.replace(/\$\{(\w+)\}/g, (_, k) => String(v[k] ?? '')), 'latin1');
      text = text.replace(/\$\{(\w+)\}/g, (m, k) => (k in v ? String(v[k]) : m));
      api.sendRaw(text);
      return { ...v, text };
    },
    // The next message whose first line matches `re` and that contains `key` (a Call-ID or a Via
    // branch) or for which key(text) is true, or null after ms.
    waitFor(re, key, ms = 3000) {
      const match = (t) => re.test(t.split('\r\n')[0]) && (typeof key === 'function' ? key(t) : t.includes(key));
      const old = unread.find(match);
      if (old) { unread.splice(unread.indexOf(old), 1); return Promise.resolve(old); }
      return new Promise((resolve) => {
        const w = { match, resolve };
        waiters.push(w);
        setTimeout(() => { const i = waiters.indexOf(w); if (i >= 0) { waiters.splice(i, 1); resolve(null); } }, ms);
      });
    },
    // ACK a non-2xx final response to an INVITE that was sent (RFC 3261 §17.1.1.3).
    ack(sent, final) {
      const via = sipHeader(sent.text, 'Via');
      api.send(`ACK sip:x@\${GW} SIP/2.0\nVia: ${via}\nMax-Forwards: 70\nFrom: ${sipHeader(final, 'From')}\nTo: ${sipHeader(final, 'To')}\nCall-ID: ${sipHeader(final, 'Call-ID')}\nCSeq: 1 ACK\nContent-Length: 0\n\n`);
    },
    close: () => sock.close(),
  };
  return api;
}
