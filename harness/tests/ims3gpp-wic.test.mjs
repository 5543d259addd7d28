// Integration (./lab test --ims 3gpp): the WIC using Gm on the 3GPP core (TS 24.371; docs/ims-sim.md "eP-CSCF on the
// 3GPP core"). The page speaks SIP over WebSocket (JsSIP) to the P-CSCF as eP-CSCF (ims-sim/3gpp/kamailio/
// pcscf-wic.cfg), registers by IMS-AKA over the WebSocket (the page's Milenage, webclient/public/ims-aka.js; its K/OPc
// given as login input) with the gateway's access token on every request (RFC 8898); media through rtpengine driven
// by the P-CSCF. Checked: the REGISTER flow (401 AKAv1-MD5 without CK/IK, the answer, 200), a request without a valid
// token refused, one MO and one MT call with media both ways relayed without transcoding, a call to ue8 held and
// resumed (fixtures/wic-hold.mjs), and the token on every request the page sent. Needs LAB_IMS=3gpp (run only by --ims 3gpp).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { LAB } from '../kit/addresses.mjs';
import { gatewayUrl, labRoot, logDir, passwordOf } from '../kit/env.mjs';
import { sleep } from '../kit/procs.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { relayCallInfo, relayCalls } from '../runner/relay-info.mjs';
import { inviteSdpSeenByUe, titled, waitReceiving } from '../runner/testkit.mjs';
import { startUe } from '../runner/ue.mjs';
import { bearerOnEveryRequest, recordWicWire, registerFlow, simSettings, wicWire } from '../runner/wic-wire.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';
import { holdAndResumeAtUe8 } from './fixtures/wic-hold.mjs';

const USER = 'ivan';                  // the WIC subscriber of ims-sim/3gpp/subscribers.txt (only this file uses him here)
const DOMAIN = LAB.LAB_IMS_DOMAIN;
const IMPU = `sip:${USER}@${DOMAIN}`;
const WS_URL = `ws://${LAB.LAB_LOOPBACK}:${LAB.LAB_PCSCF_WS_PORT}`;   // the P-CSCF's plain WebSocket, loopback only
const MEDIA_MS = 2000;
const pcscfLog = () => fs.readFileSync(path.join(logDir(), 'ims3gpp', 'pcscf.log'), 'utf8');

let browser;
let client;

before(async () => {
  assert.equal(process.env.LAB_IMS, '3gpp', 'run with ./lab test --ims 3gpp');
  browser = await launchBrowser({ acceptInsecureCerts: true });   // the eP-CSCF's wss uses the run's self-signed certificate
  client = await openClient(browser, { name: `test-ims3gpp-wic-${USER}`, url: `${gatewayUrl()}/?client=sip-ws` });
  await recordWicWire(client);
  await client.login(USER, passwordOf(USER), simSettings(labRoot(), `${USER}@${DOMAIN}`));
});

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
});

async function assertRelayedWithoutTranscoding(callId, what) {
  const { media: m } = await relayCallInfo(callId);
  assert.ok(m.packetsToIms > 0 && m.packetsToBrowser > 0, `${what}: rtpengine should relay RTP both ways: ${JSON.stringify(m)}`);
  assert.equal(m.transcoded, false, `${what}: rtpengine transcodes (it must only relay): ${JSON.stringify(m)}`);
}

async function assertNoRelayCall() {
  const end = Date.now() + 5000;
  let ids = await relayCalls();
  while (ids.length && Date.now() < end) {
    await sleep(250);
    ids = await relayCalls();
  }
  assert.deepEqual(ids, [], 'rtpengine still holds calls after the WIC\'s call ended (the P-CSCF did not delete them)');
}

