// Integration: the browser leg as rtpengine offers/answers it and as it runs on the wire (TS 24.371,
// RFC 8827/8834): DTLS-SRTP only (SHA-256 fingerprint, no SDES a=crypto), an SRTP profile of RFC 5764,
// ICE with consent freshness (RFC 7675: STUN checks keep being answered during the call), rtcp-mux, a=mid.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { startCapture, stunMessages } from '../kit/capture.mjs';
import { assertNoRtpengineSession, incomingCall, loggedInPage } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'dave';
const CONSENT_WINDOW_MS = 12000; // Chrome checks consent every 4-6 s (RFC 7675 §5.1)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let page;
let client;

before(async () => {
  page = await loggedInPage(USER, 'test-browser-leg-dave');
  ({ client } = page);
});

after(async () => page?.close());

function assertWebRtcSdp(sdp, setups) {
  assert.match(sdp, /^m=audio \d+ UDP\/TLS\/RTP\/SAVPF /m, 'DTLS-SRTP profile');
  assert.match(sdp, /^a=fingerprint:sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}\r?$/m, 'SHA-256 fingerprint');
  assert.doesNotMatch(sdp, /^a=crypto:/m, 'no SDES keys (DTLS-SRTP only)');
  assert.match(sdp, /^a=rtcp-mux\r?$/m, 'rtcp-mux');
  assert.match(sdp, /^a=mid:\S+/m, 'a=mid');
  assert.match(sdp, /^a=ice-ufrag:\S+/m, 'ICE credentials');
  assert.match(sdp, /^a=candidate:.* typ host/m, 'an ICE host candidate');
  assert.match(sdp, new RegExp(`^a=setup:(${setups})\\r?$`, 'm'), `rtpengine's DTLS role toward the browser: a=setup:${setups} expected`);
}

// profile: the DTLS-SRTP protection profile expected (Chrome's names, RFC 5764 / RFC 7714).
function assertDtlsSrtpRunning(s, profile) {
  assert.equal(s.dtlsState, 'connected');
  assert.equal(s.srtpCipher, profile, 'SRTP protection profile');
  assert.ok(s.tlsVersion, 'a DTLS version');
  assert.ok(s.packetsReceived > 20 && s.packetsSent > 20, `packets ${s.packetsSent}/${s.packetsReceived}`);
}

// STUN on rtpengine's browser-side port over `ms`: binding requests from the browser and rtpengine's
// success responses (tcpdump in the lab's namespace, decoded by tshark).
async function stunDuring(port, ms) {
  const cap = await startCapture(port, `browser-leg-stun-${port}`);
  await sleep(ms);
  const messages = await stunMessages(await cap.stop());
  fs.rmSync(cap.file, { force: true });
  return {
    requestsToRelay: messages.filter((m) => m.type === 0x0001 && m.dst === port).length,
    successFromRelay: messages.filter((m) => m.type === 0x0101 && m.src === port).length,
  };
}

const relayPort = (sdp) => Number(/^m=audio (\d+) /m.exec(sdp)[1]);

test('MO: rtpengine answers with DTLS-SRTP only, rtcp-mux, a=mid; consent checks are answered', { timeout: 60000 }, async () => {
  const mark = await client.mark();
  const callId = await client.call('ue1');
  try {
    const answered = await client.waitFor('answered', callId, 15000, mark);
    // `dtls-on-actpass` active (the default) makes rtpengine the DTLS client (docs/media.md "DTLS setup roles")
    assertWebRtcSdp(answered.sdp, 'active');
    // rtpengine is ICE-lite; its answer says so only to a browser whose host candidates name several addresses
    // (lab.rtpengine.ice-lite-in-answers auto, the default): toward a full agent Chromium nominates with its first
    // check, and a lite agent takes a nominated pair whether or not its answer got through (docs/media.md "What the
    // browser is told"). The page here has one address; scale-hosts' browser, with four, is told.
    const offer = (await client.sdp(callId)).local;
    const hosts = new Set([...offer.matchAll(/^a=candidate:\S+ \d+ \S+ \d+ (\S+) \d+ typ host/gm)].map((m) => m[1].toLowerCase()));
    if (hosts.size === 1) {
      assert.doesNotMatch(answered.sdp, /^a=ice-lite\r?$/m, `the MO answer says a=ice-lite to a browser of one host address (${[...hosts]}): Chromium then nominates one check interval late (~50 ms more to media)`);
    } else {
      assert.match(answered.sdp, /^a=ice-lite\r?$/m, `the MO answer does not say a=ice-lite to a browser of ${hosts.size} host addresses (${[...hosts]}): it may nominate a pair rtpengine cannot answer, and its call has no media`);
    }
    await sleep(2000);
    // rtpengine is the DTLS client; Chrome, the server, picks the first of its list: AES-CM SHA1_80
    assertDtlsSrtpRunning(await client.stats(callId), 'SRTP_AES128_CM_HMAC_SHA1_80');
    const stun = await stunDuring(relayPort(answered.sdp), CONSENT_WINDOW_MS);
    assert.ok(stun.requestsToRelay >= 2, `consent checks from the browser: ${stun.requestsToRelay}`);
    assert.ok(stun.successFromRelay >= stun.requestsToRelay - 1, `rtpengine answered ${stun.successFromRelay} of ${stun.requestsToRelay}`);
    assert.equal((await client.stats(callId)).iceState, 'connected', 'ICE still connected after the window');
    await assertFarUeAssertedIdentity({ token: page.token, callId, ue: 'ue1' });
  } finally {
    await client.hangup(callId);
    await client.waitFor('ended', callId, 5000).catch(() => {});
  }
  await assertNoRtpengineSession();
});

test('MT: rtpengine offers the browser DTLS-SRTP only (actpass), rtcp-mux, a=mid', { timeout: 45000 }, async () => {
  const { ue, incoming } = await incomingCall(client, USER);
  const { callId } = incoming;
  try {
    assertWebRtcSdp(incoming.sdp, 'actpass');
    assert.match(incoming.sdp, /^a=ice-lite\r?$/m, 'the MT offer does not say a=ice-lite: the answering browser would be the controlled agent, and lite rtpengine never nominates');
    await client.answer(callId);
    await sleep(2500);
    // Chrome is the DTLS client; rtpengine 10.5, the server, picks AES-256-GCM (RFC 7714) from its list
    assertDtlsSrtpRunning(await client.stats(callId), 'SRTP_AEAD_AES_256_GCM');
  } finally {
    await client.hangup(callId);
    await client.waitFor('ended', callId, 5000).catch(() => {});
    await ue.done;
  }
  await assertNoRtpengineSession();
});
