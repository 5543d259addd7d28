// A call's set-up as the wire saw it (issue #26, docs/benchmarks.md "Set-up on the wire"): one capture in the lab's
// core namespace of the signalling only — the browsers' WebSocket frames to and from the gateway (on the browser
// link), the gateway's ng commands to rtpengine and their replies, and every SIP message on loopback (gateway,
// Kamailio's P-CSCF and S-CSCF, the SIPp UEs). Every packet is stamped by the same kernel clock, so the steps of
// one call can be told apart by who holds the message: the gateway, rtpengine, Kamailio, the UE, or (from the
// page's own clock minus the wire's) the browser. Needs CAP_NET_RAW (the lab runs as root) and tshark.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LAB } from './addresses.mjs';
import { startCapture } from './capture.mjs';

const run = promisify(execFile);
const NG_PORT = Number(LAB.LAB_RTPENGINE_NG.split(':').pop());
const GW_HTTP_PORT = Number(LAB.LAB_GW_PORT);
const GW_SIP_PORT = Number(LAB.LAB_GW_SIP_PORT);
const PCSCF_PORT = Number(LAB.LAB_PCSCF.split(':').pop());
// the lowest of the SIPp UEs' SIP ports (addresses.env LAB_UE<n>_SIP_PORT): a destination at or above it is a UE
const UE_SIP_MIN = Math.min(...Object.entries(LAB).filter(([n]) => /^LAB_UE\w*_SIP_PORT$/.test(n)).map(([, v]) => Number(v)));
// SIP on loopback: the P-CSCF (5060), S-CSCF (5062), the gateway (5070), the SIPp UEs (5080-5099) and the
// scenario's MT callers (5200 + i)
const SIP_PORTS = '5060-5299';

// Starts the capture (resolves once tcpdump listens); stop() returns the file.
export function startSignallingCapture(name = 'signalling') {
  return startCapture(null, name, {
    filter: `udp port ${NG_PORT} or udp portrange ${SIP_PORTS} or tcp port ${GW_HTTP_PORT}`,
    args: ['-B', '16384', '-s', '0'],
  });
}

async function fields(file, args, names) {
  const { stdout } = await run('tshark', ['-r', file, '-n', ...args, '-T', 'fields', '-E', 'separator=\u0001', '-E', 'occurrence=f',
    ...names.flatMap((n) => ['-e', n])], { maxBuffer: 256 * 1024 * 1024 });
  return stdout.split('\n').filter(Boolean).map((l) => l.split('\u0001'));
}

// The bencoded value of `key` at the top of an ng datagram ("<cookie> d...e"), for string values only.
function bencodedString(text, key) {
  const m = new RegExp(`${key.length}:${key}(\\d+):`).exec(text);
  return m ? text.substr(m.index + m[0].length, Number(m[1])) : null;
}

// Every signalling event of the capture, in time order: {t (epoch ms), kind: 'ws'|'ng'|'sip', ...}.
export async function signallingEvents(file) {
  const events = [];
  for (const [t, sp, dp, stream, text] of await fields(file, ['-Y', 'websocket.payload.text'],
    ['frame.time_epoch', 'tcp.srcport', 'tcp.dstport', 'tcp.stream', 'websocket.payload.text'])) {
    let msg = null;
    try { msg = JSON.parse(text); } catch { continue; }
    events.push({ t: Number(t) * 1000, kind: 'ws', toGateway: Number(dp) === GW_HTTP_PORT && Number(sp) !== GW_HTTP_PORT,
      stream: Number(stream), type: msg.type ?? null, callId: msg.callId ?? null });
  }
  for (const [t, sp, dp, data] of await fields(file, ['-Y', `udp.port==${NG_PORT}`, '-d', `udp.port==${NG_PORT},data`],
    ['frame.time_epoch', 'udp.srcport', 'udp.dstport', 'data.data'])) {
    const text = Buffer.from((data ?? '').replace(/:/g, ''), 'hex').toString('latin1');
    const cookie = text.split(' ', 1)[0];
    events.push({ t: Number(t) * 1000, kind: 'ng', toRtpengine: Number(dp) === NG_PORT, cookie,
      command: bencodedString(text, 'command'), callId: bencodedString(text, 'call-id') });
  }
  for (const [t, sp, dp, method, status, callId, cseq] of await fields(file, ['-Y', 'sip'],
    ['frame.time_epoch', 'udp.srcport', 'udp.dstport', 'sip.Method', 'sip.Status-Code', 'sip.Call-ID', 'sip.CSeq.method'])) {
    events.push({ t: Number(t) * 1000, kind: 'sip', src: Number(sp), dst: Number(dp), method: method || null,
      status: status ? Number(status) : null, callId, cseq });
  }
  events.sort((a, b) => a.t - b.t);
  // an ng reply carries its command's cookie only: it takes the command's call-id and name
  const byCookie = new Map();
  for (const e of events.filter((x) => x.kind === 'ng')) {
    if (e.toRtpengine) byCookie.set(e.cookie, e);
    else if (byCookie.has(e.cookie)) Object.assign(e, { callId: byCookie.get(e.cookie).callId, command: byCookie.get(e.cookie).command, reply: true });
  }
  return events;
}

