// What the page's SIP-over-WebSocket client (webclient/public/sip-ws-client.js) puts on its WebSocket and gets from
// it, as it goes on the wire (inside TLS for wss): JsSIP.WebSocketInterface's send and message handler recorded in
// the page. For `./lab demo --client sip-ws` and the WIC tests: the REGISTER flow (IMS-AKA: 401 AKAv1-MD5, the
// answer, 200) and the access token on every request (RFC 8898).

import fs from 'node:fs';

// Call before login (the WebSocket's message handler is bound when it connects).
export async function recordWicWire(client) {
  await client.page.evaluate(() => {
    window.__sipWire = [];
    const proto = JsSIP.WebSocketInterface.prototype;
    const send = proto.send;
    proto.send = function recordSend(m) { window.__sipWire.push({ dir: 'sent', text: String(m) }); return send.call(this, m); };
    const onMessage = proto._onMessage;
    proto._onMessage = function recordRecv(ev) { window.__sipWire.push({ dir: 'recv', text: String(ev.data) }); return onMessage.call(this, ev); };
  });
}

export const wicWire = (client) => client.page.evaluate(() => window.__sipWire ?? []);

const firstLine = (t) => t.split('\r\n')[0];
const headerValues = (t, name) => [...t.slice(0, t.indexOf('\r\n\r\n')).matchAll(new RegExp(`^${name}:[ \\t]*(.*)$`, 'gmi'))].map((m) => m[1]);
const callIdOf = (t) => headerValues(t, 'Call-ID')[0] ?? '';

// The first registration's flow as the gateway reports its own (RegistrationClient's sipFlow): "sent REGISTER",
// "recv 401 (AKAv1-MD5)", "sent REGISTER (AKA response)", "recv 200"; the REGISTER's Call-ID's messages only.
export function registerFlow(wire) {
  const first = wire.find((m) => m.dir === 'sent' && m.text.startsWith('REGISTER '));
  if (!first) return [];
  const id = callIdOf(first.text);
  const flow = [];
  for (const m of wire.filter((x) => callIdOf(x.text) === id)) {
    if (m.dir === 'sent' && m.text.startsWith('REGISTER ')) {
      const aka = headerValues(m.text, 'Authorization').some((v) => /^Digest .*algorithm=AKAv1-MD5/i.test(v));
      flow.push(aka ? 'sent REGISTER (AKA response)' : 'sent REGISTER');
    } else if (m.dir === 'recv' && /^SIP\/2\.0 \d{3}/.test(m.text) && / REGISTER$/m.test(headerValues(m.text, 'CSeq')[0] ?? '')) {
      const code = firstLine(m.text).split(' ')[1];
      const aka = code === '401' && headerValues(m.text, 'WWW-Authenticate').some((v) => /algorithm=AKAv1-MD5/i.test(v));
      flow.push(`recv ${code}${aka ? ' (AKAv1-MD5)' : ''}`);
    }
    if (flow.at(-1) === 'recv 200') break;
  }
  return flow;
}

// Every request but CANCEL the page sent, and those without `Authorization: Bearer <JWT>` (first lines).
export function bearerOnEveryRequest(wire) {
  const requests = wire.filter((m) => m.dir === 'sent' && !m.text.startsWith('SIP/2.0 ') && !m.text.startsWith('CANCEL '));
  const missing = requests.filter((m) => !headerValues(m.text, 'Authorization').some((v) => /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/.test(v)))
    .map((m) => firstLine(m.text));
  const methods = [...new Set(requests.map((m) => m.text.split(' ')[0]))];
  return { requests: requests.length, methods, missing };
}

// The IMS-AKA settings a softphone's user would type in (IMPI, K, OPc) for IMPI, from the operator's provisioning:
// the 3GPP core's HSS table (ims-sim/3gpp/subscribers.txt: IMPI IMPUs K OPc AMF SQN [scheme]). The gateway never
// serves them; the page gets them as login input.
export function simSettings(root, impi) {
  const file = `${root}/ims-sim/3gpp/subscribers.txt`;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const f = line.replace(/#.*/, '').trim().split(/\s+/);
    if (f[0] === impi && (f[6] ?? 'aka') === 'aka') return { impi, k: f[2], opc: f[3] };
  }
  throw new Error(`${impi} is no IMS-AKA subscriber in ${file}`);
}
