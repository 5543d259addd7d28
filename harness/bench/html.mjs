// report.html of a bench run: self-contained (Chart.js inlined like the demo report), a table of
// the figures, ours vs the thesis as ratios, and the plots that fit the kind of run.
import { esc, htmlHead, scriptSafe } from '../kit/report.mjs';
import { kneeLine } from './knee.mjs';

const fmt = (v) => (v == null ? 'n/a' : typeof v === 'number' ? String(v) : esc(v));

function table(head, rows) {
  return `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((v) => `<td>${fmt(v)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`;
}

function referenceTable(ref) {
  if (!ref || !Object.keys(ref).length) return '<p>The thesis gives no reference figures for this profile.</p>';
  return table(['figure', 'ours', 'thesis', 'ours / thesis', 'better is'],
    Object.entries(ref).map(([k, v]) => [k, v.ours, v.thesis, v.ratio, v.better]));
}

// Each chart: {id, title, type, datasets: [{label, points: [[x, y]...], color?, dash?}], x, y, xlog}
export function charts(list) {
  const boxes = list.map((c) => `<h2>${esc(c.title)}</h2><div class="box"><canvas id="${c.id}"></canvas></div>`).join('\n');
  return `${boxes}
<script type="application/json" id="charts">${scriptSafe(JSON.stringify(list))}</script>
<script>
const colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
for (const c of JSON.parse(document.getElementById('charts').textContent)) {
  const datasets = c.datasets.map((d, i) => ({ label: d.label, data: d.points.map(([x, y]) => ({ x, y })), borderColor: d.color ?? colors[i % 6],
    backgroundColor: d.color ?? colors[i % 6], borderDash: d.dash ?? [], pointRadius: c.points ? 3 : 0, borderWidth: 1.5, showLine: true, stepped: c.stepped || false }));
  new Chart(document.getElementById(c.id), { type: 'scatter', data: { datasets }, options: { animation: false, maintainAspectRatio: false,
    scales: { x: { type: c.xlog ? 'logarithmic' : 'linear', title: { display: true, text: c.x } }, y: { beginAtZero: true, title: { display: true, text: c.y } } } } });
}
</script>`;
}

function stepCharts(step) {
  const out = [];
  const cdf = step.delay_cdf ?? {};
  out.push({ id: 'cdf', title: 'Relay delay CDF per direction', x: 'delay ms (log)', y: 'fraction of packets', xlog: true, stepped: true,
    datasets: ['to_ims', 'to_browser'].map((k) => ({ label: k, points: (cdf[k] ?? []).filter(([ms]) => ms > 0) })) });
  const tp = step.throughput_pps ?? {};
  out.push({ id: 'tp', title: 'Throughput leaving the relay (packets/s, capture)', x: 's since first packet', y: 'packets/s',
    datasets: ['to_ims', 'to_browser'].map((k) => ({ label: k, points: (tp[k] ?? []).map((v, i) => [i, v]) })) });
  out.push({ id: 'cpu', title: 'CPU over time (% of one core, 1 s samples)', x: 's since first packet', y: '% of one core',
    datasets: ['rtpengine', 'loadgen', 'tcpdump'].map((n) => ({ label: n, points: (step.cpu_series ?? []).map((s) => [s.t_s, s[`${n}_pct`]]) })) });
  return out;
}

function summaryRows(r) {
  const d = r.delay_ms ?? {};
  const rows = [];
  for (const k of ['to_ims', 'to_browser']) {
    const x = d[k] ?? {};
    rows.push([k, x.p50, x.p95, x.p99, x.max, r.loss_pct?.[k], r.packets?.matched?.[k]]);
  }
  return table(['direction', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'loss %', 'matched'], rows);
}

// What each leg carried (report.json `media`): transport and codec, and whether rtpengine transcoded.
function mediaLine(m) {
  if (!m) return '';
  const leg = (l) => `${esc(l?.transport)} ${esc(l?.codec)}${l?.sdp_codecs_seen?.length ? ` (SDP: ${esc(l.sdp_codecs_seen.join(', '))})` : ''}`;
  return `<p>media: browser leg ${leg(m.browser_leg)} · IMS leg ${leg(m.ims_leg)}${m.ims_leg?.transcoded ? ` · transcoded by rtpengine; far end got ${fmt(m.ims_leg.voiced_pct)} % non-silent packets; packets paired through ${fmt(m.pairing?.ssrc_map?.length)} SSRC mappings` : ''}</p>`;
}

const PROCS = ['rtpengine', 'gateway', 'kamailio', 'sipp', 'sipp_uac', 'loadgen', 'tcpdump'];

// bench gateway --access sip-ws: the SIP-over-WebSocket legs beside the gateway's (harness/bench/access.mjs).
function accessHtml(r) {
  const rows = [];
  for (const dir of ['MO', 'MT']) {
    const c = r.access_comparison[dir];
    if (!c) continue;
    const g = c.gateway ?? {}, w = c.sip_ws ?? {}, q = c.sip_ws_over_gateway ?? {};
    rows.push([dir, 'loadgen setup p50 ms', g.setup_ms?.p50, w.setup_ms?.p50, q.setup_p50]);
    if (dir === 'MT') rows.push([dir, "ue2's INVITE -> 200 p50 ms", g.sip_invite_to_200_ms?.p50, w.sip_invite_to_200_ms?.p50, q.sip_invite_to_200_p50]);
    for (const k of ['to_ims', 'to_browser']) rows.push([dir, `relay delay p50 ms ${k}`, g.delay_ms?.[k]?.p50, w.delay_ms?.[k]?.p50, q.delay_p50?.[k]]);
    for (const n of PROCS) rows.push([dir, `CPU per call % ${n}`, g.cpu_per_call?.[n], w.cpu_per_call?.[n], n === 'rtpengine' ? q.rtpengine_cpu_per_call : null]);
    rows.push([dir, 'signalling CPU per call % (gateway + kamailio)', g.signalling_cpu_per_call, w.signalling_cpu_per_call, q.signalling_cpu_per_call]);
  }
  return `<h2>Access kinds side by side: gateway (JSON) and SIP over WebSocket (eP-CSCF)</h2>
${table(['direction', 'figure', 'gateway', 'sip-ws', 'sip-ws / gateway'], rows)}
<p>${esc(r.access_comparison.basis)}</p>`;
}

// gateway <profile>: the product path (MO and MT) beside --raw, measured in one run.
function gatewayBody(r) {
  const legs = [['raw (ng only)', r.raw], ['gateway MO', r.gateway_mo], ['gateway MT', r.gateway_mt], ['sip-ws MO', r.sip_ws_mo], ['sip-ws MT', r.sip_ws_mt]].filter(([, l]) => l);
  const delayRows = [];
  for (const [label, l] of legs) {
    for (const k of ['to_ims', 'to_browser']) {
      const x = l.delay_ms?.[k] ?? {};
      delayRows.push([label, k, x.p50, x.p95, x.p99, x.max, l.loss_pct?.[k], l.packets?.matched?.[k], l.setup_ms?.p50, l.setup_ms?.p95]);
    }
  }
  const cpuRows = PROCS.map((n) => [n, r.raw?.cpu?.per_call?.[n], r.gateway_mo?.cpu?.per_call?.[n], r.gateway_mt?.cpu?.per_call?.[n], r.raw?.cpu?.[`${n}_pct`], r.gateway_mo?.cpu?.[`${n}_pct`], r.gateway_mt?.cpu?.[`${n}_pct`]]);
  const m = r.gateway_mt_vs_raw ?? {};
  const g = r.gateway_vs_raw ?? {};
  const c = r.criterion ?? {};
  return `<p>${esc(r.profile)}: ${r.calls} calls, ${r.duration_s} s at full load, MO (loadgen --gateway as alice -> ue1) and MT (SIPp ue2 -> alice, loadgen --answer), gateway arguments: ${esc(r.gateway_args)}</p>
<p>issue #11 criterion (p50 &le; ${fmt(c.p50_ms)} ms, p99 &le; ${fmt(c.p99_ms)} ms, loss 0 in both directions, rtpengine CPU per call &le; ${fmt(c.rtpengine_cpu_ratio)}x raw):
<span class="${c.pass ? 'ok' : 'bad'}">${c.pass ? 'met' : `not met: ${esc((c.why ?? []).join('; '))}`}</span></p>
${table(['run', 'direction', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'loss %', 'matched', 'setup p50 ms', 'setup p95 ms'], delayRows)}
<h2>CPU per call (% of one core, full-load window)</h2>
${table(['process', 'raw per call', 'MO per call', 'MT per call', 'raw total %', 'MO total %', 'MT total %'], cpuRows)}
<p>other jobs on this host: raw ${fmt(r.raw?.cpu?.other_pct)} %, gateway MO ${fmt(r.gateway_mo?.cpu?.other_pct)} %, MT ${fmt(r.gateway_mt?.cpu?.other_pct)} % of one core</p>
<h2>Gateway / raw</h2>
${table(['figure', 'MO / raw', 'MT / raw'], [['rtpengine CPU per call', g.rtpengine_cpu_per_call, m.rtpengine_cpu_per_call], ['delay p50 to_ims', g.delay_p50?.to_ims, m.delay_p50?.to_ims],
    ['delay p50 to_browser', g.delay_p50?.to_browser, m.delay_p50?.to_browser], ['delay p99 to_ims', g.delay_p99?.to_ims, m.delay_p99?.to_ims],
    ['delay p99 to_browser', g.delay_p99?.to_browser, m.delay_p99?.to_browser], ['setup p50', g.setup_p50, m.setup_p50], ['setup p95', g.setup_p95, m.setup_p95]])}
<p>MT setup counts from loadgen's receipt of <code>incoming</code> to DTLS done (MO: from sending <code>call</code>)${r.gateway_mt ? `; before it, ue2's INVITE &rarr; 200: p50 ${fmt(r.gateway_mt.sip_invite_to_200_ms?.p50)} ms, p95 ${fmt(r.gateway_mt.sip_invite_to_200_ms?.p95)} ms.` : '. MT: not measured (see errors).'}</p>
${r.access_comparison ? accessHtml(r) : ''}
${charts([
  ...legs.map(([label, l], i) => ({ id: `cdf${i}`, title: `Relay delay CDF, ${label}`, x: 'delay ms (log)', y: 'fraction of packets', xlog: true, stepped: true,
    datasets: ['to_ims', 'to_browser'].map((k) => ({ label: k, points: (l.delay_cdf?.[k] ?? []).filter(([ms]) => ms > 0) })) })),
  { id: 'percall', title: 'CPU per call by process (% of one core): raw (x=0), gateway MO (x=1), gateway MT (x=2)', x: 'run (0 raw, 1 MO, 2 MT)', y: '% of one core per call', points: true,
    datasets: PROCS.map((n) => ({ label: n, points: [[0, r.raw?.cpu?.per_call?.[n]], [1, r.gateway_mo?.cpu?.per_call?.[n]], [2, r.gateway_mt?.cpu?.per_call?.[n]]].filter(([, y]) => y != null) })) },
])}`;
}

function jfrTables(p) {
  if (!p) return '';
  if (p.error) return `<p class="bad">JFR: ${esc(p.error)}</p>`;
  return `<h3>at ${p.cps} calls/s: ${p.samples} execution samples</h3>
${table(['top frame (self)', '% of samples'], p.self.map((f) => [f.frame, f.pct]))}
${table(['first gateway frame on the stack', '% of samples'], p.gateway_frame.map((f) => [f.frame, f.pct]))}
${table(['on the stack (total)', '% of samples'], p.total.map((f) => [f.frame, f.pct]))}
${table(['thread', '% of samples'], p.threads.map((f) => [f.frame, f.pct]))}`;
}

function perfTables(p) {
  if (!p) return '';
  if (p.error) return `<p class="bad">perf: ${esc(p.error)}</p>`;
  return `<h3>at ${p.cps} calls/s: ${p.samples} samples (199 Hz; ${esc(p.file)})</h3>
${table(['thread (comm)', '% of samples'], p.processes.map((f) => [f.comm, f.pct]))}
${table(['thread', 'object', 'symbol (self)', '% of samples'], p.top.slice(0, 25).map((f) => [f.comm, f.dso, f.sym, f.pct]))}`;
}

// setup-rate --sustained: the steps of both sides, knee, bottleneck, the gateway's profile.
function sustainedBody(r) {
  const rows = [];
  for (const [side, list] of [['gateway', r.steps ?? []], ['SIP only', r.sip_only ?? []]]) {
    for (const s of list) {
      rows.push([side, s.cps, s.calls, s.setup_ok, s.failures, s.setup_ms?.p50, s.setup_ms?.p95, s.setup_ms?.max, s.concurrent_nominal, s.concurrent_peak ?? null,
        s.cpu?.gateway_pct, s.cpu?.kamailio_pct, s.cpu?.rtpengine_pct, s.cpu?.sipp_pct, s.cpu?.loadgen_pct ?? s.cpu?.sipp_uac_pct, s.cpu?.other_pct, s.pass ? 'pass' : `FAIL: ${s.fail_reason}`]);
    }
  }
  const b = r.bottleneck;
  const gw = r.steps ?? [], sip = r.sip_only ?? [];
  return `<p>${r.step_seconds} s per step at a constant rate, calls held ${r.hold_s} s, loadgen ${fmt(r.loadgen_threads ?? 1)} engine thread(s); criterion: ${esc(r.criterion)}; gateway arguments: ${esc(r.gateway_args)}</p>
<p>${esc(kneeLine(r))}</p>
${b ? `<p>bottleneck at ${b.at_cps} calls/s (${esc(b.step)}): <b>${esc(b.process)}</b> ${fmt(b.pct)} % of one core; whole host ${fmt(b.host_busy_pct)} %, other jobs ${fmt(b.other_pct)} %${b.note ? `; ${esc(b.note)}` : ''}</p>` : ''}
<h2>CPU-ms per call set up</h2>
<p>Each process's CPU over the whole step divided by the calls set up in it; on the gateway side each call also held ${r.hold_s} s of SRTP (rtpengine's and loadgen's share), the gateway and Kamailio pay signalling only.${r.cost_per_setup ? ` At ${r.cost_per_setup.at_cps} calls/s: gateway <b>${fmt(r.cost_per_setup.gateway_side_ms?.gateway)}</b> ms, SIP-only Kamailio <b>${fmt(r.cost_per_setup.sip_only_ms?.kamailio)}</b> ms, gateway / SIP-only Kamailio <b>${fmt(r.cost_per_setup.ratios?.gateway_vs_sip_only_kamailio)}</b>.` : ''}</p>
${table(['side', 'calls/s', 'gateway ms', 'kamailio ms', 'rtpengine ms', 'sipp uas ms', 'loadgen / sipp uac ms', 'gateway / SIP-only kamailio', '(gateway + kamailio) / SIP-only kamailio'],
  [['gateway', gw], ['SIP only', sip]].flatMap(([side, list]) => list.map((s) => { const c = s.cpu_ms_per_setup ?? {};
    return [side, s.cps, c.gateway, c.kamailio, c.rtpengine, c.sipp, c.loadgen ?? c.sipp_uac, s.cost_vs_sip_only?.gateway_vs_sip_only_kamailio, s.cost_vs_sip_only?.signalling_vs_sip_only]; })))}
<h2>Steps</h2>
${table(['side', 'calls/s', 'calls', 'set up', 'failed', 'setup p50 ms', 'p95 ms', 'max ms', 'cps x hold', 'peak in media', 'gateway %', 'kamailio %', 'rtpengine %', 'sipp uas %', 'loadgen / sipp uac %', 'other jobs %', 'result'], rows)}
${charts([
  { id: 'p95', title: 'Setup p95 vs offered calls/s', x: 'calls/s', y: 'setup p95 ms', points: true,
    datasets: [{ label: 'gateway (ICE + DTLS)', points: gw.map((s) => [s.cps, s.setup_ms?.p95]) }, { label: 'SIP only (INVITE -> 200)', points: sip.map((s) => [s.cps, s.setup_ms?.p95]) }] },
  { id: 'conc', title: 'Concurrent calls vs calls/s', x: 'calls/s', y: 'calls', points: true,
    datasets: [{ label: 'cps x hold', points: gw.map((s) => [s.cps, s.concurrent_nominal]) }, { label: 'peak in media (loadgen)', points: gw.map((s) => [s.cps, s.concurrent_peak]) }] },
  { id: 'ok', title: 'Calls set up per second (set up / step seconds)', x: 'offered calls/s', y: 'calls/s set up', points: true,
    datasets: [{ label: 'gateway', points: gw.map((s) => [s.cps, s.setup_ok == null ? null : Math.round((s.setup_ok / r.step_seconds) * 10) / 10]) },
      { label: 'SIP only', points: sip.map((s) => [s.cps, s.setup_ok == null ? null : Math.round((s.setup_ok / r.step_seconds) * 10) / 10]) }] },
  { id: 'cpu', title: 'CPU per process per step, gateway side (% of one core)', x: 'calls/s', y: '% of one core', points: true,
    datasets: ['gateway', 'kamailio', 'rtpengine', 'sipp', 'loadgen', 'other'].map((n) => ({ label: n, points: gw.map((s) => [s.cps, s.cpu?.[`${n}_pct`]]) })) },
  { id: 'cpucall', title: 'CPU-ms per call set up, per process (gateway side; SIP-only Kamailio beside it)', x: 'calls/s', y: 'CPU-ms per call', points: true,
    datasets: [...['gateway', 'kamailio', 'rtpengine', 'sipp', 'loadgen'].map((n) => ({ label: n, points: gw.map((s) => [s.cps, s.cpu_ms_per_setup?.[n] ?? null]) })),
      { label: 'kamailio, SIP only', points: sip.map((s) => [s.cps, s.cpu_ms_per_setup?.kamailio ?? null]) }] },
  { id: 'cpusip', title: 'CPU per process per step, SIP only (% of one core)', x: 'calls/s', y: '% of one core', points: true,
    datasets: ['kamailio', 'sipp', 'sipp_uac'].map((n) => ({ label: n, points: sip.map((s) => [s.cps, s.cpu?.[`${n}_pct`]]) })) },
])}
<h2>Where the gateway's CPU goes (JFR execution samples)</h2>
${Object.keys(r.profiles ?? {}).length ? Object.entries(r.profiles).map(([k, p]) => `<h3>${esc(k)}</h3>${jfrTables(p)}`).join('\n') : '<p>no recording summarised</p>'}
<h2>Where loadgen's, rtpengine's and Kamailio's CPU goes (perf)</h2>
${Object.keys(r.native_profiles ?? {}).length ? Object.entries(r.native_profiles).map(([k, p]) => `<h3>${esc(k)}</h3>${perfTables(p)}`).join('\n') : `<p>no recording summarised${r.perf_record === false ? ' (perf record is opt-in: --perf)' : ''}</p>`}`;
}

function registrationsBody(r) {
  const h = r.hold ?? {};
  const series = r.series ?? [];
  const line = (k) => series.map((s) => [s.t, s[k]]);
  const rows = [['REGISTERs/s', 'registers_per_s'], ['registrations', 'registrations'], ['gateway heap MB', 'heap_mb'], ['heap old generation MB', 'old_gen_mb'], ['gateway RSS MB', 'gw_rss_mb'],
    ['gateway threads', 'gw_threads'], ['gateway fds', 'gw_fds'], ['Kamailio PSS MB', 'kamailio_pss_mb'], ['gateway CPU %', 'cpu_gateway_pct'],
    ['Kamailio CPU %', 'cpu_kamailio_pct'], ['driver CPU %', 'cpu_driver_pct'], ['other jobs CPU %', 'cpu_other_pct']]
    .map(([label, k]) => [label, h[k]?.min, h[k]?.mean, h[k]?.p95, h[k]?.max]);
  return `<p>${fmt(r.login?.logged_in)}/${fmt(r.users)} users logged in (${fmt(r.login?.per_s)}/s, p50 ${fmt(r.login?.ms?.p50)} ms, p95 ${fmt(r.login?.ms?.p95)} ms),
held ${fmt(r.minutes)} min with expiry ${fmt(r.expires_s)} s (refresh every ~${fmt(r.refresh_every_s)} s), then logged out (${fmt(r.logout?.logged_out)} in ${fmt(r.logout?.seconds)} s).</p>
<p>Gateway configured for load: <code>${esc(r.gateway_load_args)}</code>; ${esc(r.note)}. Other gateway arguments: ${esc(r.gateway_args)}.</p>
<p>Refreshes during the hold: ${fmt(h.refreshes_ok)} ok (expected ~${fmt(h.refreshes_expected)}); REGISTER transactions failed: ${fmt(h.register_failed)};
sockets closed by the gateway: ${fmt(h.websockets_closed_by_gateway)}; registrations left after logout: ${fmt(r.registrations_left)}.</p>
<p>What breaks first: <b>${esc(r.what_breaks_first)}</b></p>
<h2>During the hold</h2>
${table(['figure', 'min', 'mean', 'p95', 'max'], rows)}
${charts([
  { id: 'reg', title: 'REGISTERs/s sent by the gateway (gw_register_requests_total)', x: 's', y: 'REGISTERs/s', datasets: [{ label: 'REGISTERs/s', points: line('registers_per_s') }] },
  { id: 'regs', title: 'Registrations and WebSockets held by the gateway', x: 's', y: 'count',
    datasets: [{ label: 'registrations', points: line('registrations') }, { label: 'WebSockets', points: line('websockets') }] },
  { id: 'mem', title: 'Memory (MB)', x: 's', y: 'MB',
    datasets: [{ label: 'gateway heap used', points: line('heap_mb') }, { label: 'heap old generation', points: line('old_gen_mb') }, { label: 'gateway RSS', points: line('gw_rss_mb') }, { label: 'Kamailio PSS (all processes)', points: line('kamailio_pss_mb') }] },
  { id: 'thr', title: 'Gateway threads and fds', x: 's', y: 'count',
    datasets: [{ label: 'threads', points: line('gw_threads') }, { label: 'fds', points: line('gw_fds') }] },
  { id: 'cpu', title: 'CPU (% of one core)', x: 's', y: '% of one core',
    datasets: [['gateway', 'cpu_gateway_pct'], ['kamailio', 'cpu_kamailio_pct'], ['driver', 'cpu_driver_pct'], ['other jobs', 'cpu_other_pct']].map(([l, k]) => ({ label: l, points: line(k) })) },
])}
${(r.problems ?? []).length ? `<h2>Problems</h2>${table(['t s', 'phase', 'what'], r.problems.map((p) => [p.t, p.phase, p.what]))}` : ''}`;
}

// sipp: SIPp's statistics beside the browser users', the gateway's and the relay's (harness/bench/sipp.mjs).
function sippBody(r) {
  const raw = (v) => (v == null ? 'n/a' : String(v)); // inside a cell: table() escapes the whole cell once
  const s = r.sipp ?? {};
  const b = r.browser ?? {};
  const g = r.gateway_metrics ?? {};
  const c = r.criterion ?? {};
  const ser = r.series ?? {};
  const w = r.cpu?.whole_run ?? {};
  const procs = ['rtpengine', 'gateway', 'kamailio', 'sipp_uac', 'loadgen', 'tcpdump'];
  const msgRows = (s.messages ?? []).map((m) => [m.index, m.message, m.sent ?? m.recv, m.sent != null ? 'sent' : 'received', m.retransmissions, m.timeouts, m.unexpected]);
  const delayRows = ['to_ims', 'to_browser'].map((k) => { const x = r.delay_ms?.[k] ?? {}; return [k, x.p50, x.p95, x.p99, x.max, r.loss_pct?.[k], r.packets?.matched?.[k], r.packets?.lost?.[k]]; });
  return `<p>SIPp ${esc(r.caller)} placed ${fmt(r.calls)} calls at ${fmt(r.cps)}/s to ${fmt(r.users)} browser users (loadgen --answer, one WebSocket each), each held ${fmt(r.hold_s)} s${r.volte ? ' with preconditions' : ''}; ${esc(r.media)}.</p>
<p>Gateway: quotas lifted <code>${esc(r.gateway_quotas_lifted)}</code>, load <code>${esc(r.gateway_load_args)}</code>, other arguments ${esc(r.gateway_args)}.</p>
<p>Criterion (SIPp 0 failed and ${fmt(r.calls)} successful calls, every call answered by a browser user with media both ways, loss &lt; ${fmt(c.loss_pct_below)} % per direction):
<span class="${c.pass ? 'ok' : 'bad'}">${c.pass ? 'met' : `not met: ${esc((c.why ?? []).join('; '))}`}</span></p>
<h2>SIPp's statistics</h2>
${table(['figure', 'value'], [['calls created', s.calls_created], ['successful', s.successful], ['failed', s.failed], ['failed by cause', JSON.stringify(s.failed_by ?? {})],
    ['retransmissions', s.retransmissions], ['out-of-call / dead-call messages', `${raw(s.out_of_call_msgs)} / ${raw(s.dead_call_msgs)}`], ['mean call rate /s', s.call_rate_mean],
    ['INVITE -> 200 p50 / p95 / p99 / max ms', `${raw(s.invite_to_200?.ms?.p50)} / ${raw(s.invite_to_200?.ms?.p95)} / ${raw(s.invite_to_200?.ms?.p99)} / ${raw(s.invite_to_200?.ms?.max)}`],
    ['response time mean (stdev) ms', `${raw(s.response_time_mean_ms)} (${raw(s.response_time_stdev_ms)})`], ['call length mean ms', s.call_length_mean_ms],
    ['error log lines', s.error_log?.lines], ['first error', s.error_log?.first]])}
${table(['#', 'message', 'count', '', 'retransmissions', 'timeouts', 'unexpected'], msgRows)}
<h2>Browser users (loadgen --answer) and the gateway</h2>
${table(['figure', 'value'], [['incoming calls', b.incoming], ['answered (ICE + DTLS up)', b.answered], ['media both ways', b.media_both_ways], ['with preconditions', b.with_preconditions],
    ['users called (calls each)', `${raw(b.users_called)} (${raw(b.calls_per_user?.min)}-${raw(b.calls_per_user?.max)})`], ['end reasons', JSON.stringify(b.end_reasons ?? {})],
    ['incoming -> DTLS done p50 / p95 ms', `${raw(r.setup_ms_browser?.p50)} / ${raw(r.setup_ms_browser?.p95)}`],
    ['gateway MT attempts / answers / ended', `${raw(g.mt_attempts)} / ${raw(g.mt_answers)} / ${raw(g.mt_ended)}`], ['gateway MT failures by reason', JSON.stringify(g.mt_failures_by_reason ?? {})],
    ['gateway setup (INVITE -> 200) mean ms, p50 / p95 bucket', `${raw(g.mt_setup_ms?.mean)}, ${raw(g.mt_setup_ms?.p50_bucket)} / ${raw(g.mt_setup_ms?.p95_bucket)}`], ['gateway ng errors', g.ng_errors]])}
<h2>Relay: loss and per-packet delay (capture, delaymeter)</h2>
${table(['direction', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'loss %', 'matched', 'lost'], delayRows)}
<h2>CPU (% of one core, whole run)</h2>
${table(['process', '% of one core'], procs.map((n) => [n, w[n]]))}
<p>other jobs on this host: ${fmt(r.cpu?.other_pct)} % of one core (whole host ${fmt(r.cpu?.host_busy_pct)} %)</p>
${charts([
  { id: 'rate', title: 'Calls/s (SIPp, per second)', x: 's since SIPp started', y: 'calls/s',
    datasets: [['placed', 'created'], ['successful (ended)', 'successful'], ['failed', 'failed']].map(([l, k]) => ({ label: l, points: (ser.sipp ?? []).map((p) => [p.t, p[k]]) })) },
  { id: 'conc', title: 'Concurrent calls', x: 's', y: 'calls',
    datasets: [{ label: 'SIPp CurrentCall (s since SIPp started)', points: (ser.sipp ?? []).map((p) => [p.t, p.current]) },
      { label: 'gateway gw_calls_active{mt} (s since the bench started)', points: (ser.gateway ?? []).map((p) => [p.t, p.active]) }] },
  { id: 'setup', title: 'Setup time per call: SIPp INVITE -> 200 (ms)', x: 's since SIPp started', y: 'ms', points: true,
    datasets: [{ label: 'INVITE -> 200', points: ser.setup_points ?? [] }] },
  { id: 'cpu', title: 'CPU per process (% of one core, 1 s samples)', x: 's since the first relayed packet', y: '% of one core',
    datasets: procs.map((n) => ({ label: n, points: (ser.cpu ?? []).map((p) => [p.t_s, p[`${n}_pct`]]) })) },
  { id: 'cdf', title: 'Relay delay CDF per direction', x: 'delay ms (log)', y: 'fraction of packets', xlog: true, stepped: true,
    datasets: ['to_ims', 'to_browser'].map((k) => ({ label: k, points: (r.delay_cdf?.[k] ?? []).filter(([ms]) => ms > 0) })) },
])}
${r.jfr ? `<h2>Where the gateway's CPU goes (JFR execution samples, --jfr)</h2>${jfrTables(r.jfr)}` : ''}`;
}

// ./lab bench datachannel (datachannel.mjs): messages through the data-channel endpoint
function datachannelBody(r) {
  const dirs = ['browser_to_ims', 'ims_to_browser'];
  const c = r.cpu ?? {};
  const rows = dirs.map((k) => {
    const m = r.messages?.[k] ?? {};
    const d = r.delay_ms?.[k] ?? {};
    const e = r.endpoint_relay?.[k] ?? {};
    return [k, m.sent, m.received, m.lost, m.duplicates, m.out_of_order, d.p50, d.p95, d.p99, d.max, e.relay_us_p50_median_of_calls, e.relay_us_p99_max_of_calls, e.dropped];
  });
  return `<p>${fmt(r.calls_set_up)} of ${fmt(r.calls)} calls set up (p50 ${fmt(r.setup_ms?.p50)} ms), ${fmt(r.channels)} application channels
(${fmt(r.channels_per_call)} per call), ${fmt(r.rate_per_channel)} messages/s of ${fmt(r.size_bytes)} B per channel each way for ${fmt(r.duration_s)} s:
${fmt(r.messages_per_s)} messages/s through the endpoint. Delay = one way, peer to peer through the endpoint (both WebRTC stacks
included, one clock); endpoint relay = the endpoint's own time from a message's arrival to its send on the other leg.</p>
${table(['direction', 'sent', 'received', 'lost', 'duplicates', 'out of order', 'delay p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'endpoint relay p50 µs (median of calls)', 'endpoint relay p99 µs (worst call)', 'endpoint dropped'], rows)}
${r.text ? `<h2>Real-time text (T.140 channel ↔ RFC 4103, typed both ways at ${fmt(r.text.cps)} characters/s)</h2>
${table(['direction', 'typed', 'shown', 'calls intact', 'missing-text marks', 'key → screen p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    dirs.map((k) => { const t = r.text[k] ?? {}; return [k, t.typed, t.shown, `${t.calls_intact} / ${t.calls}`, t.missing_marks, t.delay_ms?.p50, t.delay_ms?.p95, t.delay_ms?.p99, t.delay_ms?.max]; }))}` : ''}
<p>Endpoint CPU over the load window: ${fmt(c.endpoint_pct)} % of one core, ${fmt(c.endpoint_pct_per_call)} per call,
${fmt(c.endpoint_pct_per_channel)} per channel: about <b>${fmt(c.calls_per_core)}</b> such calls per core. The driver (both peers of
every call, Python): ${fmt(c.driver_pct)} %.</p>
${charts([
  { id: 'dchist', title: 'One-way message delay (0.25 ms bins; the last bin holds all from 20 ms)', x: 'delay ms', y: 'messages', stepped: true,
    datasets: dirs.map((k) => ({ label: k, points: (r.delay_hist_ms?.[k] ?? []).map((n, i) => [i * 0.25, n]) })) },
  { id: 'dccpu', title: 'Endpoint CPU over time (% of one core, 1 s samples)', x: 's since start', y: '% of one core',
    datasets: [{ label: 'endpoint', points: (r.cpu_series ?? []).map((s) => [s.t_s, s.endpoint_pct]) }] },
])}`;
}

export function renderBenchHtml(r) {
  let body = '';
  if (r.kind === 'profile') {
    const c = r.cpu ?? {};
    body = `<p>${esc(r.profile)}: ${r.calls} calls, ${r.duration_s} s at full load (${r.cps} calls/s ramp), setup p50/p95 ${fmt(r.setup_ms?.p50)} / ${fmt(r.setup_ms?.p95)} ms</p>
${mediaLine(r.media)}
${summaryRows(r)}
<p>CPU over the full-load window (% of one core): rtpengine ${fmt(c.rtpengine_pct)} (${fmt(c.rtpengine_pct_per_call)} per call, ${fmt(c.relay_cores_used)} cores),
generator ${fmt(c.loadgen_pct)} · estimated relay capacity ${fmt(r.capacity_per_core_est)} calls per core</p>
<h2>Ours vs the thesis</h2>${referenceTable(r.reference?.ratios)}
${charts(stepCharts(r))}`;
  } else if (r.kind === 'capacity') {
    const rows = r.steps.map((s) => [s.calls, s.pass ? 'pass' : 'FAIL', s.delay_ms?.to_ims?.p99, s.delay_ms?.to_browser?.p99, s.loss_pct?.to_ims, s.loss_pct?.to_browser,
      s.cpu?.rtpengine_pct, s.cpu?.loadgen_pct, s.cpu?.tcpdump_pct, s.cpu?.host_busy_pct, s.fail_reason ?? '']);
    body = `<p>${esc(r.profile)}: largest passing step <b>${fmt(r.capacity_calls)}</b> calls (criterion: ${esc(r.criterion)}); relay cores used there ${fmt(r.relay_cores_used_at_capacity)};
calls per relay core ${fmt(r.capacity_per_core)} (${esc(r.capacity_per_core_basis)})</p>
${mediaLine(r.media)}
${table(['calls', 'result', 'p99 to_ims ms', 'p99 to_browser ms', 'loss to_ims %', 'loss to_browser %', 'rtpengine %', 'loadgen %', 'tcpdump %', 'whole host %', 'why'], rows)}
<h2>Ours vs the thesis</h2>${referenceTable(r.reference?.ratios)}
${charts([
  { id: 'cpucalls', title: 'CPU vs calls (% of one core, full-load window)', x: 'calls', y: '% of one core', points: true,
    datasets: ['rtpengine', 'loadgen'].map((n) => ({ label: n, points: r.steps.map((s) => [s.calls, s.cpu?.[`${n}_pct`]]) })) },
  { id: 'p99calls', title: 'p99 relay delay vs calls', x: 'calls', y: 'p99 ms', points: true,
    datasets: ['to_ims', 'to_browser'].map((k) => ({ label: k, points: r.steps.map((s) => [s.calls, s.delay_ms?.[k]?.p99]) })) },
])}`;
  } else if (r.kind === 'gateway') {
    body = gatewayBody(r);
  } else if (r.kind === 'setup-sustained') {
    body = sustainedBody(r);
  } else if (r.kind === 'registrations') {
    body = registrationsBody(r);
  } else if (r.kind === 'sipp') {
    body = sippBody(r);
  } else if (r.kind === 'datachannel') {
    body = datachannelBody(r);
  } else {
    const rows = r.steps.map((s) => [s.cps, s.calls, s.setup_ok, s.failures, s.setup_ms?.p50, s.setup_ms?.p95, s.setup_ms?.max, s.cpu?.gateway_pct, s.cpu?.kamailio_pct, s.cpu?.rtpengine_pct, s.cpu?.loadgen_pct, s.errors.join('; ')]);
    body = `<p>Calls through gateway + Kamailio + rtpengine to SIPp ue1, ICE + DTLS per call; highest step with 0 failures and p95 &lt; 500 ms: <b>${fmt(r.max_cps_passing)}</b> calls/s</p>
${table(['calls/s', 'calls', 'set up', 'failed', 'setup p50 ms', 'p95 ms', 'max ms', 'gateway %', 'kamailio %', 'rtpengine %', 'loadgen %', 'errors'], rows)}
${charts([{ id: 'setup', title: 'Setup time vs offered rate', x: 'calls/s', y: 'setup ms', points: true,
    datasets: ['p50', 'p95'].map((p) => ({ label: p, points: r.steps.map((s) => [s.cps, s.setup_ms?.[p]]) })) }])}`;
  }
  const m = r.machine ?? {};
  return `${htmlHead(`${r.tool} ${r.name}`)}
<h1>${esc(r.tool)} ${esc(r.name)}: <span class="${r.ok ? 'ok' : 'bad'}">${r.ok ? 'OK' : 'FAILED'}</span></h1>
<p>started ${esc(r.started)} · ${fmt(m.nproc)} cores (${esc(m.cpu_model)}), kernel ${esc(m.kernel)}, ${esc(m.rtpengine)}</p>
${(r.errors ?? []).length ? `<p class="bad">${r.errors.map(esc).join('<br>')}</p>` : ''}
${body}
</body></html>
`;
}
