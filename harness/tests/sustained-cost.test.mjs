// Unit test (no lab needed): setup-rate --sustained's cost per call set up (harness/bench/sustained.mjs) and its knees
// (bench/knee.mjs): CPU-ms per set-up per process, the gateway / SIP-only ratios, the knees' bounds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kneeLine, kneeSummary } from '../bench/knee.mjs';
import { costRatios, cpuMsPerSetup } from '../bench/sustained.mjs';

test('CPU-ms per set-up is the step CPU (pct of one core x wall) over the calls set up', () => {
  // 70 s step at 12.5 % of one core = 8.75 CPU-s; 500 calls set up -> 17.5 ms each
  const step = { setup_ok: 500, cpu: { wall_s: 70, gateway_pct: 12.5, kamailio_pct: 5, rtpengine_pct: 40, sipp_pct: null, loadgen_pct: 30 } };
  const c = cpuMsPerSetup(step);
  assert.equal(c.gateway, 17.5, `gateway: 12.5 % x 70 s / 500 calls = 17.5 ms, got ${c.gateway}`);
  assert.equal(c.kamailio, 7, `kamailio: 5 % x 70 s / 500 = 7 ms, got ${c.kamailio}`);
  assert.equal(c.rtpengine, 56, `rtpengine: 40 % x 70 s / 500 = 56 ms, got ${c.rtpengine}`);
  assert.ok(!('sipp' in c), 'a process without a CPU figure gets no cost (not 0)');
});

test('no cost without calls set up or without a measured wall time', () => {
  assert.equal(cpuMsPerSetup({ setup_ok: 0, cpu: { wall_s: 60, gateway_pct: 10 } }), null, '0 calls set up: the cost is undefined, not infinite');
  assert.equal(cpuMsPerSetup({ setup_ok: 10, cpu: { wall_s: null, gateway_pct: 10 } }), null, 'no wall time: no cost');
  assert.equal(cpuMsPerSetup(null), null, 'no step: no cost');
});

test('the gateway against Kamailio SIP only at the same rate', () => {
  const r = costRatios({ gateway: 3, kamailio: 1.5 }, { kamailio: 0.5 });
  assert.deepEqual(r, { gateway_vs_sip_only_kamailio: 6, signalling_vs_sip_only: 9 },
    `gateway 3 ms / SIP-only kamailio 0.5 ms = 6, (3 + 1.5) / 0.5 = 9; got ${JSON.stringify(r)}`);
  assert.equal(costRatios({ gateway: 3 }, { kamailio: 0 }), null, 'a zero SIP-only cost gives no ratio');
  assert.equal(costRatios(null, { kamailio: 1 }), null, 'a gateway step without cost gives no ratio');
});

test('the knees and their ratio say when they are only lower bounds (a side whose last step passed never failed)', () => {
  const steps = (...r) => r.map(([cps, pass]) => ({ cps, pass }));
  // the gateway failed at 50, SIP only never failed up to 200: the ratio is at most 25 / 200
  let k = kneeSummary(steps([10, true], [25, true], [50, false]), steps([10, true], [25, true], [50, true], [200, true]));
  assert.deepEqual(k, { knee_cps: 25, knee_is_lower_bound: false, sip_only_knee_cps: 200, sip_only_knee_is_lower_bound: true,
    gateway_vs_sip_only: 0.13, gateway_vs_sip_only_bound: 'at most' }, JSON.stringify(k));
  assert.match(kneeLine(k), /knee: gateway 25 calls\/s, SIP only >= 200 calls\/s -> gateway \/ SIP only = <= 0\.13$/, kneeLine(k));
  // both failed: the ratio is exact
  k = kneeSummary(steps([10, true], [25, false]), steps([10, true], [25, true], [50, false]));
  assert.equal(k.gateway_vs_sip_only_bound, 'exact', JSON.stringify(k));
  assert.equal(k.gateway_vs_sip_only, 0.4, JSON.stringify(k));
  assert.match(kneeLine(k), /= 0\.4$/, kneeLine(k));
  // neither failed (a --quick run): no ratio, and the line says why instead of "= 1"
  k = kneeSummary(steps([5, true], [10, true]), steps([5, true], [10, true]));
  assert.equal(k.gateway_vs_sip_only, null, `two lower bounds give no ratio, got ${k.gateway_vs_sip_only}`);
  assert.match(kneeLine(k), /gateway >= 10 calls\/s, SIP only >= 10 calls\/s -> gateway \/ SIP only = unknown \(neither side failed/, kneeLine(k));
  // only the gateway never failed: at least
  k = kneeSummary(steps([10, true], [25, true]), steps([10, true], [25, false]));
  assert.equal(k.gateway_vs_sip_only_bound, 'at least', JSON.stringify(k));
  assert.match(kneeLine(k), /= >= 2\.5$/, kneeLine(k));
  // a side that passed no step: no ratio
  k = kneeSummary(steps([10, false]), steps([10, true]));
  assert.match(kneeLine(k), /knee: gateway 0 calls\/s, .* = n\/a \(a side passed no step\)$/, kneeLine(k));
});
