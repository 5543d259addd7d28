// The browser side of the gateway's API (docs/architecture.md "Browser API"): REST login, one
// WebSocket per session, non-trickle JSEP (full ICE gathering before an SDP is sent), and one
// RTCPeerConnection per call. UI-free so automation (window.labClient) and the page share it.
import { readStats, EMPTY_STATS } from './rtc-stats.js';

const GATHER_TIMEOUT_MS = 5000;   // loopback-only gathering finishes in well under a second
const REPLY_TIMEOUT_MS = 10000;
const SAMPLE_EVERY_MS = 1000;
const MAX_SAMPLES = 3600;
// gateway errors without a callId that can only be the answer to a pending `call`
const CALL_ERRORS = new Set(['bad-sdp', 'bad-message', 'media-failed', 'sip-failed', 'too-large', 'internal']);

export class LabClient extends EventTarget {
  user = null;
  token = null;
  ws = null;
  events = [];              // every gateway message: {t (epoch ms), msg}
  #consumed = new Set();    // indexes of events already handed out by waitFor
  #waiters = [];
  #calls = new Map();       // callId -> call record
  #pending = [];            // call() requests waiting for the gateway's `calling`
  #sampler = null;
  // getUserMedia's audio constraints. Automation sending a test signal (the audio-quality check)
  // turns echo cancellation, noise suppression and gain control off; people keep the defaults.
  audioConstraints = true;

  async login(user, password) {
    if (this.token) await this.logout();
    const res = await fetch('/api/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user, password }),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw this.#fail(`login failed: ${body.code ?? 'http-error'} (HTTP ${res.status})`);
    this.user = body.user ?? user;
    this.token = body.token;
    await this.#openWs(body.wsUrl);
    this.#sampler = setInterval(() => this.#sampleAll(), SAMPLE_EVERY_MS);
    this.#changed();
    return { user: this.user, token: this.token };
  }

  async logout() {
    const token = this.token;
    this.token = null;
    clearInterval(this.#sampler);
    for (const call of this.#calls.values()) this.#closeMedia(call);
    this.ws?.close(1000, 'logout');
    this.ws = null;
    let status = null;
    if (token) {
      const res = await fetch(`/api/v1/sessions/${encodeURIComponent(token)}`, { method: 'DELETE' });
      status = res.status;
    }
    this.user = null;
    this.#changed();
    return { status };
  }

  // imsCodec (optional): PCMA, PCMU, G722, AMR-WB, AMR: the gateway forces it on the IMS leg (transcoding).
  async call(to, { imsCodec } = {}) {
    this.#requireSession();
    const call = { callId: null, direction: 'mo', peer: to, state: 'starting', samples: [], last: null };
    try {
      call.stream = await navigator.mediaDevices.getUserMedia({ audio: this.audioConstraints });
      call.pc = this.#newPc(call);
      for (const track of call.stream.getTracks()) call.pc.addTrack(track, call.stream);
      await call.pc.setLocalDescription(await call.pc.createOffer());
      await gatherComplete(call.pc);
    } catch (e) {
      this.#closeMedia(call);
      throw this.#fail(`call to ${to} failed: ${e.message}`);
    }
    const reply = new Promise((resolve, reject) => this.#pending.push({ call, resolve, reject }));
    const timer = setTimeout(() => this.#rejectPending(call, `no 'calling' reply within ${REPLY_TIMEOUT_MS} ms`), REPLY_TIMEOUT_MS);
    this.#send({ type: 'call', to, sdp: call.pc.localDescription.sdp, ...(imsCodec ? { imsCodec } : {}) });
    try {
      return await reply;
    } finally {
      clearTimeout(timer);
    }
  }

  async answer(callId) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (!call || call.direction !== 'mt' || call.state !== 'incoming') throw this.#fail(`no incoming call ${callId} to answer`);
    call.state = 'answering';
    this.#changed();
    // With preconditions the SDP answer already went out as `media`; accepting needs no SDP.
    const sdp = call.preconditions ? await call.earlyMedia : await this.#prepareAnswer(call);
    if (call.state === 'ended') {   // caller gave up while we were gathering
      this.#closeMedia(call);
      throw this.#fail(`call ${callId} ended before it was answered`);
    }
    this.#send(call.preconditions ? { type: 'answer', callId } : { type: 'answer', callId, sdp });
    return callId;
  }

  // Media for an incoming call: our tracks, the remote offer, a complete (non-trickle) answer SDP.
  async #prepareAnswer(call) {
    try {
      call.stream = await navigator.mediaDevices.getUserMedia({ audio: this.audioConstraints });
      call.pc = this.#newPc(call);
      // remote offer first, so addTrack reuses the offered audio transceiver (one m-line, sendrecv)
      await call.pc.setRemoteDescription({ type: 'offer', sdp: call.offerSdp });
      for (const track of call.stream.getTracks()) call.pc.addTrack(track, call.stream);
      await call.pc.setLocalDescription(await call.pc.createAnswer());
      await gatherComplete(call.pc);
      return call.pc.localDescription.sdp;
    } catch (e) {
      this.#closeMedia(call);
      throw this.#fail(`answer ${call.callId} failed: ${e.message}`);
    }
  }

  // Preconditions (TS 24.229): answer the SDP at once so the gateway can reserve and bring the media
  // up; the call only rings (`alerting`) once both QoS segments are met.
  #startEarlyMedia(call) {
    call.earlyMedia = this.#prepareAnswer(call).then((sdp) => {
      if (call.state !== 'ended') this.#send({ type: 'media', callId: call.callId, sdp });
      return sdp;
    });
    call.earlyMedia.catch(() => {});
  }

