// Integration: DTMF both ways (issues 5 and 11, "DTMF") with the lab up (./lab test). Checked on the packets of
// the IMS leg (tcpdump on the SIPp UE's media port), on the SDP each side saw and on rtpengine's query
// (GET /api/v1/calls/{id} media):
//  - a call is relayed by default (same codec both legs, no transcoding): the page's keypad sends DTMF with
//    the browser's RTCDTMFSender → RFC 4733 at the UE; ue6's RFC 4733 digits → rtpengine's DTMF log →
//    WebSocket `dtmf {digit, source: "ims"}`;
//  - WebSocket `dtmf` on such a call → `error dtmf-unavailable` saying how to get it;
//  - WebSocket `dtmf` → rtpengine `play DTMF` → RFC 4733 events toward the UE under the payload type of its
//    SDP on calls placed (MO) or answered (MT) with dtmf: "inject", and on transcoded calls (imsCodec PCMA,
//    an MT offer of PCMA only) without asking;
//  - the keypad on a transcoded call (PCMA): Chromium's RTCDTMFSender at 48000 → 8000 Hz clock on the IMS leg;
//    Firefox (telephone-event/8000 only, which rtpengine 10.5 does not answer beside transcoded Opus) WebSocket dtmf;
//  - each browser: its own offer decides the telephone-event clock of a relayed call (Chromium /48000, Firefox
//    /8000; ue6 answers what it is offered), and on inject calls the gateway offers IMS /48000 (Firefox);
//  - a UE without telephone-event (ue1, PCMA) gets the digit as an in-band tone;
//  - bad input → bad-message / unknown-call / bad-state, and the call goes on.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { logDir } from '../kit/env.mjs';
import * as gw from '../runner/gateway.mjs';
import { rfc4733Events, rtpPackets, startCapture } from '../kit/capture.mjs';
import { answerSdpSentByUe, assertNoRtpengineSession, incomingCall, inviteSdpSeenByUe, loggedInPage, titled } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'alice';
const UE6 = { user: 'ue6', mediaPort: Number(LAB.LAB_UE6_RTP_PORT), log: () => path.join(logDir(), 'sipp-uas-dtmf-ue6-messages.log') };
const UE1 = { user: 'ue1', mediaPort: Number(LAB.LAB_UE1_RTP_PORT) };
const UE6_DIGITS = '26*';   // what run-ue.sh uas-dtmf sends 1 s after the ACK, 200 ms each
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let page;
let client;
let token;

before(async () => {
  page = await loggedInPage(USER, 'test-dtmf-alice');
  ({ client, token } = page);
});

after(async () => page?.close());

const tePt = (sdp, rate = 8000) => Number(new RegExp(`a=rtpmap:(\\d+) telephone-event/${rate}`).exec(sdp ?? '')?.[1] ?? NaN);

// The telephone-event clock a relayed Opus call negotiates, from the browser's own offer: Opus's 48000 when
// the browser offers telephone-event/48000 (Chromium offers /48000 and /8000), else /8000 (Firefox offers
// only that one, RFC 7874 §3); ue6 answers /48000 when offered, else /8000 (sipp-scenarios/uas-dtmf.xml).
function offeredTeClock(browserOffer) {
  assert.ok(tePt(browserOffer, 8000) >= 96, `the browser offers telephone-event/8000 (RFC 7874 §3): ${browserOffer}`);
  return tePt(browserOffer, 48000) >= 96 ? 48000 : 8000;
}

// rtpengine can only inject once it has seen the browser's RTP (it needs its SSRC).
async function waitBrowserMedia(callId) {
  const end = Date.now() + 8000;
  for (;;) {
    const info = await gw.callInfo(token, callId);
    if (info.media.packetsToIms > 10) return info;
    if (Date.now() > end) throw new Error(`no media from the browser on ${callId}: ${JSON.stringify(info.media)}`);
    await sleep(250);
  }
}

