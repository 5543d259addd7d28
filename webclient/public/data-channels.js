// IMS data channels on the page (issue #25, docs/datachannel.md "The page"): the application channels of a call,
// negotiated in SDP with RFC 8864 a=dcmap (TS 26.114 §6.2.10 / TS 24.186: stream id >= 1000, a=dcsa 3gpp-req-app).
// Browsers neither write nor read a=dcmap, so the page does: on a call it makes, it creates the channels with
// `negotiated: true, id` and adds their a=dcmap/a=dcsa lines to the offer it sends the gateway; on a call it gets,
// it reads them from the gateway's offer, creates the same channels and repeats the lines in its answer (RFC 8864
// §5.1.2: an answer that leaves a line out declines that channel). The gateway's data-channel endpoint relays them
// to and from the IMS side.
//
// Messages of the lab's chat application (3gpp-req-app org.lab.chat) are JSON: {seq, t, text}, t the sender's
// wall clock in ms (sender and receiver share the lab host's clock, so the receiver takes now - t as the delay).

export const CHAT_APP = 'org.lab.chat';
// The channels the page offers on a call it makes: one reliable, ordered chat channel.
export const DEFAULT_CHANNELS = [{ id: 1000, label: 'chat', app: CHAT_APP }];

const now = () => performance.timeOrigin + performance.now();

function unquote(v) {
  return v.replace(/^"|"$/g, '').replace(/%([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

// The channels of the first data-channel section's a=dcmap (+ a=dcsa 3gpp-req-app) lines of an SDP.
export function channelsOf(sdp) {
  const out = [];
  let inApp = false;
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith('m=')) {
      if (inApp) break;
      inApp = /^m=application [1-9]\d* UDP\/DTLS\/SCTP webrtc-datachannel/.test(line);
      continue;
    }
    if (!inApp) continue;
    let m = line.match(/^a=dcmap:(\d+)(?: (.*))?$/);
    if (m) {
      const ch = { id: Number(m[1]), label: '' };
      for (const opt of (m[2] ?? '').split(';')) {
        const [k, v] = [opt.slice(0, opt.indexOf('=')).trim(), opt.slice(opt.indexOf('=') + 1).trim()];
        if (k === 'label') ch.label = unquote(v);
        else if (k === 'subprotocol') ch.protocol = unquote(v);
        else if (k === 'ordered') ch.ordered = v !== 'false';
        else if (k === 'max-retr') ch.maxRetransmits = Number(v);
        else if (k === 'max-time') ch.maxPacketLifeTime = Number(v);
      }
      out.push(ch);
      continue;
    }
    m = line.match(/^a=dcsa:(\d+) 3gpp-req-app:(.+)$/);
    if (m) {
      const ch = out.find((c) => c.id === Number(m[1]));
      if (ch) ch.app = m[2].trim();
    }
  }
  return out;
}

const quote = (s) => `"${String(s).replace(/[%"\x00-\x1f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`)}"`;

function dcmapLines(ch) {
  let v = `a=dcmap:${ch.id} label=${quote(ch.label)}`;
  if (ch.protocol) v += `;subprotocol=${quote(ch.protocol)}`;
  if (ch.maxRetransmits != null) v += `;max-retr=${ch.maxRetransmits}`;
  else if (ch.maxPacketLifeTime != null) v += `;max-time=${ch.maxPacketLifeTime}`;
  if (ch.ordered === false) v += ';ordered=false';
  return ch.app ? [v, `a=dcsa:${ch.id} 3gpp-req-app:${ch.app}`] : [v];
}

// The SDP with the channels' a=dcmap/a=dcsa lines at the end of its data-channel section (unchanged without one).
export function withDcmap(sdp, channels) {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const start = lines.findIndex((l) => /^m=application \d+ UDP\/DTLS\/SCTP webrtc-datachannel/.test(l));
  if (start < 0) return sdp;
  let end = lines.findIndex((l, i) => i > start && l.startsWith('m='));
  if (end < 0) end = lines.length;
  lines.splice(end, 0, ...channels.flatMap(dcmapLines));
  return lines.join(eol) + eol;
}

// The SDP with its data-channel section at port 0 (RFC 8841 §10, RFC 3264 §8.2: the page removes its data channels
// from the call): the m= line and its a=mid only. Browsers cannot stop a data-channel m-section themselves, so the page
// says so in the offer it sends the gateway; the gateway's answer then rejects the section and the browser closes it.
export function withDataSectionRemoved(sdp) {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const out = [];
  let inApp = false;
  const lines = sdp.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('m=')) inApp = /^m=application \d+ UDP\/DTLS\/SCTP webrtc-datachannel/.test(line);
    if (!inApp) { out.push(line); continue; }
    if (line.startsWith('m=')) out.push(line.replace(/^m=application \d+/, 'm=application 0'));
    else if (line.startsWith('a=mid:')) out.push(line);
  }
  return out.join(eol) + eol;
}

