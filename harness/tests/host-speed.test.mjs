// Unit test (no lab needed): kit/host-speed.mjs, the host-speed reading recorded beside every scenario run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calibrate, cpuTimes, hostSpeed, hostSpeedText, stealBetween } from '../kit/host-speed.mjs';

const stat = (steal, idle) => `cpu  100 0 50 ${idle} 5 0 2 ${steal} 0 0\ncpu0 50 0 25 ${idle / 2} 2 0 1 ${steal / 2} 0 0\nintr 1\n`;

test('cpuTimes reads the host-wide cpu line: steal is its 8th field, total the first eight (guest time is inside user)', () => {
  assert.deepEqual(cpuTimes(stat(40, 1000)), { steal: 40, total: 100 + 50 + 1000 + 5 + 2 + 40 });
  assert.equal(cpuTimes('intr 1\n'), null, 'no cpu line is no reading');
  assert.equal(cpuTimes('cpu 1 2 3\n'), null, 'a cpu line without the steal field is no reading');
});

test('stealBetween: the jiffies the hypervisor took between two readings, as a % of all the cores\' time', () => {
  const a = cpuTimes(stat(40, 1000));
  const b = cpuTimes(stat(140, 1800));
  assert.deepEqual(stealBetween(a, b), { jiffies: 100, pct: 11.1 });
  assert.equal(stealBetween(b, a), null, 'readings out of order give nothing');
  assert.equal(stealBetween(null, b), null);
});

test('calibrate times real work; hostSpeed reads before and after a run and says it in one line', () => {
  const ms = calibrate(1);
  assert.ok(ms > 0, `the calibration took ${ms} ms`);
  const h = hostSpeed().stop();
  assert.ok(h.calibration_ms.before > 0 && h.calibration_ms.after > 0, JSON.stringify(h));
  assert.ok(h.steal == null || (h.steal.jiffies >= 0 && h.steal.pct >= 0), `steal reading: ${JSON.stringify(h.steal)}`);
  assert.match(hostSpeedText(h), /^calibration [\d.]+ ms before, [\d.]+ ms after .*steal during the run /);
  assert.equal(hostSpeedText(null), 'not measured');
});
