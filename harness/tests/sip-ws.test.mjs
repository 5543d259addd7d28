// Integration: the WIC using Gm (TS 24.371; docs/ims-sim.md "eP-CSCF for WICs using Gm"). The page speaks SIP over
// WebSocket (RFC 7118, JsSIP) to the light core's eP-CSCF (Kamailio websocket + xhttp), with the gateway's access
// token as `Authorization: Bearer` in every request (RFC 8898), media through rtpengine driven by Kamailio.
// Checked: the subprotocol "sip", the refusal of requests without a valid token, an MO and an MT call with audio
// both ways relayed without transcoding and clean SDP toward the core, and the token in every request the page sent.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { LAB } from '../kit/addresses.mjs';
import { rfc4733Events, rtpPackets, startCapture } from '../kit/capture.mjs';
import { gatewayUrl, logDir, outDir, passwordOf } from '../kit/env.mjs';
import { sleep } from '../kit/procs.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { relayCallInfo, relayCalls } from '../runner/relay-info.mjs';
import { answerSdpSentByUe, assertImsSdpClean, inviteSdpSeenByUe, responseSdpSeenByUe, titled, waitReceiving } from '../runner/testkit.mjs';
import { startUe } from '../runner/ue.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';
import { holdAndResumeAtUe8 } from './fixtures/wic-hold.mjs';

const USER = 'ivan';                 // only this file uses ivan (ims-sim/users.txt)
const DOMAIN = LAB.LAB_IMS_DOMAIN;
const UE6_RTP = Number(LAB.LAB_UE6_RTP_PORT); // ue6's RTP port (sipp-scenarios/run-ue.sh uas-dtmf)
const IMPU = `sip:${USER}@${DOMAIN}`;
// the WIC's registered set: it registers IMPU itself through the eP-CSCF (the token's subject), and the light S-CSCF's
// P-Associated-URI is that one URI; the far UE's P-Asserted-Identity must be it (fixtures/asserted-identity.mjs)
const WIC_IDENTITIES = [IMPU];
const WS_URL = `ws://${LAB.LAB_LOOPBACK}:${LAB.LAB_PCSCF_WS_PORT}`;   // the eP-CSCF's plain WebSocket, loopback only
const MEDIA_MS = 2500;
// WebRTC-only SDP lines that must never reach the core (sdp/ImsAttributePolicy, route[WIC_SDP_TOWARD_IMS])
const BROWSER_ONLY = /^a=(group|msid|extmap|ssrc|mid|rtcp-fb|rtcp-rsize|ice-|candidate|fingerprint|setup|end-of-candidates)/m;

let browser;
let client;

before(async () => {
  browser = await launchBrowser({ acceptInsecureCerts: true });   // the eP-CSCF's wss uses the run's self-signed certificate
  client = await openClient(browser, { name: `test-sip-ws-${USER}`, url: `${gatewayUrl()}/?client=sip-ws` });
  // what JsSIP writes to its WebSocket, as it goes on the wire (inside TLS): every request must carry the token
  await client.page.evaluate(() => {
    window.__sipSent = [];
    const send = JsSIP.WebSocketInterface.prototype.send;
    JsSIP.WebSocketInterface.prototype.send = function record(m) { window.__sipSent.push(String(m)); return send.call(this, m); };
  });
  await client.login(USER, passwordOf(USER));
});

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
});

// ---- a raw SIP-over-WebSocket peer (node's ws) toward the eP-CSCF ----

function wsOpen(protocols = ['sip']) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(WS_URL, protocols);
    const timer = setTimeout(() => { ws.terminate(); reject(new Error(`no WebSocket handshake answer from ${WS_URL} in 3 s`)); }, 3000);
    ws.once('open', () => { clearTimeout(timer); resolve(ws); });
    ws.once('unexpected-response', (_req, res) => { clearTimeout(timer); ws.terminate(); reject(new Error(`handshake refused: HTTP ${res.statusCode}`)); });
    ws.once('error', (e) => { clearTimeout(timer); reject(new Error(`handshake failed: ${e.message}`)); });
  });
}

