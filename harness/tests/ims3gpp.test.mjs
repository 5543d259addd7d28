// Integration (./lab test --ims 3gpp): the gateway on the 3GPP IMS core of ims-sim/3gpp (P-CSCF →
// I-CSCF → S-CSCF, HSS over Cx): it registers its users with IMS-AKA (AKAv1-MD5, Milenage, RFC 3310)
// from ims-sim/3gpp/gateway-credentials.txt, resynchronises a stale SQN with AUTS, and MO/MT calls
// cross the whole core with media both ways. Checked on the gateway's API, the UEs' message logs and
// the logs of the core's nodes (LAB_LOGDIR/ims3gpp/). Needs LAB_IMS=3gpp (run only by --ims 3gpp).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { logDir } from '../kit/env.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import { assertNoRtpengineSession, hopsOf, loggedInPage, messageSeenByUe } from '../runner/testkit.mjs';

const USER = 'alice';
const MEDIA_MS = 3000;
const core = (f) => path.join(logDir(), 'ims3gpp', f);
const coreLog = (f) => fs.readFileSync(core(f), 'utf8');
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
  assert.match(hss, /SAR alice@ims\.lab sip:alice@ims\.lab type=1 server=sip:scscf\.ims\.lab:6060 -> 2001/);
  assert.match(coreLog('scscf.log'), /S-CSCF REGISTER sip:alice@ims\.lab authenticated, SAR/);
});

test('MO alice -> ue1 through P-CSCF, S-CSCF, I-CSCF (LIR), S-CSCF, P-CSCF; P-Asserted-Identity at ue1; media both ways', { timeout: 40000 }, async () => {
  const r = await moCall(page.client, { token: page.token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS });
  assertGoodCall(r);
  const invite = await eventually('the INVITE at ue1', () => messageSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), r.callId, /^INVITE /));
  // TS 24.229 §5.2.6.3.3: the P-CSCF asserts the registered identity of the gateway's user
  assert.match(invite, /^P-Asserted-Identity: <sip:alice@ims\.lab>/m, invite);
  // P-CSCF (MT), S-CSCF (MT), S-CSCF (MO), P-CSCF (MO) record-route
  assert.deepEqual(hopsOf(invite, 'Record-Route'), ['127.0.0.1:5060', '127.0.0.1:6060', '127.0.0.1:6060', '127.0.0.1:5060'], invite);
  assert.match(coreLog('pcscf.log'), /P-CSCF originating INVITE sip:ue1@ims\.lab for sip:alice@ims\.lab/);
  assert.match(coreLog('icscf.log'), /I-CSCF LIR for sip:ue1@ims\.lab/);
  assert.match(coreLog('hss.log'), /LIR sip:ue1@ims\.lab server=sip:scscf\.ims\.lab:6060 -> 2001/);
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
  assert.match(coreLog('pcscf.log'), /P-CSCF terminating INVITE sip:alice@127\.0\.0\.1:5070/);
  assert.match(coreLog('hss.log'), /LIR sip:alice@ims\.lab server=sip:scscf\.ims\.lab:6060 -> 2001/);
  await assertNoRtpengineSession();
});

test('bob\'s USIM is ahead of the HSS: the gateway answers with AUTS, the HSS resynchronises, bob registers', async () => {
  const res = await gw.login('bob', 'bob-secret');
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const { token } = res.body;
  try {
    const reg = (await gw.currentSession(token)).registration;
    assert.deepEqual(reg.sipFlow, ['sent REGISTER', 'recv 401 (AKAv1-MD5)', 'sent REGISTER (AUTS resync)', 'recv 401 (AKAv1-MD5)',
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
  for (const [user, password] of [['alice', 'not-alice-secret'], ['carol', 'carol-secret']]) {
    const res = await gw.login(user, password);
    assert.equal(res.status, 401, `${user}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'auth-failed');
  }
  assert.equal(registers(), before, 'no REGISTER reached the P-CSCF');
  assert.equal((await gw.currentSession(page.token)).user, USER, "alice's session survived the wrong password");
});
