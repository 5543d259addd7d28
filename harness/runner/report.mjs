// The demo's report.json (schema in docs/architecture.md, plus extra fields) and its report.html
// (table + Chart.js chart of the browser's packets per second), written with kit/report.mjs.
import { hostSpeedText } from '../kit/host-speed.mjs';
import { esc, htmlHead, scriptSafe, writeReport } from '../kit/report.mjs';
import { judge } from './scenario.mjs';

export const DELAY_NOTE = 'relay delay: t_out - t_in of each RTP packet at rtpengine, paired by SSRC + sequence number '
  + 'in one tcpdump capture of both legs (delaymeter, nearest-rank percentiles); loss: in copies never sent on';

// delaymeter's JSON of a call's capture -> media.delay_ms / loss_pct / packets per direction.
function relayDelayEntry(dm) {
  const delay = {}, loss = {}, packets = {};
  for (const k of ['to_ims', 'to_browser']) {
    const x = dm?.directions?.[k];
    const d = x?.delay_ms;
    delay[k] = x?.matched ? { p50: d.p50, p95: d.p95, p99: d.p99, max: d.max, mean: d.mean } : null;
    loss[k] = x && (x.matched || x.lost) ? x.loss_pct : null;
    packets[k] = x ? { matched: x.matched, lost: x.lost, duplicates: x.duplicates, reordered: x.reordered, unmatched_out: x.unmatched_out } : null;
  }
  return { delay, loss, packets };
}

const round = (v, d = 1) => (v == null || Number.isNaN(v) ? null : Number(Number(v).toFixed(d)));

// One scenario result (scenario.mjs) -> one report.json call entry.
export function callEntry(r) {
  const { ok, problems } = judge(r);
  const m = r.info?.media ?? {};
  const b = r.browser;
  const t0 = r.samples[0]?.t ?? 0;
  // rtpengine's verdict from its query (gateway media.transcoded): the live one when the final is missing
  const transcoded = m.transcoded ?? r.infoDuring?.media?.transcoded ?? null;
  const rd = r.relayDelay ? relayDelayEntry(r.relayDelay) : null;
  const paired = rd && (rd.delay.to_ims || rd.delay.to_browser);
  return {
    direction: r.direction,
    from: r.info?.from ?? r.from,
    to: r.info?.to ?? r.to,
    ok,
    setup_ms: round(r.info?.setupMs),
    // the page's clock (lab-client timing()): MO `call` sent -> answer, -> ICE, -> DTLS connected; MT from `incoming`
    page_timing_ms: r.pageTiming ?? null,
    // the gateway's clock, step by step (metrics/SetupTimeline: GET /api/v1/calls/{id} setupTimeline)
    setup_timeline_ms: (r.info?.setupTimeline ?? r.infoDuring?.setupTimeline)?.stepsMs ?? null,
    // the CPU time the gateway's thread spent in each step whose two marks it took (wall time minus it: waits)
    setup_timeline_cpu_ms: (r.info?.setupTimeline ?? r.infoDuring?.setupTimeline)?.stepsCpuMs ?? null,
    duration_s: r.answeredAt && r.endedAt ? round((r.endedAt - r.answeredAt) / 1000, 2) : null,
    sip_final: r.info?.sipFinal ?? null,
    media: {
      codec: m.codecIms ?? m.codecBrowser ?? b?.codec ?? null,
      packets_to_ims: m.packetsToIms ?? null,
      packets_to_browser: m.packetsToBrowser ?? null,
      // rtpengine's per-packet delay per direction (capture + delaymeter); null with relay_delay_error
      delay_ms: rd?.delay ?? null,
      loss_pct: rd?.loss ?? null,
      relay_packets: rd?.packets ?? null,
      relay_delay_error: r.relayDelay ? (paired ? null : 'no packet of the call was paired in the capture') : (r.relayDelayError ?? 'not captured'),
      capture: r.relayDelay?.capture ?? null,
      codec_browser: m.codecBrowser ?? null,
      codec_ims: m.codecIms ?? null,
      // 'relayed' (same codec both legs, no decoding) or 'transcoded' (rtpengine's codec engine), null = unknown
      relay: transcoded == null ? null : (transcoded ? 'transcoded' : 'relayed'),
      dtmf: m.dtmf ?? null,   // 'relay' (browser's RTCDTMFSender) or 'inject' (WebSocket dtmf via rtpengine)
      bytes_to_ims: m.bytesToIms ?? null,
      bytes_to_browser: m.bytesToBrowser ?? null,
      audio: r.audio ?? null,   // the audio-quality check (audio-check.mjs), null when not run
    },
    error: ok ? null : problems.join('; '),
    call_id: r.callId,
    ended: r.ended ? { reason: r.ended.reason ?? null, sip_code: r.ended.sipCode ?? null } : null,
    browser: b && {
      packets_sent: b.packetsSent, packets_received: b.packetsReceived,
      bytes_sent: b.bytesSent, bytes_received: b.bytesReceived, codec: b.codec,
      ice_state: b.iceState, dtls_state: b.dtlsState, jitter_ms: round(b.jitter, 2), rtt_ms: round(b.rtt, 2),
      local_candidate: b.localCandidate, remote_candidate: b.remoteCandidate,
    },
    browser_samples: r.samples.map((s) => ({
      t_s: round((s.t - t0) / 1000, 2), packets_sent: s.packetsSent, packets_received: s.packetsReceived,
      pps_sent: round(s.ppsSent), pps_received: round(s.ppsReceived), jitter_ms: round(s.jitter, 2), rtt_ms: round(s.rtt, 2),
    })),
    sip_flow: r.info?.sipFlow ?? null,
    preconditions: r.info?.preconditions ?? false,
    ue: r.ue ? { exit_code: r.ue.code, log: r.ue.logFile } : null,
  };
}

