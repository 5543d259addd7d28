// Integration (./lab test --ims 3gpp): the gateway on the 3GPP IMS core of ims-sim/3gpp (P-CSCF →
// I-CSCF → S-CSCF, HSS over Cx): it registers its users with IMS-AKA (AKAv1-MD5, Milenage, RFC 3310)
// from ims-sim/3gpp/gateway-credentials.txt, resynchronises a stale SQN with AUTS, and MO/MT calls
// cross the whole core with media both ways. TS 24.371 §6's other scenarios: web authentication (erin,
// trusted node authentication) and guests from the identity pool; the reg-event subscription (RFC 3680)
// and a network-initiated de-registration ending a session. Checked on the gateway's API, the UEs' message logs and
// the logs of the core's nodes (LAB_LOGDIR/ims3gpp/). Needs LAB_IMS=3gpp (run only by --ims 3gpp).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { LAB, asPattern } from '../kit/addresses.mjs';
import { gatewayUrl, logDir } from '../kit/env.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { assertNoRtpengineSession, hopsOf, loggedInPage, messageSeenByUe } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'alice';
const MEDIA_MS = 3000;
const core = (f) => path.join(logDir(), 'ims3gpp', f);
const coreLog = (f) => fs.readFileSync(core(f), 'utf8');
// the core's addresses and ports, from the lab's table (harness/addresses.env)
const [PCSCF_HOST, PCSCF_PORT] = LAB.LAB_PCSCF.split(':');
const SCSCF_PORT = LAB.LAB_IMS3_SCSCF_PORT;
const GW_SIP = `${LAB.LAB_LOOPBACK}:${LAB.LAB_GW_SIP_PORT}`;
let page;

before(async () => {
  assert.equal(process.env.LAB_IMS, '3gpp', 'run with ./lab test --ims 3gpp');
  page = await loggedInPage(USER, 'test-ims3gpp-alice');
});

after(async () => page?.close());

