// report.html of `./lab scenario`: self-contained (Chart.js inlined, kit/report.mjs), a summary table,
// the link and the relay, one row per call, then per call its getStats time series (RTT/jitter, loss and
// concealment, bitrate each way with the link's capacity when it changes, video size and frame rate).
import { hostSpeedText } from '../kit/host-speed.mjs';
import { esc, htmlHead, scriptSafe } from '../kit/report.mjs';

const fmt = (v) => (v == null ? '–' : typeof v === 'number' ? String(v) : esc(v));
const table = (head, rows) => `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>
${rows.map((r) => `<tr>${r.map((v) => `<td>${v?.html ?? fmt(v)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`;
const delay = (d) => (d?.delay_ms ? `p50 ${d.delay_ms.p50} / p99 ${d.delay_ms.p99} / max ${d.delay_ms.max}` : null);

function callCharts(c, i, report) {
  const pts = (k, scale = 1) => c.series.filter((s) => s[k] != null).map((s) => [s.t_s, s[k] * scale]);
  const out = [
    { id: `rtt${i}`, title: 'RTT, jitter, jitter buffer (ms)', y: 'ms', datasets: [
      { label: 'RTT (getStats)', points: pts('rtt_ms') }, { label: 'RTT to rtpengine (ICE consent)', points: pts('ice_rtt_ms') },
      { label: 'jitter (received)', points: pts('jitter_ms') },
      { label: 'jitter buffer delay', points: pts('jitter_buffer_ms') }] },
    { id: `loss${i}`, title: 'Loss of the received stream and audio concealment (%)', y: '%', datasets: [
      { label: 'loss (received)', points: pts('loss_pct') }, { label: 'concealed samples', points: pts('concealed_pct') }] },
  ];
  const rate = [{ label: 'audio sent', points: pts('kbps_sent') }, { label: 'audio received', points: pts('kbps_received') }];
  if (c.series.some((s) => s.video_kbps_sent != null)) {
    rate.push({ label: 'video sent', points: pts('video_kbps_sent') }, { label: 'video received', points: pts('video_kbps_received') });
  }
  if (c.series.some((s) => s.available_outgoing_kbps != null)) rate.push({ label: 'browser send estimate', points: pts('available_outgoing_kbps') });
  const changes = report.link.rate_changes ?? [];
  if (changes.length) {
    const end = Math.max(...c.series.map((s) => s.t_s), changes.at(-1).t_s);
    rate.push({ label: 'link capacity', stepped: true, points: [...changes.map((x) => [x.t_s, x.rate_kbit]), [end, changes.at(-1).rate_kbit]] });
  }
  out.push({ id: `rate${i}`, title: 'Bitrate each way (kbit/s)', y: 'kbit/s', datasets: rate });
  if (c.series.some((s) => s.sent_height != null)) {
    out.push({ id: `video${i}`, title: 'Video: sent frame height (px), frames sent per second', y: 'px / fps', datasets: [
      { label: 'sent height', points: pts('sent_height') }, { label: 'received height', points: pts('received_height') },
      { label: 'frames sent/s', points: pts('frames_sent_per_s') }] });
  }
  return out;
}

export function renderHtml(report) {
  const s = report.summary;
  const imp = report.link.impairment;
  const charts = [];
  const sections = report.calls.map((c, i) => {
    const list = callCharts(c, i, report);
    charts.push(...list);
    return `<h2>${esc(c.user)} ${esc(c.direction.toUpperCase())} ${esc(c.from)} → ${esc(c.to)} <span class="${c.ok ? 'ok' : 'bad'}">${c.ok ? 'ok' : 'FAILED'}</span></h2>
${c.error ? `<p class="bad">${esc(c.error)}</p>` : ''}
${list.map((ch) => `<h3>${esc(ch.title)}</h3><div class="box"><canvas id="${ch.id}"></canvas></div>`).join('\n')}`;
  }).join('\n');
  const cpuRows = Object.entries(report.cpu).filter(([k]) => k.endsWith('_pct')).map(([k, v]) => [k.replace(/_pct$/, ''), v]);
  const ctr = report.link.counters;
  return `${htmlHead(`lab scenario ${report.scenario}`)}
<h1>lab scenario ${esc(report.scenario)} <span class="${report.ok ? 'ok' : 'bad'}">${report.ok ? 'OK' : 'FAILED'}</span></h1>
<p>${esc(report.about)}. ${report.browsers} page(s) in ${esc(report.browser.version)}, ${report.duration_s} s per call, started ${esc(report.started)}.</p>
<h2>Summary</h2>
${table(['calls ok', 'setup ms (median / max)', 'RTT ms (median)', 'jitter ms', 'loss % of received', 'link loss up / down %', 'concealed %', 'relay delay →IMS ms', 'relay delay →browser ms', 'relay loss →IMS / →browser %'],
  [[`${s.ok} / ${s.calls}`, `${fmt(s.setup_ms_median)} / ${fmt(s.setup_ms_max)}`, s.rtt_ms_median, s.jitter_ms_median, s.loss_pct_received_mean,
    `${fmt(s.link_loss_up_pct_mean)} / ${fmt(s.link_loss_down_pct_mean)}`, s.concealed_pct_mean, delay(report.relay.to_ims), delay(report.relay.to_browser),
    `${fmt(s.relay_loss_pct.to_ims)} / ${fmt(s.relay_loss_pct.to_browser)}`]])}
<p>RTT: the browser's getStats (remote-inbound-rtp, else the ICE pair's STUN consent checks) toward rtpengine. Loss of received: the
echoed stream, which crosses the link twice. Link loss: per direction from both ends (browser counters vs rtpengine's in/out copies in the
capture). Relay delay: t_out − t_in of each RTP packet at rtpengine in one tcpdump capture of both legs (delaymeter): the link's
impairment is outside it, so it should not move.${report.relay.error ? ` <span class="bad">Relay delay: ${esc(report.relay.error)}</span>` : ''}</p>
<h2>Link</h2>
<p>${esc(report.link.where)}: ${imp ? `${imp.name ? `<b>${esc(imp.name)}</b>: ` : ''}${esc(imp.text)}${imp.schedule_kbit ? `; capacity steps ${imp.schedule_kbit.join(', ')} kbit/s` : ''}` : 'not impaired'}</p>
${ctr ? table(['direction', 'into the delay line', 'dropped (random loss)', 'rate limiter sent / dropped (pkts)'],
  ['up', 'down'].map((d) => [d === 'up' ? 'up (browser → core)' : 'down (core → browser)', ctr[d]?.delay_line?.packets ?? ctr[d]?.queued, ctr[d]?.loss_dropped,
    ctr[d]?.rate_sent_pkts != null ? `${ctr[d].rate_sent_pkts} / ${ctr[d].rate_dropped}` : null])) : ''}
<h2>Calls</h2>
${table(['user', 'dir', 'ok', 'setup ms', 'RTT ms', 'jitter ms', 'loss %', 'link loss up/down %', 'concealed %', 'JB ms', 'kbit/s sent/recv', 'video kbit/s sent/recv', 'height sent', 'relay p50 →IMS/→browser ms'],
  report.calls.map((c) => [c.user, c.direction, { html: c.ok ? '<span class="ok">yes</span>' : '<span class="bad">NO</span>' }, c.setup_ms, c.summary.rtt_ms,
    c.summary.jitter_ms, c.summary.loss_pct, `${fmt(c.link_loss.up_pct)} / ${fmt(c.link_loss.down_pct)}`, c.summary.concealed_pct, c.summary.jitter_buffer_ms,
    `${fmt(c.summary.kbps_sent)} / ${fmt(c.summary.kbps_received)}`, `${fmt(c.summary.video_kbps_sent)} / ${fmt(c.summary.video_kbps_received)}`, c.summary.sent_height,
    `${fmt(c.relay_delay.audio.to_ims?.delay_ms?.p50)} / ${fmt(c.relay_delay.audio.to_browser?.delay_ms?.p50)}`]))}
<p>Per-call figures: medians (loss, concealment: means) from 3 s after the answer on.</p>
<h2>CPU (average % of one core over the run)</h2>
${table(['process', '% of a core'], cpuRows)}
<h2>Host</h2>
<p>${esc(hostSpeedText(report.host))}. The same host on a quiet hour gives the same
calibration; set-up and media-up figures of a run with a larger one, or with steal, are the host's as much as the code's.</p>
${sections}
<script type="application/json" id="charts">${scriptSafe(JSON.stringify(charts))}</script>
<script>
const colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#333333'];
for (const c of JSON.parse(document.getElementById('charts').textContent)) {
  const datasets = c.datasets.map((d, i) => ({ label: d.label, data: d.points.map(([x, y]) => ({ x, y })), borderColor: colors[i % 7],
    backgroundColor: colors[i % 7], pointRadius: 0, borderWidth: d.label === 'link capacity' ? 2.5 : 1.5, showLine: true, stepped: d.stepped ? 'before' : false,
    borderDash: d.label === 'link capacity' ? [6, 4] : [] }));
  new Chart(document.getElementById(c.id), { type: 'scatter', data: { datasets }, options: { animation: false, maintainAspectRatio: false,
    scales: { x: { type: 'linear', title: { display: true, text: 's since the first call started' } }, y: { beginAtZero: true, title: { display: true, text: c.y } } } } });
}
</script>
</body></html>
`;
}
