// Unit test (no lab needed): kit/setup-wire.mjs turns a capture's signalling events into a call's set-up steps and
// each party's share (./lab scenario's `wire_timeline`, docs/scenarios.md). Events as signallingEvents() returns them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { wireTimeline } from '../kit/setup-wire.mjs';

// The lab's ports, from the address table (kit/addresses.mjs): the gateway's SIP port and the S-CSCF's.
const GW = Number(LAB.LAB_GW_SIP_PORT);
const SCSCF = Number(LAB.LAB_SCSCF_PORT);
const UE1 = Number(LAB.LAB_UE1_SIP_PORT);

const ID = 'abc@127.0.0.1';
const ws = (t, toGateway, type, callId = null, stream = 3) => ({ t, kind: 'ws', toGateway, stream, type, callId });
const ng = (t, command, reply) => ({ t, kind: 'ng', toRtpengine: !reply, cookie: `c-${command}`, command, callId: `gw${GW}-${ID}`, ...(reply ? { reply: true } : {}) });
const sip = (t, src, dst, method, status = null) => ({ t, kind: 'sip', src, dst, method, status, callId: ID, cseq: 'INVITE' });

// MO: `call` at 0, ng offer 2 -> 3, INVITE out 4, at the UE 5, 200 from the UE 9, at the gateway 9.5, ng answer 10 -> 11,
// `answered` 12; a `call` on another page's WebSocket and an earlier one on this socket must not be taken
const mo = [
  ws(-50, true, 'call'), ws(-1, true, 'call', null, 7), ws(0, true, 'call'), ng(2, 'offer', false), ng(3, 'offer', true), sip(4, GW, 5060, 'INVITE'),
  ws(4.5, false, 'calling', ID), sip(4.6, 5060, SCSCF, 'INVITE'), sip(4.8, SCSCF, 5060, 'INVITE'), sip(5, 5060, UE1, 'INVITE'),
  sip(6, UE1, 5060, null, 180), sip(9, UE1, 5060, null, 200), sip(9.2, 5060, SCSCF, null, 200), sip(9.3, SCSCF, 5060, null, 200),
  sip(9.5, 5060, GW, null, 200), ng(10, 'answer', false), ng(11, 'answer', true), ws(12, false, 'answered', ID),
];

test('MO: each step and party from the wire, the browser from the page\'s own set-up time', () => {
  const w = wireTimeline(mo, { callId: ID, direction: 'mo', pageSetupMs: 15 });
  assert.ok(w, 'no timeline for an MO call whose calling, ng, SIP and answered are all in the events');
  assert.deepEqual(w.steps_ms, {
    'ws-call-to-ng-offer': 2, 'ng-offer': 1, 'ng-offer-to-invite': 1, 'kamailio-invite-to-ue': 1, 'ue-invite-to-200': 4,
    'kamailio-200-to-gateway': 0.5, '200-to-ng-answer': 0.5, 'ng-answer': 1, 'ng-answer-to-answered': 1,
  }, `MO steps taken from the wrong events: ${JSON.stringify(w.steps_ms)}`);
  assert.deepEqual(w.by_owner_ms, { gateway: 4.5, rtpengine: 2, kamailio: 1.5, ue: 4, browser: 3 },
    `MO per-party sums wrong: ${JSON.stringify(w.by_owner_ms)}`);
  assert.equal(w.wire_ms, 12, 'MO wire time must run from the page\'s `call` frame to the `answered` frame');
});

test('MO: a missing point leaves its steps and its party null, not a wrong figure', () => {
  const w = wireTimeline(mo.filter((e) => !(e.kind === 'ng' && e.command === 'answer' && e.reply)), { callId: ID, direction: 'mo' });
  assert.equal(w.steps_ms['ng-answer'], null, 'ng-answer without its reply must be null');
  assert.equal(w.by_owner_ms.rtpengine, null, 'rtpengine\'s sum must be null when one of its steps is missing');
  assert.equal(w.by_owner_ms.browser, undefined, 'no browser share without the page\'s set-up time');
  assert.equal(wireTimeline(mo, { callId: 'other@127.0.0.1', direction: 'mo' }), null, 'a call the capture never saw must give null');
});

