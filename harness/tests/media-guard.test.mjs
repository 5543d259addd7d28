// Integration (issue #17): the gateway never leaves a call silent. A browser SDP that leaves rtpengine no
// way to reach the browser (no ICE candidate, c=0.0.0.0) is refused with error `no-usable-address`;
// a call that connects but whose browser media never starts is hung up (BYE toward IMS) and ends with
// reason `media-timeout` within lab.rtpengine.media-start-timeout-ms (default 10 s). The SDPs come from a
// real RTCPeerConnection in the page, changed before they are sent over the WebSocket as a `call`.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES } from '../kit/addresses.mjs';
import { logDir } from '../kit/env.mjs';
import { assertNoRtpengineSession, loggedInPage, titled, waitForUeMessage } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'bob';
const MEDIA_START_TIMEOUT_MS = 10000; // the gateway's default
let page;
let client;

before(async () => {
  page = await loggedInPage(USER, 'test-media-guard-bob');
  ({ client } = page);
});

after(async () => page?.close());

// A real browser offer (audio), changed by `edit` (a function of the SDP text run in Node).
async function browserOffer() {
  return client.page.evaluate(async () => {
    const pc = new RTCPeerConnection();
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    stream.getTracks().forEach((t) => pc.addTrack(t, stream));
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((resolve) => {
      if (pc.iceGatheringState === 'complete') resolve();
      pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') resolve(); };
      setTimeout(resolve, 5000);
    });
    const sdp = pc.localDescription.sdp;
    window.__guardPcs = [...(window.__guardPcs ?? []), pc]; // kept open: nothing answers it in the page
    return sdp;
  });
}

test(titled('an offer without ICE candidates and with c=0.0.0.0 is refused: error no-usable-address, nothing set up'), { timeout: 30000 }, async () => {
  const offer = (await browserOffer()).split(/\r\n/)
    .filter((l) => !l.startsWith('a=candidate:') && !l.startsWith('a=end-of-candidates'))
    .map((l) => (l.startsWith('c=IN IP4 ') ? 'c=IN IP4 0.0.0.0' : l)).join('\r\n');
  const mark = await client.mark();
  await client.sendRaw(JSON.stringify({ type: 'call', to: 'ue1', sdp: offer }));
  const err = await client.waitFor('error', null, 5000, mark);
  assert.equal(err.code, 'no-usable-address', JSON.stringify(err));
  assert.match(err.message, /m=audio has no ICE candidate and no usable connection address/, err.message);
  const events = (await client.events()).slice(mark).map((e) => e.msg.type);
  assert.ok(!events.includes('calling'), `no call was set up: ${events}`);
  await assertNoRtpengineSession();
});

test(titled('a connected call whose browser media never starts ends with media-timeout and a BYE'), { timeout: 45000 }, async () => {
  // Only a candidate at the browser's discard port: rtpengine (ICE-lite) gets no check and no media.
  const dead = `${ADDRESSES.browser} 9`;
  const offer = (await browserOffer()).split(/\r\n/)
    .filter((l) => !l.startsWith('a=candidate:'))
    .map((l) => (l.startsWith('c=IN IP4 ') ? `c=IN IP4 ${ADDRESSES.browser}` : l))
    .flatMap((l) => (l.startsWith('a=ice-pwd:') ? [l, `a=candidate:1 1 udp 2122260223 ${dead} typ host`] : [l])).join('\r\n');
  const mark = await client.mark();
  await client.sendRaw(JSON.stringify({ type: 'call', to: 'ue1', sdp: offer }));
  const { callId } = await client.waitFor('calling', null, 5000, mark);
  const answered = await client.waitFor('answered', callId, 10000, mark);
  const t0 = Date.now();
  assert.ok(answered.sdp, 'answered with rtpengine SDP');
  const ended = await client.waitFor('ended', callId, MEDIA_START_TIMEOUT_MS + 8000, mark);
  const after = Date.now() - t0;
  assert.equal(ended.reason, 'media-timeout', JSON.stringify(ended));
  assert.ok(after >= MEDIA_START_TIMEOUT_MS - 1500, `ended ${after} ms after the answer: not before the timeout`);
  // the UE got the gateway's BYE (ue1's message log)
  assert.ok(await waitForUeMessage(path.join(logDir(), 'sipp-uas-ue1-messages.log'), callId, /^BYE /), `ue1 got no BYE for ${callId}`);
  await assertFarUeAssertedIdentity({ token: page.token, callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});