// sipp and the nodes write their logs as messages come: poll a little.
async function eventually(what, check, ms = 3000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) assert.fail(`not seen within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function assertGoodCall(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 0 && m.packetsToBrowser > 0, `rtpengine packets ${m.packetsToIms} to IMS, ${m.packetsToBrowser} to the browser`);
  assert.ok(r.browser?.packetsSent > 0 && r.browser?.packetsReceived > 0, `browser sent ${r.browser?.packetsSent}, received ${r.browser?.packetsReceived}`);
  assert.ok(endedCleanly(r.ended), `ended cleanly: ${JSON.stringify(r.ended)}`);
}

test('the gateway registered alice with IMS-AKA: 401 AKAv1-MD5, response from RES, 200 (UAR, MAR, SAR at the HSS)', async () => {
  const s = await gw.currentSession(page.token);
  const reg = s.registration;
  assert.equal(reg.auth, 'AKAv1-MD5');
  assert.equal(reg.impi, 'alice@ims.lab');
  assert.equal(reg.impu, 'sip:alice@ims.lab');
  assert.deepEqual(reg.sipFlow.slice(0, 4), ['sent REGISTER', 'recv 401 (AKAv1-MD5)', 'sent REGISTER (AKA response)', 'recv 200'], reg.sipFlow.join(', '));
  assert.ok(reg.expires > 0, `expires ${reg.expires}`);
  const hss = coreLog('hss.log');
  assert.match(hss, /UAR alice@ims\.lab sip:alice@ims\.lab -> 200[12]/);
  assert.match(hss, /MAR alice@ims\.lab vector 1 sqn=[0-9a-f]{12}/);
  assert.match(hss, new RegExp(`SAR alice@ims\\.lab sip:alice@ims\\.lab type=1 server=sip:scscf\\.ims\\.lab:${SCSCF_PORT} -> 2001`));
  assert.match(coreLog('scscf.log'), /S-CSCF REGISTER sip:alice@ims\.lab authenticated, SAR/);
});

test('MO alice -> ue1 through P-CSCF, S-CSCF, I-CSCF (LIR), S-CSCF, P-CSCF; P-Asserted-Identity at ue1; media both ways', { timeout: 40000 }, async () => {
  const r = await moCall(page.client, { token: page.token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS });
  assertGoodCall(r);
  const invite = await eventually('the INVITE at ue1', () => messageSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), r.callId, /^INVITE /));
  // TS 24.229 §5.2.6.3.3: the P-CSCF asserts the registered identity of the gateway's user
  assert.match(invite, /^P-Asserted-Identity: <sip:alice@ims\.lab>/m, invite);
  await assertFarUeAssertedIdentity({ token: page.token, callId: r.callId, ue: 'ue1' });
  // P-CSCF (MT), S-CSCF (MT), S-CSCF (MO), P-CSCF (MO) record-route
  assert.deepEqual(hopsOf(invite, 'Record-Route'), [PCSCF_PORT, SCSCF_PORT, SCSCF_PORT, PCSCF_PORT].map((p) => `${PCSCF_HOST}:${p}`), invite);
  assert.match(coreLog('pcscf.log'), /P-CSCF originating INVITE sip:ue1@ims\.lab for sip:alice@ims\.lab/);
  assert.match(coreLog('icscf.log'), /I-CSCF LIR for sip:ue1@ims\.lab/);
  assert.match(coreLog('hss.log'), new RegExp(`LIR sip:ue1@ims\\.lab server=sip:scscf\\.ims\\.lab:${SCSCF_PORT} -> 2001`));
  await assertNoRtpengineSession();
});

test('MT ue2 -> alice (ue2 registered with IMS-AKA) reaches the gateway through the core; media both ways', { timeout: 45000 }, async () => {
  const r = await mtCall(page.client, { token: page.token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS }, hangup: 'ue', maxMs: 15000 });
  assertGoodCall(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  const reg = fs.readFileSync(path.join(logDir(), 'sipp-register-ue2-messages.log'), 'utf8');
  assert.match(reg, /WWW-Authenticate: Digest .*algorithm=AKAv1-MD5/);
  assert.deepEqual(r.assertedIdentity, ['sip:ue2@ims.lab'], 'the identity the P-CSCF asserted reaches the browser');
  assert.match(coreLog('pcscf.log'), /P-CSCF originating INVITE sip:alice@ims\.lab for sip:ue2@ims\.lab/);
  // to alice's registered Contact, whose user part is random per registration (docs/security.md "SIP sources")
  const contact = await gw.contactUser(page.token);
  assert.match(coreLog('pcscf.log'), new RegExp(`P-CSCF terminating INVITE sip:${contact}@${asPattern(GW_SIP)}`));
  assert.match(coreLog('hss.log'), new RegExp(`LIR sip:alice@ims\\.lab server=sip:scscf\\.ims\\.lab:${SCSCF_PORT} -> 2001`));
  await assertNoRtpengineSession();
});

test("bob's USIM is ahead of the HSS: the gateway answers with AUTS, the HSS resynchronises, bob registers", async () => {
  const res = await gw.login('bob', 'bob-secret');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const { token } = res.body;
  try {
    const reg = (await gw.currentSession(token)).registration;
    assert.deepEqual(reg.sipFlow.slice(0, 6), ['sent REGISTER', 'recv 401 (AKAv1-MD5)', 'sent REGISTER (AUTS resync)', 'recv 401 (AKAv1-MD5)',
      'sent REGISTER (AKA response)', 'recv 200'], reg.sipFlow.join(', '));
    // gateway-credentials.txt: bob's SQN_MS is 0x400, so the HSS continues from SQN_MS + 1
    assert.match(coreLog('hss.log'), /MAR bob@ims\.lab vector 1 after resync \(AUTS verified\) sqn=000000000401/);
    assert.match(coreLog('scscf.log'), /S-CSCF REGISTER sip:bob@ims\.lab: resynchronisation \(AUTS\)/);
  } finally {
    await gw.logout(token);
  }
});

test('the gateway checks the web password itself: wrong password or unknown user -> 401, nothing sent to IMS, alice stays logged in', async () => {
  const registers = () => coreLog('pcscf.log').split('\n').filter((l) => /REQ REGISTER/.test(l)).length;
  // bob's de-REGISTER (logout above) is sent after the logout returned: wait until the count settles
  let before = -1;
  for (let n = registers(); n !== before; n = registers()) {
    before = n;
    await new Promise((r) => setTimeout(r, 700));
  }
  for (const [user, password] of [['alice', 'not-alice-secret'], ['mallory', 'mallory-secret']]) {
    const res = await gw.login(user, password);
    assert.equal(res.status, 401, `${user}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'auth-failed');
  }
  assert.equal(registers(), before, 'no REGISTER reached the P-CSCF');
  assert.equal((await gw.currentSession(page.token)).user, USER, "alice's session survived the wrong password");
});

