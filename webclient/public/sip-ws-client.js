// The web phone as a WIC using Gm (TS 24.371 §5; docs/ims-sim.md "eP-CSCF for WICs using Gm"): the page speaks SIP
// itself, over a WebSocket to the eP-CSCF (RFC 7118), with JsSIP (vendored by harness/lib/vendor.sh, global
// JsSIP). The gateway is only the WAF here: it checks the login and issues an access token (POST
// /api/v1/wic-tokens), which JsSIP carries as `Authorization: Bearer` in every request (RFC 8898); the page
// fetches a fresh one before it runs out. Same interface as LabClient (lab-client.js), so the page and the
// automation (window.labClient, harness/runner/browser.mjs) drive either; events carry the same names
// (`incoming`, `ringing`, `answered`, `ended`, ...), made from SIP instead of the gateway's JSON.
import { readStats, EMPTY_STATS } from './rtc-stats.js';
import { AkaSocket } from './aka-socket.js';
import { hexToBytes } from './ims-aka.js';
import { warmUp, warmUpWanted } from './prewarm.js';

const REGISTER_TIMEOUT_MS = 10000;
const SAMPLE_EVERY_MS = 1000;
const MAX_SAMPLES = 3600;
const REFRESH_AT = 0.8;   // of a token's lifetime

export class SipWsClient extends EventTarget {
  kind = 'sip-ws';
  user = null;
  token = null;             // the access token (a JWT)
  ws = null;                // the JsSIP UA once registered (the page's "connected" test)
  impu = null;
  identities = [];
  identity = null;
  events = [];              // {t, msg}, as LabClient's
  audioConstraints = true;
  iceServers = [];
  prewarm = 'auto';         // as LabClient's: a throw-away local connection at login (prewarm.js); 'auto', true, false
  prewarmed = null;         // what it did: { ms, connected }
  #consumed = new Set();
  #waiters = [];
  #calls = new Map();       // SIP Call-ID -> call record
  #ua = null;
  #refresh = null;
  #sampler = null;
  #expiresAt = 0;