// An MO call to `ue` with the UE's media port captured; `during(callId, answered)` runs once media flows.
// dtmf: 'inject' places the call with WebSocket dtmf (rtpengine's play DTMF).
async function capturedCall(ue, { imsCodec, dtmf, holdMs = 1500 } = {}, during = async () => {}) {
  const cap = await startCapture(ue.mediaPort, `dtmf-${ue.user}`);
  let callId = null;
  try {
    callId = await client.call(ue.user, { ...(imsCodec ? { imsCodec } : {}), ...(dtmf ? { dtmf } : {}) });
    const answered = await client.waitFor('answered', callId, 15000);
    const browserOffer = (await client.sdp(callId)).local;   // MO: the browser's offer
    await waitBrowserMedia(callId);
    const result = await during(callId, answered);
    await sleep(holdMs);
    await client.hangup(callId);
    const ended = await client.waitFor('ended', callId, 8000);
    await cap.stop();
    const packets = await rtpPackets(cap.file, ue.mediaPort);
    await assertFarUeAssertedIdentity({ token, callId, ue: ue.user });
    return { callId, answered, browserOffer, ended, result, packets, toUe: packets.filter((p) => p.dst === ue.mediaPort) };
  } catch (e) {
    if (callId) { try { await client.hangup(callId); await client.waitFor('ended', callId, 3000); } catch { /* gone */ } }
    await cap.stop().catch(() => {});
    throw e;
  }
}

// The telephone-event ue6 answered with {pt, clock}, checked against the offer it received.
function ue6TelephoneEvent(callId) {
  const offer = inviteSdpSeenByUe(UE6.log(), callId);
  const answer = answerSdpSentByUe(UE6.log(), callId);
  assert.ok(offer && answer, `ue6's INVITE/200 SDP for ${callId} in ${UE6.log()}`);
  const [, ptText, clockText] = /a=rtpmap:(\d+) telephone-event\/(\d+)/.exec(answer) ?? [];
  const pt = Number(ptText);
  const clock = Number(clockText);
  assert.ok(pt >= 96 && pt <= 127, `ue6 answered telephone-event with a dynamic pt: ${answer}`);
  assert.equal(tePt(offer, clock), pt, 'ue6 answers telephone-event under the offered payload type (RFC 3264 6.1)');
  return { pt, clock, offer, answer };
}

function assertEventsToUe(r, { pt, clock }, digits, durationMs) {
  const events = rfc4733Events(r.toUe, pt);
  assert.equal(events.map((e) => e.digit).join(''), digits, `RFC 4733 events toward the UE (pt ${pt}): ${JSON.stringify(events)}`);
  for (const e of events) {
    assert.ok(e.endSeen, `event ${e.digit} has its end packet (E bit) toward the UE; events seen: ${JSON.stringify(events)}; ${r.toUe.length} packets to the UE's port in the capture`);
    // duration in units of the event's clock (rtpengine rounds up to whole 20 ms packets)
    const perMs = clock / 1000;
    assert.ok(e.duration >= durationMs * perMs * 0.8 && e.duration <= (durationMs + 60) * perMs,
      `event ${e.digit}: duration ${e.duration} for ${durationMs} ms at ${clock} Hz`);
  }
  return events;
}

// The page's keypad: a click on its button for each key (webclient/public/app.js → labClient.keypad).
// page.click(selector) and page.evaluate are the same in Playwright (Chromium) and Puppeteer (Firefox).
async function pressKeys(keys) {
  const paths = [];
  if (await client.page.evaluate(() => document.getElementById('keypad-box').hidden)) await client.page.click('#keypad-btn');   // the call screen's Keypad button (evaluate: both drivers)
  for (const k of keys) {
    await client.page.click(`#keypad button[data-key="${k}"]`);
    paths.push(await client.page.evaluate(() => document.getElementById('dtmf-path').textContent));
    await sleep(400);   // one tone (100 ms) + gap at a time, as a person would
  }
  return paths;
}

// rtpengine's verdict on a call: the codecs it reports per leg and whether it transcodes.
function assertRelayed(info, codec = 'opus/48000') {
  assert.equal(info.media.codecBrowser, codec, JSON.stringify(info.media));
  assert.equal(info.media.codecIms, codec, `the same codec on both legs: ${JSON.stringify(info.media)}`);
  assert.equal(info.media.transcoded, false, `no transcoding: ${JSON.stringify(info.media)}`);
  assert.equal(info.media.dtmf, 'relay');
}

