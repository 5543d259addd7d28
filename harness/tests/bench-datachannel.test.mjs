// Unit test (no lab needed): ./lab bench datachannel's figures (harness/bench/datachannel.mjs) from the driver's
// result (harness/bench/dc-load.py) and the endpoint's CPU samples.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuPctBetween, datachannelParse, datachannelSummary } from '../bench/datachannel.mjs';

const direction = (sent, received, extra = {}) => ({ sent, received, lost: sent - received, duplicates: 0, out_of_order: 0,
  delay_ms: { n: received, p50: 1.2, p95: 2, p99: 3, max: 4, mean: 1.3 }, delay_hist_ms: [0, 3, 1], ...extra });
const result = (over = {}) => ({ ok: true, error: null, calls: 4, calls_set_up: 4, channels: 2, rate_per_channel: 10, size: 200,
  duration_s: 20, setup_ms: { n: 4, p50: 80, max: 120 }, browser_to_ims: direction(1600, 1600), ims_to_browser: direction(1600, 1600),
  endpoint: [1, 2, 3, 4].map((i) => ({ call: i, 'browser-to-ims': { messages: 400, bytes: 80000, dropped: 0, 'relay-us-p50': 10 * i, 'relay-us-p99': 100 * i },
    'ims-to-browser': { messages: 400, bytes: 80000, dropped: 0, 'relay-us-p50': 5 * i, 'relay-us-p99': 50 * i } })),
  driver_cpu_pct: 30, ...over });

test('CPU per call and per channel, and calls per core, from the endpoint\'s CPU over the load window', () => {
  const s = datachannelSummary(result(), 2);
  assert.equal(s.ok, true, `a clean run passes: ${JSON.stringify(s.errors)}`);
  assert.equal(s.channels, 8, '4 calls x 2 channels');
  assert.equal(s.cpu.endpoint_pct_per_call, 0.5, `2 % over 4 calls = 0.5 % per call, got ${s.cpu.endpoint_pct_per_call}`);
  assert.equal(s.cpu.endpoint_pct_per_channel, 0.25, `2 % over 8 channels, got ${s.cpu.endpoint_pct_per_channel}`);
  assert.equal(s.cpu.calls_per_core, 200, `100 % / 0.5 % per call = 200, got ${s.cpu.calls_per_core}`);
  assert.equal(s.messages_per_s, 160, `3200 messages in 20 s, got ${s.messages_per_s}`);
  assert.equal(s.endpoint_relay.browser_to_ims.messages, 1600, 'the endpoint\'s counts are summed over the calls');
  assert.equal(s.endpoint_relay.browser_to_ims.relay_us_p50_median_of_calls, 30, 'median of the calls\' p50 (10, 20, 30, 40 -> index 2)');
  assert.equal(s.endpoint_relay.ims_to_browser.relay_us_p99_max_of_calls, 200, 'the worst call\'s p99');
  assert.equal(datachannelSummary(result(), null).cpu.calls_per_core, null, 'no CPU figure: no capacity estimate (not a number made up)');
});

test('a lost, doubled or reordered message, or a call not set up, fails the run and says which', () => {
  const lost = datachannelSummary(result({ ims_to_browser: direction(1600, 1597) }), 2);
  assert.equal(lost.ok, false, 'messages lost on reliable channels fail the run');
  assert.match(lost.errors.join(' '), /ims_to_browser: 3 of 1600 messages lost/, lost.errors.join('; '));
  const dup = datachannelSummary(result({ browser_to_ims: direction(1600, 1600, { duplicates: 2, out_of_order: 1 }) }), 2);
  assert.match(dup.errors.join(' '), /2 messages arrived twice/, dup.errors.join('; '));
  assert.match(dup.errors.join(' '), /1 messages out of order/, dup.errors.join('; '));
  const failed = datachannelSummary(result({ ok: false, error: 'call 2: its 2 channels were not open', calls_set_up: 2 }), 2);
  assert.equal(failed.ok, false);
  assert.match(failed.errors[0], /call 2/, 'the driver\'s reason comes first');
});

test('real-time text: characters lost or a call whose text is not intact fail the run', () => {
  const text = (shown, intact) => ({ cps: 5, browser_to_ims: { typed: 200, shown: 200, calls_intact: 4, calls: 4, missing_marks: 0, delay_ms: { p50: 160 } },
    ims_to_browser: { typed: 200, shown, calls_intact: intact, calls: 4, missing_marks: 200 - shown, delay_ms: { p50: 170 } } });
  assert.equal(datachannelSummary(result({ text: text(200, 4) }), 2).ok, true, 'all text intact passes');
  const bad = datachannelSummary(result({ text: text(198, 3) }), 2);
  assert.equal(bad.ok, false, 'lost characters fail');
  assert.match(bad.errors.join(' '), /ims_to_browser: 198 characters shown of 200 typed, 3 of 4 calls intact \(2 missing-text marks\)/, bad.errors.join('; '));
});

test('CPU % between two instants from cumulative CPU seconds sampled each second', () => {
  const series = [0, 1, 2, 3, 4].map((i) => ({ t: 1000 + i * 1000, secs: { datachannel: i * 0.02 } }));
  assert.equal(cpuPctBetween(series, 'datachannel', 2000, 4000), 2, '0.04 CPU-s over 2 s = 2 %');
  assert.equal(cpuPctBetween(series, 'datachannel', 2100, 3900), 2, 'the nearest samples bound the window');
  assert.equal(cpuPctBetween(series, 'rtpengine', 2000, 4000), null, 'a process never sampled gives no figure');
  assert.equal(cpuPctBetween(series.slice(0, 1), 'datachannel', 1000, 4000), null, 'one sample gives no rate');
});

test('options: defaults, bounds, and a load the driver cannot send is refused with a reason', () => {
  const usage = (m) => { throw new Error(m); };
  const int = (k, v, lo, hi) => { const n = Number(v); if (!Number.isInteger(n) || n < lo || n > hi) usage(`${k} wants ${lo}..${hi}, not '${v}'`); return n; };
  const parse = (opts) => datachannelParse([], { int, usage, take: () => {}, opts });
  const d = parse({});
  assert.deepEqual([d.calls, d.channels, d.rate, d.size, d.durationS, d.text], [10, 2, 10, 200, 20, false], JSON.stringify(d));
  const rest = ['--text'];
  const t = datachannelParse(rest, { int, usage, take: () => {}, opts: { '--cps': '8' } });
  assert.deepEqual([t.text, t.cps, t.name], [true, 8, 'datachannel-text'], JSON.stringify(t));
  assert.throws(() => parse({ '--cps': '8' }), /--cps is the typing rate of --text/);
  assert.throws(() => parse({ '--size': '10' }), /--size wants 18/, 'a message must hold its channel, sequence and send time');
  assert.throws(() => parse({ '--calls': '90', '--channels': '16', '--rate': '100' }), /messages\/s is more than the aiortc driver/);
});
