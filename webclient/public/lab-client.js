// The browser side of the gateway's API (docs/architecture.md "Browser API"): REST login, one
// WebSocket per session, non-trickle JSEP (full ICE gathering before an SDP is sent), and one
// RTCPeerConnection per call. UI-free so automation (window.labClient) and the page share it.
import { readStats, EMPTY_STATS } from './rtc-stats.js';
import { CallDataChannels, DEFAULT_CHANNELS, channelsOf, dataSectionRemoved, withDataSectionRemoved, withDataSectionUnbundled, withDcmap } from './data-channels.js';
import { CallText } from './rtt.js';
import { warmUp, warmUpWanted } from './prewarm.js';

// getStats, or `fallback` when it fails or does not settle within 2 s: Firefox never settles a
// getStats() whose peer connection is closed while it runs (a call ending under a stats read).
function settledStats(pc, fallback) {
  let timer;
  return Promise.race([
    readStats(pc).catch(() => fallback),
    new Promise((resolve) => { timer = setTimeout(() => resolve(fallback), 2000); }),
  ]).finally(() => clearTimeout(timer));
}

const GATHER_TIMEOUT_MS = 5000;   // loopback-only gathering finishes in well under a second
const ICE_SERVER_WAIT_MS = 1000;  // an MT answer's ICE checks wait this long at most for a STUN/TURN server's answer
const REPLY_TIMEOUT_MS = 10000;
const SAMPLE_EVERY_MS = 1000;
const MAX_SAMPLES = 3600;
// gateway errors without a callId that can only be the answer to a pending `call`
const CALL_ERRORS = new Set(['bad-sdp', 'bad-message', 'media-failed', 'sip-failed', 'too-large', 'internal',
  'too-many-calls', 'gateway-busy', 'too-many-mlines', 'too-many-candidates', // these four: quotas (docs/security.md)
  'forbidden-target']); // a raw host the browser may not call (docs/security.md "Call targets")

