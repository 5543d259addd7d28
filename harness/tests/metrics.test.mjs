// Integration: the gateway's Prometheus metrics (docs/architecture.md "Metrics") move when real calls run:
// an MO call, an MT call and a call to an unknown user through Kamailio + rtpengine + SIPp, then the scrape
// of /actuator/prometheus shows the attempts, answers, failures by reason, ends and the setup histogram; the MO
// call's info carries its set-up timeline (wall and CPU per step).
// Deltas between two scrapes, so what other files did before does not matter.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import { gatewayUrl } from '../kit/env.mjs';
import { loggedInPage } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'dave';
let page;

before(async () => {
  page = await loggedInPage(USER, 'test-metrics-dave');
});

after(async () => page?.close());

// GET from source address 127.0.0.1: the gateway listens on the browser link (198.18.0.1 in ./lab test), and a
// connection to it from this namespace would otherwise come from that address, which is no loopback client.
function getFromLoopback(path) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${gatewayUrl()}${path}`, { localAddress: '127.0.0.1', timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] ?? '', text }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer within 5 s`)));
    req.on('error', reject);
  });
}

// Prometheus text -> Map of `name{labels}` (labels sorted as the registry writes them) -> number.
async function scrape() {
  const res = await getFromLoopback('/actuator/prometheus');
  assert.equal(res.status, 200, `scrape: HTTP ${res.status} ${res.text.slice(0, 200)}`);
  assert.match(res.type, /text\/plain|openmetrics/);
  const m = new Map();
  for (const line of res.text.split('\n')) {
    const hit = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)$/.exec(line);
    if (hit) m.set(hit[1], Number(hit[2]));
  }
  return m;
}

const get = (m, key) => m.get(key) ?? 0;

test('a call, then the scrape shows attempts, answers, failures by reason and the setup histogram', { timeout: 90000 }, async () => {
  const before = await scrape();
  assert.ok(get(before, 'gw_registrations') >= 1, 'the logged-in user is registered');
  assert.ok(get(before, 'gw_websocket_sessions') >= 1, 'its WebSocket is open');
  assert.ok(get(before, 'jvm_threads_live_threads') > 0, 'the JVM meters are there too');
  assert.ok(before.has('gw_sip_dialogs'), 'the SIP stack\'s dialog count is there (./lab soak watches it for leaks)');

  const mo = await moCall(page.client, { token: page.token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 1500 });
  assert.equal(mo.error, null, mo.error);
  assert.ok(mo.answered && endedCleanly(mo.ended), `MO call: ${JSON.stringify(mo.ended)}`);
  await assertFarUeAssertedIdentity({ token: page.token, callId: mo.callId, ue: 'ue1' });
  const moves = (mo.info?.transitions ?? []).map((t) => `${t.from}>${t.to}`);
  assert.ok(moves[0]?.startsWith('calling>') && moves.at(-1) === 'confirmed>ended'
    && mo.info.transitions.every((t) => Number.isFinite(t.atMillis)),
  `the MO call's info lists its state changes from calling to ended, each with its time: ${JSON.stringify(mo.info?.transitions)}`);
  // the call's own set-up timeline (GET /api/v1/calls/{id}, metrics/SetupTimeline): each MO step's wall time, and the
  // CPU time of the gateway's thread in the steps one thread ran (browser-to-ng-offer: the `call` message's thread)
  const tl = mo.info?.setupTimeline;
  const wall = tl?.stepsMs?.['browser-to-ng-offer'];
  const cpu = tl?.stepsCpuMs?.['browser-to-ng-offer'];
  assert.ok(Number.isFinite(wall) && Number.isFinite(cpu) && cpu >= 0 && cpu <= wall + 0.5,
    `the MO call's info has its set-up timeline with browser-to-ng-offer's wall and CPU ms (CPU at most the wall): ${JSON.stringify(tl)}`);
  const mt = await mtCall(page.client, { token: page.token, user: USER, ue: { mode: 'uac', arg: 1500 }, hangup: 'ue', maxMs: 15000 });
  assert.equal(mt.error, null, mt.error);
  assert.ok(mt.answered, 'MT call answered');
  const failed = await page.client.call('nobody');
  const ended = await page.client.waitFor('ended', failed, 10000);
  assert.equal(ended.sipCode, 404);

  const after = await scrape();
  const delta = (key) => get(after, key) - get(before, key);
  for (const d of ['mo', 'mt']) {
    assert.ok(delta(`gw_call_attempts_total{direction="${d}"}`) >= 1, `${d} attempt counted`);
    assert.ok(delta(`gw_call_answers_total{direction="${d}"}`) >= 1, `${d} answer counted`);
    assert.ok(delta(`gw_call_setup_seconds_count{direction="${d}"}`) >= 1, `${d} setup time in the histogram`);
    assert.ok(delta(`gw_call_setup_seconds_bucket{direction="${d}",le="+Inf"}`) >= 1, `${d} +Inf bucket`);
    assert.equal(get(after, `gw_calls_active{direction="${d}"}`), 0, `no ${d} call left`);
  }
  assert.ok(delta('gw_call_attempts_total{direction="mo"}') >= 2, 'the failed call is an attempt too');
  assert.ok(delta('gw_call_transitions_total{from="confirmed",to="ended"}') >= 2, 'both answered calls counted confirmed -> ended');
  assert.ok(delta('gw_call_transitions_total{from="incoming",to="answering"}') >= 1, 'the MT call counted incoming -> answering');
  assert.ok(delta('gw_calls_ended_total{direction="mo",reason="local-hangup"}') >= 1, 'MO ended by the browser');
  assert.ok(delta('gw_calls_ended_total{direction="mt",reason="remote-hangup"}') >= 1, 'MT ended by the UE');
  assert.ok(delta('gw_call_failures_total{direction="mo",reason="sip-404"}') >= 1, 'the unanswered call is a failure with its reason');
  assert.equal(delta('gw_call_failures_total{direction="mo",reason="local-hangup"}'), 0, 'an answered call is no failure');
  // the setup histogram's buckets are cumulative and bounded by the count
  const le = ['0.05', '0.1', '0.2', '0.5', '1.0', '2.0', '5.0', '10.0', '30.0', '+Inf'];
  const buckets = le.map((b) => get(after, `gw_call_setup_seconds_bucket{direction="mo",le="${b}"}`));
  for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i] >= buckets[i - 1], `cumulative buckets: ${buckets}`);
  assert.equal(buckets.at(-1), get(after, 'gw_call_setup_seconds_count{direction="mo"}'));
  assert.ok(delta('gw_ng_latency_seconds_count{command="offer"}') >= 2, 'rtpengine offers timed');
  assert.ok(delta('gw_ng_latency_seconds_count{command="delete"}') >= 2, 'rtpengine deletes timed');
});

test('the scrape answers loopback clients only: the browser, in its own namespace, gets 403 loopback-only', { timeout: 15000 }, async () => {
  const r = await page.client.page.evaluate(async () => {
    const res = await fetch('/actuator/prometheus');
    return { status: res.status, body: await res.text() };
  });
  assert.equal(r.status, 403, r.body.slice(0, 200));
  assert.equal(JSON.parse(r.body).code, 'loopback-only');
  assert.equal((await getFromLoopback('/actuator/health')).status, 404, 'no other actuator endpoint is exposed');
});