test(titled('relayed call to ue6 (the default): the page keypad sends RFC 4733 via RTCDTMFSender; no transcoding'), { timeout: 40000 }, async () => {
  const r = await capturedCall(UE6, { holdMs: 500 }, async (callId) => {
    const relayed = await gw.callInfo(token, callId);
    const paths = await pressKeys('4#');
    return { relayed, paths, errors: (await client.events()).filter((e) => e.msg.type === 'error' && e.msg.callId === callId) };
  });
  assertRelayed(r.result.relayed);
  assert.deepEqual(r.result.paths, ['sent by the browser (RTCDTMFSender)', 'sent by the browser (RTCDTMFSender)']);
  assert.deepEqual(r.result.errors, [], 'no gateway error');
  const te = ue6TelephoneEvent(r.callId);
  const clock = offeredTeClock(r.browserOffer);
  assert.equal(te.clock, clock, `Opus with the telephone-event/${clock} the browser offered on the IMS leg`);
  assert.ok(tePt(r.answered.sdp, clock) >= 96, `the browser is answered with telephone-event/${clock}: ${r.answered.sdp}`);
  assertEventsToUe(r, te, '4#', 100);
  assert.ok(r.toUe.every((p) => p.pt === Number(/m=audio \d+ RTP\/AVP (\d+)/.exec(te.answer)[1]) || p.pt === te.pt),
    'toward the UE only Opus and telephone-event, as negotiated');
  assertRelayed(await gw.callInfo(token, r.callId));   // after the end: the last counters, still relayed
  await assertNoRtpengineSession();
});

test(titled('WebSocket dtmf on a relayed call: error dtmf-unavailable saying how to get it, shown on the page; the call goes on'), { timeout: 40000 }, async () => {
  const r = await capturedCall(UE6, { holdMs: 300 }, async (callId) => {
    const mark = await client.mark();
    await client.dtmf(callId, '7', 160);
    const err = await client.waitFor('error', callId, 5000, mark);
    await sleep(300);
    return { err, shown: await client.errorText(), info: await gw.callInfo(token, callId) };
  });
  assert.equal(r.result.err.code, 'dtmf-unavailable');
  assert.match(r.result.err.message, /RTCDTMFSender/);
  assert.match(r.result.err.message, /dtmf: "inject"/);
  assert.match(r.result.shown ?? '', /dtmf-unavailable/, 'the page shows the error');
  assert.equal(r.result.info.state, 'confirmed');
  assertRelayed(r.result.info);
  const { pt } = ue6TelephoneEvent(r.callId);
  assert.deepEqual(rfc4733Events(r.toUe, pt), [], 'nothing was played toward the UE');
  assert.equal(r.ended.reason, 'local-hangup');
  await assertNoRtpengineSession();
});

test(titled('WebSocket dtmf "1#" on an MO call placed with dtmf "inject": RFC 4733 events 1 and # reach ue6 under its payload type'), { timeout: 40000 }, async () => {
  const r = await capturedCall(UE6, { dtmf: 'inject' }, async (callId) => {
    const info = await gw.callInfo(token, callId);
    await client.dtmf(callId, '1#', 160);
    return info;
  });
  assert.equal(r.result.media.dtmf, 'inject');
  assert.equal(r.result.media.transcoded, true, 'inject-DTMF runs the browser\'s audio through rtpengine\'s codec engine');
  const te = ue6TelephoneEvent(r.callId);
  // rtpengine 10.5 injects only at the audio codec's clock: the IMS leg gets telephone-event/48000 beside Opus,
  // from the browser's offer (Chromium) or added by the gateway (Firefox offers only /8000: CodecPolicy)
  assert.equal(te.clock, 48000, 'Opus with telephone-event/48000 on the IMS leg');
  assert.ok(tePt(te.offer, 48000) >= 96, `IMS offer has telephone-event/48000: ${te.offer}`);
  if (offeredTeClock(r.browserOffer) === 48000) {
    assert.ok(tePt(r.answered.sdp, 48000) >= 96, `the browser is answered with telephone-event/48000: ${r.answered.sdp}`);
  } else {
    // rtpengine 10.5 answers the browser's transcoded Opus stream with telephone-event at Opus's clock only,
    // which Firefox did not offer: no RTCDTMFSender on this call, the keypad takes WebSocket dtmf (next test)
    assert.doesNotMatch(r.answered.sdp, /telephone-event/, `the browser is answered without telephone-event: ${r.answered.sdp}`);
  }
  assertEventsToUe(r, te, '1#', 160);
  const errors = (await client.events()).filter((e) => e.msg.type === 'error' && e.msg.callId === r.callId);
  assert.deepEqual(errors, [], 'no error for the dtmf message');
  await assertNoRtpengineSession();
});

