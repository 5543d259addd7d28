// Integration (./lab compliance --ims external ...): the gateway toward an IMS the lab does not run, using only what
// an outside core gives: the identities of the credentials file (LAB_EXT_CREDENTIALS) and the P-CSCF (LAB_EXT_PCSCF,
// an address or a name found by DNS). The file's first user logs in from the browser; its second user (LAB_EXT_PEER,
// when a SIPp UE can play it) is the far end: the lab's SIPp UEs register that identity at the same P-CSCF
// (sipp-scenarios/run-ue.sh UE_CREDENTIALS/UE_LOGIN, from LAB_SIP_HOST) and answer, call, ring... Evidence comes
// only from what the lab itself has: its capture at the P-CSCF's port, the SIPp UEs' message logs and the gateway's
// events; never a core's log. Without a second user, --call-to USER (LAB_EXT_CALL_TO) is the MO call's far end and
// the checks that need the far UE's view are not applicable (harness/compliance/checks.mjs).
// docs/connecting-your-ims.md, docs/ims-sim.md "External IMS".
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { startCapture } from '../kit/capture.mjs';
import { LAB } from '../kit/addresses.mjs';
import { gatewayUrl, logDir } from '../kit/env.mjs';
import { digestUser, readCredentials } from '../kit/ims-credentials.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import {
  assertNoRtpengineSession, inviteSdpSeenByUe, receivedDuring, responseSdpSeenByUe, timedUeMessages, waitForUeMessage, waitReceiving,
} from '../runner/testkit.mjs';
import { startUe } from '../runner/ue.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const run = promisify(execFile);
const PCSCF = process.env.LAB_EXT_PCSCF_ADDR || process.env.LAB_EXT_PCSCF || ''; // ADDR:PORT or [IPV6]:PORT (a --pcscf NAME's first target)
// its address as tshark prints it (an IPv6 one without brackets, RFC 5952 text as the lab's lookup writes it) and port
const [PHOST, PPORT] = [PCSCF.slice(0, PCSCF.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1'), PCSCF.slice(PCSCF.lastIndexOf(':') + 1)];
// --ipv6: IPv6 on Gm (the lab's SIP side, rtpengine's IMS interface and the far-end UE on IPv6), the browser on IPv4
const IPV6 = process.env.LAB_EXT_IPV6 === '1';
const TRANSPORT = process.env.LAB_EXT_TRANSPORT || 'udp';
const PEER = process.env.LAB_EXT_PEER || ''; // the second user's login: the far-end UE the lab runs
const PEER_USER = process.env.LAB_EXT_PEER_USER || ''; // its IMPU's user part
const NO_PEER = process.env.LAB_EXT_NO_PEER || 'no second user in the credentials file';
const MO_TO = process.env.LAB_EXT_MO_TO || '';
// The far-end UE's own SIP and RTP ports (on LAB_SIP_HOST, the lab's address toward the P-CSCF): every mode uses the
// same ones, so each registration refreshes the one binding instead of leaving a dead contact behind.
const PEER_SIP_PORT = LAB.LAB_UE2_SIP_PORT; // ue2's, the UE that plays the far end
const PEER_RTP_PORT = LAB.LAB_UE2_RTP_PORT;
let user;
let creds;
let browser; let client; let token;
let cap;
let mo = null; // the MO call test's call: {callId, log (the far UE's message log, when the lab ran it)}
// the browser user's IMPU user part: whom the far end calls
const mtTarget = () => (user.impu ?? `sip:${user.login}@`).replace(/^sips?:/, '').replace(/@.*/, '');

const peerEnv = () => ({
  KAMAILIO: PCSCF, UE_CREDENTIALS: process.env.LAB_EXT_CREDENTIALS, UE_LOGIN: PEER, UE_IP: process.env.LAB_SIP_HOST,
  UE_PORT: PEER_SIP_PORT, UE_MPORT: PEER_RTP_PORT, IMS_DOMAIN: process.env.LAB_EXT_DOMAIN,
});
// the message log run-ue.sh gives the far-end UE in a serving mode
const peerLog = (mode) => path.join(logDir(), `sipp-${mode}-${PEER_USER}-messages.log`);

// The far-end UE in a serving mode (uas, volte-uas, uas-dtmf ...), registered at the P-CSCF; {ue, log}. Its failure
// to register says why (run-ue.sh's own line: no keys, REGISTER refused), not a timeout.
async function peerServing(mode, arg = null) {
  const ue = startUe(mode, null, arg, { timeoutMs: 90000, env: peerEnv() });
  try {
    await ue.ready(25000);
  } catch (e) {
    ue.kill();
    const u = await ue.done;
    throw new Error(`the far-end UE (${PEER} as ${mode}) did not register at ${PCSCF}: ${u.output.split('\n').filter((l) => /run-ue:/.test(l)).pop() ?? e.message}`);
  }
  return { ue, log: peerLog(mode) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The messages of the far-end UE's log (sipp -trace_msg) for one call: {dir: 'sent'|'received', first, text}
function wire(log, callId) {
  return timedUeMessages(log).filter((m) => m.text.includes(`Call-ID: ${callId}`)).map(({ text }) => ({
    dir: /message sent/i.test(text) ? 'sent' : 'received',
    first: text.split(/\r?\n/).find((l) => /^(SIP\/2\.0 \d+|[A-Z]+ sip:)/.test(l)) ?? '',
    text,
  }));
}
const header = (text, name) => new RegExp(`^${name}:\\s*(.*)$`, 'mi').exec(text)?.[1]?.trim() ?? null;
// The gateway's messages to the page about one call
const events = async (callId) => (await client.events()).map((e) => e.msg).filter((m) => m.callId === callId);

// An MO call from the browser to the far-end UE serving in `mode`: body(callId, log, mark) once it is answered (or,
// with {answered: false}, once it is placed), hung up and the UE stopped afterwards.
async function callPeer(mode, body, { answered = true, arg = null } = {}) {
  const far = await peerServing(mode, arg);
  let callId = null;
  try {
    const mark = await client.mark();
    callId = await client.call(PEER_USER);
    if (answered) await client.waitFor('answered', callId, 15000, mark);
    await body(callId, far.log, mark);
    await assertFarUeAssertedIdentity({ token, callId, log: far.log, where: `the INVITE at ${PEER_USER} (${mode})` });
  } finally {
    if (callId) {
      await client.hangup(callId).catch(() => {});
      await client.waitFor('ended', callId, 5000).catch(() => {});
      await waitForUeMessage(far.log, callId, /^BYE /); // the BYE still crosses the core after `ended`
    }
    far.ue.kill();
    await far.ue.done;
  }
  return callId;
}

// The address family on Gm as an SDP toward the outside IMS shows it: c=IN IP6 and nothing IPv4 with --ipv6 (rtpengine's
// IMS interface translates, TS 23.334), else c=IN IP4 and nothing IPv6.
function assertImsFamily(sdp, what) {
  assert.ok(sdp, `${what}: no SDP in the far-end UE's message log`);
  const [want, not] = IPV6 ? ['IP6', 'IP4'] : ['IP4', 'IP6'];
  assert.match(sdp, new RegExp(`^c=IN ${want} `, 'm'), `${what}: no c=IN ${want} although Gm is ${IPV6 ? 'IPv6 (--ipv6)' : 'IPv4'}:\n${sdp}`);
  assert.doesNotMatch(sdp, new RegExp(`\\b${not}\\b`), `${what} names ${not} on ${IPV6 ? 'an IPv6' : 'an IPv4'} Gm:\n${sdp}`);
}
// The browser leg stays IPv4 in both runs (the browsers reach --bind, an IPv4 address).
function assertBrowserIpv4(sdp, what) {
  assert.ok(sdp, `${what}: no SDP`);
  assert.match(sdp, /^c=IN IP4 /m, `${what}: the browser leg is not IPv4:\n${sdp}`);
  assert.doesNotMatch(sdp, /^c=IN IP6/m, `${what}: an IPv6 connection line toward the browser:\n${sdp}`);
}

// TS 24.229 §6.1.2 ladder as the gateway sees it (preconditions), the browser or the UE hanging up
const PRECONDITION_LADDER = ['INVITE', '100', '183', 'PRACK', '200', 'UPDATE', '200', '180', '200', 'ACK', 'BYE', '200'];

// SIP messages to/from the P-CSCF in the capture: {src, dst, first, head}
async function sipOnWire(file) {
  const proto = TRANSPORT === 'tcp' ? 'tcp' : 'udp';
  const { stdout } = await run('tshark', ['-r', file, '-n', '-d', `${proto}.port==${PPORT},sip`, '-Y', 'sip', '-T', 'fields', '-E', 'separator=/t',
    '-e', 'ip.src', '-e', 'ip.dst', '-e', 'ipv6.src', '-e', 'ipv6.dst',
    '-e', 'sip.Request-Line', '-e', 'sip.Status-Line', '-e', 'sip.Expires', '-e', 'sip.Contact', '-e', 'sip.Call-ID', '-e', 'sip.CSeq'],
  { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim().split('\n').filter(Boolean).map((l) => l.split('\t'))
    .map(([src4, dst4, src6, dst6, req, status, expires, contact, callId, cseq]) =>
      ({ src: src4 || src6, dst: dst4 || dst6, v6: !src4 && !!src6, first: req || status, expires: expires || /;expires=(\d+)/i.exec(contact ?? '')?.[1] || '', callId, cseq }));
}

before(async () => {
  assert.equal(process.env.LAB_IMS, 'external', 'run with ./lab compliance --ims external ...');
  creds = readCredentials(process.env.LAB_EXT_CREDENTIALS);
  assert.deepEqual(creds.problems, []);
  [user] = creds.users;
  cap = await startCapture(0, 'ims-external', { filter: `${TRANSPORT} port ${PPORT}` });
  await gw.waitHealthy(15000);
  // --bind beyond loopback: the gateway serves https:// with the lab's self-signed certificate (harness/lib/imsext.sh)
  browser = await launchBrowser({ acceptInsecureCerts: gatewayUrl().startsWith('https:') });
  client = await openClient(browser, { name: `test-external-${user.login}` });
  ({ token } = await client.login(user.login, user.password));
});

after(async () => {
  await cap?.stop().catch(() => {});
  await browser?.close();
  // the far-end UE's binding (its contact at LAB_SIP_HOST:PEER_SIP_PORT) is removed: nothing of the lab's stays
  // registered at an outside core (a later run from another address, e.g. over IPv6, would fork to a dead contact)
  if (PEER) {
    const u = await startUe('deregister', null, null, { timeoutMs: 20000, env: peerEnv() }).done;
    if (u.code !== 0) console.error(`ims-external: the far-end UE ${PEER} could not de-register at ${PCSCF}: ${u.output.trim().split('\n').pop()}`);
  }
});

test('registration at the outside IMS: the first user of the credentials file registers its IMPU at the P-CSCF (REGISTER, challenge answered, 200 on the wire)', async () => {
  const reg = (await gw.currentSession(token)).registration;
  assert.ok(reg.expires > 0, JSON.stringify(reg));
  // the REGISTER transaction(s) first; the reg-event SUBSCRIBE and NOTIFY follow (their own check)
  const regFlow = reg.sipFlow.slice(0, reg.sipFlow.findIndex((f) => /SUBSCRIBE|NOTIFY/.test(f)) >>> 0);
  assert.equal(regFlow[0], 'sent REGISTER', reg.sipFlow.join(', '));
  assert.equal(regFlow.at(-1), 'recv 200', reg.sipFlow.join(', '));
  if (user.impu) assert.equal(reg.impu, user.impu);
  if (user.kind === 'aka') assert.equal(reg.auth, 'AKAv1-MD5');
  // TS 24.229 §5.1.1.2.1: the 200's P-Associated-URI (the registered IMPU among them), never the login name
  assert.ok(reg.identities?.length > 0, `registered identities: ${JSON.stringify(reg.identities)}`);
  if (user.impu) assert.ok(reg.identities.includes(user.impu), `the registered IMPU ${user.impu} in ${reg.identities.join(', ')}`);
  assert.equal(PHOST.includes(':'), IPV6, `the P-CSCF ${PCSCF} was reached over ${IPV6 ? 'IPv4, not IPv6 (--ipv6: AAAA)' : 'IPv6, not IPv4'}`);
  const wire = await sipOnWire(cap.file);
  const regs = wire.filter((m) => /^REGISTER /.test(m.first));
  assert.ok(regs.length >= 1 && regs.every((m) => m.dst === PHOST), `REGISTERs to ${PHOST}: ${JSON.stringify(regs)}`);
  assert.ok(wire.some((m) => m.src === PHOST && /^SIP\/2\.0 200/.test(m.first) && / REGISTER$/.test(m.cseq)), 'the P-CSCF\'s 200 to REGISTER on the wire');
});

// RFC 3680 / TS 24.229 §5.1.1.3: the UE (here the gateway) subscribes to its registration state; the outside core's
// answer and NOTIFY, as the gateway's registration flow and the capture at the P-CSCF's port show them
const NO_DIGEST = !process.env.LAB_EXT_DIGEST_USER && 'the credentials file has no digest user with IMPI, IMPU and SIP password';
test('registration with SIP digest at the outside IMS: the credentials file\'s digest user registers (401 MD5, response from the SIP password, 200 on the wire) and its logout de-registers', { timeout: 40000, skip: NO_DIGEST }, async () => {
  const { user: d } = digestUser(creds.users);
  assert.ok(d, 'no digest user in the credentials file');
  // the browser user's own session (`token`) may already be this one: the test then registers nothing new
  const login = d.login === user.login ? { status: 201, body: { token } } : await gw.login(d.login, d.password);
  assert.ok(login.status === 200 || login.status === 201, `${d.login}'s login: HTTP ${login.status} ${JSON.stringify(login.body)}`);
  const t = login.body.token;
  const reg = (await gw.currentSession(t)).registration;
  assert.equal(reg.auth, 'digest', `${d.login} registers by digest: ${JSON.stringify(reg)}`);
  assert.equal(reg.impu, d.impu);
  assert.ok(reg.sipFlow.includes('sent REGISTER (digest response)'), `the 401 was answered with digest: ${reg.sipFlow.join(', ')}`);
  assert.match(reg.sipFlow.find((f) => f.startsWith('recv 401')) ?? '', /MD5/i, `the core challenged with MD5: ${reg.sipFlow.join(', ')}`);
  assert.ok(reg.sipFlow.includes('recv 200'), `registered: ${reg.sipFlow.join(', ')}`);
  assert.ok(reg.identities?.includes(d.impu), `the registered set (P-Associated-URI) holds ${d.impu}: ${reg.identities}`);
  const wire = await sipOnWire(cap.file);
  const challenged = wire.filter((m) => m.src === PHOST && /^SIP\/2\.0 401/.test(m.first));
  assert.ok(challenged.length >= 1, 'a 401 from the P-CSCF on the wire');
  if (d.login !== user.login) {
    assert.equal((await gw.logout(t)).status, 204);
    await sleep(1500);
    const after = await sipOnWire(cap.file);
    const dereg = after.filter((m) => /^REGISTER /.test(m.first) && m.expires === '0');
    assert.ok(dereg.some((r) => after.some((m) => m.callId === r.callId && m.cseq === r.cseq && /^SIP\/2\.0 200/.test(m.first))),
      `${d.login}'s logout: no REGISTER with expiry 0 answered 200 on the wire`);
  }
});

test('reg-event at the outside IMS: after registering, the gateway subscribes to the user\'s registration state (SUBSCRIBE Event: reg), 200 and a NOTIFY with the active registration', async () => {
  let reg;
  for (const end = Date.now() + 6000; ;) {
    reg = (await gw.currentSession(token)).registration;
    if ((reg.regEvent === 'active' && reg.sipFlow.some((f) => f.startsWith('recv NOTIFY'))) || Date.now() > end) break;
    await sleep(200);
  }
  assert.ok(reg.sipFlow.includes('sent SUBSCRIBE (Event: reg)'), `the gateway sent no reg-event SUBSCRIBE: ${reg.sipFlow.join(', ')}`);
  assert.ok(reg.sipFlow.includes('recv 200 (SUBSCRIBE)'), `the core did not accept the SUBSCRIBE: ${reg.sipFlow.join(', ')}`);
  assert.ok(reg.sipFlow.includes('recv NOTIFY (active)'), `no NOTIFY with the active registration: ${reg.sipFlow.join(', ')}`);
  assert.equal(reg.regEvent, 'active');
  const wire = await sipOnWire(cap.file);
  assert.ok(wire.some((m) => /^SUBSCRIBE /.test(m.first) && m.dst === PHOST), 'the SUBSCRIBE went to the P-CSCF (capture)');
  const notify = wire.find((m) => /^NOTIFY /.test(m.first) && m.src === PHOST);
  assert.ok(notify, 'a NOTIFY came from the P-CSCF (capture)');
  assert.ok(wire.some((m) => m.callId === notify.callId && m.cseq === notify.cseq && /^SIP\/2\.0 200/.test(m.first) && m.dst === PHOST), 'the gateway answered the NOTIFY 200 (capture)');
});

test('MO call to a user of the outside IMS (the second user\'s SIPp UE, or --call-to): answered, media both ways through rtpengine, clean end', { timeout: 60000, skip: !MO_TO && `no far end: ${NO_PEER}, and no --call-to` }, async () => {
  const far = PEER ? await peerServing('uas') : null;
  try {
    const r = await moCall(client, { token, from: user.login, to: MO_TO, hangup: 'browser', mediaMs: 3000 });
    mo = { callId: r.callId, log: far?.log ?? null };
    assert.equal(r.error, null, `MO call to ${MO_TO}: ${r.error}`);
    assert.ok(r.answered);
    const m = r.info?.media ?? {};
    assert.ok(m.packetsToIms > 0 && m.packetsToBrowser > 0, `rtpengine packets ${m.packetsToIms} to IMS, ${m.packetsToBrowser} to the browser`);
    assert.ok(r.browser?.packetsSent > 0 && r.browser?.packetsReceived > 0, `browser sent ${r.browser?.packetsSent}, received ${r.browser?.packetsReceived}`);
    assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
    if (far) assert.ok(await waitForUeMessage(far.log, r.callId, /^BYE /), `the far-end UE got no BYE for ${r.callId} (${far.log})`);
    if (far) assertImsFamily(inviteSdpSeenByUe(far.log, r.callId), `the INVITE at ${PEER_USER}`);
    assertBrowserIpv4(r.answerSdp, 'the answer the browser got');
  } finally {
    far?.ue.kill();
  }
  await assertNoRtpengineSession();
});

// RFC 3325 / TS 24.229 §5.2.6.3.3 at the far end: the outside P-CSCF asserted one of the user's registered identities
// (the gateway's From and P-Preferred-Identity are the default one; the login name is none of them)
test('MO call: the called UE got a P-Asserted-Identity from the registered set (P-Associated-URI)', { timeout: 20000, skip: !PEER && NO_PEER }, async () => {
  assert.ok(mo?.callId && mo.log, 'the MO call test made no call to the far-end UE');
  await assertFarUeAssertedIdentity({ token, callId: mo.callId, log: mo.log, where: `the INVITE at ${PEER_USER}` });
});

test('MT call from the second user\'s SIPp UE registered at the outside P-CSCF: answered, media both ways, clean end', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  const r = await mtCall(client, { token, user: mtTarget(), ue: { mode: 'uac', arg: 3000, env: peerEnv(), from: PEER_USER }, hangup: 'ue', maxMs: 20000 });
  assert.equal(r.error, null, r.error);
  assert.equal(r.ue.code, 0, r.ue.output);
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 0 && m.packetsToBrowser > 0, `rtpengine packets ${m.packetsToIms} to IMS, ${m.packetsToBrowser} to the browser`);
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  assertImsFamily(responseSdpSeenByUe(path.join(logDir(), `sipp-uac-${mtTarget()}-messages.log`), r.callId), `the 200 at ${PEER_USER}`);
  assertBrowserIpv4(r.incomingSdp, 'the offer the browser got');
  await assertNoRtpengineSession();
});

// RFC 4028 through the outside core: the far-end UE answers with Session-Expires 4;refresher=uac (run-ue.sh uas-timer),
// the gateway refreshes by UPDATE without a new offer to the browser
test('session timers toward the outside IMS: INVITE with Supported: timer and Session-Expires; the far end sets 4 s, refresher=uac: the gateway refreshes by UPDATE', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  let log;
  const callId = await callPeer('uas-timer', async (id, l) => {
    log = l;
    await sleep(5200); // refreshes at 2 s and 4 s
    const types = (await events(id)).map((e) => e.type);
    assert.ok(!types.includes('ended'), `the call is up after more than one interval: ${types}`);
    assert.ok(!types.includes('reoffer') && !types.includes('reanswer'), `the browser saw no refresh: ${types}`);
  });
  const w = wire(log, callId);
  const inv = w.find((m) => m.dir === 'received' && /^INVITE /.test(m.first));
  assert.ok(inv, `the far end got no INVITE for ${callId}`);
  assert.match(inv.text, /^Supported:.*timer/mi, 'Supported: timer on the INVITE as the far end got it');
  assert.ok(header(inv.text, 'Session-Expires'), 'Session-Expires on the INVITE as the far end got it');
  const updates = w.filter((m) => m.dir === 'received' && /^UPDATE /.test(m.first));
  assert.ok(updates.length >= 2, `the gateway refreshed at half the interval: ${updates.length} UPDATE(s) reached the far end`);
  for (const u of updates) {
    assert.equal(header(u.text, 'Session-Expires'), '4;refresher=uac');
    assert.doesNotMatch(u.text, /^Content-Type: application\/sdp/mi, 'a refresh UPDATE carries no SDP');
  }
  await assertNoRtpengineSession();
});

test('early media toward the outside IMS: the far end\'s 183 with SDP (no 100rel) reaches the browser as progress and its audio plays; the 200\'s changed SDP is followed', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  let log;
  const callId = await callPeer('uas-early', async (id, l, mark) => {
    log = l;
    const progress = await client.waitFor('progress', id, 15000, mark);
    assert.equal(progress.sipCode, 183);
    assert.match(progress.sdp ?? '', /UDP\/TLS\/RTP\/SAVPF/, 'the early answer, as rtpengine made it for the browser');
    // the far end echoes on its 183's port only: what comes back before the 200 is early media
    assert.ok(await receivedDuring(client, id, 2000) > 20, 'early media: the far end echoes the browser\'s audio before the 200');
    await client.waitFor('answered', id, 10000, mark);
    await sleep(500);
    const after = await receivedDuring(client, id, 1500);
    assert.ok(after < 5, `rtpengine follows the 200's SDP (a port where the far end echoes nothing): ${after} packets came back`);
  }, { answered: false });
  const w = wire(log, callId);
  assert.ok(w.some((m) => m.dir === 'received' && /^BYE /.test(m.first)), 'the hang-up reached the far end');
  assert.ok(!w.some((m) => m.dir === 'received' && /^PRACK /.test(m.first)), 'an unreliable 183 is not PRACKed');
  await assertNoRtpengineSession();
});

test('preconditions toward a precondition UE of the outside IMS (MO): 183 (100rel) -> PRACK -> UPDATE when the browser leg is up -> 180 -> 200, media both ways', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  const far = await peerServing('volte-uas');
  try {
    const r = await moCall(client, { token, from: user.login, to: PEER_USER, hangup: 'browser', mediaMs: 2500 });
    assert.equal(r.error, null, r.error);
    assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, JSON.stringify(r.info.media));
    assert.equal(r.info.preconditions, true, 'the call was set up with preconditions');
    assert.deepEqual(r.info.sipFlow, PRECONDITION_LADDER);
    assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
    await assertFarUeAssertedIdentity({ token, callId: r.callId, log: far.log, where: `the INVITE at ${PEER_USER} (volte-uas)` });
  } finally {
    far.ue.kill();
    await far.ue.done;
  }
  await assertNoRtpengineSession();
});