export class LabClient extends EventTarget {
  user = null;
  token = null;
  ws = null;
  events = [];              // every gateway message: {t (epoch ms), msg}
  wsRttMs = null;           // the WebSocket's round trip at login (`ping` → `pong`), ms
  // A throw-away connection of two local peer connections at login, so that the first call does not pay the browser's
  // first-connection cost (prewarm.js; Firefox's first call 30-50 ms sooner to media): 'auto' (Firefox only), true, false.
  prewarm = 'auto';
  prewarmed = null;         // what it did: { ms, connected }
  #consumed = new Set();    // indexes of events already handed out by waitFor
  #waiters = [];
  #calls = new Map();       // callId -> call record
  #pending = [];            // call() requests waiting for the gateway's `calling`
  #sampler = null;
  // getUserMedia's audio constraints. Automation sending a test signal (the audio-quality check)
  // turns echo cancellation, noise suppression and gain control off; people keep the defaults.
  audioConstraints = true;
  // RTCPeerConnection iceServers (e.g. [{urls: 'stun:198.18.1.1:3478'}] for server-reflexive candidates
  // behind a NAT). None by default: rtpengine has a routable address and is ICE-lite, so host or mDNS
  // candidates (peer-reflexive behind a NAT) are enough (docs/media.md "ICE role"). A gateway with
  // TURN (lab.webrtc.turn-uris) hands each login a TURN server with credentials that expire with the session: login()
  // puts it here (docs/security.md "TURN").
  iceServers = [];

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
    // the registered public user identities (P-Associated-URI) and the default one a call goes out as
    this.identities = Array.isArray(body.identities) ? body.identities : [];
    this.identity = body.identity ?? null;
    if (Array.isArray(body.iceServers)) this.iceServers = body.iceServers;
    await this.#openWs(body.wsUrl, body.wsProtocols);
    // one `ping` over the new socket before the login resolves: its round trip is wsRttMs (null when no `pong` came in
    // 2 s: the login stands). It also runs the gateway's WebSocket receive and send code once before a call needs it:
    // on a fresh gateway the first call's `calling` took ~12 ms to send and held its `ringing` behind it (issue #26).
    this.wsRttMs = await this.#ping(2000);
    if (warmUpWanted(this.prewarm) && !this.prewarmed) this.prewarmed = await warmUp();
    this.#sampler = setInterval(() => this.#sampleAll(), SAMPLE_EVERY_MS);
    this.#changed();
    return { user: this.user, token: this.token, prewarmed: this.prewarmed };
  }

  // The DELETE goes first and the socket is closed after its answer: a gateway without a reconnect grace
  // (lab.api.ws-reconnect-grace-ms=0, the default) ends the session as soon as its socket closes, and a DELETE that
  // came after that close was refused 401 (issue #29).
  async logout() {
    const token = this.token;
    this.token = null;
    clearInterval(this.#sampler);
    for (const call of this.#calls.values()) this.#closeMedia(call);
    const ws = this.ws;
    this.ws = null; // its close (the gateway's, after the DELETE, or ours) is no failure to show
    let status = null;
    try {
      if (token) {
        const res = await fetch('/api/v1/sessions/current', { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
        status = res.status;
        // the session's gateway died and another one ended its calls (docs/scale-out.md, gateway failover): 200 with
        // {ended: [{callId, reason}]}; each call ends here as if its `ended` had come on the WebSocket
        if (status === 200) {
          const body = await res.json().catch(() => ({}));
          for (const e of Array.isArray(body.ended) ? body.ended : []) this.#handle({ type: 'ended', callId: e.callId, reason: e.reason });
        }
      }
    } finally {
      ws?.close(1000, 'logout');
      this.user = null;
      this.identities = [];
      this.identity = null;
      this.#changed();
    }
    return { status };
  }

  // imsCodec (optional): PCMA, PCMU, G722, AMR-WB, AMR: the gateway forces it on the IMS leg (transcoding).
  // dtmf: 'inject' makes the call take WebSocket `dtmf` (rtpengine injects the digits, at the price of
  // decoding and re-encoding our audio); by default the call is relayed and DTMF goes by RTCDTMFSender.
  // video: also send/receive video (camera; Chromium's fake device gives a test pattern);
  // videoCodec: 'VP8' | 'H264' offers only that video codec (setCodecPreferences);
  // bundlePolicy: RTCPeerConnection policy, default 'balanced' (docs/media.md "BUNDLE");
  // identity: one of this.identities to call as (the gateway refuses another with `bad-identity`); default: this.identity.
  // dataChannels: true (the chat channel, DEFAULT_CHANNELS) or a list of {id, label, app, …}: IMS application data
  // channels, negotiated with a=dcmap (data-channels.js; the gateway relays them through its data-channel endpoint);
  // a channel with protocol 't140' (rtt.js T140_CHANNEL) is real-time text: sendText(), realTimeText().
  async call(to, { imsCodec, dtmf, video = false, videoCodec, bundlePolicy, identity, dataChannels } = {}) {
    this.#requireSession();
    const call = { callId: null, direction: 'mo', peer: to, state: 'starting', samples: [], last: null, video, startedAt: Date.now(), timing: {} };
    try {
      call.stream = await navigator.mediaDevices.getUserMedia(constraints(video, this.audioConstraints));
      this.dispatchEvent(new CustomEvent('local-media', { detail: { stream: call.stream } }));
      call.pc = this.#newPc(call, bundlePolicy);
      for (const track of call.stream.getTracks()) call.pc.addTrack(track, call.stream);
      preferVideoCodec(call.pc, videoCodec);
      if (dataChannels) this.#openDataChannels(call, dataChannels === true ? DEFAULT_CHANNELS : dataChannels);
      await call.pc.setLocalDescription(await call.pc.createOffer());
      await gatherComplete(call.pc);
    } catch (e) {
      this.#closeMedia(call);
      throw this.#fail(`call to ${to} failed: ${e.message}`);
    }
    const reply = new Promise((resolve, reject) => this.#pending.push({ call, resolve, reject }));
    const timer = setTimeout(() => this.#rejectPending(call, `no 'calling' reply within ${REPLY_TIMEOUT_MS} ms`), REPLY_TIMEOUT_MS);
    call.timing.offerSent = performance.now();
    const sdp = call.dc ? withDcmap(call.pc.localDescription.sdp, call.dc.wanted()) : call.pc.localDescription.sdp;
    this.#send({ type: 'call', to, sdp, ...(imsCodec ? { imsCodec } : {}), ...(dtmf ? { dtmf } : {}),
      ...(identity ? { identity } : {}) });
    try {
      return await reply;
    } finally {
      clearTimeout(timer);
    }
  }

  // video: send our camera on an offered video m-line (else the answer only receives video);
  // videoCodec: 'VP8' | 'H264' answers with only that video codec; bundlePolicy as for call().
  // Ignored with preconditions (the SDP answer went out as `media` already, audio only).
  // dtmf: 'inject' as for call(); with preconditions too late (the gateway then answers an error).
  async answer(callId, { dtmf, video = false, videoCodec, bundlePolicy } = {}) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (!call || call.direction !== 'mt' || call.state !== 'incoming') throw this.#fail(`no incoming call ${callId} to answer`);
    call.state = 'answering';
    call.timing.answerCalled ??= performance.now();
    call.video = video;
    call.videoCodec = videoCodec;
    call.bundlePolicy = bundlePolicy;
    this.#changed();
    // With preconditions the SDP answer already went out as `media`; accepting needs no SDP.
    const sdp = call.preconditions ? await call.earlyMedia : await this.#prepareAnswer(call);
    if (call.state === 'ended') {   // caller gave up while we were gathering
      this.#closeMedia(call);
      throw this.#fail(`call ${callId} ended before it was answered`);
    }
    call.timing.answerSent ??= performance.now();
    this.#send({ type: 'answer', callId, ...(call.preconditions ? {} : { sdp }), ...(dtmf ? { dtmf } : {}) });
    call.answeredAt ??= Date.now();
    this.#answeredMt(call);
    this.#changed();
    return callId;
  }

  // An MT call is 'answered' once our answer went out: the gateway's 200 follows at once, and an MO call gets its
  // 'answered' at the same point (the far end's 200). Only then do re-offers, hold and ICE recovery (#recoverIce) apply
  // to it. An offerless incoming call has no answer yet (the IMS party's comes in the ACK): it stays 'answering' until
  // the gateway's `answered` brings it.
  #answeredMt(call) {
    if (call.state === 'answering' && !call.offerless) call.state = 'answered';
  }

  // Media for an incoming call: our tracks, the remote offer, a complete (non-trickle) answer SDP.
  // An offerless incoming call (the IMS INVITE had no SDP): our tracks and a complete offer instead; the
  // gateway puts it in its 200 and sends the answer from the IMS party's ACK as `answered`.
  async #prepareAnswer(call) {
    if (call.offerless) return this.#prepareOffer(call);
    try {
      const video = call.video && /^m=video [1-9]/m.test(call.offerSdp);
      call.stream = await navigator.mediaDevices.getUserMedia(constraints(video, this.audioConstraints));
      this.dispatchEvent(new CustomEvent('local-media', { detail: { stream: call.stream } }));
      call.pc = this.#newPc(call, call.bundlePolicy);
      // remote offer first, so addTrack reuses the offered transceivers (one m-line each, sendrecv); its candidates
      // only once our ICE servers have answered (withoutCandidates)
      const offer = withoutCandidates(call.offerSdp);
      await call.pc.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
      for (const track of call.stream.getTracks()) call.pc.addTrack(track, call.stream);
      preferVideoCodec(call.pc, call.videoCodec);
      // the offer's application data channels (a=dcmap): the same channels here, accepted in the answer
      const offered = channelsOf(call.offerSdp);
      if (offered.length) this.#openDataChannels(call, offered);
      let added = false;
      const addRemote = () => {
        if (added || call.pc.signalingState === 'closed') return;
        added = true;
        for (const c of offer.candidates) {
          call.pc.addIceCandidate(c).catch((e) => { if (call.pc.signalingState !== 'closed') this.#fail(`call ${call.callId}: remote candidate refused: ${e.message}`); });
        }
      };
      iceServersAnswered(call.pc).then(addRemote);
      await call.pc.setLocalDescription(await call.pc.createAnswer());
      await gatherComplete(call.pc);
      addRemote();
      return call.dc ? withDcmap(call.pc.localDescription.sdp, call.dc.wanted()) : call.pc.localDescription.sdp;
    } catch (e) {
      this.#closeMedia(call);
      throw this.#fail(`answer ${call.callId} failed: ${e.message}`);
    }
  }

  async #prepareOffer(call) {
    try {
      call.stream = await navigator.mediaDevices.getUserMedia(constraints(call.video, this.audioConstraints));
      this.dispatchEvent(new CustomEvent('local-media', { detail: { stream: call.stream } }));
      call.pc = this.#newPc(call, call.bundlePolicy);
      for (const track of call.stream.getTracks()) call.pc.addTrack(track, call.stream);
      preferVideoCodec(call.pc, call.videoCodec);
      await call.pc.setLocalDescription(await call.pc.createOffer());
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

  // A new offer in an answered call (RFC 3264 §8): `direction` changes our audio (sendonly = hold,
  // sendrecv = resume), `iceRestart` gets new ICE credentials. Resolves once the gateway's `reanswer`
  // is applied; on a refusal the offer is rolled back and the call goes on as before.
  async reoffer(callId, { direction = null, iceRestart = false, unbundleData = false } = {}) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (!call?.pc || call.state === 'ended' || call.pc.signalingState !== 'stable') throw this.#fail(`call ${callId} has no settled media to re-offer`);
    if (call.renegotiation) throw this.#fail(`call ${callId} has a re-offer under way`);
    if (direction) for (const t of call.pc.getTransceivers()) if (t.currentDirection !== 'stopped') t.direction = direction;
    let offer = await call.pc.createOffer({ iceRestart });
    // a data channel added mid-call on Chromium: its section out of the established BUNDLE group (data-channels.js)
    if (unbundleData && !/Firefox\//.test(navigator.userAgent)) offer = { type: 'offer', sdp: withDataSectionUnbundled(offer.sdp) };
    await call.pc.setLocalDescription(offer);
    await gatherComplete(call.pc);
    const done = new Promise((resolve, reject) => { call.renegotiation = { resolve, reject }; });
    const timer = setTimeout(() => this.#reofferFailed(call, `no 'reanswer' within ${REPLY_TIMEOUT_MS} ms`), REPLY_TIMEOUT_MS);
    this.#send({ type: 'reoffer', callId, sdp: this.#withOurChannels(call, call.pc.localDescription.sdp) });
    try {
      return await done;
    } finally {
      clearTimeout(timer);
    }
  }

  // Data channels added to an answered call (issue #25, docs/datachannel.md "Mid-call"): `channels` as call()'s
  // dataChannels (true: the chat channel; a channel with protocol 't140' is real-time text); the page re-offers with
  // their a=dcmap lines (the gateway re-INVITEs the IMS side with m=application, or m=text for a T.140 channel alone).
  // Resolves once the gateway's re-answer is applied. Only a call without data channels can get them.
  async addDataChannels(callId, channels = true) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (!call?.pc || call.state === 'ended') throw this.#fail(`call ${callId} has no media to add data channels to`);
    if (call.dc || call.dcRemoved) throw this.#fail(`call ${callId} has had data channels already; only a call's first ones can be added`);
    if (call.renegotiation) throw this.#fail(`call ${callId} has a re-offer under way`);
    this.#openDataChannels(call, channels === true ? DEFAULT_CHANNELS : channels);
    return this.reoffer(callId, { unbundleData: true });
  }

  // Removes the call's data channels (and its real-time text): closes them and re-offers the data-channel section at
  // port 0 (the gateway re-INVITEs the IMS side with port 0 and ends the endpoint's session). The call goes on.
  async removeDataChannels(callId) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (!call?.dc || call.dcRemoved) throw this.#fail(`call ${callId} has no data channels to remove`);
    call.dc.close();
    call.dcRemoved = true;
    return this.reoffer(callId);
  }

  // The SDP the page sends the gateway: its channels' a=dcmap lines (RFC 8864), or its data section at port 0 once removed.
  #withOurChannels(call, sdp) {
    if (call.dcRemoved) return withDataSectionRemoved(sdp);
    return call.dc ? withDcmap(sdp, call.dc.wanted()) : sdp;
  }

  // Makes the local video encoder start again with a key frame (an encoding switched off and on): what a
  // far end's PLI would do, for UEs that send no RTCP feedback (the lab's echoing SIPp UEs).
  async refreshVideo(callId) {
    const pc = this.#calls.get(callId)?.pc;
    if (!pc) throw this.#fail(`unknown call ${callId}`);
    for (const sender of pc.getSenders().filter((x) => x.track?.kind === 'video')) {
      for (const active of [false, true]) {
        const params = sender.getParameters();
        params.encodings.forEach((e) => { e.active = active; });
        await sender.setParameters(params);
      }
    }
  }

  // Mute: the call's microphone track stops sending sound (silence frames go on; no re-offer needed).
  setMuted(callId, muted) {
    const call = this.#calls.get(callId);
    if (!call?.stream) throw this.#fail(`call ${callId} has no microphone to mute`);
    for (const t of call.stream.getAudioTracks()) t.enabled = !muted;
    call.muted = Boolean(muted);
    this.#changed();
    return call.muted;
  }

  hold(callId) { return this.reoffer(callId, { direction: 'sendonly' }); }

  resume(callId) { return this.reoffer(callId, { direction: 'sendrecv' }); }

  // What the call's peer connection has agreed: for tests and the page (directions, ICE, SDPs).
  media(callId) {
    const pc = this.#calls.get(callId)?.pc;
    if (!pc) return null;
    return {
      signalingState: pc.signalingState,
      iceConnectionState: pc.iceConnectionState,
      transceivers: pc.getTransceivers().map((t) => ({ kind: t.receiver.track.kind, direction: t.direction, currentDirection: t.currentDirection })),
      localSdp: pc.localDescription?.sdp ?? null,
      remoteSdp: pc.remoteDescription?.sdp ?? null,
    };
  }

  hangup(callId) {
    this.#requireSession();
    const call = this.#calls.get(callId);
    if (call && call.state !== 'ended') call.state = 'hanging-up';
    this.#send({ type: 'hangup', callId });
    this.#changed();
  }

  // The keypad: the browser's own RTCDTMFSender when the call has one and telephone-event was negotiated
  // (relayed by rtpengine like the audio), else the WebSocket `dtmf` message (which the gateway takes on
  // calls placed/answered with dtmf: 'inject' or transcoded anyway; otherwise it answers `dtmf-unavailable`,
  // shown as a failure). Resolves to the path taken: 'rtcdtmfsender' or 'websocket'.
  keypad(callId, digits, durationMs = 100) {
    this.#requireSession();
    const dtmf = this.#audioSender(callId)?.dtmf;
    if (dtmf?.canInsertDTMF) {
      // insertDTMF replaces what is still queued: append, so quick key presses all go out
      dtmf.insertDTMF(dtmf.toneBuffer + digits, durationMs, 70);
      return 'rtcdtmfsender';
    }
    this.dtmf(callId, digits, durationMs);
    return 'websocket';
  }

  // DTMF through the gateway: rtpengine injects the digits toward the IMS party as RFC 4733 events
  // (docs/media.md "DTMF"), on calls that take it (call/answer with dtmf: 'inject', or transcoded).
  // digits: 1-32 of 0-9 * # A-D; durationMs 40..2000 (gateway default 100).
  dtmf(callId, digits, durationMs) {
    this.#requireSession();
    this.#send({ type: 'dtmf', callId, digits, ...(durationMs != null ? { durationMs } : {}) });
  }

  // DTMF from the browser's own RTCDTMFSender (RFC 4733 in the SRTP stream); resolves when all tones
  // went out. Needs telephone-event in the gateway's SDP answer (canInsertDTMF).
  insertDtmf(callId, tones, durationMs = 100, gapMs = 70) {
    const sender = this.#audioSender(callId);
    if (!sender?.dtmf) throw this.#fail(`call ${callId} has no audio sender for DTMF`);
    if (!sender.dtmf.canInsertDTMF) throw this.#fail(`call ${callId}: no telephone-event negotiated, cannot insert DTMF`);
    return new Promise((resolve) => {
      const done = (e) => {
        if (e.tone !== '') return;
        sender.dtmf.removeEventListener('tonechange', done);
        resolve(tones);
      };
      sender.dtmf.addEventListener('tonechange', done);
      sender.dtmf.insertDTMF(tones, durationMs, gapMs);
    });
  }

  #audioSender(callId) {
    return this.#calls.get(callId)?.pc?.getSenders().find((s) => s.track?.kind === 'audio') ?? null;
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
    if (call.pc && call.pc.signalingState !== 'closed') call.last = await settledStats(call.pc, call.last);
    return { callId: call.callId, ...(call.last ?? EMPTY_STATS) };
  }

  // The call's current local and remote SDP as the browser applied them (null once closed).
  sdp(callId) {
    const pc = this.#calls.get(callId)?.pc;
    return { local: pc?.localDescription?.sdp ?? null, remote: pc?.remoteDescription?.sdp ?? null };
  }

  // What ICE gathering did in the call's RTCPeerConnection: [{ms, candidate|error|state, …}] (see #newPc).
  gathering(callId) {
    return this.#calls.get(callId)?.gathering ?? [];
  }

  // The remote audio of a call (set once its answer/offer SDP is applied), or null.
  remoteStream(callId) {
    return this.#calls.get(callId)?.remoteStream ?? null;
  }

  samples(callId) {
    return this.#calls.get(callId)?.samples ?? [];
  }

  // The page's view of a call's set-up (ms, performance.now() differences; null until it happened). MO: `call`
  // sent -> answer SDP received (setupMs) -> applied (setRemoteDescription done) -> ICE connected -> DTLS connected
  // (offerToConnectedMs). MT: the `incoming` offer received -> our `answer` sent (answerMs) -> connected; answerMs is
  // the user's (or the harness's) wait before answer() (incomingToAnswerCallMs) plus the page's own work in it
  // (answerPrepareMs: getUserMedia, setRemoteDescription, createAnswer, gathering). DTLS connected is the DTLS
  // transport's own 'connected' (RTCDtlsTransport; the peer connection's where a browser has none): Chromium's
  // aggregate connectionState 'connected' (offerToPcConnectedMs) trails it by tens of ms on this lab's host, while its
  // media already flows (docs/media.md "The page's clock").
  timing(callId) {
    const t = this.#calls.get(callId)?.timing ?? {};
    const since = (a, b) => (a == null || b == null ? null : Math.round((b - a) * 10) / 10);
    const start = t.offerSent ?? t.offerReceived;
    const answer = t.answerReceived ?? t.answerSent;
    const connected = t.dtlsConnected ?? t.connected;
    // MT: media can be up before the page's answer goes out (preconditions: early media; or ICE and DTLS done while
    // the answer was prepared). Then there is no "answer -> connected" step, not a negative one.
    const beforeAnswer = (c) => answer != null && c != null && c < answer;
    const afterAnswer = (c) => (beforeAnswer(c) ? null : since(answer, c));
    return {
      setupMs: since(t.offerSent, t.answerReceived), answerMs: since(t.offerReceived, t.answerSent),
      incomingToAnswerCallMs: since(t.offerReceived, t.answerCalled), answerPrepareMs: since(t.answerCalled, t.answerSent),
      offerToAnswerAppliedMs: since(t.offerSent, t.answerApplied), answerHandledMs: since(t.answerReceived, t.answerHandled),
      answerToTrackMs: since(t.answerReceived, t.track),
      offerToIceConnectedMs: since(start, t.iceConnected), offerToConnectedMs: since(start, connected),
      answerToConnectedMs: afterAnswer(connected),
      offerToPcConnectedMs: since(start, t.connected), answerToPcConnectedMs: afterAnswer(t.connected),
      ...(beforeAnswer(connected) ? { mediaUpBeforeAnswer: true } : {}),
      // the same points on the epoch clock (ms, performance.timeOrigin + now), for the wire timeline to place the
      // page's own steps between the capture's frames: `call` sent -> on the wire, `answered` on the wire -> here
      at: Object.fromEntries(['offerSent', 'answerReceived', 'answerApplied', 'dtlsConnected', 'offerReceived', 'answerSent']
        .map((k) => [k, t[k] == null ? null : Math.round((performance.timeOrigin + t[k]) * 1000) / 1000])),
    };
  }

  calls() {
    // startedAt/answeredAt/endedAt: epoch ms (null until then); video: the call sends/receives video (MO asked
    // for it, MT answered it); offersVideo: an incoming offer has a video m-line; held: our side put it on hold.
    // mediaUp: the call's ICE and DTLS have been connected (once; it stays true through a later ICE restart).
    return [...this.#calls.values()].map(({ callId, direction, peer, state, reason, sipCode, preconditions, alerted, dtmfReceived,
      startedAt, answeredAt, endedAt, video, offerSdp, muted, pc, dc, text, iceRestarts, timing }) =>
      ({ callId, direction, peer, state, reason, sipCode, preconditions, alerted, dtmfReceived: dtmfReceived ?? '',
        startedAt: startedAt ?? null, answeredAt: answeredAt ?? null, endedAt: endedAt ?? null, video: Boolean(video),
        offersVideo: /^m=video [1-9]/m.test(offerSdp ?? ''), muted: Boolean(muted), dataChannels: dc ? dc.summary() : null,
        realTimeText: text ? text.summary() : null,
        held: Boolean(pc && pc.signalingState !== 'closed' && pc.getTransceivers().some((t) => t.currentDirection === 'sendonly' || t.currentDirection === 'inactive')),
        iceRestarts: iceRestarts ?? 0, iceConnectionState: pc?.iceConnectionState ?? null,
        mediaUp: timing?.connected != null }));
  }

  // ---- internals ----

  // The token goes as a WebSocket subprotocol (`lab.token.<token>` next to `lab.v1`), never in the URL.
  #openWs(wsUrl, protocols) {
    const url = new URL(wsUrl || '/ws', location.href);
    if (url.protocol === 'http:') url.protocol = 'ws:';
    if (url.protocol === 'https:') url.protocol = 'wss:';
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols ?? ['lab.v1', `lab.token.${this.token}`]);
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

  async #ping(timeoutMs) {
    const t0 = performance.now();
    const pong = this.waitFor('pong', null, timeoutMs, this.events.length);
    this.#send({ type: 'ping' });
    try {
      await pong;
      return Math.round((performance.now() - t0) * 10) / 10;
    } catch {
      return null;
    }
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
    // the page's own handling of the answer (its listeners and the UI's render) ends here: timing().answerHandledMs
    if (msg.type === 'answered') { const c = this.#calls.get(msg.callId); if (c?.timing) c.timing.answerHandled ??= performance.now(); }
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
          callId: msg.callId, direction: 'mt', peer: msg.from, state: 'incoming', offerSdp: msg.sdp, samples: [], last: null, startedAt: Date.now(),
          timing: { offerReceived: performance.now() },
          preconditions: msg.preconditions === true, alerted: msg.preconditions !== true, offerless: msg.offerless === true,
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
        call.answeredAt ??= Date.now();
        this.#applyAnswer(call, msg);
        break;
      case 'reanswer':
        if (call?.renegotiation) this.#applyReanswer(call, msg.sdp);
        break;
      case 'reoffer':
        if (call?.pc) this.#answerReoffer(call, msg.sdp);
        break;
      case 'media-check':   // the call's relay restarted: does our media still arrive? (docs/scale-out.md)
        if (call?.pc) this.#reportMedia(call);
        break;
      case 'dtmf':   // a digit the IMS party sent (RFC 4733), one message per digit
        if (call) call.dtmfReceived = (call.dtmfReceived ?? '') + msg.digit;
        this.dispatchEvent(new CustomEvent('dtmf', { detail: msg }));
        break;
      case 'ended':
        if (!call) break;
        if (call.renegotiation) this.#reofferFailed(call, 'the call ended');
        call.state = 'ended';
        call.endedAt = Date.now();
        call.reason = msg.reason;
        call.sipCode = msg.sipCode;
        this.#finish(call);
        break;
      case 'error':
        if (call?.renegotiation) {
          this.#reofferFailed(call, `${msg.code}: ${msg.message ?? ''}`);
        } else if (!msg.callId && CALL_ERRORS.has(msg.code) && this.#pending.length) {
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

  // `media-report`: the RTP packets (audio + video) this call received and decrypted so far, from getStats.
  async #reportMedia(call) {
    try {
      const s = await readStats(call.pc);
      this.#send({ type: 'media-report', callId: call.callId, packetsReceived: s.packetsReceived + s.videoPacketsReceived });
    } catch (e) {
      this.#fail(`call ${call.callId}: media-check not answered: ${e.message}`);
    }
  }

  #applyAnswer(call, msg) {
    if (!call?.pc || call.pc.signalingState !== 'have-local-offer') return; // already applied from a 183
    call.timing.answerReceived ??= performance.now();
    call.pc.setRemoteDescription({ type: 'answer', sdp: msg.sdp })
      .then(() => { call.timing.answerApplied ??= performance.now(); })
      .catch((e) => this.#fail(`call ${msg.callId}: gateway answer SDP rejected: ${e.message}`));
  }

  async #applyReanswer(call, sdp) {
    const r = call.renegotiation;
    call.renegotiation = null;
    try {
      await call.pc.setRemoteDescription({ type: 'answer', sdp });
      r.resolve(call.callId);
      this.#changed();
    } catch (e) {
      r.reject(this.#fail(`call ${call.callId}: gateway re-answer SDP rejected: ${e.message}`));
    }
  }

  async #reofferFailed(call, why) {
    const r = call.renegotiation;
    if (!r) return;
    call.renegotiation = null;
    if (call.pc?.signalingState === 'have-local-offer') await call.pc.setLocalDescription({ type: 'rollback' }).catch(() => {});
    r.reject(this.#fail(`re-offer on ${call.callId} failed: ${why}`));
  }

  // An offer from the IMS side (hold, resume, codec change): answer it in place, non-trickle.
  // Data channels in it: the first ones offered mid-call are opened as on an incoming call (a=dcmap); a data-channel
  // section at port 0 removes the call's (issue #25).
  async #answerReoffer(call, sdp) {
    try {
      await call.pc.setRemoteDescription({ type: 'offer', sdp });
      if (call.dc && !call.dcRemoved && dataSectionRemoved(sdp)) {
        call.dc.close();
        call.dcRemoved = true;
      } else if (!call.dc && !call.dcRemoved) {
        const offered = channelsOf(sdp);
        if (offered.length) this.#openDataChannels(call, offered);
      }
      await call.pc.setLocalDescription(await call.pc.createAnswer());
      await gatherComplete(call.pc);
      this.#send({ type: 'reanswer', callId: call.callId, sdp: this.#withOurChannels(call, call.pc.localDescription.sdp) });
    } catch (e) {
      this.#fail(`call ${call.callId}: cannot answer the re-offer: ${e.message}`);
    }
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
      call.last = await settledStats(call.pc, call.last);
    }
    this.#closeMedia(call);
    this.#changed();
  }

  // The call's application data channels (data-channels.js); their events go out as `data` {callId, kind, …}.
  #openDataChannels(call, wanted) {
    call.dc = new CallDataChannels(call.pc, wanted);
    // a T.140 channel (RFC 8865, subprotocol "t140") carries real-time text (rtt.js), not chat messages
    const t140 = call.dc.channels.find((c) => c.protocol === 't140');
    if (t140) {
      call.text = new CallText(t140.ch);
      call.text.addEventListener('text', (e) => {
        this.dispatchEvent(new CustomEvent('text', { detail: { callId: call.callId, ...e.detail } }));
        this.#changed();
      });
    }
    for (const kind of ['open', 'message', 'close']) {
      call.dc.addEventListener(kind, (e) => {
        this.dispatchEvent(new CustomEvent('data', { detail: { callId: call.callId, kind, ...e.detail } }));
        this.#changed();
      });
    }
  }

  // Sends a chat message on a call's data channel (label: default the first); false when no channel is open.
  sendData(callId, text, label) {
    const call = this.#calls.get(callId);
    return Boolean(call?.dc?.send(text, label));
  }

  // Real-time text: sends text on the call's T.140 channel now, a message per character; false when it is not open.
  sendText(callId, text) {
    return Boolean(this.#calls.get(callId)?.text?.type(text));
  }

  // A call's real-time text: {state, sent, received, shownReceived, messagesSent, messagesReceived}; null without.
  realTimeText(callId) {
    return this.#calls.get(callId)?.text?.summary() ?? null;
  }

  // The RTCDataChannel of a call's channel `label`, or null (bootstrap.js speaks HTTP on the bootstrap channel).
  dataChannel(callId, label) {
    return this.#calls.get(callId)?.dc?.channels.find((c) => c.label === label)?.ch ?? null;
  }

  // A call's data channels: per channel state, messages and bytes each way, delays (null: the call has none).
  dataChannels(callId) {
    return this.#calls.get(callId)?.dc?.summary() ?? null;
  }

  // The last messages of a call's data channels, oldest first: {label, dir, text, at}.
  dataLog(callId) {
    const dc = this.#calls.get(callId)?.dc;
    return dc ? dc.channels.flatMap((c) => c.log.map((m) => ({ label: c.label, ...m }))).sort((a, b) => a.at - b.at) : [];
  }

  #closeMedia(call) {
    call.dc?.close();
    call.pc?.close();
    call.stream?.getTracks().forEach((t) => t.stop());
  }

  // An answered call whose ICE connection turned 'disconnected' or 'failed' gets an ICE restart (a re-offer with new
  // credentials) 300 ms later if it did not come back by itself. A relay host that took a call over (docs/scale-out.md
  // "A relay host that does not come back") has the call's media and keys but not its ICE state (rtpengine keeps none
  // in Redis): the browser's consent checks go unanswered until new credentials are negotiated with it.
  #recoverIce(call) {
    if (call.iceRecovery) return;
    call.iceRecovery = setTimeout(async () => {
      call.iceRecovery = null;
      const st = call.pc?.iceConnectionState;
      if (call.state !== 'answered' || !(st === 'disconnected' || st === 'failed') || call.renegotiation || call.pc.signalingState !== 'stable') return;
      call.iceRestarts = (call.iceRestarts ?? 0) + 1;
      try {
        await this.reoffer(call.callId, { iceRestart: true });
      } catch { /* reoffer recorded the failure; the next state change tries again */ }
    }, 300);
  }

  #newPc(call, bundlePolicy) {
    // iceServers: none unless set (above). Default bundlePolicy 'balanced': rtpengine 10.5
    // cannot bundle, the gateway refuses a max-bundle offer (docs/media.md "BUNDLE").
    const pc = new RTCPeerConnection({ iceServers: this.iceServers, ...(bundlePolicy ? { bundlePolicy } : {}) });
    // What ICE gathering did, for diagnostics (gathering() below): each candidate's type, each STUN/TURN
    // error and each ICE connection state, ms after the RTCPeerConnection was made.
    const born = performance.now();
    const log = (e) => (call.gathering ??= []).push({ ms: Math.round(performance.now() - born), ...e });
    pc.onicecandidate = (e) => log(e.candidate ? { candidate: e.candidate.type ?? 'unknown', address: e.candidate.address ?? null, port: e.candidate.port ?? null } : { candidate: 'end' });
    pc.onicecandidateerror = (e) => log({ error: e.errorCode, text: e.errorText, url: e.url, address: e.address ?? null });
    pc.onicegatheringstatechange = () => {
      log({ state: pc.iceGatheringState });
      // watch the DTLS transports only once gathering is over: watching them from the signalling state change, while
      // Chromium 156 gathered an MT answer's candidates, lost its server-reflexive one (browser-nat's STUN case, 2 of 2)
      if (pc.iceGatheringState === 'complete') watchDtls(pc, call);
    };
    log({ iceServers: (pc.getConfiguration().iceServers ?? []).flatMap((x) => [x.urls].flat()) });
    pc.ontrack = (e) => {
      call.timing.track ??= performance.now();
      if (e.track.kind === 'audio') call.remoteStream = e.streams[0] ?? new MediaStream([e.track]);
      this.dispatchEvent(new CustomEvent('track', { detail: { call: call.callId, track: e.track, streams: e.streams } }));
    };
    pc.oniceconnectionstatechange = () => {
      log({ ice: pc.iceConnectionState });
      if (pc.iceConnectionState === 'connected' || pc.iceConnectionState === 'completed') call.timing.iceConnected ??= performance.now();
      if (pc.iceConnectionState === 'disconnected' || pc.iceConnectionState === 'failed') this.#recoverIce(call);
      this.#changed();
    };
    // 'connected': ICE and DTLS are up (the set-up timing's end, timing() below)
    // The DTLS transports' own 'connected' (RTCDtlsTransport, watched from the end of gathering on, watchDtls): the
    // handshake's end as the page sees it, beside the peer connection's aggregate state here (timing()).
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'connected' && call.timing.connected == null) {
        call.timing.connected = performance.now();
        this.#changed(); // mediaUp (calls()): the call screen shows its live charts from now on
      }
    };
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
        // audio bitrate (kbit/s, RTP payload + header bytes as getStats counts them) and loss of the last interval (%)
        // (null, not a negative rate, when a counter went back: Firefox restarts them when a re-offer or an
        // answer replaces an RTP stream)
        const rate = (now, before) => (dt > 0 && now >= before ? ((now - before) * 8) / dt / 1000 : null);
        s.kbpsSent = rate(s.bytesSent, prev?.bytesSent);
        s.kbpsReceived = rate(s.bytesReceived, prev?.bytesReceived);
        const dLost = dt > 0 ? Math.max(0, s.packetsLost - prev.packetsLost) : null;
        const dRecv = dt > 0 ? s.packetsReceived - prev.packetsReceived : null;
        s.lossPct = dt > 0 && dLost + dRecv > 0 ? (100 * dLost) / (dLost + dRecv) : (dt > 0 ? 0 : null);
        // video kbit/s each way, audio concealment (% of samples played out concealed) and jitter-buffer
        // delay (ms per emitted sample) over the last interval
        s.videoKbpsSent = rate(s.videoBytesSent, prev?.videoBytesSent);
        s.videoKbpsReceived = rate(s.videoBytesReceived, prev?.videoBytesReceived);
        const dSamples = dt > 0 ? s.totalSamplesReceived - prev.totalSamplesReceived : 0;
        s.concealedPct = dSamples > 0 ? (100 * Math.max(0, s.concealedSamples - prev.concealedSamples)) / dSamples : null;
        const dEmitted = dt > 0 ? s.jitterBufferEmittedCount - prev.jitterBufferEmittedCount : 0;
        s.jitterBufferMs = dEmitted > 0 ? (1000 * (s.jitterBufferDelay - prev.jitterBufferDelay)) / dEmitted : null;
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