test(titled('the page keypad on a transcoded call (imsCodec PCMA): telephone-event at the 8000 Hz clock on the IMS leg'), { timeout: 40000 }, async () => {
  const r = await capturedCall(UE6, { imsCodec: 'PCMA' }, () => pressKeys('9'));
  const te = ue6TelephoneEvent(r.callId);
  const { offer, answer } = te;
  assert.equal(te.clock, 8000, 'transcoded to PCMA: telephone-event/8000 on the IMS leg');
  assert.match(offer, /m=audio \d+ RTP\/AVP 8 \d+\r?\n/, `IMS offer: PCMA + telephone-event only: ${offer}`);
  assert.match(answer, /a=rtpmap:8 PCMA\/8000/);
  // the browser leg stays Opus
  assert.match(r.answered.sdp, /a=rtpmap:\d+ opus\/48000/);
  assert.ok(r.toUe.some((p) => p.pt === 8), 'PCMA audio toward the UE (transcoded)');
  if (offeredTeClock(r.browserOffer) === 48000) {
    // Chromium: answered telephone-event/48000 (no /8000 beside Opus); its RTCDTMFSender sends the key and
    // rtpengine rescales the event to 8000 Hz (the duration bound below fails on an unscaled 48000 one)
    assert.ok(tePt(r.answered.sdp, 48000) >= 96, `browser leg: telephone-event/48000 (${r.answered.sdp})`);
    assert.deepEqual(r.result, ['sent by the browser (RTCDTMFSender)']);
  } else {
    // Firefox offers only telephone-event/8000, which rtpengine 10.5 does not answer beside a transcoded Opus:
    // the keypad sends WebSocket dtmf, which the call takes (transcoded anyway) → play DTMF toward ue6
    assert.doesNotMatch(r.answered.sdp, /telephone-event/, `browser leg without telephone-event: ${r.answered.sdp}`);
    assert.deepEqual(r.result, ['sent through the gateway (WebSocket dtmf)']);
  }
  const [ev] = assertEventsToUe(r, te, '9', 100);
  assert.ok(ev.packets >= 5, `event sent as a series of packets (${ev.packets})`);
  const errors = (await client.events()).filter((e) => e.msg.type === 'error' && e.msg.callId === r.callId);
  assert.deepEqual(errors, [], 'no gateway error');
  await assertNoRtpengineSession();
});

// ue2's default offer is Opus + PCMA + telephone-event/8000: the call stays Opus (no transcoding), and its
// telephone-event/8000 beside Opus/48000 is one rtpengine 10.5 cannot inject into (docs/media.md "DTMF").
test(titled('MT call from ue2 answered with dtmf "inject": rtpengine marks the browser stream; WebSocket dtmf names the telephone-event clock it cannot inject at; the keypad works'), { timeout: 40000 }, async () => {
  const UE2_MEDIA = Number(LAB.LAB_UE2_RTP_PORT);
  const cap = await startCapture(UE2_MEDIA, 'dtmf-ue2-mt-inject');
  let packets = [];
  let info;
  let err;
  let paths;
  try {
    // ue2 hangs up 9 s after its ACK: time for media to start, the refused dtmf and the keypad on a busy host
    const { ue, incoming } = await incomingCall(client, USER, 'uac', 9000);
    const { callId } = incoming;
    try {
      assert.match(incoming.sdp, /a=rtpmap:\d+ opus\/48000/);
      await client.answer(callId, { dtmf: 'inject' });
      await waitBrowserMedia(callId);
      info = await gw.callInfo(token, callId);
      const mark = await client.mark();
      await client.dtmf(callId, '8', 160);
      err = await client.waitFor('error', callId, 5000, mark);
      paths = await pressKeys('6');
      await client.waitFor('ended', callId, 15000);
    } finally {
      const r = await ue.done;
      assert.equal(r.code, 0, `SIPp ue2: ${r.output}`);
    }
  } finally {
    await cap.stop();
    packets = await rtpPackets(cap.file, UE2_MEDIA);
  }
  assert.equal(info.media.dtmf, 'inject');
  assert.equal(info.media.codecBrowser, 'opus/48000', JSON.stringify(info.media));
  assert.equal(info.media.codecIms, 'opus/48000', JSON.stringify(info.media));
  assert.equal(info.media.transcoded, true, 'the repeated offer with inject-DTMF took: the browser stream goes through the codec engine');
  assert.equal(err.code, 'dtmf-unavailable');
  assert.match(err.message, /telephone-event\/8000 beside opus\/48000/);
  assert.deepEqual(paths, ['sent by the browser (RTCDTMFSender)']);
  const events = rfc4733Events(packets.filter((p) => p.dst === UE2_MEDIA), 101);   // uac.xml: telephone-event/8000, pt 101
  assert.equal(events.map((e) => e.digit).join(''), '6', `the keypad's RFC 4733 events toward ue2: ${JSON.stringify(events)}`);
  await assertNoRtpengineSession();
});

