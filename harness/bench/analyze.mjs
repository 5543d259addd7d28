// Turning raw outputs into report fields: delaymeter's per-packet CSV -> delay CDF and throughput
// per second; the CPU sampler's cumulative seconds -> % per second and over the full-load window;
// ours vs the thesis reference; the machine.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export const DIRS = ['to_ims', 'to_browser'];
const r3 = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 1000) / 1000);
const r2 = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 100) / 100);

// readDelayCsv(file) -> {to_ims: {t: Float64Array, d: Float64Array}, ...}; rows are
// `t_in,direction,ssrc,seq,delay_us` (docs/delaymeter.md). Parsed by hand: 10^6 rows in capacity runs.
export function readDelayCsv(file) {
  const text = fs.readFileSync(file, 'latin1');
  const acc = { to_ims: { t: [], d: [] }, to_browser: { t: [], d: [] } };
  let pos = text.indexOf('\n') + 1; // header
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    const c1 = text.indexOf(',', pos);
    const c2 = text.indexOf(',', c1 + 1);
    const c4 = text.lastIndexOf(',', end);
    if (c1 > pos && c2 > c1 && c4 > c2) {
      const a = acc[text.slice(c1 + 1, c2)];
      if (a) { a.t.push(Number(text.slice(pos, c1))); a.d.push(Number(text.slice(c4 + 1, end)) / 1000); }
    }
    pos = end + 1;
  }
  const out = {};
  for (const k of DIRS) out[k] = { t: Float64Array.from(acc[k].t), d: Float64Array.from(acc[k].d) };
  return out;
}

// The CDF of delays as [ms, fraction] points: every percent, then finer in the tail.
export function delayCdf(delays) {
  const s = Float64Array.from(delays).sort();
  if (!s.length) return [];
  const qs = [];
  for (let p = 0; p < 99; p += 1) qs.push(p);
  for (let p = 99; p < 100; p += 0.1) qs.push(p);
  qs.push(100);
  return qs.map((p) => {
    const rank = Math.max(1, Math.ceil((p / 100) * s.length)); // nearest rank, like delaymeter
    return [r3(s[Math.min(rank, s.length) - 1]), r3(p / 100)];
  });
}

// Packets per second per direction that left the relay (matched), binned on the capture clock.
export function throughput(csv) {
  let t0 = Infinity, t1 = -Infinity;
  for (const k of DIRS) for (const t of csv[k].t) { if (t < t0) t0 = t; if (t > t1) t1 = t; }
  if (!Number.isFinite(t0)) return { t0_epoch_s: null, to_ims: [], to_browser: [] };
  const start = Math.floor(t0);
  const n = Math.floor(t1) - start + 1;
  const out = { t0_epoch_s: start };
  for (const k of DIRS) {
    const bins = new Array(n).fill(0);
    for (const t of csv[k].t) bins[Math.floor(t) - start] += 1;
    out[k] = bins;
  }
  return out;
}

// The full-load window: the seconds in which every call was sending (≥ 90 % of calls × pps in
// both directions). CPU per call is taken over this window, not over ramp-up and teardown.
export function fullLoadWindow(tp, calls, pps) {
  if (tp.t0_epoch_s == null) return null;
  const need = 0.9 * calls * pps;
  const full = tp.to_ims.map((v, i) => v >= need && (tp.to_browser[i] ?? 0) >= need);
  const first = full.indexOf(true), last = full.lastIndexOf(true);
  if (first < 0) return null;
  return { from_epoch_s: tp.t0_epoch_s + first, to_epoch_s: tp.t0_epoch_s + last + 1 };
}

// CPU samples (epoch ms + cumulative seconds per name) -> per-interval % and window averages.
export function cpuSeries(samples, names) {
  const series = [];
  for (let i = 1; i < samples.length; i += 1) {
    const [ta, a] = samples[i - 1], [tb, b] = samples[i];
    const dt = (tb - ta) / 1000;
    if (dt <= 0) continue;
    const row = { t_epoch_s: r3(tb / 1000) };
    for (const n of names) row[`${n}_pct`] = r2((((b[n] ?? 0) - (a[n] ?? 0)) / dt) * 100);
    series.push(row);
  }
  return series;
}

// Average % of one core per name between two epoch seconds (whole run when window is null).
export function cpuAverage(samples, names, window) {
  const inside = window ? samples.filter(([t]) => t / 1000 >= window.from_epoch_s - 0.5 && t / 1000 <= window.to_epoch_s + 0.5) : samples;
  const use = inside.length >= 2 ? inside : samples;
  if (use.length < 2) return Object.fromEntries(names.map((n) => [n, null]));
  const [ta, a] = use[0], [tb, b] = use[use.length - 1];
  const dt = (tb - ta) / 1000;
  return Object.fromEntries(names.map((n) => [n, dt > 0 ? r2((((b[n] ?? 0) - (a[n] ?? 0)) / dt) * 100) : null]));
}

// Ours / thesis, for every reference figure the profile has. < 1 is better for delay and CPU,
// > 1 for capacity.
export function referenceRatios(reference, ours) {
  if (!reference) return null;
  const pairs = {
    delay_p50_to_ims: [ours.delay?.to_ims?.p50, reference.delay_ms_p50_to_ims],
    delay_p50_to_browser: [ours.delay?.to_browser?.p50, reference.delay_ms_p50_to_browser],
    delay_p95_worst_direction: [maxOf(ours.delay?.to_ims?.p95, ours.delay?.to_browser?.p95), reference.delay_ms_p95],
    delay_max_worst_direction: [maxOf(ours.delay?.to_ims?.max, ours.delay?.to_browser?.max), reference.delay_ms_max_under_load],
    cpu_pct_per_call: [ours.cpuPerCall, reference.cpu_pct_per_call],
    capacity_calls_per_core: [ours.capacityPerCore, reference.capacity_calls_per_core_median],
  };
  const rows = {};
  for (const [k, [o, t]] of Object.entries(pairs)) {
    if (t == null) continue;
    rows[k] = { ours: o ?? null, thesis: t, ratio: o == null || !t ? null : r3(o / t), better: k.startsWith('capacity') ? 'higher' : 'lower' };
  }
  return rows;
}

const maxOf = (a, b) => (a == null ? b ?? null : b == null ? a : Math.max(a, b));

// Host-wide CPU (the namespace shares /proc/stat with the host): busy and total jiffies of all cores.
export function hostCpu() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - f[3] - f[4], total };
}

// % of one core that the whole host was busy between two hostCpu() readings.
export function hostBusyPct(a, b) {
  const dt = b.total - a.total;
  return dt > 0 ? r2(((b.busy - a.busy) / dt) * os.cpus().length * 100) : null;
}

export function machine() {
  let model = null;
  try { model = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m) ?? [])[1] ?? null; } catch { /* none */ }
  let rtpengine = null;
  const v = spawnSync('rtpengine', ['--version'], { encoding: 'utf8' }); // prints on stderr
  rtpengine = `${v.stdout ?? ''}${v.stderr ?? ''}`.trim().split('\n')[0] || null;
  return { nproc: os.cpus().length, cpu_model: model, kernel: os.release(), loadavg_1m: r2(os.loadavg()[0]), rtpengine, node: process.version };
}