function constraints(video, audio = true) {
  return { audio, video: video ? { width: 640, height: 480, frameRate: 15 } : false };
}

// Restricts the video transceivers to one codec family (VP8 or H264; H264 packetization-mode=1
// first, the mode IMS video UEs use, TS 26.114 5.2.2). No rtx/red/ulpfec: those only matter on the
// browser leg, and the IMS UE would be offered them too.
function preferVideoCodec(pc, videoCodec) {
  if (!videoCodec) return;
  const mime = `video/${videoCodec}`.toLowerCase();
  const caps = (RTCRtpReceiver.getCapabilities('video')?.codecs ?? []).filter((c) => c.mimeType.toLowerCase() === mime);
  if (!caps.length) throw new Error(`this browser cannot do ${videoCodec} video`);
  const mode1 = (c) => (/packetization-mode=1/.test(c.sdpFmtpLine ?? '') ? 0 : 1);
  caps.sort((a, b) => mode1(a) - mode1(b));
  for (const t of pc.getTransceivers()) {
    if (t.receiver.track?.kind === 'video') t.setCodecPreferences(caps);
  }
}

// Marks call.timing.dtlsConnected once every DTLS transport of the peer connection is 'connected' (one per m-line
// here: rtpengine cannot bundle, docs/media.md "BUNDLE"); called whenever a description may have made a new one.
function watchDtls(pc, call) {
  const transports = () => [...new Set((pc.getTransceivers?.() ?? []).map((t) => t.sender?.transport).filter(Boolean))];
  const check = () => {
    const all = transports();
    if (all.length && all.every((d) => d.state === 'connected')) call.timing.dtlsConnected ??= performance.now();
  };
  call.dtlsWatched ??= new WeakSet();
  for (const dtls of transports()) {
    if (call.dtlsWatched.has(dtls)) continue;
    call.dtlsWatched.add(dtls);
    dtls.addEventListener('statechange', check);
  }
  check();
}

