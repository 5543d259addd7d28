// Unit: the audio-quality verdict (runner/audio-check.mjs) on synthetic recordings, no lab needed.
// It must pass the sent tones (also delayed, quieter, noisy, band-limited like G.711) and fail
// silence, wrong tones, a missing tone, noise alone and tones buried in noise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAudio } from '../runner/audio-check.mjs';
import { TEST_TONES_HZ, toneSamples, wavBytes } from '../runner/test-signal.mjs';

const RATE = 48000;
const N = 2 * RATE;   // what the call check records: 2 s

// Deterministic noise (LCG) so a failure is reproducible.
function noise(n, amplitude, seed = 1) {
  const out = new Float64Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (1103515245 * x + 12345) % 2147483648;
    out[i] = amplitude * (2 * (x / 2147483648) - 1);
  }
  return out;
}
const mix = (...parts) => parts[0].map((_, i) => parts.reduce((s, p) => s + p[i], 0));

test('the sent tones pass, with the tones found and a high SNR and correlation', () => {
  const r = checkAudio(toneSamples(TEST_TONES_HZ, N, RATE), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, true, r.problems.join('; '));
  assert.equal(r.detected_hz.length, 3);
  r.detected_hz.forEach((d, i) => assert.ok(Math.abs(d - TEST_TONES_HZ[i]) < 1, `${d} vs ${TEST_TONES_HZ[i]}`));
  assert.ok(r.snr_db > 60, `snr ${r.snr_db}`);
  assert.ok(r.correlation > 0.99, `correlation ${r.correlation}`);
});

test('delayed, 12 dB quieter, with noise 35 dB down: still passes', () => {
  const tones = toneSamples(TEST_TONES_HZ, N, RATE, { amplitude: 0.05, offset: 1234 });
  const r = checkAudio(mix(tones, noise(N, 0.002)), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, true, r.problems.join('; '));
});

test('G.711-like: resampled through 8 kHz with coarse quantisation still passes', () => {
  const clean = toneSamples(TEST_TONES_HZ, N, RATE);
  // keep every 6th sample (8 kHz), 8-bit quantise, hold it for 6 samples (crude, adds images above 4 kHz)
  const q = clean.map((_, i) => Math.round(clean[i - (i % 6)] * 128) / 128);
  const r = checkAudio(q, RATE, TEST_TONES_HZ);
  assert.equal(r.pass, true, r.problems.join('; '));
});

test('silence fails', () => {
  const r = checkAudio(new Float64Array(N), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, false);
  assert.match(r.problems.join('; '), /silence/);
});

test('other tones (500, 1300, 2900 Hz) fail', () => {
  const r = checkAudio(toneSamples([500, 1300, 2900], N, RATE), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, false);
  assert.match(r.problems.join('; '), /not found/);
  assert.ok(r.correlation < 0.2, `correlation ${r.correlation}`);
});

test('tones 30 Hz off (a wrong sample-rate conversion) fail', () => {
  const r = checkAudio(toneSamples(TEST_TONES_HZ.map((f) => f + 30), N, RATE), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, false);
  assert.match(r.problems.join('; '), /not found/);
});

test('one tone missing (2200 Hz cut off) fails', () => {
  const r = checkAudio(toneSamples([440, 1000], N, RATE), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, false);
  assert.match(r.problems.join('; '), /2200 Hz not found/);
});

test('noise alone fails', () => {
  const r = checkAudio(noise(N, 0.3), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, false);
});

test('tones buried in noise (SNR far below the threshold) fail', () => {
  const r = checkAudio(mix(toneSamples(TEST_TONES_HZ, N, RATE, { amplitude: 0.002 }), noise(N, 0.5)), RATE, TEST_TONES_HZ);
  assert.equal(r.pass, false);
  assert.match(r.problems.join('; '), /SNR/);
});

test('the WAV writer: 44-byte RIFF header, mono 16-bit, the samples little-endian', () => {
  const b = wavBytes([0, 0.5, -1], 48000);
  assert.equal(b.length, 44 + 6);
  assert.equal(b.toString('ascii', 0, 4), 'RIFF');
  assert.equal(b.toString('ascii', 8, 12), 'WAVE');
  assert.equal(b.readUInt16LE(22), 1);
  assert.equal(b.readUInt32LE(24), 48000);
  assert.equal(b.readUInt16LE(34), 16);
  assert.deepEqual([b.readInt16LE(44), b.readInt16LE(46), b.readInt16LE(48)], [0, 16384, -32767]);
});