const ms = (a, b) => (a == null || b == null ? null : Math.round((b.t - a.t) * 1000) / 1000);
// the gateway's ng call-id is its SIP Call-ID behind a per-gateway prefix (media/NgCommands)
const ngOf = (events, sipCallId, command, reply) => events.find((e) => e.kind === 'ng' && e.command === command && Boolean(e.reply) === reply
  && e.callId && e.callId.endsWith(sipCallId));
const sip = (events, callId, pred) => events.find((e) => e.kind === 'sip' && e.callId === callId && pred(e));

// MO: the page's `call` reaches the gateway -> ng offer -> INVITE out -> Kamailio -> UE -> 200 back -> ng answer ->
// `answered` leaves the gateway. Steps in ms, each owned by one party; null when a point is missing.
function moTimeline(events, callId) {
  const calling = events.find((e) => e.kind === 'ws' && !e.toGateway && e.type === 'calling' && e.callId === callId);
  if (!calling) return null;
  // `call` carries no call id: it is the last `call` on the same WebSocket before the gateway's `calling`
  const call = events.filter((e) => e.kind === 'ws' && e.toGateway && e.type === 'call' && e.stream === calling.stream && e.t <= calling.t).pop();
  const offer = ngOf(events, callId, 'offer', false);
  const offerReply = ngOf(events, callId, 'offer', true);
  const inviteOut = sip(events, callId, (e) => e.method === 'INVITE' && e.src === GW_SIP_PORT);
  const inviteAtUe = sip(events, callId, (e) => e.method === 'INVITE' && e.src === PCSCF_PORT && e.dst !== GW_SIP_PORT && e.dst >= UE_SIP_MIN);
  const okFromUe = inviteAtUe && sip(events, callId, (e) => e.status === 200 && e.cseq === 'INVITE' && e.src === inviteAtUe.dst);
  const okAtGw = sip(events, callId, (e) => e.status === 200 && e.cseq === 'INVITE' && e.dst === GW_SIP_PORT);
  const answer = ngOf(events, callId, 'answer', false);
  const answerReply = ngOf(events, callId, 'answer', true);
  const answered = events.find((e) => e.kind === 'ws' && !e.toGateway && e.type === 'answered' && e.callId === callId);
  // the 180 and its `ringing`: handled on the same SIP thread before the 200, so a slow `ringing` holds the 200 back
  const ringingAtGw = sip(events, callId, (e) => e.status === 180 && e.cseq === 'INVITE' && e.dst === GW_SIP_PORT);
  const ringing = events.find((e) => e.kind === 'ws' && !e.toGateway && e.type === 'ringing' && e.callId === callId);
  return {
    steps_ms: {
      'ws-call-to-ng-offer': ms(call, offer), 'ng-offer': ms(offer, offerReply), 'ng-offer-to-invite': ms(offerReply, inviteOut),
      'kamailio-invite-to-ue': ms(inviteOut, inviteAtUe), 'ue-invite-to-200': ms(inviteAtUe, okFromUe), 'kamailio-200-to-gateway': ms(okFromUe, okAtGw),
      '200-to-ng-answer': ms(okAtGw, answer), 'ng-answer': ms(answer, answerReply), 'ng-answer-to-answered': ms(answerReply, answered),
    },
    owners: { gateway: ['ws-call-to-ng-offer', 'ng-offer-to-invite', '200-to-ng-answer', 'ng-answer-to-answered'], rtpengine: ['ng-offer', 'ng-answer'],
      kamailio: ['kamailio-invite-to-ue', 'kamailio-200-to-gateway'], ue: ['ue-invite-to-200'] },
    wire_ms: ms(call, answered),
    // not a step of the sum: the 180 at the gateway -> `ringing` out, and how long the 200 had been waiting when it left
    ringing_ms: { '180-to-ringing': ms(ringingAtGw, ringing), '200-waiting-behind-ringing': okAtGw && ringing ? Math.max(0, ms(okAtGw, ringing)) : null },
    points: { call, answered },
  };
}

