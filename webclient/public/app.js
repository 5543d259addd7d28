// Page wiring: forms and buttons drive the LabClient; its events update the call table, the
// incoming-call notice, the error line, the message log and the live getStats chart.
import { LabClient } from './lab-client.js';

const client = new LabClient();
window.labClient = client;   // automation entry point (harness/runner/browser.mjs)

const $ = (id) => document.getElementById(id);
const CHART_POINTS = 120;

function showError(text) {
  const el = $('error');
  el.textContent = text;
  el.hidden = false;
}

// Wraps a UI action: errors go to the page, never to an unhandled rejection.
const act = (fn) => async (e) => {
  e?.preventDefault();
  $('error').hidden = true;
  try { await fn(); } catch (err) { showError(err.message); }
};

$('login-form').addEventListener('submit', act(() => client.login($('login-user').value.trim(), $('login-password').value)));
$('logout-btn').addEventListener('click', act(() => client.logout()));
const callOptions = () => ({ video: $('call-video').checked, ...($('call-dtmf-inject').checked ? { dtmf: 'inject' } : {}) });
$('call-form').addEventListener('submit', act(() => client.call($('call-to').value.trim(), callOptions())));
$('answer-btn').addEventListener('click', act(() => client.answer($('incoming').dataset.callId, callOptions())));
$('reject-btn').addEventListener('click', act(() => client.reject($('incoming').dataset.callId)));

client.addEventListener('failure', (e) => showError(e.detail));
let wasLoggedIn = false;
client.addEventListener('change', () => {
  if (client.token && !wasLoggedIn) $('error').hidden = true;   // a successful login clears old errors
  wasLoggedIn = Boolean(client.token);
  render();
});
client.addEventListener('message', (e) => logMessage(e.detail));
client.addEventListener('track', (e) => {
  const { track, streams } = e.detail;
  const stream = streams[0] ?? new MediaStream([track]);
  $(track.kind === 'video' ? 'remote-video' : 'remote-audio').srcObject = stream;
});
client.addEventListener('local-media', (e) => {
  const hasVideo = e.detail.stream.getVideoTracks().length > 0;
  $('local-video').srcObject = hasVideo ? e.detail.stream : null;
});
client.addEventListener('sample', (e) => plotSample(e.detail.callId, e.detail.sample));

// DTMF keypad for the newest live call: the browser's RTCDTMFSender (RFC 4733, relayed by rtpengine) when
// telephone-event was negotiated, else the WebSocket `dtmf` message (the gateway says when the call does not
// take it: tick "WebSocket DTMF" before calling or answering).
const KEYS = '123A456B789C*0#D';
$('keypad').append(...[...KEYS].map((k) => {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = k;
  b.dataset.key = k;   // a selector both test drivers (Playwright, Puppeteer) understand
  b.addEventListener('click', act(() => {
    $('dtmf-path').textContent = client.keypad($('keypad-box').dataset.callId, k) === 'rtcdtmfsender'
      ? 'sent by the browser (RTCDTMFSender)' : 'sent through the gateway (WebSocket dtmf)';
  }));
  return b;
}));

