// The soak's bad input (docs/soak.md): each kind is sent at the running gateway and its answer checked
// against the error it must get (docs/security.md). Every send returns {kind, expected, got, ok}.
//   WebSocket: malformed JSON, a non-object, an unknown type, garbage SDP, an SDP over the m-line quota,
//              a burst of messages beyond the per-socket rate;
//   REST:      a wrong password, a login flood from one source address;
//   SIP:       the malformed-SIP corpus (harness/tests/fixtures/sip/corpus.json) at the gateway's SIP port.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { ADDRESSES } from '../kit/addresses.mjs';
import { sipSocket } from '../kit/sip.mjs';
import { loginFrom as gatewayLogin } from '../runner/gateway.mjs';

const loginFrom = (base, localAddress, user, password) => gatewayLogin(localAddress, user, password, { base });

// Where the harness sends from and the gateway's SIP socket: loopback on the one-gateway layout; with the hosts
// layout (./lab soak --gateways/--relays) the client host's address on the lab bridge and gateway 1's host.
const at = { local: '127.0.0.1', sipPeer: ADDRESSES.sipTestPeer, gatewaySip: ADDRESSES.gatewaySip };
export function useAddresses({ local, gatewaySip }) { at.local = local; at.sipPeer = local; at.gatewaySip = gatewaySip; }

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tests', 'fixtures', 'sip');
export const CORPUS = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'corpus.json'), 'utf8')).cases;