// MT: the UE's INVITE reaches the gateway -> ng offer -> `incoming` leaves; the page's `answer` arrives -> ng answer ->
// the 200 leaves the gateway -> Kamailio -> the calling UE.
function mtTimeline(events, callId) {
  const inviteAtGw = sip(events, callId, (e) => e.method === 'INVITE' && e.dst === GW_SIP_PORT);
  if (!inviteAtGw) return null;
  const offer = ngOf(events, callId, 'offer', false);
  const offerReply = ngOf(events, callId, 'offer', true);
  const incoming = events.find((e) => e.kind === 'ws' && !e.toGateway && e.type === 'incoming' && e.callId === callId);
  const answerIn = events.find((e) => e.kind === 'ws' && e.toGateway && e.type === 'answer' && e.callId === callId);
  const answer = ngOf(events, callId, 'answer', false);
  const answerReply = ngOf(events, callId, 'answer', true);
  const okOut = sip(events, callId, (e) => e.status === 200 && e.cseq === 'INVITE' && e.src === GW_SIP_PORT);
  const firstInvite = sip(events, callId, (e) => e.method === 'INVITE');
  const okAtCaller = firstInvite && sip(events, callId, (e) => e.status === 200 && e.cseq === 'INVITE' && e.dst === firstInvite.src);
  return {
    steps_ms: {
      'kamailio-invite-to-gateway': ms(firstInvite, inviteAtGw), 'invite-to-ng-offer': ms(inviteAtGw, offer), 'ng-offer': ms(offer, offerReply),
      'ng-offer-to-incoming': ms(offerReply, incoming), 'incoming-to-answer': ms(incoming, answerIn), 'ws-answer-to-ng-answer': ms(answerIn, answer),
      'ng-answer': ms(answer, answerReply), 'ng-answer-to-200': ms(answerReply, okOut), 'kamailio-200-to-caller': ms(okOut, okAtCaller),
    },
    owners: { gateway: ['invite-to-ng-offer', 'ng-offer-to-incoming', 'ws-answer-to-ng-answer', 'ng-answer-to-200'], rtpengine: ['ng-offer', 'ng-answer'],
      kamailio: ['kamailio-invite-to-gateway', 'kamailio-200-to-caller'], browser: ['incoming-to-answer'] },
    wire_ms: ms(firstInvite, okAtCaller),
  };
}

// ICE and DTLS on the relay's ports (the scenario's RTP capture, same kernel clock): every STUN and DTLS datagram,
// told from RTP/RTCP by its first byte (RFC 7983: 0-3 STUN, 20-63 DTLS), in time order:
// {t, kind: 'stun'|'dtls', src, sport, dst, dport, stun: 'request'|'success'|..., hs: handshake type or null}.
export async function iceDtlsEvents(file) {
  const rows = await fields(file, ['-Y', 'udp.payload[0] < 64', '--disable-protocol', 'stun', '--disable-protocol', 'dtls'],
    ['frame.time_epoch', 'ip.src', 'udp.srcport', 'ip.dst', 'udp.dstport', 'udp.payload']);
  const out = [];
  for (const [t, src, sport, dst, dport, hex] of rows) {
    const b = Buffer.from((hex ?? '').replace(/:/g, ''), 'hex');
    if (b.length < 1) continue;
    const e = { t: Number(t) * 1000, src, sport: Number(sport), dst, dport: Number(dport) };
    if (b[0] <= 3 && b.length >= 2) {
      const type = b.readUInt16BE(0);
      out.push({ ...e, kind: 'stun', stun: type === 0x0001 ? 'request' : type === 0x0101 ? 'success' : type === 0x0111 ? 'error' : 'other' });
    } else if (b[0] >= 20 && b[0] <= 63) {
      // a DTLS 1.2 record: content type (22 = handshake), then at byte 13 the first handshake message's type
      out.push({ ...e, kind: 'dtls', hs: b[0] === 22 && b.length > 13 ? b[13] : null });
    }
  }
  return out.sort((a, b) => a.t - b.t);
}

