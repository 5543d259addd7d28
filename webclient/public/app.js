// The web phone: sign-in and registration state, dial pad and contacts, the ringing incoming-call screen,
// the call screen (mute, hold/resume, DTMF keypad, video only on video calls), live call-quality charts,
// this session's call log and the gateway's events in words. All calls go through the LabClient (the gateway's
// JSON API) or, with ?client=sip-ws, the SipWsClient (SIP over WebSocket to the eP-CSCF, TS 24.371 "WIC using Gm");
// both have the same interface.
import { LabClient } from './lab-client.js';
import { SipWsClient } from './sip-ws-client.js';
import { DEFAULT_CHANNELS } from './data-channels.js';
import { T140_CHANNEL, edits, settled } from './rtt.js';

const SIP_WS = new URLSearchParams(location.search).get('client') === 'sip-ws';
const client = SIP_WS ? new SipWsClient() : new LabClient();
window.labClient = client;   // automation entry point (harness/runner/browser.mjs)

const $ = (id) => document.getElementById(id);
const CHART_POINTS = 90;

// ---- errors: every code of docs/architecture.md "Browser API" in words ----
const ERROR_TEXT = {
  // login (REST)
  'auth-failed': 'Wrong user name or password.',
  'ims-timeout': 'The IMS core did not answer the registration. Try again in a moment.',
  'ims-rejected': 'The IMS core refused the registration.',
  'too-many-logins': 'Too many sign-in attempts. Wait a minute and try again.',
  'too-many-sessions': 'The gateway has too many people signed in right now.',
  'too-many-connections': 'Too many open connections from your network address: close another tab or window of this page.',
  'bad-origin': 'This page was loaded from an address the gateway does not accept.',
  'bad-token': 'Your session has expired. Please sign in again.',
  'unknown-session': 'That session is no longer signed in.',
  'loopback-only': 'That gateway endpoint answers the lab machine itself only.',
  'http-error': 'The gateway could not be reached.',
  // WebSocket
  'bad-json': 'The gateway could not read a message from this page.',
  'bad-message': 'The gateway refused a request as malformed (for example a user name with odd characters).',
  'unknown-type': 'The gateway does not know this request.',
  'unknown-call': 'That call no longer exists.',
  'bad-sdp': 'The browser\'s media description was refused.',
  'bad-identity': 'That is not one of the identities your registration gave you: pick one from "Call as".',
  'rate-limited': 'Too many actions at once: slow down a little.',
  'too-many-calls': 'You already have the maximum number of calls.',
  'gateway-busy': 'The gateway is busy (too many calls). Try again later.',
  'too-many-mlines': 'Too many media streams in this call.',
  'too-many-candidates': 'Too many network candidates in this call.',
  'too-large': 'A message was too large for the gateway.',
  'media-failed': 'The media relay could not set up the call\'s audio.',
  'sip-failed': 'The call could not be sent to the IMS network.',
  internal: 'The gateway hit an internal error.',
  'bad-state': 'The call is not in a state for that (wait until it is connected).',
  'reoffer-failed': 'The other side refused the change; the call goes on as before.',
  'media-lost': 'The media relay lost this call (it restarted); the call has ended.',
  'dtmf-failed': 'The media relay could not play the keys.',
  'dtmf-unavailable': 'This call cannot send keys through the gateway.',
  'no-usable-address': 'The browser offered no network address the gateway can use.',
};
const ERROR_CODES = Object.keys(ERROR_TEXT).sort((a, b) => b.length - a.length);

// The LabClient's error text -> {title, detail}: the code's words, the raw text as the detail.
function explain(text) {
  const code = ERROR_CODES.find((c) => new RegExp(`(^|[^a-z-])${c}([^a-z-]|$)`).test(text));
  if (code) return { title: ERROR_TEXT[code], detail: text, code };
  if (/not connected to the gateway|websocket closed/i.test(text)) return { title: 'The connection to the gateway was lost.', detail: text };
  if (/getUserMedia|NotAllowedError|Permission/i.test(text)) return { title: 'The microphone or camera is not available.', detail: text };
  return { title: 'Something went wrong.', detail: text };
}

