// Unit test (no lab needed): bench scale-out's capacity sweep (harness/bench/scale-capacity.mjs) — the step
// criterion (setup-rate --sustained's), failures by reason, the capacity (knee) with its bound, the busiest
// process, and 2x2 against 1x1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capacityOf, compareCapacity, cpuByKind, failuresByReason, judgeStep, SUSTAINED_P95_MS } from '../bench/scale-capacity.mjs';

// a step as setupStep returns it (the fields the criterion and the capacity read)
const step = (cps, { p95 = 50, failures = 0, errors = [], cpu = {} } = {}) => ({
  cps, calls: cps * 20, setup_ok: cps * 20 - failures, failures, errors, setup_ms: { p50: p95 / 2, p95 }, cpu: { host_busy_pct: 120, other_pct: 10, ...cpu },
});

test('a step passes only with 0 failures, setup p95 within the bound and loadgen clean', () => {
  assert.equal(judgeStep(step(10)).pass, true);
  assert.equal(judgeStep(step(10)).fail_reason, null);
  const slow = judgeStep(step(20, { p95: SUSTAINED_P95_MS + 1 }));
  assert.equal(slow.pass, false);
  assert.match(slow.fail_reason, /setup p95 301 ms > 300/);
  assert.equal(judgeStep(step(20, { p95: SUSTAINED_P95_MS })).pass, true, 'the bound itself passes');
  assert.match(judgeStep(step(20, { failures: 1 })).fail_reason, /1 failed call/);
  // no media back: loadgen exits non-zero, setupStep records it as an error
  const silent = judgeStep(step(20, { errors: ['loadgen exited 1: set up 400, failed 0, …'] }));
  assert.equal(silent.pass, false);
  assert.match(silent.fail_reason, /loadgen exited 1/);
  assert.equal(judgeStep({ cps: 5, calls: 100, setup_ok: null, failures: null, errors: [], setup_ms: null, cpu: {} }).pass, false, 'no result fails');
});

test('failures are counted by reason, the first that applies to a call', () => {
  const calls = [
    { setup_ok: true, recv: 100, hung_up: true },
    { setup_ok: false, fail_phase: 'dtls', recv: 0, hung_up: true },
    { setup_ok: false, fail_phase: 'dtls' },
    { setup_ok: false, fail_phase: 'answer', sip_code: 503 },
    { setup_ok: true, ended_early: true, end_reason: 'media-lost', recv: 0 },
    { setup_ok: true, recv: 0, hung_up: true },
    { setup_ok: true, recv: 10, hung_up: false },
  ];
  assert.deepEqual(failuresByReason(calls), {
    'setup failed: dtls': 2, 'setup failed: answer (SIP 503)': 1, 'ended early: media-lost': 1, 'no media back': 1, 'end not confirmed by `ended`': 1,
  });
  assert.deepEqual(failuresByReason(undefined), {});
});

test('capacity = the highest passing step before the first failing one, with its bound and bottleneck', () => {
  const steps = [step(10), step(20), step(40, { p95: 900, cpu: { gateway_pct: 60, loadgen_pct: 85, rtpengine_pct: 20, host_busy_pct: 190, other_pct: 5 } })].map(judgeStep);
  const c = capacityOf(steps, 2);
  assert.equal(c.capacity_cps, 20);
  assert.equal(c.bound, '=');
  assert.equal(c.first_failing_cps, 40);
  assert.deepEqual({ at: c.bottleneck.at_cps, p: c.bottleneck.process, pct: c.bottleneck.pct, sat: c.bottleneck.host_saturated },
    { at: 40, p: 'loadgen', pct: 85, sat: true });
  // none failed: a lower bound, the bottleneck at the highest step
  const all = capacityOf([step(10), step(20)].map(judgeStep), 2);
  assert.equal(all.capacity_cps, 20);
  assert.equal(all.bound, '>=');
  assert.equal(all.bottleneck.step, 'highest step (none failed)');
  assert.equal(all.bottleneck.host_saturated, false);
  // the first step failed: below it
  const none = capacityOf([step(10, { failures: 3 })].map(judgeStep), 2);
  assert.equal(none.capacity_cps, 0);
  assert.equal(none.bound, '<');
  assert.equal(none.lowest_cps, 10);
});

test('2x2 against 1x1: the ratio, what the bounds allow, and the common steps side by side', () => {
  const sweep = (steps) => ({ steps: steps.map(judgeStep), capacity: capacityOf(steps.map(judgeStep), 2) });
  const one = sweep([step(10, { cpu: { gateway_pct: 10, rtpengine_pct: 5 } }), step(20, { cpu: { gateway_pct: 20, rtpengine_pct: 10 } }), step(40, { failures: 2 })]);
  const two = sweep([step(10, { cpu: { gateway_pct: 6, gateway2_pct: 6, rtpengine_pct: 3, rtpengine2_pct: 3, haproxy_pct: 1 } }), step(20, { p95: 400 })]);
  const c = compareCapacity(one, two);
  assert.equal(c.ratio_scaled_over_1x1, 0.5);
  assert.equal(c.ratio_bound, '=');
  assert.match(c.text, /1x1 20 calls\/s, 2x2 10 calls\/s: 2x2 \/ 1x1 = 0.5$/);
  assert.deepEqual(c.common_steps.map((s) => [s.cps, s.pass_1x1, s.pass_scaled]), [[10, true, true], [20, true, false]]);
  assert.equal(c.common_steps[0].lab_cpu_1x1, 15);
  assert.equal(c.common_steps[0].lab_cpu_scaled, 19);
  assert.equal(c.common_steps[0].lab_cpu_per_cps_scaled, 1.9);
  // 2x2 never failed, 1x1 did: the ratio is a lower bound
  const up = compareCapacity(one, sweep([step(10), step(20), step(40)]));
  assert.equal(up.ratio_scaled_over_1x1, 2);
  assert.equal(up.ratio_bound, '>=');
  // 1x1 failed its lowest step, 2x2 did not: no number, but 2x2 is higher
  const low = compareCapacity(sweep([step(10, { failures: 1 })]), two);
  assert.equal(low.ratio_scaled_over_1x1, null);
  assert.equal(low.ratio_bound, '>');
  assert.match(low.text, /not measurable \(1x1 failed its lowest step\)/);  // a 3x3 sweep is named as such, and its third gateway and relay count among their kinds
  const three = sweep([step(10, { cpu: { gateway_pct: 4, gateway2_pct: 4, gateway3_pct: 4, rtpengine3_pct: 3 } })]);
  three.config = '3x3';
  const t = compareCapacity(one, three);
  assert.equal(t.scaled, '3x3', 'the label comes from the scaled sweep\'s config');
  assert.match(t.text, /3x3 \/ 1x1/);
  assert.equal(t.common_steps[0].lab_cpu_scaled, 15, 'gateway3 and rtpengine3 are summed with their kinds');
});

test('CPU per kind of process sums the instances; absent ones are null', () => {
  assert.deepEqual(cpuByKind({ gateway_pct: 10.5, gateway2_pct: 9.25, rtpengine_pct: 4, loadgen_pct: 50, sipp_pct: 2 }),
    { gateways: 19.75, rtpengines: 4, haproxy: null, redis: null, kamailio: null, sipp: 2, loadgen: 50, lab_total: 75.75 });
});
