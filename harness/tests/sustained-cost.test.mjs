// Unit test (no lab needed): setup-rate --sustained's cost per call set up (harness/bench/sustained.mjs):
// CPU-ms per set-up per process from a step's CPU and calls set up, and the gateway / SIP-only ratios.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