test('MT: from the caller\'s INVITE to its 200, the page\'s answer time as the browser\'s step', () => {
  const mt = [
    sip(0, 5201, 5060, 'INVITE'), sip(0.3, 5060, SCSCF, 'INVITE'), sip(0.5, SCSCF, 5060, 'INVITE'), sip(1, 5060, GW, 'INVITE'),
    ng(3, 'offer', false), ng(4, 'offer', true), ws(5, false, 'incoming', ID), ws(105, true, 'answer', ID), ng(106, 'answer', false),
    ng(107, 'answer', true), sip(108, GW, 5060, null, 200), sip(108.2, 5060, SCSCF, null, 200), sip(108.3, SCSCF, 5060, null, 200),
    sip(108.5, 5060, 5201, null, 200),
  ];
  const w = wireTimeline(mt, { callId: ID, direction: 'mt' });
  assert.deepEqual(w.steps_ms, {
    'kamailio-invite-to-gateway': 1, 'invite-to-ng-offer': 2, 'ng-offer': 1, 'ng-offer-to-incoming': 1, 'incoming-to-answer': 100,
    'ws-answer-to-ng-answer': 1, 'ng-answer': 1, 'ng-answer-to-200': 1, 'kamailio-200-to-caller': 0.5,
  }, `MT steps taken from the wrong events: ${JSON.stringify(w.steps_ms)}`);
  assert.deepEqual(w.by_owner_ms, { gateway: 5, rtpengine: 2, kamailio: 1.5, browser: 100 }, `MT per-party sums wrong: ${JSON.stringify(w.by_owner_ms)}`);
  assert.equal(w.wire_ms, 108.5, 'MT wire time must run from the caller\'s INVITE to the 200 at the caller');
});

test('MO: the page\'s epoch stamps split its share into sending the call and taking the answer', () => {
  const at = { offerSent: -0.5, answerReceived: 14 };
  const w = wireTimeline(mo, { callId: ID, direction: 'mo', pageSetupMs: 14.5, pageAt: at });
  assert.equal(w.steps_ms['page-call-to-wire'], 0.5, `the page's \`call\` sent at -0.5 and on the wire at 0: ${JSON.stringify(w.steps_ms)}`);
  assert.equal(w.steps_ms['wire-answered-to-page'], 2, `\`answered\` on the wire at 12 and at the page at 14: ${JSON.stringify(w.steps_ms)}`);
  assert.equal(w.by_owner_ms.gateway, 4.5, 'the page\'s steps must not count as the gateway\'s');
});

test('MO after the answer: setRemoteDescription, the first ICE check, DTLS on the answer\'s relay port, the page\'s connected', () => {
  const answerSdp = `v=0\r\nc=IN IP4 ${LAB.LAB_PUB_ADDR}\r\nm=audio 30100 UDP/TLS/RTP/SAVPF 111\r\na=rtcp-mux\r\n`;
  const page = { addr: LAB.LAB_NAT_OUT_ADDR, port: 50000 };
  const relay = { addr: LAB.LAB_PUB_ADDR, port: 30100 };
  const pkt = (t, from, to, extra) => ({ t, src: from.addr, sport: from.port, dst: to.addr, dport: to.port, ...extra });
  const media = [
    pkt(12.5, page, { addr: LAB.LAB_PUB_ADDR, port: 30200 }, { kind: 'stun', stun: 'request' }), // another call's relay port
    pkt(15, page, relay, { kind: 'stun', stun: 'request' }), pkt(15.5, relay, page, { kind: 'stun', stun: 'success' }),
    pkt(17, page, relay, { kind: 'dtls', hs: 1 }), pkt(18, relay, page, { kind: 'dtls', hs: 2 }), pkt(20, page, relay, { kind: 'dtls', hs: 16 }),
    pkt(21, relay, page, { kind: 'dtls', hs: 20 }),
  ];
  const at = { offerSent: 0, answerReceived: 13, answerApplied: 25, dtlsConnected: 26 };
  const m = wireTimeline(mo, { callId: ID, direction: 'mo', pageAt: at, media, answerSdp }).media_up_ms;
  assert.deepEqual(m, {
    'page-apply-answer': 12, 'answered-to-first-check': 3, 'check-to-success': 0.5, 'check-to-first-dtls': 2, 'dtls-handshake': 4,
    'last-dtls-to-page-connected': 5, first_dtls_from: 'browser', dtls_datagrams: 4,
  }, `steps after the answer taken from the wrong packets (the answer's relay port is 30100): ${JSON.stringify(m)}`);
  assert.equal(wireTimeline(mo, { callId: ID, direction: 'mo', pageAt: at, media, answerSdp: null }).media_up_ms, null,
    'without the answer SDP the relay port is unknown: no steps after the answer, not another call\'s');
});

test('MO: the 180\'s `ringing` and how long the 200 waited behind it on the gateway\'s SIP thread', () => {
  const base = mo.filter((e) => !(e.kind === 'sip' && e.status === 180));
  const slow = [...base, sip(6.1, 5060, GW, null, 180), ws(9.8, false, 'ringing', ID)].sort((a, b) => a.t - b.t);
  assert.deepEqual(wireTimeline(slow, { callId: ID, direction: 'mo' }).ringing_ms, { '180-to-ringing': 3.7, '200-waiting-behind-ringing': 0.3 },
    'the 180 at the gateway at 6.1, `ringing` out at 9.8, the 200 in at 9.5: it waited 0.3 ms');
  const quick = [...base, sip(6.1, 5060, GW, null, 180), ws(6.5, false, 'ringing', ID)].sort((a, b) => a.t - b.t);
  assert.deepEqual(wireTimeline(quick, { callId: ID, direction: 'mo' }).ringing_ms, { '180-to-ringing': 0.4, '200-waiting-behind-ringing': 0 },
    '`ringing` out before the 200 came in: the 200 waited for nothing');
});