test(titled('the WIC registers by IMS-AKA over the WebSocket: 401 AKAv1-MD5 (no CK/IK), the page\'s answer, 200'), { timeout: 10000 }, async () => {
  const wire = await wicWire(client);
  const flow = registerFlow(wire);
  assert.deepEqual(flow, ['sent REGISTER', 'recv 401 (AKAv1-MD5)', 'sent REGISTER (AKA response)', 'recv 200'],
    `the page's first REGISTER flow: ${flow.join(', ')}`);
  const challenge = wire.find((m) => m.dir === 'recv' && m.text.startsWith('SIP/2.0 401'))?.text ?? '';
  assert.doesNotMatch(challenge, /\b(ck|ik)="/i, `the P-CSCF must not pass CK/IK to the WIC (TS 33.203):\n${challenge}`);
  assert.match(pcscfLog(), new RegExp(`P-CSCF registered ${IMPU.replaceAll('.', '\\.')}`), 'the P-CSCF saved the WIC\'s registration');
});

test(titled('a request without a valid access token is refused by the 3GPP eP-CSCF (RFC 8898)'), { timeout: 10000 }, async () => {
  const ws = await new Promise((resolve, reject) => {
    const w = new WebSocket(WS_URL, ['sip']);
    const timer = setTimeout(() => { w.terminate(); reject(new Error(`no WebSocket handshake answer from ${WS_URL} in 3 s`)); }, 3000);
    w.once('open', () => { clearTimeout(timer); resolve(w); });
    w.once('error', (e) => { clearTimeout(timer); reject(new Error(`handshake with ${WS_URL} failed: ${e.message}`)); });
  });
  try {
    const forged = (() => {
      const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: 'webrtc-ims-gw', aud: DOMAIN, sub: IMPU, iat: now, exp: now + 60 })}`;
      return `${body}.${crypto.createHmac('sha256', crypto.randomBytes(32)).update(body).digest('base64url')}`;
    })();
    for (const [what, token, reason] of [['no token', null, /no bearer token/], ['a token signed with another key', forged, /bad token signature/]]) {
      const callId = `${crypto.randomBytes(8).toString('hex')}@raw.invalid`;
      const req = [`REGISTER sip:${DOMAIN} SIP/2.0`, `Via: SIP/2.0/WS raw.invalid;branch=z9hG4bK${crypto.randomBytes(6).toString('hex')}`,
        'Max-Forwards: 70', `From: <${IMPU}>;tag=${crypto.randomBytes(4).toString('hex')}`, `To: <${IMPU}>`, `Call-ID: ${callId}`, 'CSeq: 1 REGISTER',
        'Contact: <sip:raw@raw.invalid;transport=ws>', 'Expires: 60', ...(token ? [`Authorization: Bearer ${token}`] : []), 'Content-Length: 0', '', ''].join('\r\n');
      const res = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => { ws.off('message', on); reject(new Error(`REGISTER with ${what}: no final answer in 5 s`)); }, 5000);
        function on(d) {
          const m = String(d);
          if (!m.includes(callId) || !/^SIP\/2\.0 [2-6]\d\d /.test(m)) return;
          clearTimeout(timer);
          ws.off('message', on);
          resolve(m);
        }
        ws.on('message', on);
        ws.send(req);
      });
      const first = res.split('\r\n')[0];
      assert.match(first, /^SIP\/2\.0 401 /, `REGISTER with ${what}: expected 401, got: ${first}`);
      assert.match(first, reason, `REGISTER with ${what}: the reason phrase should say why: ${first}`);
      assert.match(res, /^WWW-Authenticate: Bearer realm="[^"]+", error="invalid_token"/m, `REGISTER with ${what}: a Bearer challenge (RFC 6750 §3) expected:\n${res}`);
    }
  } finally {
    ws.close();
  }
});

test(titled('MO call from the WIC to ue1 through the 3GPP core: audio both ways, relayed without transcoding'), { timeout: 30000 }, async () => {
  const callId = await client.call('ue1');
  await client.waitFor('answered', callId, 15000);
  await waitReceiving(client, callId);
  await sleep(MEDIA_MS);
  await assertRelayedWithoutTranscoding(callId, 'MO');
  const sdp = inviteSdpSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), callId);
  assert.match(sdp ?? '', /^m=audio \d+ RTP\/AVP /m, `the core gets plain RTP/AVP at ue1:\n${sdp}`);
  assert.match(pcscfLog(), new RegExp(`P-CSCF originating INVITE sip:ue1@${DOMAIN.replaceAll('.', '\\.')} for ${IMPU.replaceAll('.', '\\.')}`),
    'the P-CSCF asserted the WIC\'s identity and sent the INVITE to its S-CSCF');
  // the WIC's registered set: the P-Associated-URI of the 200 to its REGISTER, as the page received it (RFC 7315)
  const ok = (await wicWire(client)).find((m) => m.dir === 'recv' && m.text.startsWith('SIP/2.0 200') && /^CSeq:\s*\d+ REGISTER/mi.test(m.text))?.text ?? '';
  const identities = [...ok.matchAll(/^P-Associated-URI:\s*(.*)$/gim)].flatMap((m) => m[1].split(','))
    .map((v) => (v.match(/<([^>]+)>/)?.[1] ?? v.trim())).filter(Boolean);
  assert.ok(identities.length > 0, `the 200 to the WIC's REGISTER named no P-Associated-URI:\n${ok}`);
  await assertFarUeAssertedIdentity({ identities, callId, log: path.join(logDir(), 'sipp-uas-ue1-messages.log'), where: 'the INVITE at ue1 from the WIC' });
  client.hangup(callId);
  const ended = await client.waitFor('ended', callId, 5000);
  assert.equal(ended.reason, 'hangup', `ended: ${JSON.stringify(ended)}`);
  await assertNoRelayCall();
});

test(titled('MT call from ue2 to the WIC through the 3GPP core: audio both ways, relayed without transcoding'), { timeout: 40000 }, async () => {
  const mark = await client.mark();
  const ue = startUe('uac', USER, MEDIA_MS + 2000, { timeoutMs: 30000 });
  try {
    const inc = await client.waitFor('incoming', null, 15000, mark);
    assert.match(inc.sdp ?? '', /UDP\/TLS\/RTP\/SAVPF/, `the WIC should be offered DTLS-SRTP by rtpengine:\n${inc.sdp}`);
    await client.answer(inc.callId);
    await waitReceiving(client, inc.callId);
    await assertRelayedWithoutTranscoding(inc.callId, 'MT');
    const ended = await client.waitFor('ended', inc.callId, 15000);
    assert.equal(ended.reason, 'remote-bye', `ue2 hangs up: ${JSON.stringify(ended)}`);
    const u = await ue.done;
    assert.equal(u.code, 0, `SIPp ue2 exit ${u.code}: ${u.output}`);
  } finally {
    ue.kill();
  }
  await assertNoRelayCall();
});

test(titled('the WIC holds and resumes a call to ue8 by re-INVITE through the 3GPP eP-CSCF: no red, rtx or CN/48000 toward IMS, audio after the resume'), { timeout: 40000 }, async () => {
  const callId = await client.call('ue8');
  try {
    await holdAndResumeAtUe8(client, callId);
  } finally {
    client.hangup(callId);
    await client.waitFor('ended', callId, 5000).catch(() => {});
  }
  await assertNoRelayCall();
});

test(titled('every request the WIC sent on the 3GPP core carried the access token (RFC 8898), and the P-CSCF checked it'), { timeout: 10000 }, async () => {
  const b = bearerOnEveryRequest(await wicWire(client));
  for (const m of ['REGISTER', 'INVITE', 'ACK', 'BYE']) assert.ok(b.methods.includes(m), `the WIC sent no ${m} (sent: ${b.methods})`);
  assert.deepEqual(b.missing, [], `requests that went out without Authorization: Bearer: ${b.missing.join('; ')}`);
  const checked = (pcscfLog().match(/eP-CSCF \w+ from [\d.]+:\d+\/wss?: access token valid/g) ?? []).length;
  assert.ok(checked >= b.requests, `the P-CSCF logged ${checked} valid-token checks for the ${b.requests} requests the WIC sent`);
});