// Sends one request, resolves with the first final response of the same Call-ID (text).
function sipRequest(ws, text) {
  const callId = /^Call-ID: (.+)$/m.exec(text)[1].trim();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { ws.off('message', on); reject(new Error(`no final answer to ${text.split(' ')[0]} in 5 s`)); }, 5000);
    function on(data) {
      const m = String(data);
      if (!m.includes(callId) || !/^SIP\/2\.0 [2-6]\d\d /.test(m)) return;
      clearTimeout(timer);
      ws.off('message', on);
      resolve(m);
    }
    ws.on('message', on);
    ws.send(text);
  });
}

function request(method, { to = IMPU, token = null, expires = 60, contactUser = 'raw' } = {}) {
  const tag = crypto.randomBytes(4).toString('hex');
  const branch = `z9hG4bK${crypto.randomBytes(6).toString('hex')}`;
  const ruri = method === 'REGISTER' ? `sip:${DOMAIN}` : to;
  return [`${method} ${ruri} SIP/2.0`, `Via: SIP/2.0/WS raw.invalid;branch=${branch}`, 'Max-Forwards: 70',
    `From: <${IMPU}>;tag=${tag}`, `To: <${to}>`, `Call-ID: ${crypto.randomBytes(8).toString('hex')}@raw.invalid`, `CSeq: 1 ${method}`,
    `Contact: <sip:${contactUser}@raw.invalid;transport=ws>`, ...(method === 'REGISTER' ? [`Expires: ${expires}`] : []),
    ...(token ? [`Authorization: Bearer ${token}`] : []), 'Content-Length: 0', '', ''].join('\r\n');
}

const status = (res) => Number(/^SIP\/2\.0 (\d{3})/.exec(res)[1]);
const header = (res, name) => new RegExp(`^${name}: (.*)$`, 'mi').exec(res)?.[1] ?? null;

// An HS256 JWT with the run's key (LAB_OUT/wic/token.key, the one the gateway and Kamailio share), or another key.
function jwt(claims, key = fs.readFileSync(path.join(outDir(), 'wic', 'token.key'))) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${body}.${crypto.createHmac('sha256', key).update(body).digest('base64url')}`;
}
const now = () => Math.floor(Date.now() / 1000);
const claims = (over = {}) => ({ iss: 'webrtc-ims-gw', aud: DOMAIN, sub: IMPU, iat: now(), exp: now() + 60, login_exp: now() + 600, ...over });

async function gatewayToken() {
  const res = await fetch(`${gatewayUrl()}/api/v1/wic-tokens`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: USER, password: passwordOf(USER) }) });
  const body = await res.json();
  assert.equal(res.status, 201, `POST /api/v1/wic-tokens: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body;
}

// ---- rtpengine's own view of the WIC's calls (relay-info.mjs: Kamailio's calls, which the gateway does not list) ----

async function assertRelayedWithoutTranscoding(callId, what) {
  const { media: m } = await relayCallInfo(callId);
  assert.ok(m.packetsToIms > 0 && m.packetsToBrowser > 0, `${what}: rtpengine should relay RTP both ways: ${JSON.stringify(m)}`);
  assert.equal(m.transcoded, false, `${what}: rtpengine transcodes (it must only relay): ${JSON.stringify(m)}`);
  assert.ok(m.codecBrowser && m.codecBrowser.toLowerCase() === m.codecIms?.toLowerCase(), `${what}: both legs should use one codec: ${JSON.stringify(m)}`);
}

async function assertNoRelayCall() {
  const end = Date.now() + 5000;
  let ids = await relayCalls();
  while (ids.length && Date.now() < end) {
    await sleep(250);
    ids = await relayCalls();
  }
  assert.deepEqual(ids, [], 'rtpengine still holds calls after the WIC\'s call ended (Kamailio did not delete them)');
}

// ---- the tests ----

test(titled('the eP-CSCF opens a WebSocket only for the subprotocol "sip" (RFC 7118 §4.1)'), { timeout: 15000 }, async () => {
  const ws = await wsOpen(['sip']);
  assert.equal(ws.protocol, 'sip', `the handshake's Sec-WebSocket-Protocol should be "sip", got '${ws.protocol}'`);
  ws.close();
  await assert.rejects(wsOpen([]), /handshake/, 'a handshake without a subprotocol must be refused');
  await assert.rejects(wsOpen(['xmpp']), /handshake/, 'a handshake offering only another subprotocol must be refused');
});

