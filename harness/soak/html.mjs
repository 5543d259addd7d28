// report.html of ./lab soak: verdict, calls, bad input, faults, leaks and the gateway over time (Chart.js).
import { esc, htmlHead, scriptSafe } from '../kit/report.mjs';

const fmt = (v) => (v == null ? 'n/a' : typeof v === 'object' ? esc(JSON.stringify(v)) : esc(v));
const table = (head, rows) => `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((v) => `<td>${fmt(v)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`;

function charts(r) {
  const pts = (k) => r.series.filter((s) => s[k] != null).map((s) => [s.t_s, s[k]]);
  // the hosts layout: each gateway's own heap (a killed gateway's line stops at its kill)
  const gwNames = [...new Set(r.series.flatMap((s) => Object.keys(s.per_gateway ?? {})))];
  const gwPts = (g, k) => r.series.filter((s) => s.per_gateway?.[g]?.[k] != null).map((s) => [s.t_s, s.per_gateway[g][k]]);
  const list = [
    { id: 'heap', title: 'Gateway heap used (MiB; drops are GCs)', y: 'MiB',
      datasets: gwNames.length ? gwNames.map((g) => ({ label: `${g} heap`, points: gwPts(g, 'heap_mib') })) : [{ label: 'heap', points: pts('heap_mib') }] },
    { id: 'thr', title: 'Gateway threads and open file descriptors', y: 'count',
      datasets: gwNames.length ? gwNames.flatMap((g) => [{ label: `${g} threads`, points: gwPts(g, 'threads') }, { label: `${g} fds`, points: gwPts(g, 'fds') }])
        : [{ label: 'threads', points: pts('threads') }, { label: 'fds', points: pts('fds') }] },
    { id: 'calls', title: 'Calls, SIP dialogs and rtpengine sessions (the live gateways\' sums; leaks: not back to 0 at the end)', y: 'count',
      datasets: [{ label: 'gateway calls', points: pts('calls') }, { label: 'SIP dialogs', points: pts('dialogs') }, { label: 'rtpengine sessions', points: pts('rtpengine_sessions') }] },
    { id: 'ws', title: 'WebSockets and registrations', y: 'count', datasets: [{ label: 'websockets', points: pts('websockets') }, { label: 'registrations', points: pts('registrations') }] },
  ];
  return `${list.map((c) => `<h2>${esc(c.title)}</h2><div class="box"><canvas id="${c.id}"></canvas></div>`).join('\n')}
<script type="application/json" id="charts">${scriptSafe(JSON.stringify(list))}</script>
<script>
const colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
for (const c of JSON.parse(document.getElementById('charts').textContent)) {
  const datasets = c.datasets.map((d, i) => ({ label: d.label, data: d.points.map(([x, y]) => ({ x, y })), borderColor: colors[i % 6],
    backgroundColor: colors[i % 6], pointRadius: 0, borderWidth: 1.5, showLine: true }));
  new Chart(document.getElementById(c.id), { type: 'scatter', data: { datasets }, options: { animation: false, maintainAspectRatio: false,
    scales: { x: { title: { display: true, text: 's since start' } }, y: { beginAtZero: true, title: { display: true, text: c.y } } } } });
}
</script>`;
}

export function renderHtml(r) {
  const ok = r.verdict === 'pass';
  const calls = ['mo', 'mt'].filter((d) => r.calls[d]).map((d) => [d.toUpperCase(), r.calls[d].attempted, r.calls[d].completed, r.calls[d].untouched,
    r.calls[d].untouched_failed, d === 'mt' ? `SIPp: ${r.calls[d].sipp_successful} successful, ${r.calls[d].sipp_failed} failed` : '', r.calls[d].failed]);
  const detail = (f) => {
    if (f.kind === 'browser-vanishes') return `call up: ${f.call_was_up}; ended (websocket-closed) after ${f.ended_websocket_closed_after_s ?? 'n/a'} s`;
    if (f.error) return f.error;
    if (f.kind === 'relay-kill') return `${f.relay} (${f.host}), ${f.calls_held} calls on it; its standby answered its ng address after ${f.standby_answering_ms} ms; gaps (ms, to browser / to IMS): ${f.media.map((m) => `${m.gap_to_browser_ms}/${m.gap_to_ims_ms}${m.media_after_both_ways ? '' : ' (no media after)'}`).join(', ')}`;
    if (f.kind === 'gateway-kill') return `${f.gateway} (${f.host}), ${f.calls_held} calls on it: ${f.ended_cleanly} ended cleanly (BYE at the UE p50 ${f.bye_ms?.p50 ?? '—'} ms, max ${f.bye_ms?.max ?? '—'} ms), ${f.lost} lost`;
    if (f.kind === 'kamailio-restart') return `down ${f.down_ms} ms; answering ${f.answering_ms} ms after the kill; ue1 registered again after ${f.ue1_registered_ms} ms`;
    return '';
  };
  return `${htmlHead('lab soak')}
<h1>./lab soak: ${r.minutes} min, ${r.cps_per_direction} calls/s each way — <span class="${ok ? 'ok' : 'bad'}">${esc(r.verdict ?? 'running')}</span></h1>
<p>Started ${esc(r.started)}, finished ${esc(r.finished ?? '(not yet)')}; calls held ${r.hold_s} s. Gateway arguments for the run: ${esc(r.gateway_args ?? '(none)')}.</p>
${r.why.length ? `<ul>${r.why.map((w) => `<li class="bad">${esc(w)}</li>`).join('')}</ul>` : ''}
<p>Layout: ${fmt(r.layout)}${r.rounds?.length > 1 ? `; ${r.rounds.length} rounds of traffic (each logs in afresh), faults in rounds ${fmt(r.fault_plan)} (0-based)` : ''}.</p>
<h2>Calls</h2>${table(['direction', 'attempted', 'set up', 'untouched by faults', 'untouched and failed', 'UE side', 'failed (first 20)'], calls)}
<h2>Calls a fault touched, by outcome</h2>${table(['fault', 'kept with media', 'ended cleanly', 'ended reasons', 'lost', 'lost reasons'], Object.entries(r.touched ?? {}).map(([k, t]) => [k, t.kept, t.ended, t.ended_reasons, t.lost, t.lost_reasons]))}
<h2>Bad input (each must get its error)</h2>${table(['kind', 'sent', 'answered as expected', 'mismatches'], Object.entries(r.bad_input.by_kind).map(([k, v]) => [k, v.sent, v.answered_as_expected, v.mismatches]))}
${r.bad_input.mismatches.length ? table(['t s', 'kind', 'expected', 'got'], r.bad_input.mismatches.slice(0, 50).map((m) => [m.t_s, m.kind, m.expected, m.got])) : ''}
<h2>Faults</h2>${table(['at s', 'kind', 'result', 'detail'], r.faults.map((f) => [f.at_s, f.kind, f.ok ? 'ok' : 'FAIL', detail(f)]))}
<h2>Leaks and flatness</h2>${table(['figure', 'value'], [...Object.entries(r.leaks), ...Object.entries(r.flat).map(([k, v]) => [k, v])])}
<p>Flat (docs/soak.md, each gateway that lived to the end): heap after a full GC at the end within ${r.flat_definition.heap_pct} % (at least ${r.flat_definition.heap_min_mib} MiB) of the one after the first minute; the last minute's highest thread and fd counts at most ${r.flat_definition.threads} / ${r.flat_definition.fds} above the first minute's.</p>
${charts(r)}
${r.errors.length ? `<h2>Errors</h2><ul>${r.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>` : ''}
</body></html>
`;
}