// A logged-in WebSocket of `user` that collects every message; next(pred, ms) awaits one.
export async function openSocket(base, user, password) {
  const login = await loginFrom(base, at.local, user, password);
  if (login.status !== 201) throw new Error(`login of ${user} failed: HTTP ${login.status} ${login.code ?? ''}`);
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`, ['lab.v1', `lab.token.${login.token}`], { handshakeTimeout: 10000 });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const got = [];
  const waiters = [];
  ws.on('message', (data) => {
    let m;
    try { m = JSON.parse(data.toString()); } catch { return; }
    const w = waiters.find((x) => x.pred(m));
    if (w) { waiters.splice(waiters.indexOf(w), 1); w.resolve(m); } else got.push(m);
  });
  return {
    user, token: login.token, ws, got,
    send: (text) => ws.send(text),
    next(pred, ms = 5000) {
      const i = got.findIndex(pred);
      if (i >= 0) return Promise.resolve(got.splice(i, 1)[0]);
      return new Promise((resolve) => {
        const w = { pred, resolve };
        waiters.push(w);
        setTimeout(() => { const k = waiters.indexOf(w); if (k >= 0) { waiters.splice(k, 1); resolve(null); } }, ms);
      });
    },
    open: () => ws.readyState === WebSocket.OPEN,
    async close(base2) {
      ws.close();
      await fetch(`${base2}/api/v1/sessions/current`, { method: 'DELETE', headers: { authorization: `Bearer ${login.token}` } }).catch(() => {});
    },
  };
}

const GARBAGE_SDP = 'v=0\r\nthis is not an SDP\r\n';
// five audio m-lines: over lab.limits.mlines-per-sdp (4)
const FIVE_MLINES = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nc=IN IP4 127.0.0.1\r\n${
  [1, 2, 3, 4, 5].map((i) => `m=audio ${40000 + 2 * i} UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n`).join('')}`;

// WebSocket kinds: one message, one expected `error` code.
export const WS_KINDS = {
  'ws-bad-json': { text: '{"type": "call", ', expected: 'bad-json' },
  'ws-not-object': { text: '[1, 2, 3]', expected: 'bad-message' },
  'ws-unknown-type': { text: '{"type":"frobnicate"}', expected: 'unknown-type' },
  'ws-garbage-sdp': { text: JSON.stringify({ type: 'call', to: 'ue1', sdp: GARBAGE_SDP }), expected: 'bad-sdp' },
  'ws-too-many-mlines': { text: JSON.stringify({ type: 'call', to: 'ue1', sdp: FIVE_MLINES }), expected: 'too-many-mlines' },
};

export async function wsBad(sock, kind) {
  const k = WS_KINDS[kind];
  sock.send(k.text);
  const m = await sock.next((x) => x.type === 'error', 5000);
  const got = m?.code ?? (sock.open() ? 'no answer in 5 s' : 'socket closed');
  return { kind, expected: k.expected, got, ok: got === k.expected };
}

// A burst of n pings on the socket: each must get a pong or `rate-limited` (lab.api.ws-messages-per-second,
// 20, bucket of 20), at least n - 3 x rate of them limited (the bucket, plus what it refills while a busy
// host reads the burst: 60 pings gave 18 limited once at a load average of 20), and after a 1.5 s pause a
// ping is answered again.
export async function wsFlood(sock, n = 100, rate = 20) {
  for (let i = 0; i < n; i += 1) sock.send('{"type":"ping"}');
  const replies = [];
  for (let i = 0; i < n; i += 1) {
    const m = await sock.next((x) => x.type === 'pong' || (x.type === 'error' && x.code === 'rate-limited'), 5000);
    if (!m) break;
    replies.push(m);
  }
  const limited = replies.filter((m) => m.type === 'error').length;
  await new Promise((r) => setTimeout(r, 1500));
  sock.send('{"type":"ping"}');
  const after = await sock.next((x) => x.type === 'pong' || x.type === 'error', 3000);
  const ok = replies.length === n && limited >= n - 3 * rate && after?.type === 'pong';
  return { kind: 'ws-flood', expected: `${n} answers, >= ${n - 3 * rate} rate-limited, then a pong`,
    got: `${replies.length} answers, ${limited} rate-limited, then ${after?.type === 'error' ? after.code : after?.type ?? 'nothing'}`, ok };
}

// A wrong password for a real user: 401 auth-failed (sent at most once a minute per user: 5 failures a
// minute would make it 429, lab.api.login-failures-per-user).
export async function badLogin(base, user, password) {
  const r = await loginFrom(base, at.local, user, `${password}-wrong`);
  const got = `${r.status} ${r.code}`;
  return { kind: 'bad-login', expected: '401 auth-failed', got, ok: got === '401 auth-failed' };
}

// A login flood from one fresh source address: `n` failed logins (unknown users, so no user's own limit is
// reached) one after the other; the first `failures` (lab.api.login-failures-per-address, 20) get 401
// auth-failed, every later one 429 too-many-logins. GATEWAYS > 1 (behind HAProxy's round robin, each gateway
// counting the address's failures itself): at most failures x GATEWAYS 401s, only 401 and 429, the last 5 all 429.
export async function loginFlood(base, address, tag, n = 25, failures = 20, gateways = 1) {
  const got = [];
  for (let i = 0; i < n; i += 1) {
    const r = await loginFrom(base, address, `flood${tag}x${i}`, 'not-a-password');
    got.push(`${r.status} ${r.code}`);
  }
  if (gateways > 1) {
    const n401 = got.filter((g) => g === '401 auth-failed').length;
    const other = got.filter((g) => g !== '401 auth-failed' && g !== '429 too-many-logins');
    const tail = got.slice(-5).filter((g) => g !== '429 too-many-logins');
    const ok = n401 <= failures * gateways && !other.length && !tail.length;
    return { kind: 'login-flood', expected: `at most ${failures * gateways} x 401 auth-failed (${failures} per gateway), the rest 429 too-many-logins, the last 5 all 429`,
      got: ok ? 'as expected' : `${n401} x 401; other: ${other.slice(0, 2).join(', ') || 'none'}; last 5: ${got.slice(-5).join(', ')}`, ok };
  }
  const want = got.map((_, i) => (i < failures ? '401 auth-failed' : '429 too-many-logins'));
  const bad = got.map((g, i) => (g === want[i] ? null : `#${i + 1}: ${g} (want ${want[i]})`)).filter(Boolean);
  return { kind: 'login-flood', expected: `${failures} x 401 auth-failed, then ${n - failures} x 429 too-many-logins`,
    got: bad.length ? bad.slice(0, 3).join('; ') : 'as expected', ok: bad.length === 0 };
}

// One case of the malformed-SIP corpus, as raw UDP from the harness's raw-SIP peer (trusted beside the P-CSCF).
export async function sipCase(c) {
  const s = await sipSocket(at.sipPeer, { target: at.gatewaySip });
  try {
    const sent = s.send(fs.readFileSync(path.join(FIXTURES, c.file), 'utf8'));
    if (c.status === null) {
      const r = await s.waitFor(/^SIP\/2\.0 /, sent.BRANCH, 1500);
      return { kind: `sip:${c.file}`, expected: 'no response', got: r ? r.split('\r\n')[0] : 'no response', ok: r === null };
    }
    const final = await s.waitFor(/^SIP\/2\.0 [2-6]\d\d /, sent.BRANCH, 5000);
    const status = final ? Number(final.split(' ')[1]) : null;
    if (final && status >= 300 && /^INVITE /.test(sent.text)) s.ack(sent, final);
    return { kind: `sip:${c.file}`, expected: String(c.status), got: final ? String(status) : 'no final response in 5 s', ok: status === c.status };
  } finally {
    s.close();
  }
}

export const gatewaySip = ADDRESSES.gatewaySip;