// The browser-facing relay address of an SDP the page was given (its first audio m-line's port, the session or
// media c= address): where the page's ICE checks and DTLS go.
export function relayEndpoint(sdp) {
  if (!sdp) return null;
  const port = /^m=audio (\d+) /m.exec(sdp);
  const addr = /^c=IN IP[46] ([^\s]+)/m.exec(sdp.slice(sdp.indexOf('m=audio')) || '') ?? /^c=IN IP[46] ([^\s]+)/m.exec(sdp);
  return port && addr ? { addr: addr[1], port: Number(port[1]) } : null;
}

// After an MO answer: the page's `answered` on the wire -> the page has it -> setRemoteDescription done; the first ICE
// check to the relay's port and its success response; the first and last DTLS datagram of the handshake (either
// side) -> the page's DTLS transports 'connected'. Steps in ms (null when a point is missing); `wire` from the
// ICE/DTLS capture, `page` from the page's epoch stamps (lab-client timing().at).
function mediaUpTimeline(events, media, answered, at, relay) {
  if (!relay || !media) return null;
  const mine = media.filter((e) => (e.dst === relay.addr && e.dport === relay.port) || (e.src === relay.addr && e.sport === relay.port));
  const after = (t) => mine.filter((e) => e.t >= t);
  const start = answered?.t ?? at?.answerReceived;
  if (start == null) return null;
  const firstCheck = after(start).find((e) => e.kind === 'stun' && e.stun === 'request' && e.dport === relay.port);
  const firstOk = firstCheck && after(firstCheck.t).find((e) => e.kind === 'stun' && e.stun === 'success' && e.sport === relay.port);
  const dtls = after(start).filter((e) => e.kind === 'dtls' && e.hs != null);
  const firstDtls = dtls[0] ?? null;
  const lastDtls = dtls.length ? dtls[dtls.length - 1] : null;
  const p = (k) => (at?.[k] == null ? null : { t: at[k] });
  return {
    'page-apply-answer': ms(p('answerReceived'), p('answerApplied')),
    'answered-to-first-check': ms(answered, firstCheck), 'check-to-success': ms(firstCheck, firstOk),
    'check-to-first-dtls': ms(firstCheck, firstDtls), 'dtls-handshake': ms(firstDtls, lastDtls),
    'last-dtls-to-page-connected': ms(lastDtls, p('dtlsConnected')),
    first_dtls_from: firstDtls ? (firstDtls.sport === relay.port ? 'relay' : 'browser') : null,
    dtls_datagrams: dtls.length,
  };
}

// Per call: {direction, steps_ms, owners, wire_ms, by_owner_ms} from the capture's events; null when the capture
// holds no trace of that call. pageSetupMs (MO, the page's `call` sent -> answer applied) adds the browser's own share:
// the page's time minus the wire's between its two frames (its JavaScript, its network stack, the link). pageAt (the
// page's epoch stamps, lab-client timing().at) splits that share (MO): `call` sent -> its frame on the wire
// ('page-call-to-wire') and `answered` on the wire -> the page has it ('wire-answered-to-page'); media (iceDtlsEvents)
// with answerSdp adds `media_up_ms`: what happens after the answer until the page's DTLS is connected.
export function wireTimeline(events, { callId, direction, pageSetupMs = null, pageAt = null, media = null, answerSdp = null }) {
  const tl = direction === 'mo' ? moTimeline(events, callId) : mtTimeline(events, callId);
  if (!tl) return null;
  if (direction === 'mo' && pageAt?.offerSent != null) {
    tl.steps_ms = { 'page-call-to-wire': ms({ t: pageAt.offerSent }, tl.points.call), ...tl.steps_ms,
      'wire-answered-to-page': ms(tl.points.answered, pageAt.answerReceived == null ? null : { t: pageAt.answerReceived }) };
  }
  if (direction === 'mo') tl.media_up_ms = mediaUpTimeline(events, media, tl.points.answered, pageAt, relayEndpoint(answerSdp));
  delete tl.points;
  const byOwner = Object.fromEntries(Object.entries(tl.owners).map(([o, steps]) => {
    const v = steps.map((s) => tl.steps_ms[s]);
    return [o, v.some((x) => x == null) ? null : Math.round(v.reduce((a, b) => a + b, 0) * 1000) / 1000];
  }));
  if (direction === 'mo' && pageSetupMs != null && tl.wire_ms != null) byOwner.browser = Math.round((pageSetupMs - tl.wire_ms) * 1000) / 1000;
  return { direction, ...tl, by_owner_ms: byOwner };
}
