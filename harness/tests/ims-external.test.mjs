// Integration (./lab compliance --ims external ...): the gateway toward an IMS the lab does not run.
// Only what an outside core allows: the first user of the credentials file (LAB_EXT_CREDENTIALS) logs in,
// the gateway registers its IMPU at the P-CSCF (LAB_EXT_PCSCF) and de-registers it at logout, both seen
// on the wire (tcpdump on the P-CSCF's port); an MO call to LAB_EXT_CALL_TO (--call-to) and an MT call
// from the lab's SIPp ue2 registered at that P-CSCF (--sipp-caller, only against the lab's own 3GPP core
// run separately) with media both ways. Nothing here reads a core's log or needs a UE of ours, except the
// P-Asserted-Identity check at the called UE, which reads that UE's SIPp message log when the harness runs it
// (LAB_EXT_CALLEE_LOG: harness/tests/ims-external.sh). docs/ims-sim.md "External IMS", "Registered identities".
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { startCapture } from '../kit/capture.mjs';
import { gatewayUrl, labRoot } from '../kit/env.mjs';
import { readCredentials } from '../kit/ims-credentials.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import { assertAssertedIdentityRegistered, assertNoRtpengineSession, waitForUeMessage } from '../runner/testkit.mjs';

const run = promisify(execFile);
const PCSCF = process.env.LAB_EXT_PCSCF_ADDR || process.env.LAB_EXT_PCSCF || ''; // ADDR:PORT (a --pcscf NAME's first target)
const [PHOST, PPORT] = [PCSCF.slice(0, PCSCF.lastIndexOf(':')), PCSCF.slice(PCSCF.lastIndexOf(':') + 1)];
const TRANSPORT = process.env.LAB_EXT_TRANSPORT || 'udp';
let user;
let browser; let client; let token;
let cap;
let moCallId = null;

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

const callTo = process.env.LAB_EXT_CALL_TO;
test('MO call to the --call-to user of the outside IMS: answered, media both ways through rtpengine, clean end', { timeout: 40000, skip: !callTo && 'no --call-to' }, async () => {
  const r = await moCall(client, { token, from: user.login, to: callTo, hangup: 'browser', mediaMs: 3000 });
  moCallId = r.callId;
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered);
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 0 && m.packetsToBrowser > 0, `rtpengine packets ${m.packetsToIms} to IMS, ${m.packetsToBrowser} to the browser`);
  assert.ok(r.browser?.packetsSent > 0 && r.browser?.packetsReceived > 0, `browser sent ${r.browser?.packetsSent}, received ${r.browser?.packetsReceived}`);
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  await assertNoRtpengineSession();
});

// RFC 3325 / TS 24.229 §5.2.6.3.3 at the far end: the outside P-CSCF asserted one of the user's registered identities
// (the gateway's From and P-Preferred-Identity are the default one; the login name is none of them)
const calleeLog = process.env.LAB_EXT_CALLEE_LOG;
test('MO call: the called UE got a P-Asserted-Identity from the registered set (P-Associated-URI)', { timeout: 20000, skip: (!callTo && 'no --call-to') || (!calleeLog && 'no message log of the called UE (LAB_EXT_CALLEE_LOG): only when the lab runs that UE') }, async () => {
  assert.ok(moCallId, 'the MO call test made no call');
  const ids = (await gw.currentSession(token)).registration.identities;
  const invite = await waitForUeMessage(calleeLog, moCallId, /^INVITE /);
  assert.ok(invite, `no INVITE for ${moCallId} in ${calleeLog}`);
  assertAssertedIdentityRegistered(invite, ids, `the INVITE at ${callTo}`);
});

test('MT call from the lab\'s SIPp ue2 registered at the outside P-CSCF (--sipp-caller): answered, media both ways, clean end', { timeout: 45000, skip: !process.env.LAB_EXT_SIPP_CALLER && 'no --sipp-caller' }, async () => {
  const env = { KAMAILIO: PCSCF, IMS_DOMAIN: process.env.LAB_EXT_DOMAIN, IMS_AKA_KEYS: path.join(labRoot(), 'ims-sim/3gpp/sipp/ue-keys.txt') };
  const target = (user.impu ?? `sip:${user.login}@`).replace(/^sips?:/, '').replace(/@.*/, '');
  const r = await mtCall(client, { token, user: target, ue: { mode: 'uac', arg: 3000, env }, hangup: 'ue', maxMs: 15000 });
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