function showError(text) {
  const { title, detail, code } = explain(text);
  $('error-title').textContent = title;
  $('error-text').textContent = `(${detail})`;
  $('error').dataset.code = code ?? '';
  $('error').hidden = false;
}
const clearError = () => { $('error').hidden = true; };
$('error-close').addEventListener('click', clearError);

// Wraps a UI action: errors go to the page, never to an unhandled rejection.
const act = (fn) => async (e) => {
  e?.preventDefault();
  clearError();
  try { await fn(); } catch (err) { showError(err.message); }
};

// ---- sign-in ----
$('login-form').addEventListener('submit', act(async () => {
  $('login-btn').disabled = true;
  $('reg-state').textContent = 'Registering…';
  try {
    // SIP over WebSocket: the IMS-AKA settings, when given (sip-ws-client.js)
    const ims = SIP_WS ? { impi: $('login-impi').value.trim(), k: $('login-k').value.trim(), opc: $('login-opc').value.trim() } : undefined;
    await client.login($('login-user').value.trim(), $('login-password').value, ims);
    $('login-password').value = '';
  } finally {
    $('login-btn').disabled = false;
    render();
  }
}));
$('logout-btn').addEventListener('click', act(() => client.logout()));
// the way this page signs in: the gateway (JSON over its WebSocket) or SIP over WebSocket to the eP-CSCF (a reload)
$('login-client').value = SIP_WS ? 'sip-ws' : 'gateway';
$('login-ims').hidden = !SIP_WS;
$('login-client').addEventListener('change', () => {
  const url = new URL(location.href);
  if ($('login-client').value === 'sip-ws') url.searchParams.set('client', 'sip-ws'); else url.searchParams.delete('client');
  location.assign(url);
});

// ---- dialing ----
// The data channels of a call we make: the chat channel and/or the real-time-text (T.140) channel.
function dataChannelOptions() {
  const chans = [...($('call-datachannel').checked ? DEFAULT_CHANNELS : []), ...($('call-rtt').checked ? [T140_CHANNEL] : [])];
  return chans.length ? { dataChannels: chans } : {};
}
const dtmfInject = () => ($('call-dtmf-inject').checked ? { dtmf: 'inject' } : {});
async function dial(to, video = false) {
  if (!to) throw new Error('Enter a name or number to call.');
  $('call-to').value = to;
  await client.call(to, { video, ...dtmfInject(), ...($('call-as').value ? { identity: $('call-as').value } : {}),
    ...dataChannelOptions() });
}
$('call-form').addEventListener('submit', act(() => dial($('call-to').value.trim())));
$('video-call-btn').addEventListener('click', act(() => dial($('call-to').value.trim(), true)));

function padButtons(container, keys, onKey) {
  container.append(...[...keys].map((k) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = k;
    b.dataset.key = k;
    b.addEventListener('click', act(() => onKey(k)));
    return b;
  }));
}
padButtons($('dialpad'), '123456789*0#', (k) => { $('call-to').value += k; $('call-to').focus(); });