export const writeDemoReport = (dir, report) => writeReport(dir, report, renderHtml);

// Two lines per call: rtpengine's per-packet delay and loss each way (capture), the browser's view beside.
function delayTable(calls) {
  const cols = ['call', 'direction of media', 'relay delay p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'mean ms', 'packets paired', 'lost', 'loss %', 'browser jitter ms', 'browser RTT ms'];
  const rows = calls.flatMap((c) => [['to_ims', 'browser → rtpengine → IMS'], ['to_browser', 'IMS → rtpengine → browser']].map(([k, label], i) => {
    const d = c.media.delay_ms?.[k];
    const p = c.media.relay_packets?.[k];
    if (!d) return [i ? '' : c.direction, label, `not measured: ${c.media.relay_delay_error ?? 'no paired packet'}`, '', '', '', '', p?.matched ?? '', p?.lost ?? '', '', '', ''];
    return [i ? '' : c.direction, label, d.p50, d.p95, d.p99, d.max, d.mean, p?.matched, p?.lost, c.media.loss_pct?.[k],
      i ? '' : c.browser?.jitter_ms, i ? '' : c.browser?.rtt_ms];
  }));
  return `<h2>Per-packet relay delay (rtpengine, from the capture)</h2>
<table><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>
<p>${esc(DELAY_NOTE)}. Jitter and RTT are the browser's own getStats, end to end.</p>`;
}

// One line per call of the audio-quality check (media.audio), nothing when no call ran it.
function audioTable(calls) {
  const checked = calls.filter((c) => c.media.audio);
  if (!checked.length) return '';
  const cols = ['direction', 'signal', 'detected Hz', 'SNR dB (weakest tone)', 'correlation', 'level dBFS', 'path', 'audio ok'];
  const rows = checked.map(({ direction, media: { audio: a } }) => [direction, a.signal, (a.detected_hz ?? []).join(', '), a.snr_db,
    a.correlation, a.level_dbfs, a.covers, a.pass ? 'yes' : `NO: ${a.problems.join('; ')}`]);
  return `<h2>Audio check (sent tones recovered after the UE's echo)</h2>
<table><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>`;
}

export function renderHtml(report) {
  const cols = ['direction', 'from', 'to', 'setup ms', 'SIP final', 'codec browser / IMS', 'rtpengine', 'pkts→IMS', 'pkts→browser', 'browser sent', 'browser recv', 'duration s', 'ok', 'error'];
  const rows = report.calls.map((c) => [
    c.direction, c.from, c.to, c.setup_ms, c.sip_final, `${c.media.codec_browser ?? '?'} / ${c.media.codec_ims ?? '?'}`,
    c.media.relay ?? 'unknown', c.media.packets_to_ims, c.media.packets_to_browser,
    c.browser?.packets_sent, c.browser?.packets_received, c.duration_s, c.ok ? 'yes' : 'NO', c.error ?? '',
  ]);
  const cpu = Object.entries(report.cpu ?? {}).filter(([k]) => k.endsWith('_pct'))
    .map(([k, v]) => `${esc(k.replace(/_pct$/, ''))}: ${v == null ? 'n/a' : `${v} %`}`).join(' · ');
  const series = report.calls.map((c) => ({ label: `${c.direction} ${c.from}→${c.to}`, samples: c.browser_samples }));
  return `${htmlHead(`${report.tool} report`)}
<h1>${esc(report.tool)}: <span class="${report.ok ? 'ok' : 'bad'}">${report.ok ? 'OK' : 'FAILED'}</span></h1>
<p>started ${esc(report.started)} · CPU (average, % of one core): ${cpu || 'not sampled'}</p>
<p>host: ${esc(hostSpeedText(report.host))}</p>
<table><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`).join('\n')}
</tbody></table>
${delayTable(report.calls)}
${audioTable(report.calls)}
${report.registration ? `<p>gateway registration of ${esc(report.registration.user)} (${esc(report.registration.auth)}${report.registration.impi ? `, IMPI ${esc(report.registration.impi)}, IMPU ${esc(report.registration.impu)}` : ''}): ${esc((report.registration.sip_flow ?? []).join(' → '))}</p>` : ''}
${report.registration?.bearer ? `<p>requests the WIC sent: ${report.registration.bearer.requests} (${esc(report.registration.bearer.methods.join(', '))}); without the access token (Authorization: Bearer): ${esc(report.registration.bearer.missing.length ? report.registration.bearer.missing.join('; ') : 'none')}</p>` : ''}
<h2>Browser packets per second (getStats, 1 s)</h2>
<div class="box"><canvas id="pps"></canvas></div>
<script type="application/json" id="series">${scriptSafe(JSON.stringify(series))}</script>
<script>
const series = JSON.parse(document.getElementById('series').textContent);
const colors = ['#1f77b4', '#2ca02c', '#ff7f0e', '#d62728', '#9467bd', '#8c564b'];
const datasets = [];
series.forEach((s, i) => {
  datasets.push({ label: s.label + ' sent', data: s.samples.map((p) => ({ x: p.t_s, y: p.pps_sent })), borderColor: colors[(2 * i) % 6], pointRadius: 2 });
  datasets.push({ label: s.label + ' received', data: s.samples.map((p) => ({ x: p.t_s, y: p.pps_received })), borderColor: colors[(2 * i + 1) % 6], borderDash: [5, 3], pointRadius: 2 });
});
new Chart(document.getElementById('pps'), { type: 'line', data: { datasets }, options: { animation: false, maintainAspectRatio: false, parsing: false,
  scales: { x: { type: 'linear', title: { display: true, text: 's since first sample' } }, y: { beginAtZero: true, title: { display: true, text: 'packets/s' } } } } });
</script>
</body></html>
`;
}
