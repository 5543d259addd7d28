// Integration (issue #17): a browser behind a NAT. It runs in LAB_BROWSER_NAT_NS (198.19.0.2), whose
// only way out is the lab-nat namespace that masquerades everything as 198.18.1.2 (docs/media.md
// "Topology"); the core has no route to 198.19.0.0/24, so media flows only if rtpengine (ICE-lite)
// learns the NAT's mapping from the browser's checks. MO and MT calls, media both ways, checked in
// the browser, in rtpengine's counters and on the wire; the SDP IMS got carries no browser artefact.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES } from '../kit/addresses.mjs';
import { datagramsDuring } from '../kit/capture.mjs';
import { logDir, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import {
  assertImsSdpClean, assertNoRtpengineSession, inviteSdpSeenByUe, responseSdpSeenByUe, titled,
} from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'carol';
const MEDIA_MS = 3000;
const BROWSER_SIDE = [ADDRESSES.natOutside, ADDRESSES.browserBehindNat, ADDRESSES.browser];
let browser;
let client;
let token;

before(async () => {
  assert.ok(process.env.LAB_BROWSER_NAT_NS, 'LAB_BROWSER_NAT_NS is not set: run through ./lab test (the NAT topology)');
  await gw.waitHealthy(15000);
  browser = await launchBrowser({ netns: process.env.LAB_BROWSER_NAT_NS });
  client = await openClient(browser, { name: `test-nat-${USER}` });
  ({ token } = await client.login(USER, passwordOf(USER)));
});

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
});

// The call's datagrams between the NAT's outside address and rtpengine's browser-facing one.
const natTraffic = (run) => datagramsDuring(`nat-${browser.kind}`, `udp and host ${ADDRESSES.natOutside}`, run);

function assertMediaBothWaysThroughNat(r, datagrams) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  assert.ok(r.browser?.packetsSent > 20 && r.browser?.packetsReceived > 20, `browser packets ${JSON.stringify(r.browser)}`);
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 20 && m.packetsToBrowser > 20, `rtpengine packets ${JSON.stringify(m)}`);
  const up = datagrams.filter((d) => d.src.startsWith(`${ADDRESSES.natOutside}:`) && d.dst.startsWith(`${ADDRESSES.pub}:`));
  const down = datagrams.filter((d) => d.src.startsWith(`${ADDRESSES.pub}:`) && d.dst.startsWith(`${ADDRESSES.natOutside}:`));
  assert.ok(up.length > 20 && down.length > 20, `datagrams NAT->rtpengine ${up.length}, rtpengine->NAT ${down.length}`);
  const inside = datagrams.filter((d) => d.src.startsWith(ADDRESSES.browserBehindNat) || d.dst.startsWith(ADDRESSES.browserBehindNat));
  assert.equal(inside.length, 0, 'the core never sees the address behind the NAT');
}

test(titled('MO call from behind a NAT to ue1: media both ways, IMS SDP clean'), { timeout: 45000 }, async () => {
  const { r, datagrams } = await natTraffic(() => moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS }));
  assertMediaBothWaysThroughNat(r, datagrams);
  assertImsSdpClean(inviteSdpSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), r.callId), 'INVITE at ue1', BROWSER_SIDE);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});

test(titled('MT call from ue2 to a browser behind a NAT: media both ways, IMS SDP clean'), { timeout: 45000 }, async () => {
  const { r, datagrams } = await natTraffic(() => mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS }, hangup: 'ue', maxMs: 15000 }));
  assertMediaBothWaysThroughNat(r, datagrams);
  assert.equal(r.ue?.code, 0, `SIPp exit ${r.ue?.code}: ${r.ue?.output}`);
  assertImsSdpClean(responseSdpSeenByUe(path.join(logDir(), `sipp-uac-${USER}-messages.log`), r.callId), '200 OK at ue2', BROWSER_SIDE);
  await assertNoRtpengineSession();
});

// With a STUN server (coturn on the core's side of the NAT link, LAB_STUN) the browser behind the NAT
// also offers a server-reflexive candidate: the NAT's mapping 198.18.1.2:P. rtpengine's media then goes
// to exactly that advertised address (the srflx pair), MO and MT.
function srflxOf(sdp) {
  const m = [...(sdp ?? '').matchAll(/^a=candidate:\S+ 1 udp \d+ (\S+) (\d+) typ srflx/gim)];
  return m.map(([, a, p]) => `${a}:${p}`);
}

