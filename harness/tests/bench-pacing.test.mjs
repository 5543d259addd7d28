// Unit test (no lab needed): the raw leg of `bench gateway` spreads its calls' packet clocks over the packet
// period (harness/bench/step.mjs spreadPacing), and rtpengine's wakeups are read from schedstat (schedOf,
// wakeupsIn). docs/benchmarks.md "Product path".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pacing, schedOf, spreadPacing, wakeupsIn } from '../bench/step.mjs';

// Where call i's packet clock sits in the period (ms), when every call's setup takes the same time.
const phases = (p, calls, periodMs) => Array.from({ length: calls }, (_, i) => ((i * p.gap_ms) % periodMs + periodMs) % periodMs);

test('pacing() starts 10 calls a whole number of 20 ms periods apart: their clocks tick together', () => {
  const p = pacing(10, 20);
  const ph = phases({ gap_ms: 1000 / p.cps }, 10, 20);
  assert.ok(ph.every((x) => Math.abs(x) < 1e-9 || Math.abs(x - 20) < 1e-9), `phases ${ph}`);
});

test('spreadPacing puts N calls period/N apart, near pacing()\'s rate', () => {
  for (const [calls, pps] of [[10, 50], [7, 50], [300, 50], [25, 300]]) {
    const periodMs = 1000 / pps;
    const p = spreadPacing(calls, 20, pps);
    const ph = phases(p, calls, periodMs).sort((a, b) => a - b);
    for (let i = 1; i < ph.length; i += 1) assert.ok(Math.abs(ph[i] - ph[i - 1] - periodMs / calls) < 1e-6, `calls ${calls} pps ${pps}: phases ${ph}`);
    assert.ok(Math.abs(p.phase_step_ms - periodMs / calls) < 1e-9);
    assert.ok(p.cps <= pacing(calls, 20).cps && p.cps > 0.8 * pacing(calls, 20).cps, `cps ${p.cps}`);
    assert.ok(Math.abs(p.media_s - (20 + p.ramp_s)) < 1e-9 && Math.abs(p.ramp_s - ((calls - 1) * p.gap_ms) / 1000) < 1e-9);
  }
  assert.equal(spreadPacing(10, 20, 50).gap_ms, 102);
});

test('schedOf reads this process\'s threads; wakeupsIn averages over the window', () => {
  const s = schedOf(process.pid);
  assert.ok(s.ns > 0 && s.slices > 0);
  assert.equal(schedOf(2 ** 30), null);
  const sched = [[1000e3, { ns: 0, slices: 0 }], [1001e3, { ns: 5e6, slices: 500 }], [1003e3, { ns: 25e6, slices: 1500 }], [1010e3, { ns: 99e9, slices: 9e9 }]];
  const w = wakeupsIn(sched, { from_epoch_s: 1001, to_epoch_s: 1003 }, 1000);
  assert.equal(w.per_s, 500);
  assert.equal(w.cpu_us_per_wakeup, 20);
  assert.equal(w.packets_in_per_wakeup, 2);
  assert.equal(wakeupsIn(sched.slice(0, 1), null, 1000), null);
});