// An offer's SDP without its candidates, and those candidates ({candidate, sdpMid, sdpMLineIndex}) to add once our ICE
// servers have answered (iceServersAnswered). Our answer should carry the server-reflexive candidate a STUN server gives,
// but Chromium stops gathering as soon as one candidate pair is connected (WebRTC P2PTransportChannel: a strongly
// connected pair stops the port allocator): with the offer's candidates known while it gathers, its first check to the
// ICE-lite rtpengine (a millisecond away) can connect the host pair before the STUN answer is in, and the
// server-reflexive candidate is dropped (browser-nat.test.mjs, MT with a STUN server; docs/media.md "ICE role").
function withoutCandidates(sdp) {
  const candidates = [];
  let index = -1;
  const kept = [];
  for (const line of sdp.split(/\r?\n/)) {
    if (line.startsWith('m=')) index += 1;
    if (index >= 0 && line.startsWith('a=candidate:')) {
      candidates.push({ line, index });
      continue;
    }
    if (index >= 0 && line === 'a=end-of-candidates') continue;
    kept.push(line);
  }
  // a section's a=mid may come after its candidates: look each section's up once the whole SDP is read
  const mids = [];
  index = -1;
  for (const line of kept) {
    if (line.startsWith('m=')) index += 1;
    else if (index >= 0 && line.startsWith('a=mid:')) mids[index] = line.slice(6);
  }
  return {
    sdp: kept.join('\r\n'),
    candidates: candidates.map(({ line, index: i }) => ({ candidate: line.slice(2), sdpMLineIndex: i, ...(mids[i] != null ? { sdpMid: mids[i] } : {}) })),
  };
}