// --- TS 24.371 §6 registration scenarios beyond IMS-AKA, and the reg-event package (RFC 3680) ---

// Sends one SIP request (PORT in it = our UDP port) to the P-CSCF from a fresh UDP socket, as a UE that is not
// the gateway would: {reply: the first final response, port}.
async function sipExchange(text) {
  const dgram = await import('node:dgram');
  const sock = dgram.createSocket('udp4');
  await new Promise((r) => sock.bind(0, '127.0.0.1', r));
  const port = sock.address().port;
  try {
    const reply = await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no final answer from the P-CSCF within 5 s')), 5000);
      sock.on('message', (m) => { const s = m.toString(); if (!/^SIP\/2\.0 1\d\d/.test(s)) { clearTimeout(t); resolve(s); } });
      sock.send(text.replaceAll('PORT', String(port)), Number(PCSCF_PORT), PCSCF_HOST);
    });
    return { reply, port };
  } finally {
    sock.close();
  }
}

test('web authentication: erin logs in with web credentials; the gateway (WAF) registers sip:erin@ims.lab by trusted node authentication: one REGISTER with auth-done, 200 without a 401, no MAR at the HSS', async () => {
  const res = await gw.login('erin', 'erin-secret');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const { token } = res.body;
  try {
    const reg = (await gw.currentSession(token)).registration;
    assert.equal(reg.auth, 'trusted-node');
    assert.equal(reg.scenario, 'web');
    assert.equal(reg.impi, 'erin@ims.lab');
    assert.equal(reg.impu, 'sip:erin@ims.lab');
    assert.deepEqual(reg.sipFlow.slice(0, 2), ['sent REGISTER (auth-done)', 'recv 200'], reg.sipFlow.join(', '));
    assert.ok(!reg.sipFlow.some((f) => /401/.test(f)), `no challenge: ${reg.sipFlow.join(', ')}`);
    assert.match(coreLog('pcscf.log'), new RegExp(`P-CSCF REGISTER sip:erin@ims\\.lab auth-done from trusted node ${asPattern(GW_SIP)}`));
    assert.match(coreLog('scscf.log'), /S-CSCF REGISTER sip:erin@ims\.lab: trusted node authentication \(auth-done\), no challenge, SAR/);
    const hss = coreLog('hss.log');
    assert.match(hss, new RegExp(`SAR erin@ims\\.lab sip:erin@ims\\.lab type=1 server=sip:scscf\\.ims\\.lab:${SCSCF_PORT} -> 2001`));
    assert.doesNotMatch(hss, /MAR erin@ims\.lab/, 'the S-CSCF fetched no AKA vectors for erin');
  } finally {
    await gw.logout(token);
  }
});

test('trusted node authentication only from the trusted node: auth-done from another address:port gets 403 at the P-CSCF; the HSS refuses MAR for a tna subscriber', async () => {
  const callId = `h6-untrusted-${Date.now()}`;
  const msg = [
    'REGISTER sip:ims.lab SIP/2.0',
    `Via: SIP/2.0/UDP 127.0.0.1:PORT;rport;branch=z9hG4bK-${callId}`,
    'Max-Forwards: 70',
    'From: <sip:alice@ims.lab>;tag=h6',
    'To: <sip:alice@ims.lab>',
    `Call-ID: ${callId}`,
    'CSeq: 1 REGISTER',
    'Contact: <sip:alice@127.0.0.1:PORT>',
    'Expires: 60',
    'Authorization: Digest username="alice@ims.lab", realm="ims.lab", nonce="", uri="sip:ims.lab", response="", integrity-protected="auth-done"',
    'Content-Length: 0', '', ''].join('\r\n');
  const { reply, port } = await sipExchange(msg);
  assert.match(reply, /^SIP\/2\.0 403 Forbidden - auth-done only from a trusted node/, reply);
  assert.match(coreLog('pcscf.log'), new RegExp(`REGISTER sip:alice@ims\\.lab with auth-done from untrusted 127\\.0\\.0\\.1:${port} refused`));
  // without auth-done the S-CSCF asks the HSS for AKA vectors: erin's subscription is tna, the HSS refuses the MAR
  const { reply: plain } = await sipExchange(msg.replace(/alice/g, 'erin').replace(/^Authorization: .*\r\n/m, '').replaceAll(callId, `${callId}-2`));
  assert.match(plain, /^SIP\/2\.0 [45]\d\d /, plain);
  assert.doesNotMatch(plain, /^SIP\/2\.0 401 /, 'no AKA challenge for a tna subscription');
  assert.match(coreLog('hss.log'), /MAR erin@ims\.lab: scheme tna \(trusted node authentication\), no AKA vectors/);
});

