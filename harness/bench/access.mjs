// `bench gateway --access sip-ws`: the two access kinds of a WebRTC IMS client side by side, per direction (MO, MT):
// the gateway's browser API (a WIC using a non-SIP protocol, TS 24.371) and SIP over WebSocket to the eP-CSCF (a WIC
// using Gm), measured in one run with the same calls, durations, pacing, far ends and capture (docs/benchmarks.md
// "Access kinds side by side").

const ratio = (a, b) => (a == null || b == null || !(b > 0) ? null : Math.round((a / b) * 100) / 100);
const col = (v, w) => String(v ?? 'n/a').padStart(w);

// report.json access_comparison: per direction, the gateway's leg and the SIP-over-WebSocket leg side by side
// (same calls, durations and pacing): set-up time, relay delay, loss, CPU per call per process, and sip-ws/gateway.
// the signalling's own processes: the gateway (JSON access) and Kamailio (the P-CSCF, and the eP-CSCF for sip-ws)
function signalling(l) {
  const v = ['gateway', 'kamailio'].map((n) => l.cpu?.per_call?.[n]).filter((x) => x != null);
  return v.length ? Math.round(v.reduce((a, b) => a + b, 0) * 1000) / 1000 : null;
}

const PROC_NAMES = ['rtpengine', 'gateway', 'kamailio', 'sipp', 'sipp_uac', 'loadgen', 'tcpdump'];
export function accessComparison(byDirection) {
  const side = (l) => l && {
    calls_set_up: l.generator?.totals?.setup_ok ?? null,
    setup_ms: l.setup_ms ? { p50: l.setup_ms.p50, p95: l.setup_ms.p95 } : null,
    sip_invite_to_200_ms: l.sip_invite_to_200_ms ? { p50: l.sip_invite_to_200_ms.p50, p95: l.sip_invite_to_200_ms.p95 } : undefined,
    delay_ms: Object.fromEntries(['to_ims', 'to_browser'].map((k) => [k, l.delay_ms?.[k] ? { p50: l.delay_ms[k].p50, p99: l.delay_ms[k].p99 } : null])),
    loss_pct: l.loss_pct,
    cpu_per_call: Object.fromEntries(PROC_NAMES.map((n) => [n, l.cpu?.per_call?.[n] ?? null])),
    signalling_cpu_per_call: signalling(l),
    other_jobs_pct: l.cpu?.other_pct ?? null,
  };
  const out = {};
  for (const [dir, [gw, ws]] of Object.entries(byDirection)) {
    const g = side(gw), w = side(ws);
    out[dir] = { gateway: g, sip_ws: w, sip_ws_over_gateway: g && w ? {
      setup_p50: ratio(w.setup_ms?.p50, g.setup_ms?.p50),
      sip_invite_to_200_p50: ratio(w.sip_invite_to_200_ms?.p50, g.sip_invite_to_200_ms?.p50),
      rtpengine_cpu_per_call: ratio(w.cpu_per_call.rtpengine, g.cpu_per_call.rtpengine),
      signalling_cpu_per_call: ratio(w.signalling_cpu_per_call, g.signalling_cpu_per_call),
      delay_p50: Object.fromEntries(['to_ims', 'to_browser'].map((k) => [k, ratio(w.delay_ms[k]?.p50, g.delay_ms[k]?.p50)])),
    } : null };
  }
  out.basis = 'setup_ms: loadgen, call/INVITE sent (MO) or incoming/INVITE received (MT) -> DTLS done; sip_invite_to_200_ms: '
    + 'the SIPp caller\'s INVITE -> 200 (MT only, the same clock for both kinds); signalling_cpu_per_call: gateway + Kamailio, % of one core per call';
  return out;
}

export function accessLines(cmp) {
  const lines = ['  access kinds side by side (same calls, durations, pacing):            gateway     sip-ws   sip-ws/gateway'];
  for (const dir of ['MO', 'MT']) {
    const c = cmp?.[dir];
    if (!c) continue;
    const g = c.gateway ?? {}, w = c.sip_ws ?? {}, r = c.sip_ws_over_gateway ?? {};
    const row = (label, a, b, q) => lines.push(`    ${dir} ${label.padEnd(62)}${col(a, 8)}  ${col(b, 9)}  ${col(q, 9)}`);
    row('loadgen setup p50 ms', g.setup_ms?.p50, w.setup_ms?.p50, r.setup_p50);
    if (dir === 'MT') row("ue2's INVITE -> 200 p50 ms", g.sip_invite_to_200_ms?.p50, w.sip_invite_to_200_ms?.p50, r.sip_invite_to_200_p50);
    row('relay delay p50 ms to_ims / to_browser', `${g.delay_ms?.to_ims?.p50 ?? 'n/a'}/${g.delay_ms?.to_browser?.p50 ?? 'n/a'}`,
      `${w.delay_ms?.to_ims?.p50 ?? 'n/a'}/${w.delay_ms?.to_browser?.p50 ?? 'n/a'}`, `${r.delay_p50?.to_ims ?? 'n/a'}/${r.delay_p50?.to_browser ?? 'n/a'}`);
    row('rtpengine CPU per call %', g.cpu_per_call?.rtpengine, w.cpu_per_call?.rtpengine, r.rtpengine_cpu_per_call);
    row('signalling CPU per call % (gateway + kamailio)', g.signalling_cpu_per_call, w.signalling_cpu_per_call, r.signalling_cpu_per_call);
  }
  return lines;
}