test(titled('a request without a valid access token is refused by the eP-CSCF (RFC 8898, TS 24.371 §7.2)'), { timeout: 20000 }, async () => {
  const ws = await wsOpen();
  try {
    const cases = [
      ['no token', null, 401, /no bearer token/],
      ['a token signed with another key', jwt(claims(), crypto.randomBytes(32)), 401, /bad token signature/],
      ['an expired token', jwt(claims({ iat: now() - 120, exp: now() - 60 })), 401, /token expired/],
      ['a token for another domain', jwt(claims({ aud: 'other.lab' })), 401, /another domain/],
      ['an unsigned token (alg none)', `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`, 401, /algorithm|malformed|invalid/],
      ['a valid token of another user', jwt(claims({ sub: `sip:alice@${DOMAIN}` })), 403, /another identity/],
    ];
    for (const [what, token, code, reason] of cases) {
      const res = await sipRequest(ws, request('REGISTER', { token }));
      assert.equal(status(res), code, `REGISTER with ${what}: expected ${code}, got: ${res.split('\r\n')[0]}`);
      assert.match(res.split('\r\n')[0], reason, `REGISTER with ${what}: the reason phrase should say why: ${res.split('\r\n')[0]}`);
      if (code === 401) {
        assert.match(header(res, 'WWW-Authenticate') ?? '', /^Bearer realm="[^"]+", error="invalid_token"/,
          `REGISTER with ${what}: a Bearer challenge (RFC 6750 §3) expected: ${header(res, 'WWW-Authenticate')}`);
      }
    }
    // a valid token, but nothing registered over this connection: no INVITE
    const invite = await sipRequest(ws, request('INVITE', { to: `sip:ue1@${DOMAIN}`, token: jwt(claims()) }));
    assert.equal(status(invite), 403, `INVITE with a token but no registration on the connection: ${invite.split('\r\n')[0]}`);
    const bare = await sipRequest(ws, request('OPTIONS', { to: `sip:ue1@${DOMAIN}` }));
    assert.equal(status(bare), 401, `OPTIONS without a token: ${bare.split('\r\n')[0]}`);
  } finally {
    ws.close();
  }
});