  hangup(callId) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (call && call.state !== 'ended') call.state = 'hanging-up';
    this.#send({ type: 'hangup', callId });
    this.#changed();
  }

  reject(callId) {
    this.#requireSession();
    this.#send({ type: 'reject', callId });
  }

  sendRaw(text) {
    this.#requireSession();
    this.ws.send(text);
  }

  // Next gateway message of `type` (and callId) not yet returned by an earlier waitFor,
  // including ones that arrived before this call; fromIndex (see mark()) skips older ones.
  waitFor(type, callId = null, timeoutMs = REPLY_TIMEOUT_MS, fromIndex = 0) {
    const match = (e, i) => i >= fromIndex && !this.#consumed.has(i) && e.msg.type === type
      && (callId == null || e.msg.callId === callId);
    const idx = this.events.findIndex(match);
    if (idx >= 0) {
      this.#consumed.add(idx);
      return Promise.resolve(this.events[idx].msg);
    }
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve };
      waiter.timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`timeout after ${timeoutMs} ms waiting for '${type}'${callId ? ` of ${callId}` : ''}`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  // Position in `events`, for waitFor(..., fromIndex) to ignore what came before.
  mark() {
    return this.events.length;
  }

  // Current aggregated getStats of a call (default: the latest one); last known values once closed.
  async stats(callId = null) {
    const call = callId ? this.#calls.get(callId) : [...this.#calls.values()].at(-1);
    if (!call) throw this.#fail(callId ? `unknown call ${callId}` : 'no call yet');
    if (call.pc && call.pc.signalingState !== 'closed') call.last = await readStats(call.pc);
    return { callId: call.callId, ...(call.last ?? EMPTY_STATS) };
  }

  // The remote audio of a call (set once its answer/offer SDP is applied), or null.
  remoteStream(callId) {
    return this.#calls.get(callId)?.remoteStream ?? null;
  }

  samples(callId) {
    return this.#calls.get(callId)?.samples ?? [];
  }

  calls() {
    return [...this.#calls.values()].map(({ callId, direction, peer, state, reason, sipCode, preconditions, alerted }) =>
      ({ callId, direction, peer, state, reason, sipCode, preconditions, alerted }));
  }

  // ---- internals ----

  #openWs(wsUrl) {
    const url = new URL(wsUrl || `/ws?token=${encodeURIComponent(this.token)}`, location.href);
    if (url.protocol === 'http:') url.protocol = 'ws:';
    if (url.protocol === 'https:') url.protocol = 'wss:';
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      let open = false;
      const timer = setTimeout(() => { ws.close(); reject(this.#fail(`websocket ${url.pathname} did not open`)); }, REPLY_TIMEOUT_MS);
      ws.onopen = () => { open = true; clearTimeout(timer); this.ws = ws; resolve(); };
      ws.onmessage = (e) => this.#onMessage(e.data);
      ws.onclose = (e) => {
        clearTimeout(timer);
        if (!open) return reject(this.#fail(`websocket closed before opening (code ${e.code})`));
        if (this.ws === ws) {
          this.ws = null;
          if (e.code !== 1000) this.#fail(`websocket closed by gateway (code ${e.code}${e.reason ? `, ${e.reason}` : ''})`);
          this.#changed();
        }
      };
    });
  }

  #onMessage(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      msg = { type: 'unparsable', raw: String(data).slice(0, 200) };
    }
    const idx = this.events.push({ t: Date.now(), msg }) - 1;
    this.#handle(msg);
    const w = this.#waiters.find((w) => w.match(this.events[idx], idx));
    if (w) {
      this.#consumed.add(idx);
      this.#waiters = this.#waiters.filter((x) => x !== w);
      clearTimeout(w.timer);
      w.resolve(msg);
    }
    this.dispatchEvent(new CustomEvent('message', { detail: msg }));
    this.#changed();
  }

  #handle(msg) {
    const call = this.#calls.get(msg.callId);
    switch (msg.type) {
      case 'calling': {
        if (call) break;
        const p = this.#pending.shift();
        if (!p) break;
        p.call.callId = msg.callId;
        p.call.state = 'calling';
        this.#calls.set(msg.callId, p.call);
        p.resolve(msg.callId);
        break;
      }
      case 'incoming': {
        const c = {
          callId: msg.callId, direction: 'mt', peer: msg.from, state: 'incoming', offerSdp: msg.sdp, samples: [], last: null,
          preconditions: msg.preconditions === true, alerted: msg.preconditions !== true,
        };
        this.#calls.set(msg.callId, c);
        if (c.preconditions) this.#startEarlyMedia(c);
        break;
      }
      case 'alerting':
        if (call) call.alerted = true;
        break;
      case 'ringing':
      case 'progress':
        if (call && call.state === 'calling') call.state = msg.type;
        // An early SDP answer (183 with preconditions): media starts before the call is answered.
        if (msg.sdp) this.#applyAnswer(call, msg);
        break;
      case 'answered':
        if (!call?.pc) break;
        call.state = 'answered';
        this.#applyAnswer(call, msg);
        break;
      case 'ended':
        if (!call) break;
        call.state = 'ended';
        call.reason = msg.reason;
        call.sipCode = msg.sipCode;
        this.#finish(call);
        break;
      case 'error':
        if (!msg.callId && CALL_ERRORS.has(msg.code) && this.#pending.length) {
          this.#rejectPending(this.#pending[0].call, `${msg.code}: ${msg.message ?? ''}`);
        } else {
          this.#fail(`gateway error ${msg.code}${msg.callId ? ` (${msg.callId})` : ''}: ${msg.message ?? ''}`);
        }
        break;
      default:
    }
    if (msg.callId && (msg.type === 'answered' || (msg.type === 'ended' && call))) {
      this.dispatchEvent(new CustomEvent('call', { detail: msg }));
    }
  }

  #applyAnswer(call, msg) {
    if (!call?.pc || call.pc.signalingState !== 'have-local-offer') return; // already applied from a 183
    call.pc.setRemoteDescription({ type: 'answer', sdp: msg.sdp })
      .catch((e) => this.#fail(`call ${msg.callId}: gateway answer SDP rejected: ${e.message}`));
  }

  #rejectPending(call, why) {
    const i = this.#pending.findIndex((p) => p.call === call);
    if (i < 0) return;
    const [p] = this.#pending.splice(i, 1);
    this.#closeMedia(call);
    p.reject(this.#fail(`call to ${call.peer} failed: ${why}`));
  }

  // Keep a last stats snapshot (for reports after the call), then release the media.
  async #finish(call) {
    if (call.pc && call.pc.signalingState !== 'closed') {
      call.last = await readStats(call.pc).catch(() => call.last);
    }
    this.#closeMedia(call);
    this.#changed();
  }

  #closeMedia(call) {
    call.pc?.close();
    call.stream?.getTracks().forEach((t) => t.stop());
  }

  #newPc(call) {
    // No iceServers: loopback host candidates only. Default bundlePolicy 'balanced':
    // max-bundle broke media with rtpengine 10.5 (lab-notes).
    const pc = new RTCPeerConnection({});
    pc.ontrack = (e) => {
      call.remoteStream = e.streams[0] ?? new MediaStream([e.track]);
      this.dispatchEvent(new CustomEvent('track', { detail: { call: call.callId, streams: e.streams } }));
    };
    pc.oniceconnectionstatechange = () => this.#changed();
    return pc;
  }

  async #sampleAll() {
    for (const call of this.#calls.values()) {
      if (!call.pc || call.pc.signalingState === 'closed' || call.state === 'ended') continue;
      try {
        const s = await readStats(call.pc);
        const prev = call.last;
        const dt = prev ? (s.t - prev.t) / 1000 : 0;
        // rates need two samples: the first one has none (null, not a misleading 0)
        s.ppsSent = dt > 0 ? (s.packetsSent - prev.packetsSent) / dt : null;
        s.ppsReceived = dt > 0 ? (s.packetsReceived - prev.packetsReceived) / dt : null;
        call.last = s;
        call.samples.push(s);
        if (call.samples.length > MAX_SAMPLES) call.samples.shift();
        this.dispatchEvent(new CustomEvent('sample', { detail: { callId: call.callId, sample: s } }));
      } catch { /* pc closed between the check and getStats */ }
    }
  }

  #send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) throw this.#fail('not connected to the gateway');
    this.ws.send(JSON.stringify(msg));
  }

  #requireSession() {
    if (!this.token) throw this.#fail('not logged in');
  }

  #fail(text) {
    this.dispatchEvent(new CustomEvent('failure', { detail: text }));
    return new Error(text);
  }

  #changed() {
    this.dispatchEvent(new Event('change'));
  }
}

// Non-trickle: the gateway/rtpengine want one SDP with all candidates.
function gatherComplete(pc) {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pc.removeEventListener('icegatheringstatechange', check);
      // send what was gathered; without any candidate the call cannot work
      if (/a=candidate:/.test(pc.localDescription?.sdp ?? '')) resolve();
      else reject(new Error(`ICE gathering found no candidate in ${GATHER_TIMEOUT_MS} ms`));
    }, GATHER_TIMEOUT_MS);
    function check() {
      if (pc.iceGatheringState !== 'complete') return;
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', check);
      resolve();
    }
    pc.addEventListener('icegatheringstatechange', check);
  });
}
