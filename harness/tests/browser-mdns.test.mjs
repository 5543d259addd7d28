// Integration (issue #17): ICE with mDNS-only candidates, as browsers ship. Chromium without media
// permission (no --use-fake-ui-for-media-stream; its microphone is WebAudio tones, which need none) and
// Firefox at default settings offer only `<uuid>.local` host candidates and `c=IN IP4 0.0.0.0`; rtpengine
// (ICE-lite) learns the browser's address from its checks (peer-reflexive). MO and MT: media both ways,
// the selected pair is not loopback, and the SDP IMS got carries no `.local`, `0.0.0.0` or `a=sendonly`.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES } from '../kit/addresses.mjs';
import { logDir, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import {
  assertImsSdpClean, assertNoRtpengineSession, inviteSdpSeenByUe, responseSdpSeenByUe, titled,
} from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'dave';
const MEDIA_MS = 3000;
let browser;
let client;
let token;

before(async () => {
  await gw.waitHealthy(15000);
  browser = await launchBrowser({ mediaPermission: false });
  client = await openClient(browser, { name: `test-mdns-${USER}` });
  ({ token } = await client.login(USER, passwordOf(USER)));
});

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
});

// Every candidate of the browser's SDP is an mDNS name; its default address is 0.0.0.0.
function assertMdnsOnly(sdp, what) {
  const candidates = [...(sdp ?? '').matchAll(/^a=candidate:\S+ \d+ \S+ \d+ (\S+) \d+ typ (\S+)/gm)];
  assert.ok(candidates.length > 0, `${what}: no candidate:\n${sdp}`);
  for (const [, host, type] of candidates) {
    assert.match(host, /^[0-9a-f-]{36}\.local$/i, `${what}: candidate ${host} typ ${type} is not an mDNS name`);
  }
  assert.match(sdp, /^c=IN IP4 0\.0\.0\.0\r?$/m, `${what}: default address`);
}

function assertMediaBothWays(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  assert.ok(r.browser?.packetsSent > 20 && r.browser?.packetsReceived > 20, JSON.stringify(r.browser));
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 20 && m.packetsToBrowser > 20, JSON.stringify(m));
  assert.match(r.browser.remoteCandidate ?? '', new RegExp(`^${ADDRESSES.pub.replace(/\./g, '\\.')}:`), 'ICE pair toward rtpengine\'s pub address');
}

test(titled('MO with mDNS-only candidates: media both ways, IMS INVITE clean'), { timeout: 45000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS });
  assertMdnsOnly(r.offerSdp, 'browser offer');
  assertMediaBothWays(r);
  assertImsSdpClean(inviteSdpSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), r.callId), 'INVITE at ue1', [ADDRESSES.browser]);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});

test(titled('MT with mDNS-only candidates: media both ways, IMS 200 OK clean'), { timeout: 45000 }, async () => {
  // the browser's answer as it applied it, read while the call is up (once closed the page has none)
  let answerSdp = null;
  const answer = client.answer;
  const watched = { ...client, answer: async (...a) => { const res = await answer(...a); answerSdp = (await client.sdp(a[0])).local; return res; } };
  const r = await mtCall(watched, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS }, hangup: 'ue', maxMs: 15000 });
  assert.equal(r.ue?.code, 0, `SIPp exit ${r.ue?.code}: ${r.ue?.output}`);
  assertMdnsOnly(answerSdp, 'browser answer');
  assertMediaBothWays(r);
  assertImsSdpClean(responseSdpSeenByUe(path.join(logDir(), `sipp-uac-${USER}-messages.log`), r.callId), '200 OK at ue2', [ADDRESSES.browser]);
  await assertNoRtpengineSession();
});
