// The known audio signal of the audio-quality check (docs/media.md "Audio-quality check"): a steady
// multi-tone, written as a WAV for Chromium's --use-file-for-fake-audio-capture (which loops it).
// All tones lie inside G.711's 300-3400 Hz band, so every codec the lab offers must carry them.
import fs from 'node:fs';
import path from 'node:path';

export const TEST_TONES_HZ = Object.freeze([440, 1000, 2200]);
export const TEST_TONE_AMPLITUDE = 0.2;   // each tone; peak of the sum 0.6 (-4.4 dBFS): no codec clips
export const TEST_SIGNAL_RATE = 48000;
// 1 s holds a whole number of cycles of every tone: the looped file has no click at the seam.
const FILE_SECONDS = 1;

export function describeSignal(tones = TEST_TONES_HZ) {
  return `multi-tone ${tones.join(' + ')} Hz`;
}

// n samples of the sum of `tones` (Hz), each with `amplitude`, at `rate`; phase 0 at sample `offset`.
export function toneSamples(tones, n, rate = TEST_SIGNAL_RATE, { amplitude = TEST_TONE_AMPLITUDE, offset = 0 } = {}) {
  const out = new Float64Array(n);
  for (const f of tones) {
    const w = (2 * Math.PI * f) / rate;
    for (let i = 0; i < n; i++) out[i] += amplitude * Math.sin(w * (i + offset));
  }
  return out;
}

// Mono 16-bit PCM WAV (RIFF/WAVE, 44-byte header) of float samples in [-1, 1].
export function wavBytes(samples, rate) {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    data.writeInt16LE(Math.round(s * 32767), i * 2);
  }
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);          // fmt chunk size
  h.writeUInt16LE(1, 20);           // PCM
  h.writeUInt16LE(1, 22);           // mono
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);    // byte rate
  h.writeUInt16LE(2, 32);           // block align
  h.writeUInt16LE(16, 34);          // bits per sample
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

// Writes the test signal into `dir` (generated at run time: no binary in git); returns its path.
export function writeTestSignal(dir, tones = TEST_TONES_HZ) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `test-signal-${tones.join('-')}.wav`);
  fs.writeFileSync(file, wavBytes(toneSamples(tones, FILE_SECONDS * TEST_SIGNAL_RATE), TEST_SIGNAL_RATE));
  return file;
}