const stunServer = () => process.env.LAB_STUN || ADDRESSES.stun;

async function withStun(run) {
  const servers = [{ urls: `stun:${stunServer()}` }];
  await client.page.evaluate((s) => { window.labClient.iceServers = s; }, servers);
  try {
    return await run();
  } finally {
    await client.page.evaluate(() => { window.labClient.iceServers = []; });
  }
}

// Why the browser's SDP has no server-reflexive candidate, from the page's record of the call's ICE (gathering: its
// candidates, STUN errors, gathering and ICE connection states, ms after the RTCPeerConnection was made) and the
// capture's datagrams to and from the STUN server.
function whyNoSrflx(gathering, datagrams) {
  const requests = datagrams.filter((d) => d.dst === stunServer()).length;
  const answers = datagrams.filter((d) => d.src === stunServer()).length;
  const at = (pred) => gathering.find(pred)?.ms;
  const connected = at((g) => g.ice === 'connected' || g.ice === 'completed');
  const complete = at((g) => g.state === 'complete');
  if (!(gathering.find((g) => g.iceServers)?.iceServers ?? []).length) return 'the RTCPeerConnection was made without a STUN server (labClient.iceServers was empty)';
  if (!requests) return `no STUN request from the NAT reached ${stunServer()}`;
  if (!answers) return `${stunServer()} answered none of the browser's ${requests} STUN requests`;
  if (connected != null && complete != null && connected <= complete) {
    return `the browser's ICE was connected at ${connected} ms, before its gathering ended at ${complete} ms, while the STUN ` +
      `server's answer was still on its way (${requests} requests, ${answers} answers on the wire): Chromium stops gathering ` +
      'once a pair is connected and drops the late server-reflexive candidate (the page is to apply the offer\'s candidates ' +
      'only once its STUN server answered: lab-client.js withoutCandidates, iceServersAnswered)';
  }
  return `the STUN server answered (${requests} requests, ${answers} answers on the wire) yet the browser reported no server-reflexive candidate`;
}

function assertMediaOnSrflx(r, datagrams, browserSdp, gathering = []) {
  assertMediaBothWaysThroughNat(r, datagrams);
  const srflx = srflxOf(browserSdp);
  assert.ok(srflx.length > 0, `no server-reflexive candidate in the browser's SDP: ${whyNoSrflx(gathering, datagrams)}\n` +
    `the page's ICE record: ${JSON.stringify(gathering)}\nthe SDP:\n${browserSdp}`);
  assert.ok(srflx.every((a) => a.startsWith(`${ADDRESSES.natOutside}:`)), `server-reflexive candidates ${srflx} are not the NAT's outside address ${ADDRESSES.natOutside}`);
  const down = new Set(datagrams.filter((d) => d.src.startsWith(`${ADDRESSES.pub}:`)).map((d) => d.dst));
  assert.ok([...down].some((d) => srflx.includes(d)), `rtpengine sent to ${[...down]}, the browser advertised srflx ${srflx}`);
}

test(titled('MO from behind the NAT with a STUN server: a server-reflexive candidate carries the media'), { timeout: 45000 }, async () => {
  const { r, datagrams } = await withStun(() => natTraffic(() => moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS })));
  assertMediaOnSrflx(r, datagrams, r.offerSdp, await client.gathering(r.callId).catch(() => []));
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});

test(titled('MT to the browser behind the NAT with a STUN server: a server-reflexive candidate carries the media'), { timeout: 45000 }, async () => {
  let answerSdp = null;
  const answer = client.answer;
  const watched = { ...client, answer: async (...a) => {
    const res = await answer(...a);
    answerSdp = (await client.sdp(a[0])).local;
    return res;
  } };
  const { r, datagrams } = await withStun(() => natTraffic(() => mtCall(watched, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS }, hangup: 'ue', maxMs: 15000 })));
  assert.equal(r.ue?.code, 0, `SIPp exit ${r.ue?.code}: ${r.ue?.output}`);
  assertMediaOnSrflx(r, datagrams, answerSdp, await client.gathering(r.callId).catch(() => []));
  await assertNoRtpengineSession();
});
