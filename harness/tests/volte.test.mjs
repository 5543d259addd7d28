// Integration: IMS procedures with the VoLTE-style SIPp UEs (issue 4) — preconditions with
// 100rel/PRACK/UPDATE both ways, CANCEL in the early dialog both ways. Each test asserts on the SIP the
// gateway actually sent and received (its per-call sipFlow) and on the UE's own verdict (SIPp exit code).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import { assertNoRtpengineSession, loggedInPage } from '../runner/testkit.mjs';
import { startUe } from '../runner/ue.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'carol';
// TS 24.229 §6.1.2 ladders as the gateway sees them, with the browser hanging up / the UE hanging up.
const MO_LADDER = ['INVITE', '100', '183', 'PRACK', '200', 'UPDATE', '200', '180', '200', 'ACK', 'BYE', '200'];
const MT_LADDER = ['INVITE', '100', '183', 'PRACK', '200', 'UPDATE', '200', '180', '200', 'ACK', 'BYE', '200'];
let page;
let client;
let token;

before(async () => {
  page = await loggedInPage(USER, 'test-volte-carol');
  ({ client, token } = page);
});

after(async () => page?.close());

function assertMedia(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, JSON.stringify(r.info.media));
  assert.ok(r.browser?.packetsReceived > 0, 'browser received media');
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
}

test('MO with preconditions to ue4: 183 (100rel) -> PRACK -> UPDATE when the browser leg is up -> 180 -> 200', { timeout: 40000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue4', hangup: 'browser', mediaMs: 2500 });
  assertMedia(r);
  assert.equal(r.info.preconditions, true);
  assert.deepEqual(r.info.sipFlow, MO_LADDER);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue4' });
  await assertNoRtpengineSession();
});

test('MT with preconditions from ue5: reliable 183 with a=conf, PRACK, UPDATE answered, alerting only then', { timeout: 45000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'volte-uac', arg: 2500, from: 'ue5' }, hangup: 'ue', maxMs: 15000 });
  assertMedia(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  assert.equal(r.info.preconditions, true);
  assert.deepEqual(r.info.sipFlow, MT_LADDER); // 180 (and `alerting`) only after the UPDATE: both segments met
  await assertNoRtpengineSession();
});

test('MO CANCEL in the early dialog: browser hangs up after the 183', { timeout: 30000 }, async () => {
  const mark = await client.mark();
  const callId = await client.call('ue4');
  const progress = await client.waitFor('progress', callId, 10000, mark);
  assert.equal(progress.sipCode, 183);
  await client.hangup(callId);
  const ended = await client.waitFor('ended', callId, 10000, mark);
  assert.equal(ended.reason, 'local-hangup');
  let info;
  for (let i = 0; i < 100; i++) { // the UE's 487 comes after our `ended` (10 s: it crosses both proxies)
    info = await gw.callInfo(token, callId);
    if (info.sipFlow.includes('487')) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(info.sipFlow.includes('CANCEL') && info.sipFlow.includes('487'), info.sipFlow.join(','));
  await assertFarUeAssertedIdentity({ token, callId, ue: 'ue4' });
  await assertNoRtpengineSession();
});

test('MT CANCEL in the early dialog: ue5 cancels after the 183 -> 200 + 487, ended remote-cancel', { timeout: 30000 }, async () => {
  const mark = await client.mark();
  const ue = startUe('volte-uac-cancel', USER, undefined, { timeoutMs: 20000 });
  const inc = await client.waitFor('incoming', null, 10000, mark);
  const ended = await client.waitFor('ended', inc.callId, 10000, mark);
  assert.equal(ended.reason, 'remote-cancel');
  assert.equal(ended.sipCode, 487);
  const done = await ue.done;
  assert.equal(done.code, 0, `SIPp exit ${done.code}: ${done.output}`);
  const info = await gw.callInfo(token, inc.callId);
  assert.deepEqual(info.sipFlow.slice(0, 3), ['INVITE', '100', '183']);
  for (const m of ['CANCEL', '487']) assert.ok(info.sipFlow.includes(m), info.sipFlow.join(','));
  await assertNoRtpengineSession();
});