// The offer with its data-channel section's mid out of the BUNDLE group (unchanged without one). A data channel added
// to a running call goes on a transport of its own: the gateway's answer keeps the audio's established group and
// puts the data channel (the data-channel endpoint, not rtpengine) beside it, and Chromium refuses such an answer
// when its own offer had put the new section into the group ("Answer cannot remove m= section … from
// already-established BUNDLE group"). Firefox accepts the answer as it is and is left alone.
export function withDataSectionUnbundled(sdp) {
  const m = sdp.match(/^m=application [1-9]\d* UDP\/DTLS\/SCTP webrtc-datachannel[\s\S]*?^a=mid:(\S+)/m);
  if (!m) return sdp;
  return sdp.replace(/^a=group:BUNDLE (.*)$/m, (_, mids) => `a=group:BUNDLE ${mids.split(' ').filter((x) => x && x !== m[1]).join(' ')}`);
}

// Whether the SDP's data-channel section is at port 0 (removed or rejected).
export function dataSectionRemoved(sdp) { return /^m=application 0 UDP\/DTLS\/SCTP webrtc-datachannel/m.test(sdp); }

function stats(values) {
  if (!values.length) return null;
  const v = [...values].sort((a, b) => a - b);
  const at = (q) => v[Math.min(v.length - 1, Math.floor(v.length * q))];
  return { n: v.length, p50: +at(0.5).toFixed(2), p95: +at(0.95).toFixed(2), max: +v[v.length - 1].toFixed(2) };
}

// One call's application channels: creates them on the call's RTCPeerConnection, sends chat messages and keeps
// what went each way (messages, bytes, one-way delays of the received ones). Events (on the EventTarget): `open`
// {label}, `message` {label, text, seq, delayMs, dir: 'in'|'out'}, `close` {label}.
export class CallDataChannels extends EventTarget {
  channels = [];   // {id, label, app, ch (RTCDataChannel), sent, received, bytesSent, bytesReceived, delays, log}

  constructor(pc, wanted) {
    super();
    for (const w of wanted) {
      const opts = { negotiated: true, id: w.id, ordered: w.ordered !== false };
      if (w.protocol) opts.protocol = w.protocol;
      if (w.maxRetransmits != null) opts.maxRetransmits = w.maxRetransmits;
      else if (w.maxPacketLifeTime != null) opts.maxPacketLifeTime = w.maxPacketLifeTime;
      const ch = pc.createDataChannel(w.label, opts);
      const rec = { ...w, ch, sent: 0, received: 0, bytesSent: 0, bytesReceived: 0, delays: [], log: [], openedAt: null };
      ch.onopen = () => {
        rec.openedAt = now();
        this.dispatchEvent(new CustomEvent('open', { detail: { label: w.label } }));
      };
      ch.onclose = () => this.dispatchEvent(new CustomEvent('close', { detail: { label: w.label } }));
      ch.onmessage = (e) => this.#received(rec, e.data);
      this.channels.push(rec);
    }
  }

  // The channel descriptions for the SDP (a=dcmap/a=dcsa).
  wanted() { return this.channels.map(({ id, label, app, protocol, ordered, maxRetransmits, maxPacketLifeTime }) => ({ id, label, app, protocol, ordered, maxRetransmits, maxPacketLifeTime })); }

  // Sends one chat message on the channel `label` (default: the first); false when it is not open.
  send(text, label) {
    const rec = label ? this.channels.find((c) => c.label === label) : this.channels[0];
    if (!rec || rec.ch.readyState !== 'open') return false;
    const data = JSON.stringify({ seq: rec.sent, t: now(), text: String(text) });
    rec.ch.send(data);
    rec.sent++;
    rec.bytesSent += new TextEncoder().encode(data).length;
    rec.log.push({ dir: 'out', text: String(text), at: Date.now() });
    if (rec.log.length > 200) rec.log.shift();
    this.dispatchEvent(new CustomEvent('message', { detail: { label: rec.label, text: String(text), seq: rec.sent - 1, dir: 'out' } }));
    return true;
  }

  #received(rec, data) {
    const size = typeof data === 'string' ? new TextEncoder().encode(data).length : data.byteLength ?? data.size ?? 0;
    rec.received++;
    rec.bytesReceived += size;
    let text = typeof data === 'string' ? data : `(${size} bytes of binary)`;
    let seq = null;
    let delayMs = null;
    if (typeof data === 'string') {
      try {
        const m = JSON.parse(data);
        if (m && typeof m.text === 'string') text = m.text;
        if (Number.isFinite(m?.seq)) seq = m.seq;
        if (Number.isFinite(m?.t)) {
          delayMs = now() - m.t;
          rec.delays.push(delayMs);
        }
      } catch { /* plain text from another application: shown as it came */ }
    }
    rec.log.push({ dir: 'in', text, at: Date.now() });
    if (rec.log.length > 200) rec.log.shift();
    this.dispatchEvent(new CustomEvent('message', { detail: { label: rec.label, text, seq, delayMs, dir: 'in' } }));
  }

  // Per channel: state, messages and bytes each way, the one-way delay of the received messages (ms).
  summary() {
    return this.channels.map((c) => ({
      id: c.id, label: c.label, app: c.app ?? null, protocol: c.protocol ?? null, state: c.ch.readyState,
      sent: c.sent, received: c.received, bytesSent: c.bytesSent, bytesReceived: c.bytesReceived,
      delayMs: stats(c.delays),
    }));
  }

  close() { for (const c of this.channels) c.ch.close(); }
}