  // ims: the subscriber's IMS-AKA settings { impi, k, opc } (hex K/OPc, as a softphone's SIM settings; never from
  // the gateway) when the core challenges with AKAv1-MD5 (the 3GPP core, TS 24.371 §6 "IMS authentication");
  // without them the WIC relies on web authentication (the token alone, the light core).
  async login(user, password, ims = null) {
    if (this.token) await this.logout();
    if (typeof JsSIP === 'undefined') throw this.#fail('login failed: the SIP stack (vendor/jssip.min.js) is not loaded');
    let usim = null;
    if (ims && (ims.impi || ims.k || ims.opc)) {
      try {
        if (!/^[^@\s]+@[^@\s]+$/.test(ims.impi ?? '')) throw new Error('the IMPI must be user@realm');
        usim = { impi: ims.impi, k: hexToBytes(ims.k, 16, 'K'), opc: hexToBytes(ims.opc, 16, 'OPc') };
      } catch (e) {
        throw this.#fail(`login failed: ${e.message}`);
      }
    }
    const body = await this.#tokenRequest({ body: JSON.stringify({ user, password }), headers: { 'content-type': 'application/json' } });
    if (!body.wsUrl) throw this.#fail('login failed: the gateway names no eP-CSCF (lab.wic.ws-url)');
    this.user = user;
    this.impu = body.impu;
    this.identities = [body.impu];
    this.identity = body.impu;
    this.domain = body.domain;
    this.#setToken(body);
    let socket = new JsSIP.WebSocketInterface(body.wsUrl);
    let akaError = null;
    if (usim) {
      // JsSIP's authorization_jwt would overwrite the digest answer: the socket adds the token (aka-socket.js)
      socket = new AkaSocket(socket, { ...usim, token: () => this.token,
        onAka: ({ realm, ha1 }) => { this.#ua?.set('realm', realm); this.#ua?.set('ha1', ha1); this.#emit({ type: 'aka-challenge', realm }); },
        onAkaError: (why) => { akaError = why; this.#fail(`IMS-AKA: ${why}`); } });
    }
    const ua = new JsSIP.UA({
      sockets: [socket],
      uri: body.impu,
      ...(usim ? { authorization_user: usim.impi, ha1: '' } : { authorization_jwt: `Bearer ${this.token}` }),
      // the 3GPP core's P-CSCF (Kamailio 5.6 ims_usrloc_pcscf) looks a UE up by an IP literal in its Via sent-by and
      // refuses JsSIP's random "<token>.invalid" (RFC 7118 §5.2 allows either): TEST-NET-1's 192.0.2.1 (RFC 5737),
      // never routed to (the eP-CSCF answers over the WebSocket, records the real address as received= and puts
      // it in the Contact). JsSIP takes its Via host from contact_uri.
      ...(usim ? { contact_uri: `sip:${Math.random().toString(36).slice(2, 10)}@192.0.2.1;transport=ws` } : {}),
      register: true,          // once the WebSocket is up (a REGISTER before that fails at once)
      session_timers: false,
      user_agent: 'lab-phone (JsSIP)',
    });
    this.#ua = ua;
    ua.on('newRTCSession', (e) => this.#newSession(e));
    ua.on('disconnected', () => { if (this.#ua === ua && this.ws) { this.ws = null; this.#changed(); } });
    ua.on('registered', () => { if (this.#ua === ua) { this.ws = ua; this.#changed(); } });
    try {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to REGISTER within ${REGISTER_TIMEOUT_MS} ms`)), REGISTER_TIMEOUT_MS);
        ua.once('registered', () => { clearTimeout(timer); resolve(); });
        ua.once('registrationFailed', (e) => {
          clearTimeout(timer);
          const r = e.response;
          const why = akaError ? ` (IMS-AKA: ${akaError})` : '';
          reject(new Error(r ? `the eP-CSCF answered ${r.status_code} ${r.reason_phrase}${why}` : `REGISTER failed: ${e.cause}${why}`));
        });
        ua.start();
      });
    } catch (e) {
      this.#teardown();
      throw this.#fail(`login failed: ${e.message}`);
    }
    // the same throw-away connection as the gateway's page (lab-client.js `prewarm`), so the two access kinds compare
    if (warmUpWanted(this.prewarm) && !this.prewarmed) this.prewarmed = await warmUp();
    this.#sampler = setInterval(() => this.#sampleAll(), SAMPLE_EVERY_MS);
    this.#changed();
    return { user, token: this.token, prewarmed: this.prewarmed };
  }

  async logout() {
    const ua = this.#ua;
    for (const call of this.#calls.values()) if (call.state !== 'ended') call.session?.terminate();
    if (ua?.isRegistered()) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 3000);
        ua.once('unregistered', () => { clearTimeout(timer); resolve(); });
        ua.once('registrationFailed', () => { clearTimeout(timer); resolve(); });
        ua.unregister();
      });
    }
    this.#teardown();
    this.#changed();
    return { status: null };
  }

  // to: a user of the domain ("ue1") or a SIP URI. Options as LabClient's (video; imsCodec/dtmf 'inject' are gateway
  // features and refused here).
  async call(to, { video = false, bundlePolicy, imsCodec, dtmf } = {}) {
    this.#requireSession();
    if (imsCodec || dtmf === 'inject') throw this.#fail('imsCodec and dtmf "inject" are gateway features: not on the SIP-over-WebSocket client');
    const target = /^sips?:/.test(to) ? to : `sip:${to}${to.includes('@') ? '' : `@${this.domain}`}`;
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: this.audioConstraints, video: video ? { width: 640, height: 480 } : false });
    } catch (e) {
      throw this.#fail(`call to ${to} failed: ${e.message}`);
    }
    this.dispatchEvent(new CustomEvent('local-media', { detail: { stream } }));
    const session = this.#ua.call(target, { mediaStream: stream, pcConfig: this.#pcConfig(bundlePolicy) });
    const call = [...this.#calls.values()].find((c) => c.session === session);
    if (!call) throw this.#fail(`call to ${to} failed: no session`);
    call.stream = stream;
    call.peer = to;
    call.video = video;
    this.#watchPc(call);
    this.#emit({ type: 'calling', callId: call.callId });
    return call.callId;
  }

  async answer(callId, { video = false, bundlePolicy } = {}) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (!call || call.direction !== 'mt' || call.state !== 'incoming') throw this.#fail(`no incoming call ${callId} to answer`);
    call.state = 'answering';
    try {
      call.stream = await navigator.mediaDevices.getUserMedia({ audio: this.audioConstraints, video: video ? { width: 640, height: 480 } : false });
    } catch (e) {
      throw this.#fail(`answer ${callId} failed: ${e.message}`);
    }
    this.dispatchEvent(new CustomEvent('local-media', { detail: { stream: call.stream } }));
    call.video = video;
    // resolves once JsSIP has sent the 200 (its answer SDP complete: non-trickle), as LabClient's once the gateway has it
    const sent = new Promise((resolve, reject) => {
      call.session.once('accepted', resolve);
      call.session.once('failed', (e) => reject(new Error(`answer ${callId} failed: ${e.cause}`)));
    });
    call.session.answer({ mediaStream: call.stream, pcConfig: this.#pcConfig(bundlePolicy) });
    this.#watchPc(call);
    try {
      await sent;
    } catch (e) {
      throw this.#fail(e.message);
    }
    call.answeredAt ??= Date.now();
    this.#changed();
    return callId;
  }

  hangup(callId) {
    const call = this.#calls.get(callId);
    if (!call) throw this.#fail(`unknown call ${callId}`);
    if (call.state !== 'ended') call.session.terminate();
    return callId;
  }

  reject(callId) {
    const call = this.#calls.get(callId);
    if (!call || call.state !== 'incoming') throw this.#fail(`no incoming call ${callId} to reject`);
    call.session.terminate({ status_code: 486, reason_phrase: 'Busy Here' });
    return callId;
  }

  // RFC 4733 digits in the RTP stream (RTCDTMFSender through JsSIP): relayed by rtpengine as they are.
  dtmf(callId, digits, durationMs = 100) {
    const call = this.#active(callId);
    call.session.sendDTMF(String(digits), { transportType: 'RFC2833', duration: durationMs });
    call.dtmfSent = (call.dtmfSent ?? '') + digits;
    return { callId, digits, path: 'rtcdtmfsender' };
  }

  keypad(callId, digits, durationMs = 100) {
    this.dtmf(callId, digits, durationMs);
    return 'rtcdtmfsender';
  }

  // hold (sendonly) / resume (sendrecv): a re-INVITE through the eP-CSCF; resolves once it was answered
  reoffer(callId, { direction = null } = {}) {
    const call = this.#active(callId);
    if (direction !== 'sendonly' && direction !== 'sendrecv') throw this.#fail('the SIP-over-WebSocket client re-offers only for hold (sendonly) and resume (sendrecv)');
    return new Promise((resolve, reject) => {
      const done = () => { this.#changed(); resolve({ callId, direction }); };
      const ok = direction === 'sendonly' ? call.session.hold({}, done) : call.session.unhold({}, done);
      if (!ok) reject(this.#fail(`${direction === 'sendonly' ? 'hold' : 'resume'} of ${callId} is not possible now`));
    });
  }

  hold(callId) { return this.reoffer(callId, { direction: 'sendonly' }); }
  resume(callId) { return this.reoffer(callId, { direction: 'sendrecv' }); }

  setMuted(callId, muted) {
    const call = this.#active(callId);
    if (muted) call.session.mute({ audio: true }); else call.session.unmute({ audio: true });
    call.muted = Boolean(muted);
    this.#changed();
  }

  waitFor(type, callId = null, timeoutMs = 10000, fromIndex = 0) {
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

  mark() { return this.events.length; }

  async stats(callId = null) {
    const call = callId ? this.#calls.get(callId) : [...this.#calls.values()].at(-1);
    if (!call) throw this.#fail(callId ? `unknown call ${callId}` : 'no call yet');
    if (call.pc && call.pc.signalingState !== 'closed') call.last = await readStats(call.pc).catch(() => call.last);
    return { callId: call.callId, ...(call.last ?? EMPTY_STATS) };
  }

  sdp(callId) {
    const pc = this.#calls.get(callId)?.pc;
    return { local: pc?.localDescription?.sdp ?? null, remote: pc?.remoteDescription?.sdp ?? null };
  }

  remoteStream(callId) { return this.#calls.get(callId)?.remoteStream ?? null; }
  samples(callId) { return this.#calls.get(callId)?.samples ?? []; }

  calls() {
    return [...this.#calls.values()].map(({ callId, direction, peer, state, reason, sipCode, startedAt, answeredAt, endedAt, video, muted, session, mediaUp }) =>
      ({ callId, direction, peer, state, reason, sipCode, preconditions: false, alerted: true, dtmfReceived: '',
        startedAt: startedAt ?? null, answeredAt: answeredAt ?? null, endedAt: endedAt ?? null, video: Boolean(video),
        offersVideo: false, muted: Boolean(muted), held: Boolean(state !== 'ended' && session?.isOnHold().local),
        mediaUp: Boolean(mediaUp) }));
  }

  // the access token in force (for tests: what the eP-CSCF must see on every request)
  accessToken() { return this.token; }

  // ---- internals ----

  async #tokenRequest(init) {
    let res;
    try {
      res = await fetch('/api/v1/wic-tokens', { method: 'POST', ...init });
    } catch (e) {
      throw this.#fail(`login failed: http-error (${e.message})`);
    }
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw this.#fail(`login failed: ${body.code ?? 'http-error'} (HTTP ${res.status})`);
    return body;
  }

  // The token in force, and a fresh one fetched with it at REFRESH_AT of its lifetime (JsSIP takes it for every
  // request from then on).
  #setToken(body) {
    this.token = body.accessToken;
    this.#expiresAt = Date.parse(body.expiresAt);
    // (with IMS-AKA the AkaSocket reads this.token for every request instead)
    if (this.#ua?.get('authorization_jwt')) this.#ua.set('authorization_jwt', `Bearer ${this.token}`);
    clearTimeout(this.#refresh);
    const inMs = Math.max(1000, (this.#expiresAt - Date.now()) * REFRESH_AT);
    this.#refresh = setTimeout(async () => {
      try {
        this.#setToken(await this.#tokenRequest({ headers: { authorization: `Bearer ${this.token}` } }));
        this.#emit({ type: 'token-refreshed', expiresAt: new Date(this.#expiresAt).toISOString() });
      } catch (e) {
        this.#fail(`the access token could not be renewed: ${e.message}`);
      }
    }, inMs);
  }

  #teardown() {
    clearTimeout(this.#refresh);
    clearInterval(this.#sampler);
    for (const call of this.#calls.values()) this.#closeMedia(call);
    try { this.#ua?.stop(); } catch { /* already stopped */ }
    this.#ua = null;
    this.ws = null;
    this.token = null;
    this.user = null;
    this.identities = [];
    this.identity = null;
  }

  #pcConfig(bundlePolicy) {
    return { iceServers: this.iceServers, ...(bundlePolicy ? { bundlePolicy } : {}) };
  }

  #newSession({ session, originator, request }) {
    const callId = request.call_id;
    const call = { callId, session, direction: originator === 'local' ? 'mo' : 'mt', peer: session.remote_identity?.uri?.user ?? '?',
      state: originator === 'local' ? 'calling' : 'incoming', samples: [], last: null, startedAt: Date.now() };
    this.#calls.set(callId, call);
    session.on('progress', (e) => {
      if (call.direction === 'mo') this.#emit({ type: 'ringing', callId, sipCode: e.response?.status_code ?? null });
    });
    session.on('accepted', (e) => {
      call.state = 'active';
      call.answeredAt ??= Date.now();
      if (call.direction === 'mo') this.#emit({ type: 'answered', callId, sdp: e.response?.body ?? null });
      this.#changed();
    });
    session.on('hold', () => this.#changed());
    session.on('unhold', () => this.#changed());
    session.on('newDTMF', (e) => {
      if (e.originator === 'remote') this.#emit({ type: 'dtmf', callId, digit: e.dtmf.tone });
    });
    session.on('ended', (e) => this.#ended(call, e.originator === 'remote' ? 'remote-bye' : 'hangup', null));
    session.on('failed', (e) => {
      const code = e.message?.status_code ?? null;
      const reason = e.cause === JsSIP.C.causes.CANCELED ? 'canceled'
        : e.cause === JsSIP.C.causes.REJECTED || e.cause === JsSIP.C.causes.BUSY ? 'rejected' : `failed: ${e.cause}`;
      this.#ended(call, reason, code);
    });
    if (call.direction === 'mt') {
      this.#emit({ type: 'incoming', callId, from: call.peer, sdp: request.body ?? null,
        assertedIdentity: request.getHeaders('P-Asserted-Identity') });
    }
    this.#changed();
  }

  #watchPc(call) {
    const pc = call.session.connection;
    if (!pc || call.pc === pc) return;
    call.pc = pc;
    pc.addEventListener('track', (e) => {
      if (e.track.kind === 'audio') call.remoteStream = e.streams[0] ?? new MediaStream([e.track]);
      this.dispatchEvent(new CustomEvent('track', { detail: { call: call.callId, track: e.track, streams: e.streams } }));
    });
    pc.addEventListener('iceconnectionstatechange', () => this.#changed());
    // mediaUp (calls()): ICE and DTLS connected, once (as LabClient's)
    pc.addEventListener('connectionstatechange', () => {
      if (pc.connectionState === 'connected' && !call.mediaUp) {
        call.mediaUp = true;
        this.#changed();
      }
    });
  }

  async #ended(call, reason, sipCode) {
    if (call.state === 'ended') return;
    if (call.pc && call.pc.signalingState !== 'closed') call.last = await readStats(call.pc).catch(() => call.last);
    call.state = 'ended';
    call.reason = reason;
    call.sipCode = sipCode;
    call.endedAt = Date.now();
    this.#closeMedia(call);
    this.#emit({ type: 'ended', callId: call.callId, reason, ...(sipCode != null ? { sipCode } : {}) });
    this.#changed();
  }

  #closeMedia(call) {
    call.stream?.getTracks().forEach((t) => t.stop());
  }

  async #sampleAll() {
    for (const call of this.#calls.values()) {
      if (!call.pc || call.pc.signalingState === 'closed' || call.state === 'ended') continue;
      try {
        const s = await readStats(call.pc);
        const prev = call.last;
        const dt = prev ? (s.t - prev.t) / 1000 : 0;
        const rate = (now, before) => (dt > 0 && now >= before ? ((now - before) * 8) / dt / 1000 : null);
        s.kbpsSent = rate(s.bytesSent, prev?.bytesSent);
        s.kbpsReceived = rate(s.bytesReceived, prev?.bytesReceived);
        const dLost = dt > 0 ? Math.max(0, s.packetsLost - prev.packetsLost) : null;
        const dRecv = dt > 0 ? s.packetsReceived - prev.packetsReceived : null;
        s.lossPct = dt > 0 && dLost + dRecv > 0 ? (100 * dLost) / (dLost + dRecv) : (dt > 0 ? 0 : null);
        call.last = s;
        call.samples.push(s);
        if (call.samples.length > MAX_SAMPLES) call.samples.shift();
        this.dispatchEvent(new CustomEvent('sample', { detail: { callId: call.callId, sample: s } }));
      } catch { /* closed meanwhile */ }
    }
  }

  #active(callId) {
    const call = this.#calls.get(callId);
    if (!call || call.state === 'ended' || call.state === 'incoming') throw this.#fail(`no active call ${callId}`);
    return call;
  }

  #emit(msg) {
    const i = this.events.push({ t: Date.now(), msg }) - 1;
    const w = this.#waiters.find((x) => x.match(this.events[i], i));
    if (w) {
      this.#consumed.add(i);
      clearTimeout(w.timer);
      this.#waiters = this.#waiters.filter((x) => x !== w);
      w.resolve(msg);
    }
    this.dispatchEvent(new CustomEvent('message', { detail: msg }));
  }

  #requireSession() {
    if (!this.#ua || !this.ws) throw this.#fail('not registered with the eP-CSCF');
  }

  #fail(text) {
    this.dispatchEvent(new CustomEvent('failure', { detail: text }));
    return new Error(text);
  }

  #changed() {
    this.dispatchEvent(new Event('change'));
  }
}