test(titled('MT call from ue2 offering PCMA + telephone-event/8000 (transcoded anyway): WebSocket dtmf "5" reaches the UE as RFC 4733 without asking'), { timeout: 40000 }, async () => {
  const UE2_MEDIA = Number(LAB.LAB_UE2_RTP_PORT);
  const cap = await startCapture(UE2_MEDIA, 'dtmf-ue2-mt');
  let packets = [];
  try {
    const { ue, incoming } = await incomingCall(client, USER, 'uac', 8000, { env: { UE_CODEC: 'PCMA' } });
    const { callId } = incoming;
    try {
      assert.match(incoming.sdp, /a=rtpmap:\d+ opus\/48000/, 'the browser is offered Opus (rtpengine transcodes PCMA)');
      await client.answer(callId);
      await waitBrowserMedia(callId);
      await client.dtmf(callId, '5', 160);
      await client.waitFor('ended', callId, 15000);
    } finally {
      const r = await ue.done;
      assert.equal(r.code, 0, `SIPp ue2: ${r.output}`);
    }
  } finally {
    await cap.stop();
    packets = await rtpPackets(cap.file, UE2_MEDIA);
  }
  const toUe = packets.filter((p) => p.dst === UE2_MEDIA);
  assert.ok(toUe.some((p) => p.pt === 8), 'PCMA toward the UE');
  const events = rfc4733Events(toUe, 101);   // uac.xml: telephone-event/8000 at payload type 101
  assert.equal(events.map((e) => e.digit).join(''), '5', `RFC 4733 events toward ue2: ${JSON.stringify(events)}`);
  assert.ok(events[0].endSeen && events[0].duration >= 160 * 8 * 0.8, `event duration ${events[0].duration} at 8000 Hz`);
  await assertNoRtpengineSession();
});

test(titled('ue6 sends RFC 4733 digits on a relayed call: the browser gets one WebSocket dtmf per digit'), { timeout: 40000 }, async () => {
  const mark = await client.mark();
  const r = await capturedCall(UE6, { holdMs: 0 }, async (callId) => {
    const got = [];
    for (let i = 0; i < UE6_DIGITS.length; i++) got.push(await client.waitFor('dtmf', callId, 8000, mark));
    got.info = await gw.callInfo(token, callId);
    return got;
  });
  assertRelayed(r.result.info);   // rtpengine's DTMF log sees the events it relays, no codec engine needed
  const { pt } = ue6TelephoneEvent(r.callId);
  const fromUe = rfc4733Events(r.packets.filter((p) => p.src === UE6.mediaPort), pt);
  assert.equal(fromUe.map((e) => e.digit).join(''), UE6_DIGITS, 'the capture shows ue6 sending the digits');
  assert.equal(r.result.map((m) => m.digit).join(''), UE6_DIGITS);
  for (const m of r.result) {
    assert.equal(m.source, 'ims');
    assert.equal(m.callId, r.callId);
    assert.ok(m.durationMs >= 150 && m.durationMs <= 300, `durationMs ${m.durationMs} for a 200 ms digit`);
  }
  await sleep(500);
  const extra = (await client.events()).slice(mark).filter((e) => e.msg.type === 'dtmf' && e.msg.callId === r.callId);
  assert.equal(extra.length, UE6_DIGITS.length, `one dtmf per digit, not per packet: ${JSON.stringify(extra.map((e) => e.msg))}`);
  await assertNoRtpengineSession();
});

