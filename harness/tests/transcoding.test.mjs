// Integration: transcoding (issue 5) with the lab up (./lab test). The browser asks for `imsCodec`;
// the gateway offers only that codec toward IMS, SIPp ue1 answers it, rtpengine transcodes the
// browser's Opus. Checked: the codecs rtpengine negotiated per leg (call info), packets both ways
// (rtpengine counters and the browser's getStats), no rtpengine session left. Plus an MT call whose
// UE offers only G.722 (the browser is offered Opus first) and a bad imsCodec.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import { assertNoRtpengineSession, loggedInPage, titled } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'alice';
const MEDIA_MS = 2500;
let page;
let client;
let token;

before(async () => {
  page = await loggedInPage(USER, 'test-transcoding-alice');
  ({ client, token } = page);
});

after(async () => page?.close());

function assertTranscodedCall(r, codecIms) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  const m = r.info?.media ?? {};
  assert.equal(m.codecIms, codecIms, `IMS leg codec (call info ${JSON.stringify(m)})`);
  assert.equal(m.codecBrowser, 'opus/48000', `browser leg codec (call info ${JSON.stringify(m)})`);
  assert.ok(m.packetsToIms > 0, `rtpengine packetsToIms ${m.packetsToIms}`);
  assert.ok(m.packetsToBrowser > 0, `rtpengine packetsToBrowser ${m.packetsToBrowser}`);
  assert.ok(r.browser?.packetsSent > 0, `browser packetsSent ${r.browser?.packetsSent}`);
  assert.ok(r.browser?.packetsReceived > 0, `browser packetsReceived ${r.browser?.packetsReceived}`);
  assert.match(r.browser?.codec ?? '', /opus/i, `browser getStats codec ${r.browser?.codec}`);
  assert.ok(endedCleanly(r.ended), `ended cleanly: ${JSON.stringify(r.ended)}`);
}

for (const [imsCodec, expected] of [['PCMA', 'PCMA/8000'], ['G722', 'G722/8000'], ['PCMU', 'PCMU/8000'], ['AMR-WB', 'AMR-WB/16000']]) {
  test(titled(`MO call to ue1 with imsCodec ${imsCodec}: Opus <-> ${imsCodec} through rtpengine`), { timeout: 25000 }, async () => {
    const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS, maxMs: 12000, imsCodec });
    assertTranscodedCall(r, expected);
    await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
    await assertNoRtpengineSession();
  });
}

test(titled('MT call from ue2 offering only G722: the browser gets Opus, rtpengine transcodes'), { timeout: 30000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS, env: { UE_CODEC: 'G722' } }, hangup: 'ue', maxMs: 12000 });
  assertTranscodedCall(r, 'G722/8000');
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession();
});

test(titled('call with an unknown imsCodec is refused with bad-message'), { timeout: 10000 }, async () => {
  const mark = await client.mark();
  await client.sendRaw(JSON.stringify({ type: 'call', to: 'ue1', sdp: 'v=0\r\n', imsCodec: 'opus' }));
  const err = await client.waitFor('error', null, 5000, mark);
  assert.equal(err.code, 'bad-message');
  assert.match(err.message, /imsCodec 'opus'/);
  await assertNoRtpengineSession();
});