// Resolves once the ICE servers the peer connection was given have answered: its first server-reflexive or relayed
// candidate, an ICE server error, the end of gathering, or ICE_SERVER_WAIT_MS (a server that never answers); at once
// without ICE servers (the lab's default: nothing to wait for, ICE may start while the rest is gathered).
function iceServersAnswered(pc) {
  if (!(pc.getConfiguration().iceServers ?? []).length) return Promise.resolve();
  return new Promise((resolve) => {
    const onCandidate = (e) => { if (!e.candidate || e.candidate.type === 'srflx' || e.candidate.type === 'relay') done(); };
    const onState = () => { if (pc.iceGatheringState === 'complete') done(); };
    const timer = setTimeout(() => done(), ICE_SERVER_WAIT_MS);
    function done() {
      clearTimeout(timer);
      pc.removeEventListener('icecandidate', onCandidate);
      pc.removeEventListener('icecandidateerror', done);
      pc.removeEventListener('icegatheringstatechange', onState);
      resolve();
    }
    pc.addEventListener('icecandidate', onCandidate);
    pc.addEventListener('icecandidateerror', done);
    pc.addEventListener('icegatheringstatechange', onState);
  });
}

// Non-trickle: the gateway/rtpengine want one SDP with all candidates. After an ICE restart the state
// can still read 'complete' from the old generation while the new description has no candidate yet.
function gatherComplete(pc) {
  const done = () => pc.iceGatheringState === 'complete' && /a=candidate:/.test(pc.localDescription?.sdp ?? '');
  if (done()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pc.removeEventListener('icegatheringstatechange', check);
      // send what was gathered; without any candidate the call cannot work
      if (/a=candidate:/.test(pc.localDescription?.sdp ?? '')) resolve();
      else reject(new Error(`ICE gathering found no candidate in ${GATHER_TIMEOUT_MS} ms`));
    }, GATHER_TIMEOUT_MS);
    function check() {
      if (!done()) return;
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', check);
      resolve();
    }
    pc.addEventListener('icegatheringstatechange', check);
  });
}