// A-law (G.711) to linear, and the relative power at one frequency (Goertzel) of a 20 ms frame.
function alaw(b) {
  let v = b ^ 0x55;
  const seg = (v & 0x70) >> 4;
  let t = (v & 0x0f) << 4;
  t += seg ? 0x108 : 8;
  if (seg > 1) t <<= seg - 1;
  return (v & 0x80) ? t : -t;
}
function tonePower(samples, f, rate = 8000) {
  const k = 2 * Math.cos(2 * Math.PI * f / rate);
  let s1 = 0; let s2 = 0;
  for (const x of samples) { const s0 = x + k * s1 - s2; s2 = s1; s1 = s0; }
  const energy = samples.reduce((a, x) => a + x * x, 0) * samples.length / 2 || 1;
  return (s1 * s1 + s2 * s2 - k * s1 * s2) / energy;
}

test(titled('UE without telephone-event (ue1, PCMA, transcoded so WebSocket dtmf without asking): the digit arrives as an in-band DTMF tone'), { timeout: 40000 }, async () => {
  const r = await capturedCall(UE1, { imsCodec: 'PCMA' }, async (callId) => { await client.dtmf(callId, '1', 200); });
  assert.doesNotMatch(r.answered.sdp, /telephone-event/, 'ue1 did not negotiate telephone-event');
  assert.ok(r.toUe.every((p) => p.pt === 8), `only PCMA toward ue1: ${[...new Set(r.toUe.map((p) => p.pt))]}`);
  // '1' = 697 Hz + 1209 Hz (ITU-T Q.23): frames where both carry a large share of the power. rtpengine
  // 10.5 cuts the tone short when it transcodes from Opus (48 kHz): ~60 ms of the 200 ms asked for
  // (docs/media.md "DTMF"), so two frames are required, not ten.
  const dtmfFrames = r.toUe.filter((p) => {
    const s = [...p.payload].map(alaw);
    return tonePower(s, 697) > 0.25 && tonePower(s, 1209) > 0.25;
  });
  assert.ok(dtmfFrames.length >= 2, `in-band '1' in ${dtmfFrames.length} PCMA frames`);
  const otherTone = r.toUe.filter((p) => {
    const s = [...p.payload].map(alaw);
    return tonePower(s, 941) > 0.25 && tonePower(s, 1477) > 0.25;   // '#': must not be there
  });
  assert.equal(otherTone.length, 0, 'no other DTMF pair in the audio');
  await assertNoRtpengineSession();
});

test(titled('bad dtmf messages: bad-message, unknown-call, bad-state; the call survives'), { timeout: 40000 }, async () => {
  const r = await capturedCall(UE6, { holdMs: 500, dtmf: 'inject' }, async (callId) => {
    const errorFor = async (msg) => {
      const mark = await client.mark();
      await client.sendRaw(JSON.stringify({ type: 'dtmf', ...msg }));
      return client.waitFor('error', null, 5000, mark);
    };
    const bad = [];
    bad.push(await errorFor({ callId, digits: '12x' }));
    bad.push(await errorFor({ callId, digits: '' }));
    bad.push(await errorFor({ callId, digits: '1', durationMs: 5000 }));
    bad.push(await errorFor({ callId, digits: '1', durationMs: 'long' }));
    const unknown = await errorFor({ callId: 'no-such-call', digits: '1' });
    await client.dtmf(callId, '5', 100);   // still works afterwards
    await sleep(600);
    const info = await gw.callInfo(token, callId);
    return { bad, unknown, info };
  });
  for (const e of r.result.bad) assert.equal(e.code, 'bad-message', JSON.stringify(e));
  assert.match(r.result.bad[0].message, /'digits'/);
  assert.match(r.result.bad[2].message, /40\.\.2000/);
  assert.equal(r.result.unknown.code, 'unknown-call');
  assert.equal(r.result.info.state, 'confirmed', 'the call is still up after the bad messages');
  assert.ok(r.ended.reason === 'local-hangup', `ended by the browser: ${JSON.stringify(r.ended)}`);
  assertEventsToUe(r, ue6TelephoneEvent(r.callId), '5', 100);
  // once ended, dtmf is refused with bad-state
  const mark = await client.mark();
  await client.sendRaw(JSON.stringify({ type: 'dtmf', callId: r.callId, digits: '1' }));
  const late = await client.waitFor('error', r.callId, 5000, mark);
  assert.equal(late.code, 'bad-state');
  await assertNoRtpengineSession();
});
