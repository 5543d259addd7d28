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
import { gatewayUrl, logDir } from '../kit/env.mjs';
import { readCredentials } from '../kit/ims-credentials.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import { assertAssertedIdentityRegistered, assertNoRtpengineSession, waitForUeMessage } from '../runner/testkit.mjs';
import { startUe } from '../runner/ue.mjs';

const run = promisify(execFile);
const PCSCF = process.env.LAB_EXT_PCSCF_ADDR || process.env.LAB_EXT_PCSCF || ''; // ADDR:PORT (a --pcscf NAME's first target)
const [PHOST, PPORT] = [PCSCF.slice(0, PCSCF.lastIndexOf(':')), PCSCF.slice(PCSCF.lastIndexOf(':') + 1)];
const TRANSPORT = process.env.LAB_EXT_TRANSPORT || 'udp';
const PEER = process.env.LAB_EXT_PEER || ''; // the second user's login: the far-end UE the lab runs
const PEER_USER = process.env.LAB_EXT_PEER_USER || ''; // its IMPU's user part
const NO_PEER = process.env.LAB_EXT_NO_PEER || 'no second user in the credentials file';
const MO_TO = process.env.LAB_EXT_MO_TO || '';
// The far-end UE's own SIP and RTP ports (on LAB_SIP_HOST, the lab's address toward the P-CSCF): every mode uses the
// same ones, so each registration refreshes the one binding instead of leaving a dead contact behind.
const PEER_SIP_PORT = '5090';
const PEER_RTP_PORT = '6100';
let user;
let browser; let client; let token;
let cap;
let mo = null; // the MO call test's call: {callId, log (the far UE's message log, when the lab ran it)}

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

// SIP messages to/from the P-CSCF in the capture: {src, dst, first, head}
async function sipOnWire(file) {
  const proto = TRANSPORT === 'tcp' ? 'tcp' : 'udp';
  const { stdout } = await run('tshark', ['-r', file, '-n', '-d', `${proto}.port==${PPORT},sip`, '-Y', 'sip', '-T', 'fields', '-E', 'separator=/t',
    '-e', 'ip.src', '-e', 'ip.dst', '-e', 'sip.Request-Line', '-e', 'sip.Status-Line', '-e', 'sip.Expires', '-e', 'sip.Contact', '-e', 'sip.Call-ID', '-e', 'sip.CSeq'],
  { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim().split('\n').filter(Boolean).map((l) => l.split('\t'))
    .map(([src, dst, req, status, expires, contact, callId, cseq]) =>
      ({ src, dst, first: req || status, expires: expires || /;expires=(\d+)/i.exec(contact ?? '')?.[1] || '', callId, cseq }));
}

before(async () => {
  assert.equal(process.env.LAB_IMS, 'external', 'run with ./lab compliance --ims external ...');
  const creds = readCredentials(process.env.LAB_EXT_CREDENTIALS);
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
});

test('registration at the outside IMS: the first user of the credentials file registers its IMPU at the P-CSCF (REGISTER, challenge answered, 200 on the wire)', async () => {
  const reg = (await gw.currentSession(token)).registration;
  assert.ok(reg.expires > 0, JSON.stringify(reg));
  assert.equal(reg.sipFlow[0], 'sent REGISTER', reg.sipFlow.join(', '));
  assert.equal(reg.sipFlow.at(-1), 'recv 200', reg.sipFlow.join(', '));
  if (user.impu) assert.equal(reg.impu, user.impu);
  if (user.kind === 'aka') assert.equal(reg.auth, 'AKAv1-MD5');
  // TS 24.229 §5.1.1.2.1: the 200's P-Associated-URI (the registered IMPU among them), never the login name
  assert.ok(reg.identities?.length > 0, `registered identities: ${JSON.stringify(reg.identities)}`);
  if (user.impu) assert.ok(reg.identities.includes(user.impu), `the registered IMPU ${user.impu} in ${reg.identities.join(', ')}`);
  const wire = await sipOnWire(cap.file);
  const regs = wire.filter((m) => /^REGISTER /.test(m.first));
  assert.ok(regs.length >= 1 && regs.every((m) => m.dst === PHOST), `REGISTERs to ${PHOST}: ${JSON.stringify(regs)}`);
  assert.ok(wire.some((m) => m.src === PHOST && /^SIP\/2\.0 200/.test(m.first) && / REGISTER$/.test(m.cseq)), 'the P-CSCF\'s 200 to REGISTER on the wire');
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
  } finally {
    far?.ue.kill();
  }
  await assertNoRtpengineSession();
});

// RFC 3325 / TS 24.229 §5.2.6.3.3 at the far end: the outside P-CSCF asserted one of the user's registered identities
// (the gateway's From and P-Preferred-Identity are the default one; the login name is none of them)
test('MO call: the called UE got a P-Asserted-Identity from the registered set (P-Associated-URI)', { timeout: 20000, skip: !PEER && NO_PEER }, async () => {
  assert.ok(mo?.callId && mo.log, 'the MO call test made no call to the far-end UE');
  const ids = (await gw.currentSession(token)).registration.identities;
  const invite = await waitForUeMessage(mo.log, mo.callId, /^INVITE /);
  assert.ok(invite, `no INVITE for ${mo.callId} in ${mo.log}`);
  assertAssertedIdentityRegistered(invite, ids, `the INVITE at ${PEER_USER}`);
});

test('MT call from the second user\'s SIPp UE registered at the outside P-CSCF: answered, media both ways, clean end', { timeout: 60000, skip: !PEER && NO_PEER }, async () => {
  const target = (user.impu ?? `sip:${user.login}@`).replace(/^sips?:/, '').replace(/@.*/, '');
  const r = await mtCall(client, { token, user: target, ue: { mode: 'uac', arg: 3000, env: peerEnv(), from: PEER_USER }, hangup: 'ue', maxMs: 20000 });
  assert.equal(r.error, null, r.error);
  assert.equal(r.ue.code, 0, r.ue.output);
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 0 && m.packetsToBrowser > 0, `rtpengine packets ${m.packetsToIms} to IMS, ${m.packetsToBrowser} to the browser`);
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
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