// Contacts: the lab's users, served by the gateway with the page (contacts.json: names, never passwords).
let contacts = [];
async function loadContacts() {
  try {
    const res = await fetch('contacts.json', { cache: 'no-cache' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    contacts = (await res.json()).contacts ?? [];
  } catch (e) {
    contacts = [];
    $('contacts').innerHTML = '';
    const li = document.createElement('li');
    li.className = 'muted';
    li.textContent = `Contacts could not be loaded (${e.message}); dial by name instead.`;
    $('contacts').append(li);
    return;
  }
  renderContacts();
}

function renderContacts() {
  const me = client.user;
  $('contacts').replaceChildren(...contacts.filter((c) => c.user !== me).map((c) => {
    const li = document.createElement('li');
    li.dataset.user = c.user;
    const avatar = document.createElement('span');
    avatar.className = 'avatar';
    avatar.textContent = c.name.slice(0, 1).toUpperCase();
    const who = document.createElement('span');
    who.className = 'who';
    who.innerHTML = '<strong></strong><small></small>';
    who.querySelector('strong').textContent = `${c.name} · ${c.user}`;
    who.querySelector('small').textContent = c.note ?? '';
    const call = document.createElement('button');
    call.type = 'button';
    call.className = 'call small';
    call.textContent = c.video ? 'Video' : 'Call';
    call.title = `Call ${c.user}${c.video ? ' with video' : ''}`;
    call.addEventListener('click', act(() => dial(c.user, Boolean(c.video))));
    li.append(avatar, who, call);
    return li;
  }));
}

// ---- incoming call: ring tone (WebAudio, 440 + 480 Hz, 2 s on / 4 s off), answer, decline ----
let ring = null;
function startRinging() {
  if (ring) return;
  try {
    const ctx = new AudioContext();
    const gain = new GainNode(ctx, { gain: 0 });
    gain.connect(ctx.destination);
    const oscs = [440, 480].map((f) => { const o = new OscillatorNode(ctx, { frequency: f }); o.connect(gain); o.start(); return o; });
    const cadence = () => {
      const t = ctx.currentTime;
      gain.gain.setValueAtTime(0.15, t);
      gain.gain.setValueAtTime(0, t + 2);
    };
    cadence();
    ring = { ctx, oscs, timer: setInterval(cadence, 6000) };
    ctx.resume().catch(() => {});
    $('incoming').dataset.ringing = 'yes';
  } catch {
    $('incoming').dataset.ringing = 'silent';   // no audio output: the screen still shows the call
  }
}
function stopRinging() {
  if (!ring) return;
  clearInterval(ring.timer);
  ring.oscs.forEach((o) => o.stop());
  ring.ctx.close().catch(() => {});
  ring = null;
  $('incoming').dataset.ringing = 'no';
}
$('answer-btn').addEventListener('click', act(() => { stopRinging(); return client.answer($('incoming').dataset.callId, dtmfInject()); }));
$('answer-video-btn').addEventListener('click', act(() => { stopRinging(); return client.answer($('incoming').dataset.callId, { video: true, ...dtmfInject() }); }));
$('reject-btn').addEventListener('click', act(() => { stopRinging(); return client.reject($('incoming').dataset.callId); }));

// ---- the call screen ----
let current = null;   // callId on the call screen
const sentKeys = new Map();
$('hangup-btn').addEventListener('click', act(() => client.hangup(current)));
$('mute-btn').addEventListener('click', act(() => {
  const c = client.calls().find((x) => x.callId === current);
  client.setMuted(current, !c?.muted);
}));
let holdBusy = false;   // a hold/resume re-offer is under way
$('hold-btn').addEventListener('click', act(async () => {
  const c = client.calls().find((x) => x.callId === current);
  holdBusy = true;
  render();
  try {
    await (c?.held ? client.resume(current) : client.hold(current));
  } finally {
    holdBusy = false;
    render();
  }
}));
$('keypad-btn').addEventListener('click', () => {
  $('keypad-box').hidden = !$('keypad-box').hidden;
  $('keypad-btn').setAttribute('aria-pressed', String(!$('keypad-box').hidden));
});
padButtons($('keypad'), '123456789*0#', (k) => {
  $('dtmf-path').textContent = client.keypad(current, k) === 'rtcdtmfsender'
    ? 'sent by the browser (RTCDTMFSender)' : 'sent through the gateway (WebSocket dtmf)';
  sentKeys.set(current, (sentKeys.get(current) ?? '') + k);
  $('dtmf-sent').textContent = sentKeys.get(current);
});

const STATE_TEXT = {
  starting: 'Connecting…', calling: 'Calling…', ringing: 'Ringing…', progress: 'Connecting (early media)…',
  answering: 'Answering…', answered: 'Connected', 'hanging-up': 'Hanging up…',
};

// The state shown: an incoming call is connected once our answer went out (the gateway sends no `answered`
// to the callee; the SIP 200 is its answer); the WIC's (?client=sip-ws, sip-ws-client.js) connected call is `active`.
const shownState = (c) => (c.state === 'active' || (c.direction === 'mt' && c.state === 'answering' && c.answeredAt) ? 'answered' : c.state);

const pad2 = (n) => String(n).padStart(2, '0');
function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 3600 ? `${Math.floor(s / 3600)}:${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}` : `${pad2(Math.floor(s / 60))}:${pad2(s % 60)}`;
}

// ---- registration state, call screen, incoming screen ----
let wasLoggedIn = false;
// "Call as": the registered identities, the default first and selected until the user picks another one
function renderIdentities(ids) {
  const select = $('call-as');
  const shown = [...select.options].map((o) => o.value);
  if (shown.length === ids.length && shown.every((v, i) => v === ids[i])) return;
  select.replaceChildren(...ids.map((id, i) => new Option(i === 0 ? `${id} (default)` : id, id, i === 0, i === 0)));
  select.disabled = ids.length < 2;
}

function render() {
  const loggedIn = Boolean(client.token);
  if (loggedIn && !wasLoggedIn) { clearError(); renderContacts(); }
  wasLoggedIn = loggedIn;
  const reg = $('reg-state');
  if (!loggedIn) Object.assign(reg, { textContent: 'Not signed in', className: 'badge off' });
  else if (client.ws) Object.assign(reg, { textContent: `Registered as ${client.user}`, className: 'badge on' });
  else Object.assign(reg, { textContent: `${client.user}: connection lost`, className: 'badge warn' });
  reg.dataset.state = !loggedIn ? 'signed-out' : (client.ws ? 'registered' : 'disconnected');
  renderIdentities(loggedIn ? client.identities : []);
  $('login-panel').hidden = loggedIn;
  $('phone').hidden = !loggedIn;
  $('logout-btn').hidden = !loggedIn;

  const calls = client.calls();
  // A call with preconditions rings only once the gateway says `alerting` (both QoS segments met).
  const incoming = calls.findLast((c) => c.state === 'incoming' && c.alerted !== false);
  $('incoming').hidden = !incoming;
  if (incoming) {
    $('incoming').dataset.callId = incoming.callId;
    $('incoming-from').textContent = incoming.peer;
    $('incoming-video').hidden = !incoming.offersVideo;
    $('answer-video-btn').hidden = !incoming.offersVideo;
    startRinging();
  } else {
    stopRinging();
  }

  const live = calls.findLast((c) => c.state !== 'ended' && c.state !== 'incoming');
  current = live?.callId ?? null;
  $('active').hidden = !live;
  $('idle').hidden = Boolean(live || incoming);
  $('call-btn').disabled = !loggedIn;
  $('video-call-btn').disabled = !loggedIn;
  if (live) {
    $('active').dataset.callId = live.callId ?? '';
    const state = shownState(live);
    $('active').dataset.state = live.held ? 'held' : state;
    $('active-peer').textContent = live.peer;
    $('active-state').textContent = live.held ? 'On hold' : (STATE_TEXT[state] ?? state);
    $('mute-btn').textContent = live.muted ? 'Unmute' : 'Mute';
    $('mute-btn').setAttribute('aria-pressed', String(live.muted));
    $('hold-btn').textContent = live.held ? 'Resume' : 'Hold';
    $('hold-btn').setAttribute('aria-pressed', String(live.held));
    const connected = state === 'answered';
    $('mute-btn').disabled = !connected;
    $('keypad-btn').disabled = !connected;
    $('hold-btn').disabled = !connected || holdBusy;
    if (holdBusy) $('active-state').textContent = live.held ? 'Resuming…' : 'Putting on hold…';
    $('videos').hidden = !live.video;
    $('dtmf-received').textContent = live.dtmfReceived || '–';
    $('dtmf-sent').textContent = sentKeys.get(live.callId) || '–';
    renderChat(live);
  } else {
    $('chat-box').hidden = true;
    $('keypad-box').hidden = true;
    $('keypad-btn').setAttribute('aria-pressed', 'false');
    $('videos').hidden = true;
  }
  // the live charts once the media is up, not at `answered`: there is nothing to chart before, and their canvases'
  // first layout and draw would run on the page's main thread while the browser sets up ICE and DTLS (issue #26,
  // docs/benchmarks.md "Session 18")
  $('stats').hidden = !live || shownState(live) !== 'answered' || !live.mediaUp;
  renderTimer();
  renderLog(calls);
  flushLog();
}

// ---- data channel (chat): the call's application channels (data-channels.js) ----
function renderChat(call) {
  renderRtt(call);
  const chans = call.dataChannels?.filter((c) => c.protocol !== 't140');
  if (chans && !chans.length) { $('chat-box').hidden = true; return; }
  $('chat-box').hidden = !chans;
  if (!chans) return;
  $('chat-state').textContent = chans.map((c) => `${c.label} (${c.state}): ${c.sent} sent, ${c.received} received`
    + (c.delayMs ? `, delay p50 ${c.delayMs.p50} ms` : '')).join(' · ');
  const log = client.dataLog(call.callId).slice(-50);
  $('chat-log').replaceChildren(...log.map((m) => {
    const li = document.createElement('li');
    li.className = m.dir === 'in' ? 'in' : 'out';
    li.textContent = `${m.dir === 'in' ? '←' : '→'} ${m.text}`;
    return li;
  }));
  $('chat-text').disabled = !chans.some((c) => c.state === 'open');
}
$('chat-form').addEventListener('submit', act(() => {
  const text = $('chat-text').value;
  if (!text || !current) return;
  if (!client.sendData(current, text)) throw new Error('The data channel is not open.');
  $('chat-text').value = '';
}));
client.addEventListener('data', () => render());

// ---- real-time text (T.140 on a data channel, rtt.js): each character goes out as it is typed ----
let rttTyped = '';     // what the input field held when it last went out, for the call rttCall
let rttCall = null;
function renderRtt(call) {
  const t = call.realTimeText;
  $('rtt-box').hidden = !t;
  if (!t) return;
  if (rttCall !== call.callId) {
    rttCall = call.callId;
    rttTyped = '';
    $('rtt-input').value = '';
  }
  $('rtt-state').textContent = `(${t.state}): ${[...t.sent].length} characters sent, ${[...t.received].length} received`;
  $('rtt-received').textContent = t.shownReceived;
  $('rtt-input').disabled = t.state !== 'open';
}
$('rtt-input').addEventListener('input', () => {
  const now = $('rtt-input').value;
  const send = edits(rttTyped, now);
  if (!send) return;
  if (current && client.sendText?.(current, send)) rttTyped = settled(now);
  else $('rtt-input').value = rttTyped;   // the channel is not open: the field keeps only what went out
});
client.addEventListener('text', () => render());

function renderTimer() {
  const c = client.calls().find((x) => x.callId === current);
  $('active-timer').textContent = c?.answeredAt ? duration(Date.now() - c.answeredAt) : '';
}
setInterval(renderTimer, 1000);

// ---- call log: this session's calls ----
const REASON_TEXT = {
  'local-hangup': 'you hung up', 'remote-hangup': 'they hung up', 'remote-cancel': 'caller gave up',
  'websocket-closed': 'connection lost', logout: 'signed out', replaced: 'signed in elsewhere', expired: 'session expired',
  timeout: 'no answer', 'media-failed': 'media failed', 'preconditions-failed': 'network resources failed',
  'media-timeout': 'no audio reached the relay', 'network-deregistered': 'the network signed you out',
  'pcscf-unreachable': 'the IMS entry point (P-CSCF) stopped answering',
};
function endText(c) {
  if (c.direction === 'mt' && !c.answeredAt) {
    if (c.reason === 'local-hangup' || c.sipCode === 603) return 'declined';
    return 'missed';
  }
  const text = REASON_TEXT[c.reason] ?? c.reason ?? '';
  return c.sipCode && c.sipCode >= 300 ? `${text} (${c.sipCode})` : text;
}
const clock = (t) => new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
const logged = new Set();
function renderLog(calls) {
  const done = calls.filter((c) => c.state === 'ended' && c.callId);
  if (done.every((c) => logged.has(c.callId))) return;
  const tbody = $('call-log').tBodies[0];
  tbody.replaceChildren(...done.slice().reverse().slice(0, 50).map((c) => {
    logged.add(c.callId);
    const tr = document.createElement('tr');
    tr.dataset.callId = c.callId;
    tr.dataset.direction = c.direction;
    tr.dataset.reason = c.reason ?? '';
    const cells = [c.peer.replace(/@ims\.lab$/, ''), c.direction === 'mo' ? '↗ out' : '↙ in', clock(c.startedAt ?? c.endedAt),
      c.answeredAt ? duration((c.endedAt ?? Date.now()) - c.answeredAt) : '—', endText(c)];
    for (const text of cells) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
}

// ---- gateway events, in words ----
function describe(m) {
  const who = (id) => client.calls().find((c) => c.callId === id)?.peer ?? 'a call';
  switch (m.type) {
    case 'calling': return `Calling ${m.to ?? who(m.callId)}`;
    case 'incoming': return `Incoming call from ${m.from}${m.preconditions ? ' (reserving network resources first)' : ''}`;
    case 'alerting': return `${who(m.callId)}: network resources ready, ringing`;
    case 'ringing': return `${who(m.callId)} is ringing`;
    case 'progress': return `${who(m.callId)}: call progress (${m.sipCode ?? ''})${m.sdp ? ', early media' : ''}`;
    case 'answered': return `${who(m.callId)} answered`;
    case 'ended': return `Call with ${who(m.callId)} ended: ${REASON_TEXT[m.reason] ?? m.reason}${m.sipCode >= 300 ? ` (SIP ${m.sipCode})` : ''}`;
    case 'reoffer': return `${who(m.callId)} changed the call (${m.method ?? 're-offer'})`;
    case 'reanswer': return `${who(m.callId)} accepted the change${m.sipReoffer === false ? ' (handled by the relay)' : ''}`;
    case 'dtmf': return `${who(m.callId)} pressed ${m.digit}`;
    case 'error': return `Problem${m.callId ? ` on the call with ${who(m.callId)}` : ''}: ${ERROR_TEXT[m.code] ?? m.code}`;
    case 'session-ended': return `Signed out by the network: ${m.message ?? m.reason}`;
    case 'media-check': return `${who(m.callId)}: the media relay restarted, checking the call's audio`;
    case 'pong': return null;
    default: return `Gateway: ${m.type}`;
  }
}
// The event log's lines wait for the next render (renderSoon): a DOM change on the message's own task would give the
// browser a layout and paint to do while the call's next message may be on its way.
const pendingLog = [];
client.addEventListener('message', (e) => {
  const text = describe(e.detail);
  if (!text) return;
  pendingLog.push({ type: e.detail.type, at: Date.now(), text });
  renderSoon();
});
function flushLog() {
  for (const { type, at, text } of pendingLog.splice(0)) {
    const li = document.createElement('li');
    li.dataset.type = type;
    const time = document.createElement('time');
    time.textContent = clock(at);
    li.append(time, ` ${text}`);
    $('event-log').prepend(li);
  }
  while ($('event-log').children.length > 40) $('event-log').lastElementChild.remove();
}

client.addEventListener('failure', (e) => showError(e.detail));
// The client's changes render once per burst, at background priority (the Prioritized Task Scheduling API where the
// browser has it): after the browser's own work queued meanwhile (a call's setRemoteDescription, its ICE and DTLS
// events). Rendered on the task of each change, Chromium's answer handling waited 9-21 ms behind the UI on this
// lab's host (docs/benchmarks.md "The page's own share", 2026-11-28). A hidden page renders at once, as before (its
// ring tone must not wait on a throttled task).
// While an MO call waits for its answer (calling, ringing, early media) the render waits SETUP_RENDER_WAIT_MS more: a
// callee that answers at once sends its 200 a few ms after its 180, and the answer must not queue behind the
// render of `ringing` and the browser's layout and paint of it (issue #26). 50 ms is below what a user sees.
const SETUP_RENDER_WAIT_MS = 50;
const AWAITING_ANSWER = new Set(['starting', 'calling', 'ringing', 'progress']);
let renderQueued = false;
function renderSoon() {
  if (document.hidden) { render(); return; }
  if (renderQueued) return;
  renderQueued = true;
  const run = () => { renderQueued = false; render(); };
  const queue = () => (globalThis.scheduler?.postTask ? globalThis.scheduler.postTask(run, { priority: 'background' }) : setTimeout(run, 0));
  if (client.calls().some((c) => c.direction === 'mo' && AWAITING_ANSWER.has(c.state))) setTimeout(queue, SETUP_RENDER_WAIT_MS);
  else queue();
}
client.addEventListener('change', renderSoon);
client.addEventListener('track', (e) => {
  const { track, streams } = e.detail;
  const stream = streams[0] ?? new MediaStream([track]);
  $(track.kind === 'video' ? 'remote-video' : 'remote-audio').srcObject = stream;
});
client.addEventListener('local-media', (e) => {
  const hasVideo = e.detail.stream.getVideoTracks().length > 0;
  $('local-video').srcObject = hasVideo ? e.detail.stream : null;
});

// ---- live charts (Chart.js UMD from vendor/, global `Chart`) ----
const charts = {};
let chartCall = null;
let chartT0 = 0;

function lineChart(canvas, series, unit) {
  // the second series dashed: an echo call sends and receives the same, and one line must not hide the other
  const ds = ([label, color], i) => ({ label, data: [], borderColor: color, backgroundColor: color, pointRadius: 0, borderWidth: 2, tension: 0.25,
    borderDash: i === 1 ? [6, 4] : [] });
  return new window.Chart(canvas, {
    type: 'line',
    data: { datasets: series.map(ds) },
    options: {
      animation: false, maintainAspectRatio: false, parsing: false,
      plugins: { legend: { labels: { boxWidth: 12 } } },
      scales: {
        x: { type: 'linear', title: { display: true, text: 'seconds' }, ticks: { maxTicksLimit: 6 } },
        y: { beginAtZero: true, suggestedMax: unit === '%' ? 5 : undefined, title: { display: true, text: unit } },
      },
    },
  });
}

function makeCharts() {
  if (typeof window.Chart !== 'function') {
    showError('chart.js not loaded (vendor/chart.umd.min.js missing: run harness/lib/vendor.sh)');
    return;
  }
  charts.bitrate = lineChart($('chart-bitrate'), [['sending', '#2563eb'], ['receiving', '#16a34a']], 'kbit/s');
  charts.delay = lineChart($('chart-delay'), [['round trip', '#dc2626'], ['jitter', '#f59e0b']], 'ms');
  charts.loss = lineChart($('chart-loss'), [['received packets lost', '#7c3aed']], '%');
}

const fmt = (v, d = 1) => (v == null || Number.isNaN(v) ? '–' : v.toFixed(d));
client.addEventListener('sample', (e) => {
  const { callId, sample: s } = e.detail;
  if (callId !== current) return;
  if (callId !== chartCall) {   // a new call: start the charts over
    chartCall = callId;
    chartT0 = s.t;
    for (const c of Object.values(charts)) c.data.datasets.forEach((d) => { d.data = []; });
    $('stats').dataset.samples = '0';
  }
  const x = Math.round((s.t - chartT0) / 100) / 10;
  const push = (chart, values) => {
    if (!chart) return;
    chart.data.datasets.forEach((d, i) => {
      d.data.push({ x, y: values[i] ?? null });
      if (d.data.length > CHART_POINTS) d.data.shift();
    });
    chart.update('none');
  };
  push(charts.bitrate, [s.kbpsSent, s.kbpsReceived]);
  push(charts.delay, [s.rtt, s.jitter]);
  push(charts.loss, [s.lossPct]);
  $('tile-tx').textContent = fmt(s.kbpsSent);
  $('tile-rx').textContent = fmt(s.kbpsReceived);
  $('tile-rtt').textContent = fmt(s.rtt);
  $('tile-jitter').textContent = fmt(s.jitter);
  $('tile-loss').textContent = fmt(s.lossPct);
  $('stats-codec').textContent = `${s.codec ?? ''}${s.videoCodec ? ` + ${s.videoCodec} ${s.frameWidth ?? '?'}×${s.frameHeight ?? '?'}` : ''}`;
  $('stats').dataset.samples = String((Number($('stats').dataset.samples) || 0) + 1);
});

makeCharts();
loadContacts();
render();
