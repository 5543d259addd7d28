// Integration: the audio-quality check (issue 5) with the lab up (./lab test). The browser's fake
// microphone plays a known multi-tone (runner/test-signal.mjs) with voice processing off; SIPp
// echoes the RTP; the page records the remote track and runner/audio-check.mjs compares what came
// back with what was sent: each tone found within the tolerance, SNR and spectral correlation above
// the thresholds. Pass-through (Opus end to end), Opus <-> PCMA and Opus <-> G.722 transcoding on MO
// calls, and an MT call from ue2 offering only PCMA. The same real recording judged against other
// tones must fail, so the check can tell. No rtpengine session may be left after any call.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAudio } from '../runner/audio-check.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { logDir, passwordOf } from '../kit/env.mjs';
import * as gw from '../runner/gateway.mjs';
import { moCall, mtCall } from '../runner/scenario.mjs';
import { TEST_TONES_HZ, writeTestSignal } from '../runner/test-signal.mjs';
import { assertNoRtpengineSession, titled } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'alice';
const MEDIA_MS = 4000;   // recording: 1.5 s after the answer, for 2 s
const AUDIO = { tones: TEST_TONES_HZ };
let browser;
let client;
let token;

before(async () => {
  await gw.waitHealthy(15000);
  browser = await launchBrowser({ fakeAudioFile: writeTestSignal(logDir()) });
  client = await openClient(browser, { name: 'test-audio-alice', rawAudio: true });
  ({ token } = await client.login(USER, passwordOf(USER)));
});

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
});

function assertAudioRecovered(t, r, { codecIms }) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  assert.equal(r.info?.media?.codecIms, codecIms, `IMS leg codec (call info ${JSON.stringify(r.info?.media)})`);
  assert.equal(r.info?.media?.codecBrowser, 'opus/48000', `browser leg codec (call info ${JSON.stringify(r.info?.media)})`);
  const a = r.audio;
  assert.ok(a, 'the audio check ran');
  t.diagnostic(`audio: detected ${a.detected_hz} Hz, SNR ${a.snr_db} dB (per tone ${a.snr_db_per_tone}), correlation ${a.correlation}, level ${a.level_dbfs} dBFS`);
  assert.equal(a.pass, true, `audio check: ${JSON.stringify(a)}`);
  TEST_TONES_HZ.forEach((f) => assert.ok(a.detected_hz.some((d) => Math.abs(d - f) <= a.thresholds.tolerance_hz),
    `${f} Hz among the detected peaks ${a.detected_hz}`));
  assert.ok(a.snr_db >= a.thresholds.min_snr_db, `SNR ${a.snr_db} dB`);
  assert.ok(a.correlation >= a.thresholds.min_correlation, `correlation ${a.correlation}`);
}

test(titled('pass-through MO call (Opus end to end): the tones come back; the same audio judged against other tones fails'),
  { timeout: 40000 }, async (t) => {
    const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS, maxMs: 15000, audio: AUDIO });
    assertAudioRecovered(t, r, { codecIms: 'opus/48000' });
    await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
    const wrong = checkAudio(r.audioRecording.samples, r.audioRecording.sampleRate, [500, 1300, 2900]);
    assert.equal(wrong.pass, false, `recording judged against 500/1300/2900 Hz: ${JSON.stringify(wrong)}`);
    await assertNoRtpengineSession();
  });

for (const [imsCodec, expected] of [['PCMA', 'PCMA/8000'], ['G722', 'G722/8000']]) {
  test(titled(`MO call with imsCodec ${imsCodec}: the tones survive Opus -> ${imsCodec} -> Opus`), { timeout: 40000 }, async (t) => {
    const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS, maxMs: 15000, imsCodec, audio: AUDIO });
    assertAudioRecovered(t, r, { codecIms: expected });
    await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
    await assertNoRtpengineSession();
  });
}

test(titled('MT call from ue2 offering only PCMA: the tones come back to the answering browser'), { timeout: 45000 }, async (t) => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS, env: { UE_CODEC: 'PCMA' } }, hangup: 'ue', maxMs: 15000, audio: AUDIO });
  assertAudioRecovered(t, r, { codecIms: 'PCMA/8000' });
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession();
});