test('preconditions from a precondition UE of the outside IMS (MT): reliable 183 with a=conf, PRACK, UPDATE answered, alerting only then, media both ways', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  const r = await mtCall(client, { token, user: mtTarget(), ue: { mode: 'volte-uac', arg: 2500, env: peerEnv(), from: PEER_USER }, hangup: 'ue', maxMs: 20000 });
  assert.equal(r.error, null, r.error);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, JSON.stringify(r.info.media));
  assert.equal(r.info.preconditions, true);
  assert.deepEqual(r.info.sipFlow, PRECONDITION_LADDER); // 180 (and `alerting`) only after the UPDATE
  await assertNoRtpengineSession();
});

test('DTMF from the outside IMS: the far end sends RFC 4733 digits 2 6 * on a relayed call, the browser gets one WebSocket dtmf per digit', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  const DIGITS = '26*'; // run-ue.sh uas-dtmf's default
  await callPeer('uas-dtmf', async (id, _log, mark) => {
    const got = [];
    for (let i = 0; i < DIGITS.length; i++) got.push(await client.waitFor('dtmf', id, 8000, mark));
    assert.equal(got.map((m) => m.digit).join(''), DIGITS);
    for (const m of got) assert.equal(m.source, 'ims');
    await sleep(500);
    const all = (await client.events()).slice(mark).filter((e) => e.msg.type === 'dtmf' && e.msg.callId === id);
    assert.equal(all.length, DIGITS.length, `one dtmf per digit, not per packet: ${JSON.stringify(all.map((e) => e.msg))}`);
  });
  await assertNoRtpengineSession();
});

