// The audio-quality verdict on audio recovered from a call (docs/media.md "Audio-quality check"):
// averaged power spectrum of the recording, the strongest peaks compared with the tones that were
// sent, per-tone SNR against the noise floor, and the spectral correlation with the clean reference.
import FFT from 'fft.js';
import { TEST_TONE_AMPLITUDE, toneSamples } from './test-signal.mjs';

export const AUDIO_THRESHOLDS = Object.freeze({
  toleranceHz: 10,       // a detected peak this close to a sent tone matches it (bins: 5.9 Hz at 48 kHz, 5.4 Hz at 44.1 kHz)
  minSnrDb: 20,          // weakest tone vs the noise floor in the same bandwidth
  minCorrelation: 0.8,   // Pearson, amplitude spectra of recording vs reference, 100-3800 Hz
  minLevelDbfs: -50,     // quieter than this is silence
});
// Up to 3.8 kHz: everything G.711 (8 kHz sampling) can carry, so the band is the same for every codec.
const BAND_HZ = [100, 3800];
const FRAME = 8192;          // Welch: Hann-windowed frames of 8192 samples, half overlapping
const TONE_HALF_BINS = 3;    // a Hann-windowed tone spreads over +-2 bins; +-3 also takes up small drift
const NOISE_GUARD_BINS = 8;  // bins around a tone left out of the noise-floor estimate
const MIN_PEAK_SPACING_HZ = 30;

const db = (x) => 10 * Math.log10(x);
const round = (v, d = 1) => (v == null || !Number.isFinite(v) ? null : Number(v.toFixed(d)));

// Mean power spectrum (Welch) of `samples` at `rate`: {power: Float64Array(FRAME/2+1), binHz}.
export function powerSpectrum(samples, rate) {
  if (samples.length < FRAME) throw new Error(`audio check needs at least ${FRAME} samples, got ${samples.length}`);
  const fft = new FFT(FRAME);
  const win = new Float64Array(FRAME);
  for (let i = 0; i < FRAME; i++) win[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FRAME - 1));
  const frame = new Float64Array(FRAME);
  const out = fft.createComplexArray();
  const power = new Float64Array(FRAME / 2 + 1);
  let frames = 0;
  for (let start = 0; start + FRAME <= samples.length; start += FRAME / 2) {
    for (let i = 0; i < FRAME; i++) frame[i] = samples[start + i] * win[i];
    fft.realTransform(out, frame);
    for (let k = 0; k <= FRAME / 2; k++) power[k] += out[2 * k] ** 2 + out[2 * k + 1] ** 2;
    frames++;
  }
  for (let k = 0; k < power.length; k++) power[k] /= frames;
  return { power, binHz: rate / FRAME };
}

// The `count` strongest local maxima in [lo, hi] bins, at least MIN_PEAK_SPACING_HZ apart, with the
// frequency refined by a parabola through the log power of the peak bin and its neighbours.
function strongestPeaks(power, binHz, lo, hi, count) {
  const maxima = [];
  for (let k = Math.max(lo, 1); k <= Math.min(hi, power.length - 2); k++) {
    if (power[k] > power[k - 1] && power[k] >= power[k + 1]) maxima.push(k);
  }
  maxima.sort((a, b) => power[b] - power[a]);
  const picked = [];
  for (const k of maxima) {
    if (picked.length === count) break;
    if (picked.every((p) => Math.abs(p - k) * binHz >= MIN_PEAK_SPACING_HZ)) picked.push(k);
  }
  return picked.map((k) => {
    const [a, b, c] = [power[k - 1], power[k], power[k + 1]].map((x) => Math.log(x + 1e-30));
    const den = a - 2 * b + c;
    const shift = den === 0 ? 0 : (0.5 * (a - c)) / den;
    return (k + shift) * binHz;
  }).sort((x, y) => x - y);
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
}

function pearson(x, y) {
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0; let sxx = 0; let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

// Judges a recording (float samples in [-1, 1] at `rate`) against the tones that were sent.
// Returns the report fields of media.audio (docs/architecture.md) without `signal`/`covers`.
export function checkAudio(samples, rate, tones, thresholds = AUDIO_THRESHOLDS) {
  const t = { ...AUDIO_THRESHOLDS, ...thresholds };
  let sum = 0;
  for (const s of samples) sum += s * s;
  const levelDbfs = samples.length ? db(sum / samples.length) + 3.01 : -Infinity;   // dBFS of a full-scale sine = 0
  const { power, binHz } = powerSpectrum(samples, rate);
  const lo = Math.ceil(BAND_HZ[0] / binHz);
  const hi = Math.min(Math.floor(BAND_HZ[1] / binHz), power.length - 1);
  const detected = strongestPeaks(power, binHz, lo, hi, tones.length);

  // noise floor per bin: median over the band without the bins around the tones
  const nearTone = (k) => tones.some((f) => Math.abs(k - f / binHz) <= NOISE_GUARD_BINS);
  const noiseBins = [];
  for (let k = lo; k <= hi; k++) if (!nearTone(k)) noiseBins.push(power[k]);
  const noisePerBin = Math.max(median(noiseBins), 1e-30);
  const snrPerTone = tones.map((f) => {
    const c = Math.round(f / binHz);
    let p = 0;
    for (let k = c - TONE_HALF_BINS; k <= c + TONE_HALF_BINS; k++) p += power[k] ?? 0;
    return db(Math.max(p, 1e-30) / (noisePerBin * (2 * TONE_HALF_BINS + 1)));
  });

  const reference = powerSpectrum(toneSamples(tones, samples.length, rate, { amplitude: TEST_TONE_AMPLITUDE }), rate).power;
  const amp = (p) => Array.from(p.subarray(lo, hi + 1), Math.sqrt);
  const correlation = pearson(amp(power), amp(reference));

  const missing = tones.filter((f) => !detected.some((d) => Math.abs(d - f) <= t.toleranceHz));
  const snrDb = Math.min(...snrPerTone);
  const problems = [];
  if (!(levelDbfs >= t.minLevelDbfs)) problems.push(`silence (level ${Number.isFinite(levelDbfs) ? round(levelDbfs) : '-inf'} dBFS)`);
  if (missing.length) problems.push(`tone(s) ${missing.join(', ')} Hz not found (${detected.length ? `peaks at ${detected.map((d) => round(d)).join(', ')} Hz` : 'no peaks'})`);
  if (!(snrDb >= t.minSnrDb)) problems.push(`SNR ${round(snrDb)} dB < ${t.minSnrDb}`);
  if (!(correlation >= t.minCorrelation)) problems.push(`spectral correlation ${round(correlation, 3)} < ${t.minCorrelation}`);
  return {
    tones_hz: [...tones],
    detected_hz: detected.map((d) => round(d)),
    snr_db: round(snrDb),
    snr_db_per_tone: snrPerTone.map((v) => round(v)),
    correlation: round(correlation, 3),
    level_dbfs: round(levelDbfs),
    seconds: round(samples.length / rate, 2),
    sample_rate: rate,
    thresholds: { tolerance_hz: t.toleranceHz, min_snr_db: t.minSnrDb, min_correlation: t.minCorrelation, min_level_dbfs: t.minLevelDbfs },
    pass: problems.length === 0,
    problems,
  };
}
