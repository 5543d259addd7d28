// Integration: real calls through gateway + Kamailio + rtpengine + SIPp with the lab up (./lab test).
// Kept in one file so the calls run one after another (rtpengine session counts must return to 0).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import path from 'node:path';
import { logDir } from '../runner/env.mjs';
import { assertNoRtpengineSession, inviteSdpSeenByUe, loggedInPage } from '../runner/testkit.mjs';

const USER = 'alice';
const MEDIA_MS = 3000;
let page;
let client;
let token;

before(async () => {
  page = await loggedInPage(USER, 'test-calls-alice');
  ({ client, token } = page);
});

after(async () => page?.close());

function assertGoodCall(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 0, `rtpengine packetsToIms ${m.packetsToIms}`);
  assert.ok(m.packetsToBrowser > 0, `rtpengine packetsToBrowser ${m.packetsToBrowser}`);
  assert.ok(r.browser?.packetsSent > 0, `browser packetsSent ${r.browser?.packetsSent}`);
  assert.ok(r.browser?.packetsReceived > 0, `browser packetsReceived ${r.browser?.packetsReceived}`);
  assert.ok(r.ended, "'ended' received");
  assert.ok(endedCleanly(r.ended), `ended cleanly: ${JSON.stringify(r.ended)}`);
}

test('MO call to ue1, browser hangs up', { timeout: 40000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS });
  assertGoodCall(r);
  assert.equal(r.info.direction, 'mo');
  await assertNoRtpengineSession();
});

test('MO call to ue3, IMS side hangs up (BYE after ~4 s)', { timeout: 40000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue3', hangup: 'remote', maxMs: 15000 });
  assertGoodCall(r);
  await assertNoRtpengineSession();
});

test('MT call from ue2, UE hangs up', { timeout: 45000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS }, hangup: 'ue', maxMs: 15000 });
  assertGoodCall(r);
  assert.equal(r.info.direction, 'mt');
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession();
});

test('MT call from ue2, browser hangs up', { timeout: 45000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac-wait', arg: 15000 }, hangup: 'browser', mediaMs: MEDIA_MS, maxMs: 15000 });
  assertGoodCall(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession();
});

test('malformed JSON over WS -> error bad-json, and a call still works', { timeout: 40000 }, async () => {
  const mark = await client.mark();
  await client.sendRaw('{"type":"call", "to": ');
  const err = await client.waitFor('error', null, 5000, mark);
  assert.equal(err.code, 'bad-json');
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 2000 });
  assertGoodCall(r);
  await assertNoRtpengineSession();
});

test('call to an unregistered user -> ended with 404, no rtpengine session left', { timeout: 30000 }, async () => {
  const callId = await client.call('nobody');
  const ended = await client.waitFor('ended', callId, 15000);
  assert.equal(ended.sipCode, 404, JSON.stringify(ended));
  await assertNoRtpengineSession();
});

test('IMS leg SDP as ue1 received it: plain RTP/AVP, no ICE/DTLS/BUNDLE and no WebRTC-only lines', { timeout: 30000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 1000 });
  assertGoodCall(r);
  const sdp = inviteSdpSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), r.callId);
  assert.ok(sdp, `no INVITE for ${r.callId} in ue1's message log`);
  assert.match(sdp, /^m=audio \d+ RTP\/AVP /m, sdp);
  assert.match(sdp, /^a=rtcp:\d+/m, 'RTCP on its own port');
  for (const banned of [/^a=(ice-ufrag|ice-pwd|candidate|fingerprint|setup|rtcp-mux)/m, /^a=group:BUNDLE/m,
    /^a=(msid|msid-semantic|ssrc|ssrc-group|mid|rtcp-fb|extmap|extmap-allow-mixed)\b/m, /SAVPF/]) {
    assert.doesNotMatch(sdp, banned, sdp);
  }
  await assertNoRtpengineSession();
});