test('hold toward the outside IMS: the browser holds (re-INVITE a=sendonly) and resumes (a=sendrecv) through the core; audio stops and flows again', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  const dirs = (m) => m.transceivers.filter((t) => t.kind === 'audio').map((t) => t.currentDirection);
  let log;
  const callId = await callPeer('uas-reinvite', async (id, l) => {
    log = l;
    await waitReceiving(client, id);
    await client.reoffer(id, { direction: 'sendonly' });
    assert.deepEqual(dirs(await client.media(id)), ['sendonly']);
    assert.ok(await receivedDuring(client, id, 1500) < 5, 'nothing is played to the browser on hold');
    await client.reoffer(id, { direction: 'sendrecv' });
    assert.deepEqual(dirs(await client.media(id)), ['sendrecv']);
    await waitReceiving(client, id, { ms: 15000 }).catch(async (e) => {
      const m = await client.media(id);
      throw new Error(`after the resume: ${e.message} (ICE ${m.iceConnectionState}, directions ${dirs(m)})`);
    });
    assert.ok(await receivedDuring(client, id, 1500) > 20, 'audio flows again after the resume');
  });
  const invites = wire(log, callId).filter((m) => m.dir === 'received' && /^INVITE /.test(m.first))
    .map((m) => /a=(sendrecv|sendonly|recvonly|inactive)/.exec(m.text)?.[1] ?? 'sendrecv');
  assert.deepEqual(invites, ['sendrecv', 'sendonly', 'sendrecv'], 'INVITE, hold and resume re-INVITEs as the far end got them');
  await assertNoRtpengineSession();
});

test('logout de-registers at the outside IMS: REGISTER with expiry 0 answered 200 on the wire', async () => {
  assert.equal((await gw.logout(token)).status, 204);
  token = null;
  await new Promise((r) => setTimeout(r, 1500));
  const wire = await sipOnWire(cap.file);
  const dereg = wire.filter((m) => /^REGISTER /.test(m.first) && m.expires === '0');
  assert.ok(dereg.length >= 1, `no REGISTER with expiry 0: ${JSON.stringify(wire.filter((m) => /REGISTER/.test(m.first + m.cseq)))}`);
  const last = dereg.at(-1);
  assert.ok(wire.some((m) => m.callId === last.callId && m.cseq === last.cseq && /^SIP\/2\.0 200/.test(m.first)), 'the de-REGISTER got 200');
});