test(titled('the gateway\'s access token registers a WIC by web authentication (200, Service-Route), and de-registers it'), { timeout: 15000 }, async () => {
  const t = await gatewayToken();
  assert.equal(t.impu, IMPU, `the token's IMPU: ${t.impu}`);
  assert.match(t.wsUrl ?? '', /^wss?:\/\//, `the gateway should name the eP-CSCF: ${JSON.stringify(t)}`);
  const ws = await wsOpen();
  try {
    const ok = await sipRequest(ws, request('REGISTER', { token: t.accessToken, contactUser: 'raw-reg' }));
    assert.equal(status(ok), 200, `REGISTER with the gateway's token: ${ok.split('\r\n')[0]}`);
    assert.match(header(ok, 'Service-Route') ?? '', /sip:orig@/, `the 200 should carry the S-CSCF's Service-Route: ${ok}`);
    const gone = await sipRequest(ws, request('REGISTER', { token: t.accessToken, contactUser: 'raw-reg', expires: 0 }));
    assert.equal(status(gone), 200, `de-REGISTER: ${gone.split('\r\n')[0]}`);
  } finally {
    ws.close();
  }
  // a refresh with the token itself gives a new one for the same IMPU
  const res = await fetch(`${gatewayUrl()}/api/v1/wic-tokens`, { method: 'POST', headers: { authorization: `Bearer ${t.accessToken}` } });
  const fresh = await res.json();
  assert.equal(res.status, 201, `refresh: HTTP ${res.status} ${JSON.stringify(fresh)}`);
  assert.equal(fresh.impu, IMPU);
  const bad = await fetch(`${gatewayUrl()}/api/v1/wic-tokens`, { method: 'POST', headers: { authorization: 'Bearer x.y.z' } });
  assert.equal(bad.status, 401, `a refresh with a bad token must be refused, got HTTP ${bad.status}`);
});

test(titled('MO call from the WIC to ue1 through the eP-CSCF: audio both ways, relayed without transcoding'), { timeout: 40000 }, async () => {
  const callId = await client.call('ue1');
  await client.waitFor('answered', callId, 15000);
  await waitReceiving(client, callId);
  const s = await client.stats(callId);
  assert.ok(s.packetsSent > 0 && s.packetsReceived > 0, `the browser should send and receive audio: ${JSON.stringify(s)}`);
  assert.match(s.remoteCandidate ?? '', new RegExp(`^${LAB.LAB_PUB_ADDR.replaceAll('.', '\\.')}:`), `ICE should reach rtpengine's browser-facing address: ${s.remoteCandidate}`);
  // the web phone's call screen shows the WIC's connected call as connected: mute, keypad and hold usable, the live
  // charts once the media is up
  const screenOf = () => client.page.evaluate(() => {
    const q = (sel) => document.querySelector(sel);
    return { state: q('#active-state')?.textContent, muteDisabled: q('#mute-btn')?.disabled, keypadDisabled: q('#keypad-btn')?.disabled,
      holdDisabled: q('#hold-btn')?.disabled, chartsHidden: q('#stats')?.hidden };
  });
  const shown = (x) => x.state === 'Connected' && !x.muteDisabled && !x.keypadDisabled && !x.holdDisabled && !x.chartsHidden;
  let screen = await screenOf();
  for (const until = Date.now() + 5000; !shown(screen) && Date.now() < until; screen = await screenOf()) await sleep(100);
  assert.ok(shown(screen), `the web phone's call screen for the WIC's connected call must read Connected with mute, keypad and hold usable and the charts shown: ${JSON.stringify(screen)}`);
  await sleep(MEDIA_MS);
  await assertRelayedWithoutTranscoding(callId, 'MO');
  const sdp = inviteSdpSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), callId);
  assertImsSdpClean(sdp, 'the INVITE at ue1', [LAB.LAB_BROWSER_ADDR]);
  await assertFarUeAssertedIdentity({ identities: WIC_IDENTITIES, callId, ue: 'ue1', where: 'the INVITE of the WIC\'s call at ue1' });
  assert.match(sdp, /^m=audio \d+ RTP\/AVP /m, `the core gets plain RTP/AVP:\n${sdp}`);
  assert.doesNotMatch(sdp, BROWSER_ONLY, `WebRTC-only lines reached the core:\n${sdp}`);
  client.hangup(callId);
  const ended = await client.waitFor('ended', callId, 5000);
  assert.equal(ended.reason, 'hangup', `ended: ${JSON.stringify(ended)}`);
  await assertNoRelayCall();
});

test(titled('MT call from ue2 to the WIC through the eP-CSCF: audio both ways, relayed without transcoding'), { timeout: 45000 }, async () => {
  const mark = await client.mark();
  const ue = startUe('uac', USER, MEDIA_MS + 2000, { timeoutMs: 30000 });
  try {
    const inc = await client.waitFor('incoming', null, 15000, mark);
    assert.match(inc.sdp ?? '', /UDP\/TLS\/RTP\/SAVPF/, `the WIC should be offered DTLS-SRTP by rtpengine:\n${inc.sdp}`);
    assert.match(inc.sdp ?? '', /^a=rtcp-mux/m, `the offer to the WIC should carry rtcp-mux (TS 24.371 §7):\n${inc.sdp}`);
    await client.answer(inc.callId);
    await waitReceiving(client, inc.callId);
    await assertRelayedWithoutTranscoding(inc.callId, 'MT');
    const ended = await client.waitFor('ended', inc.callId, 15000);
    assert.equal(ended.reason, 'remote-bye', `ue2 hangs up: ${JSON.stringify(ended)}`);
    const u = await ue.done;
    assert.equal(u.code, 0, `SIPp ue2 exit ${u.code}: ${u.output}`);
    const answer = responseSdpSeenByUe(path.join(logDir(), `sipp-uac-${USER}-messages.log`), inc.callId);
    assertImsSdpClean(answer, '200 OK at ue2', [LAB.LAB_BROWSER_ADDR]);
    assert.doesNotMatch(answer, BROWSER_ONLY, `WebRTC-only lines reached the core:\n${answer}`);
  } finally {
    ue.kill();
  }
  await assertNoRelayCall();
});