function render() {
  const loggedIn = Boolean(client.token);
  $('whoami').textContent = loggedIn ? `${client.user} (${client.ws ? 'connected' : 'websocket closed'})` : 'not logged in';
  $('login-btn').disabled = loggedIn;
  $('logout-btn').disabled = !loggedIn;
  $('call-btn').disabled = !loggedIn;

  const calls = client.calls();
  // A call with preconditions rings only once the gateway says `alerting` (both QoS segments met).
  const incoming = calls.findLast((c) => c.state === 'incoming' && c.alerted !== false);
  $('incoming').hidden = !incoming;
  if (incoming) {
    $('incoming').dataset.callId = incoming.callId;
    $('incoming-from').textContent = incoming.peer;
  }

  // Keypad and received digits: for the newest call with media (answered, early media, MT accepted).
  const live = calls.findLast((c) => ['answered', 'progress', 'answering'].includes(c.state));
  $('keypad-box').hidden = !live;
  if (live) {
    $('keypad-box').dataset.callId = live.callId;
    $('dtmf-received').textContent = live.dtmfReceived || '–';
  }

  const tbody = $('calls').tBodies[0];
  tbody.replaceChildren(...calls.slice(-10).reverse().map((c) => {
    const tr = document.createElement('tr');
    const state = c.state === 'ended' ? `ended: ${c.reason ?? ''} ${c.sipCode ?? ''}`.trim() : c.state;
    for (const text of [c.callId ?? '…', c.direction, c.peer, state]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    const td = document.createElement('td');
    if (c.state !== 'ended' && c.state !== 'incoming' && c.callId) {
      const b = document.createElement('button');
      b.textContent = 'Hang up';
      b.className = 'hangup';
      b.addEventListener('click', act(() => client.hangup(c.callId)));
      td.append(b);
      // Mid-call offers (docs/call-flows.md): hold/resume and an ICE restart on the browser leg.
      const m = client.media(c.callId);
      const held = m?.transceivers.some((t) => t.direction === 'sendonly' || t.direction === 'inactive');
      for (const [label, opts] of [[held ? 'Resume' : 'Hold', { direction: held ? 'sendrecv' : 'sendonly' }], ['ICE restart', { iceRestart: true }]]) {
        const r = document.createElement('button');
        r.textContent = label;
        r.addEventListener('click', act(() => client.reoffer(c.callId, opts)));
        td.append(r);
      }
    }
    tr.append(td);
    return tr;
  }));
}

function logMessage(msg) {
  const li = document.createElement('li');
  const { sdp, ...rest } = msg;  // SDP bodies would drown the log
  li.textContent = `${new Date().toLocaleTimeString()} ${JSON.stringify(rest)}${sdp ? ' [sdp]' : ''}`;
  $('event-log').prepend(li);
  while ($('event-log').children.length > 50) $('event-log').lastElementChild.remove();
}

// ---- live chart (Chart.js UMD from vendor/, global `Chart`) ----
let chart = null;
let chartCall = null;
let chartT0 = 0;

function makeChart() {
  if (typeof window.Chart !== 'function') {
    showError('chart.js not loaded (vendor/chart.umd.min.js missing: run harness/lib/vendor.sh)');
    return null;
  }
  const ds = (label, color, yAxisID) => ({ label, data: [], borderColor: color, backgroundColor: color, yAxisID, pointRadius: 0, tension: 0.2 });
  return new window.Chart($('stats-chart'), {
    type: 'line',
    data: { datasets: [ds('sent pkt/s', '#1f77b4', 'y'), ds('received pkt/s', '#2ca02c', 'y'), ds('jitter ms', '#ff7f0e', 'y1'), ds('RTT ms', '#d62728', 'y1')] },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: false,
      scales: {
        x: { type: 'linear', title: { display: true, text: 's' } },
        y: { beginAtZero: true, title: { display: true, text: 'packets/s' } },
        y1: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false }, title: { display: true, text: 'ms' } },
      },
    },
  });
}

function plotSample(callId, s) {
  if (!chart) return;
  if (callId !== chartCall) {   // a new call: start the chart over
    chartCall = callId;
    chartT0 = s.t;
    chart.data.datasets.forEach((d) => { d.data = []; });
  }
  const x = (s.t - chartT0) / 1000;
  const values = [s.ppsSent, s.ppsReceived, s.jitter, s.rtt];
  chart.data.datasets.forEach((d, i) => {
    d.data.push({ x, y: values[i] ?? null });
    if (d.data.length > CHART_POINTS) d.data.shift();
  });
  chart.update('none');
  const f = (v) => (v == null ? '–' : v.toFixed(1));
  $('stats-line').textContent = `${callId}: ${s.codec ?? '?'}, ICE ${s.iceState}, DTLS ${s.dtlsState ?? '?'}, `
    + `sent ${s.packetsSent} (${f(s.ppsSent)}/s), received ${s.packetsReceived} (${f(s.ppsReceived)}/s), `
    + `jitter ${f(s.jitter)} ms, RTT ${f(s.rtt)} ms`
    + (s.videoCodec ? `; video ${s.videoCodec} ${s.frameWidth ?? '?'}x${s.frameHeight ?? '?'}, `
      + `${s.framesDecoded} frames decoded` : '');
}

chart = makeChart();
render();
