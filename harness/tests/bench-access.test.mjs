// Unit test (no lab needed): `bench gateway --access sip-ws` puts the gateway's legs and the SIP-over-WebSocket legs
// side by side per direction (harness/bench/access.mjs accessComparison, accessLines). docs/benchmarks.md
// "Access kinds side by side".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accessComparison, accessLines } from '../bench/access.mjs';

// a measureStep() result, as far as the comparison reads it
const leg = ({ setup, delay, rtpengine, gateway, kamailio, invite }) => ({
  generator: { totals: { setup_ok: 10 } },
  setup_ms: { p50: setup, p95: setup * 2 },
  delay_ms: { to_ims: { p50: delay, p99: delay * 3 }, to_browser: { p50: delay / 2, p99: delay } },
  loss_pct: { to_ims: 0, to_browser: 0 },
  cpu: { per_call: { rtpengine, gateway, kamailio, loadgen: 0.5 }, other_pct: 40 },
  ...(invite ? { sip_invite_to_200_ms: { p50: invite, p95: invite + 1 } } : {}),
});

test('each direction gets both kinds and the sip-ws/gateway ratios', () => {
  const c = accessComparison({
    MO: [leg({ setup: 40, delay: 0.2, rtpengine: 1.0, gateway: 2.0, kamailio: 0.5 }), leg({ setup: 20, delay: 0.1, rtpengine: 1.1, gateway: 0, kamailio: 0.75 })],
    MT: [leg({ setup: 10, delay: 0.2, rtpengine: 1.0, gateway: 1.5, kamailio: 0.5, invite: 30 }), leg({ setup: 12, delay: 0.2, rtpengine: 1.0, gateway: null, kamailio: 1.0, invite: 15 })],
  });
  assert.equal(c.MO.gateway.setup_ms.p50, 40);
  assert.equal(c.MO.sip_ws.setup_ms.p50, 20);
  assert.equal(c.MO.sip_ws_over_gateway.setup_p50, 0.5, 'sip-ws set up in half the time');
  assert.equal(c.MO.gateway.signalling_cpu_per_call, 2.5, 'gateway + Kamailio');
  assert.equal(c.MO.sip_ws.signalling_cpu_per_call, 0.75);
  assert.equal(c.MO.sip_ws_over_gateway.signalling_cpu_per_call, 0.3);
  assert.equal(c.MO.sip_ws_over_gateway.rtpengine_cpu_per_call, 1.1);
  assert.deepEqual(c.MO.sip_ws_over_gateway.delay_p50, { to_ims: 0.5, to_browser: 0.5 });
  assert.equal(c.MO.gateway.sip_invite_to_200_ms, undefined, 'MO has no SIPp caller clock');
  assert.equal(c.MT.sip_ws_over_gateway.sip_invite_to_200_p50, 0.5, "MT: ue2's INVITE -> 200 on the same clock for both");
  assert.equal(c.MT.sip_ws.cpu_per_call.gateway, null, 'a process not sampled stays null, not 0');
  assert.equal(c.MT.sip_ws.signalling_cpu_per_call, 1);
  assert.match(c.basis, /INVITE/);
});

test('a leg that failed to measure leaves its side null and no ratios', () => {
  const c = accessComparison({ MO: [leg({ setup: 40, delay: 0.2, rtpengine: 1, gateway: 2, kamailio: 0.5 }), null], MT: [null, null] });
  assert.equal(c.MO.sip_ws, null);
  assert.equal(c.MO.sip_ws_over_gateway, null);
  const lines = accessLines(c);
  assert.ok(lines.some((l) => /MO loadgen setup p50 ms\s+40\s+n\/a\s+n\/a/.test(l)), lines.join('\n'));
});

test('the printed table has one row per figure and direction, both kinds side by side', () => {
  const c = accessComparison({
    MO: [leg({ setup: 40, delay: 0.2, rtpengine: 1, gateway: 2, kamailio: 0.5 }), leg({ setup: 20, delay: 0.1, rtpengine: 1.1, gateway: 0, kamailio: 0.75 })],
    MT: [leg({ setup: 10, delay: 0.2, rtpengine: 1, gateway: 1.5, kamailio: 0.5, invite: 30 }), leg({ setup: 12, delay: 0.2, rtpengine: 1, gateway: 0, kamailio: 1, invite: 15 })],
  });
  const lines = accessLines(c);
  assert.match(lines[0], /gateway\s+sip-ws\s+sip-ws\/gateway/);
  assert.equal(lines.filter((l) => /^ {4}MO /.test(l)).length, 4);
  assert.equal(lines.filter((l) => /^ {4}MT /.test(l)).length, 5, "MT adds ue2's INVITE -> 200");
  assert.ok(lines.some((l) => /MT ue2's INVITE -> 200 p50 ms\s+30\s+15\s+0\.5/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /MO signalling CPU per call % \(gateway \+ kamailio\)\s+2\.5\s+0\.75\s+0\.3/.test(l)), lines.join('\n'));
});