test(titled('the WIC holds and resumes a call to ue8 by re-INVITE through the eP-CSCF: no red, rtx or CN/48000 toward IMS, audio after the resume'), { timeout: 40000 }, async () => {
  const callId = await client.call('ue8');
  try {
    await holdAndResumeAtUe8(client, callId);
    await assertFarUeAssertedIdentity({ identities: WIC_IDENTITIES, callId, ue: 'ue8', where: 'the INVITE of the WIC\'s call at ue8' });
  } finally {
    client.hangup(callId);
    await client.waitFor('ended', callId, 5000).catch(() => {});
  }
  await assertNoRelayCall();
});

test(titled('the keypad of the WIC reaches ue6 as RFC 4733 events through the eP-CSCF and rtpengine'), { timeout: 40000 }, async () => {
  const cap = await startCapture(UE6_RTP, 'sip-ws-dtmf-ue6');
  let callId = null;
  try {
    callId = await client.call('ue6');
    await client.waitFor('answered', callId, 15000);
    await assertFarUeAssertedIdentity({ identities: WIC_IDENTITIES, callId, ue: 'ue6', where: 'the INVITE of the WIC\'s call at ue6' });
    await waitReceiving(client, callId);
    client.dtmf(callId, '1#', 120);
    await sleep(1500);
  } finally {
    if (callId) {
      client.hangup(callId);
      await client.waitFor('ended', callId, 5000).catch(() => {});
    }
    await cap.stop();
  }
  const answer = answerSdpSentByUe(path.join(logDir(), 'sipp-uas-dtmf-ue6-messages.log'), callId);
  const pt = Number(/^a=rtpmap:(\d+) telephone-event\//m.exec(answer ?? '')?.[1]);
  assert.ok(pt > 0, `ue6 answered no telephone-event: ${answer}`);
  const events = rfc4733Events((await rtpPackets(cap.file, UE6_RTP)).filter((p) => p.dst === UE6_RTP), pt);
  assert.equal(events.map((e) => e.digit).join(''), '1#', `RFC 4733 events toward ue6 (pt ${pt}): ${JSON.stringify(events)}`);
  await assertNoRelayCall();
});

test(titled('every request the WIC sent carried the access token as Authorization: Bearer (RFC 8898)'), { timeout: 10000 }, async () => {
  const sent = await client.page.evaluate(() => window.__sipSent);
  const requests = sent.filter((m) => !m.startsWith('SIP/2.0 '));
  const methods = new Set(requests.map((m) => m.split(' ')[0]));
  for (const m of ['REGISTER', 'INVITE', 'ACK', 'BYE']) assert.ok(methods.has(m), `the WIC sent no ${m} (sent: ${[...methods]})`);
  const key = fs.readFileSync(path.join(outDir(), 'wic', 'token.key'));
  for (const r of requests) {
    const auth = header(r, 'Authorization');
    assert.match(auth ?? '', /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/, `${r.split('\r\n')[0]} went out without a Bearer token:\n${r}`);
    const [h, p, sig] = auth.slice(7).split('.');
    assert.equal(crypto.createHmac('sha256', key).update(`${h}.${p}`).digest('base64url'), sig, `${r.split('\r\n')[0]}: the token is not the gateway's`);
    assert.equal(JSON.parse(Buffer.from(p, 'base64url')).sub, IMPU, `${r.split('\r\n')[0]}: the token names another IMPU`);
  }
  // ... and the eP-CSCF checked each of them (Kamailio's log, one line per request from a WebSocket)
  const klog = fs.readFileSync(path.join(logDir(), 'kamailio.log'), 'utf8');
  const checked = (klog.match(/eP-CSCF \w+ from [\d.]+:\d+\/wss?: access token valid/g) ?? []).length;
  assert.ok(checked >= requests.length, `the eP-CSCF logged ${checked} valid-token checks for the ${requests.length} requests the WIC sent`);
});
