// The bootstrap data channel on the page (issue #25; TS 26.114 §6.2.10, TS 24.186, TS 23.228 AC.7.1;
// docs/datachannel.md "Bootstrap"). On the lab's 3GPP core the network's MF anchors the bootstrap channel and is an
// HTTP server on it: `GET /` gives the data-channel application list, and each application's files are under the
// URL the list names. The page offers the bootstrap channels like the application channels (data-channels.js:
// negotiated, with a=dcmap, here subprotocol "http"), then speaks HTTP/1.1 on them: one request per data-channel
// message, one response per message back (Content-Length framed), one request at a time per channel.
//
//   labClient.call(to, { dataChannels: BOOTSTRAP_CHANNELS })      // or [...BOOTSTRAP_CHANNELS, ...DEFAULT_CHANNELS]
//   const { list, app } = await downloadApplication(labClient, callId)

// TS 26.114 §6.2.10.1: the bootstrap data channels' stream ids (below 1000) and subprotocol "http"; 0 for the
// UE's own (local) network's DCSF, 100 for the remote network's.
export const BOOTSTRAP_CHANNELS = [
  { id: 0, label: 'bootstrap', protocol: 'http' },
  { id: 100, label: 'bootstrap-remote', protocol: 'http' },
];

const decoder = new TextDecoder();

// An HTTP/1.1 response message (string or ArrayBuffer): {status, reason, headers (lower-case names), body (text)}.
export function parseResponse(data) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
  let end = -1;
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) { end = i; break; }
  }
  if (end < 0) throw new Error('the bootstrap channel sent a message that is no HTTP response (no end of header)');
  const [statusLine, ...lines] = decoder.decode(bytes.subarray(0, end)).split('\r\n');
  const m = statusLine.match(/^HTTP\/1\.[01] (\d{3}) ?(.*)$/);
  if (!m) throw new Error(`the bootstrap channel sent a message that is no HTTP response: ${statusLine.slice(0, 60)}`);
  const headers = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const body = bytes.subarray(end + 4);
  const length = Number(headers['content-length'] ?? body.length);
  if (body.length !== length) throw new Error(`HTTP response of ${body.length} body bytes, Content-Length says ${length}`);
  return { status: Number(m[1]), reason: m[2], headers, body: decoder.decode(body), bytes: body.length };
}

const queues = new WeakMap();   // channel -> the promise of its last request (one request at a time)

function opened(ch, timeoutMs) {
  if (ch.readyState === 'open') return Promise.resolve();
  if (ch.readyState !== 'connecting') return Promise.reject(new Error(`the bootstrap channel ${ch.id} is ${ch.readyState}`));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the bootstrap channel ${ch.id} did not open within ${timeoutMs} ms`)), timeoutMs);
    ch.addEventListener('open', () => { clearTimeout(t); resolve(); }, { once: true });
    ch.addEventListener('close', () => { clearTimeout(t); reject(new Error(`the bootstrap channel ${ch.id} closed`)); }, { once: true });
  });
}

function request(ch, path, timeoutMs) {
  return new Promise((resolve, reject) => {
    const on = (e) => {
      clearTimeout(t);
      ch.removeEventListener('message', on);
      try { resolve(parseResponse(e.data)); } catch (err) { reject(err); }
    };
    const t = setTimeout(() => {
      ch.removeEventListener('message', on);
      reject(new Error(`no HTTP response to GET ${path} on the bootstrap channel ${ch.id} within ${timeoutMs} ms`));
    }, timeoutMs);
    ch.addEventListener('message', on);
    ch.send(`GET ${path} HTTP/1.1\r\nHost: dcsf\r\nAccept: */*\r\n\r\n`);
  });
}

// GET `path` on a bootstrap RTCDataChannel: {status, reason, headers, body, bytes, ms}.
export function httpGet(ch, path, timeoutMs = 5000) {
  ch.binaryType = 'arraybuffer';
  const prev = queues.get(ch) ?? Promise.resolve();
  const next = prev.catch(() => {}).then(async () => {
    await opened(ch, timeoutMs);
    const t0 = performance.now();
    const r = await request(ch, path, timeoutMs);
    return { ...r, ms: +(performance.now() - t0).toFixed(1) };
  });
  queues.set(ch, next);
  return next;
}

// The application list from the call's bootstrap channel `label`, then the application `appId` (default: the
// list's first): {list: {status, applications, ms}, app: {id, url, status, bytes, contentType, body, ms, channels}}.
export async function downloadApplication(client, callId, { label = 'bootstrap', appId = null, timeoutMs = 5000 } = {}) {
  const ch = client.dataChannel(callId, label);
  if (!ch) throw new Error(`call ${callId} has no bootstrap channel '${label}'`);
  const l = await httpGet(ch, '/', timeoutMs);
  if (l.status !== 200) throw new Error(`the application list: HTTP ${l.status} ${l.reason}`);
  const { applications } = JSON.parse(l.body);
  const entry = appId ? applications.find((a) => a.id === appId) : applications[0];
  if (!entry) throw new Error(`the application list has no ${appId ?? 'application'} (${applications.map((a) => a.id).join(', ')})`);
  const a = await httpGet(ch, entry.url, timeoutMs);
  if (a.status !== 200) throw new Error(`the application ${entry.id} (${entry.url}): HTTP ${a.status} ${a.reason}`);
  return {
    list: { status: l.status, applications, ms: l.ms },
    app: { id: entry.id, url: entry.url, status: a.status, bytes: a.bytes, contentType: a.headers['content-type'] ?? null,
      body: a.body, ms: a.ms, channels: entry.channels ?? [] },
  };
}

// The application data channels a downloaded application asks for (its list entry's `channels`: streamId, label,
// app), as labClient.call's `dataChannels` (negotiated by id; the page writes a=dcmap and a=dcsa 3gpp-req-app:<app>,
// TS 24.186). Stream ids below 1000 are the bootstrap range and are refused, as is anything that is no channel.
export function applicationChannels(app) {
  const chans = (app?.channels ?? []).map((c) => ({ id: c.streamId, label: String(c.label ?? ''), app: String(c.app ?? app.id) }));
  for (const c of chans) {
    if (!Number.isInteger(c.id) || c.id < 1000 || c.id > 65534 || !c.label) {
      throw new Error(`the application ${app.id} asks for a channel that is no application data channel: ${JSON.stringify(c)}`);
    }
  }
  if (!chans.length) throw new Error(`the application ${app?.id} asks for no data channel`);
  return chans;
}