test('identity pool: two guests get sip:guest1 and sip:guest2 (trusted node authentication), a third gets 503 pool-exhausted, a logged-out identity is de-registered and reused', async () => {
  const guest = () => fetch(`${gatewayUrl()}/api/v1/sessions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ guest: true }),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const g1 = await guest();
  assert.equal(g1.status, 201, JSON.stringify(g1.body));
  const g2 = await guest();
  assert.equal(g2.status, 201, JSON.stringify(g2.body));
  const tokens = [g1.body.token, g2.body.token];
  try {
    const r1 = (await gw.currentSession(g1.body.token)).registration;
    const r2 = (await gw.currentSession(g2.body.token)).registration;
    assert.deepEqual([g1.body.user, g2.body.user], ['guest1', 'guest2']);
    assert.deepEqual([r1.impu, r2.impu], ['sip:guest1@ims.lab', 'sip:guest2@ims.lab']);
    for (const r of [r1, r2]) {
      assert.equal(r.scenario, 'pool');
      assert.equal(r.auth, 'trusted-node');
      assert.deepEqual(r.sipFlow.slice(0, 2), ['sent REGISTER (auth-done)', 'recv 200'], r.sipFlow.join(', '));
    }
    const g3 = await guest();
    assert.equal(g3.status, 503, JSON.stringify(g3.body));
    assert.equal(g3.body.code, 'pool-exhausted');
    assert.equal((await gw.logout(g1.body.token)).status, 204);
    tokens.shift();
    // the logout de-REGISTERs guest1 (SAR user deregistration at the HSS) before the identity goes back
    await eventually('guest1 de-registered at the HSS', () => /SAR guest1@ims\.lab sip:guest1@ims\.lab type=(2|3|4|5|11|12) /.test(coreLog('hss.log')), 5000);
    let g4;
    for (let i = 0; i < 20; i++) {
      g4 = await guest();
      if (g4.status !== 503) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(g4.status, 201, JSON.stringify(g4.body));
    tokens.push(g4.body.token);
    assert.equal(g4.body.user, 'guest1', 'the freed identity is reused');
    assert.equal((await gw.currentSession(g4.body.token)).registration.impu, 'sip:guest1@ims.lab');
  } finally {
    for (const t of tokens) await gw.logout(t);
  }
});

test("reg-event (RFC 3680): after registering, the gateway subscribed to alice's registration state at the S-CSCF; 200 and a NOTIFY with her active registration", async () => {
  let s;
  const end = Date.now() + 5000;
  do {
    s = (await gw.currentSession(page.token)).registration;
    if (s.regEvent === 'active' && s.sipFlow.some((f) => f.startsWith('recv NOTIFY'))) break;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < end);
  assert.equal(s.regEvent, 'active', s.sipFlow.join(', '));
  const i = s.sipFlow.indexOf('sent SUBSCRIBE (Event: reg)');
  assert.ok(i > 0 && s.sipFlow.indexOf('recv 200') < i, s.sipFlow.join(', '));
  assert.ok(s.sipFlow.includes('recv 200 (SUBSCRIBE)'), s.sipFlow.join(', '));
  assert.ok(s.sipFlow.some((f) => /^recv NOTIFY \(active\)$/.test(f)), s.sipFlow.join(', '));
  assert.match(coreLog('scscf.log'), /S-CSCF reg-event SUBSCRIBE sip:alice@ims\.lab from sip:alice@ims\.lab accepted/);
});

test("network-initiated de-registration: the HSS de-registers erin (RTR), the S-CSCF's reg-event NOTIFY ends erin's session with reason network-deregistered on the WebSocket and his call with a BYE", { timeout: 45000 }, async () => {
  const erin = await loggedInPage('erin', 'test-ims3gpp-erin');
  try {
    const end = Date.now() + 5000;
    while ((await gw.currentSession(erin.token)).registration.regEvent !== 'active' && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    const callId = await erin.client.call('ue1');
    await erin.client.waitFor('answered', callId, 15000);
    await assertFarUeAssertedIdentity({ token: erin.token, callId, ue: 'ue1' });
    const mark = await erin.client.mark();
    // the HSS de-registers erin (TS 29.228 6.1.3 RTR to the S-CSCF); the S-CSCF NOTIFYs its watchers
    fs.writeFileSync(core('run/hss/control'), 'rtr sip:erin@ims.lab\n');
    await eventually('the RTR answered', () => /RTA sip:erin@ims\.lab -> 2001/.test(coreLog('hss.log')), 5000);
    const ended = await erin.client.waitFor('session-ended', null, 10000, mark);
    assert.equal(ended.reason, 'network-deregistered', JSON.stringify(ended));
    assert.match(ended.message, /de-registered erin/);
    assert.equal(ended.event, 'terminated', 'reginfo: the registration of sip:erin@ims.lab is terminated');
    const callEnded = await erin.client.waitFor('ended', callId, 10000, mark);
    assert.equal(callEnded.reason, 'network-deregistered', JSON.stringify(callEnded));
    await eventually('the BYE at ue1', () => messageSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), callId, /^BYE /), 5000);
    const gone = await fetch(`${gatewayUrl()}/api/v1/sessions/current`, { headers: { authorization: `Bearer ${erin.token}` } });
    assert.equal(gone.status, 401, 'the session is gone');
  } finally {
    await erin.close();
  }
});

// frank logs in as "frank", but his IMPUs (gateway-credentials.txt, the HSS's implicit set) are sip:+15550100@ims.lab
// and tel:+15550100: an INVITE from sip:frank@ims.lab (the login, as before) is refused by the P-CSCF (403, From
// not a registered identity), so these calls pass only when the gateway calls as a registered identity.
// With alice logged in from the same gateway address: Kamailio 5.6's P-CSCF keeps one registration per source
// host:port unless the Contact URIs' rinstance differs; the gateway's Contacts carry their registration's random
// user part as rinstance, so frank's INVITE is matched to his own registration, not alice's (which would be 403).
test('login ≠ IMPU, alice logged in from the same gateway: frank calls as his default identity and as his tel URI; ue1 gets each as P-Asserted-Identity, in the registered set; MT to sip:+15550100 reaches him; alice still calls after his logout', { timeout: 60000 }, async () => {
  assert.ok((await gw.currentSession(page.token)).registration, 'alice is logged in and registered during frank\'s calls');
  const browser = await launchBrowser();
  try {
    const client = await openClient(browser, { name: 'test-ims3gpp-frank' });
    const { token } = await client.login('frank', 'frank-secret');
    const reg = (await gw.currentSession(token)).registration;
    assert.equal(reg.impu, 'sip:+15550100@ims.lab', JSON.stringify(reg));
    // TS 24.229 §5.1.1.2.1: the 200's P-Associated-URI, the default first
    assert.deepEqual(reg.identities, ['sip:+15550100@ims.lab', 'tel:+15550100'], 'the implicit registration set of the 200');
    const ue1Log = path.join(logDir(), 'sipp-uas-ue1-messages.log');
    for (const identity of [null, 'tel:+15550100']) {
      const r = await moCall(client, { token, from: identity ?? 'frank', to: 'ue1', hangup: 'browser', mediaMs: 1000, callOptions: identity ? { identity } : {} });
      assertGoodCall(r);
      const pai = await assertFarUeAssertedIdentity({ identities: reg.identities, callId: r.callId, log: ue1Log, where: `the INVITE at ue1 calling as ${identity ?? 'the default identity'}` });
      assert.ok(pai.includes(identity ?? reg.identities[0]), `asserted ${pai.join(', ')}, asked for ${identity ?? reg.identities[0]}`);
      await assertNoRtpengineSession();
    }
    const mt = await mtCall(client, { token, user: '+15550100', ue: { mode: 'uac', arg: 1000 }, hangup: 'ue', maxMs: 15000 });
    assertGoodCall(mt);
    assert.equal(mt.ue.code, 0, `SIPp exit ${mt.ue.code}: ${mt.ue.output}`);
    await assertNoRtpengineSession();
    await client.logout().catch(() => {}); // (the page closes its socket first: the gateway may end the session before the DELETE)
  } finally {
    await browser.close();
  }
  // frank's de-REGISTER removed his registration at the P-CSCF, not alice's (same host:port, another rinstance)
  const r = await moCall(page.client, { token: page.token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 500 });
  assertGoodCall(r);
  await assertFarUeAssertedIdentity({ token: page.token, callId: r.callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});
