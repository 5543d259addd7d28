// Integration: the light IMS core's hardening (ims-sim/kamailio.cfg.tmpl, docs/ims-sim.md "Hardening"),
// by raw SIP over UDP at the lab's Kamailio. The lab's own components all send from 127.0.0.1; "other"
// sources are further loopback addresses (127.0.0.2 ... 127.0.0.9), which reach Kamailio on 127.0.0.1
// like a UE on another host would. Registers ue9 and erin from raw sockets and de-registers them after.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { ADDRESSES } from '../kit/addresses.mjs';
import { logDir } from '../kit/env.mjs';
import { DOMAIN, headers, rawUe, reasonOf, register as registerUe, rnd, statusOf } from '../kit/sip-ue.mjs';
import { sleep } from '../kit/procs.mjs';

const SCSCF_PORT = Number(ADDRESSES.scscf.split(':')[1]);
const sockets = [];

// A raw UE on `address` (harness/kit/sip-ue.mjs), closed after the file.
async function rawSip(address) {
  const s = await rawUe(address);
  sockets.push(s);
  return s;
}

// REGISTER `user` from socket s with digest (realm ims.lab), expires seconds; resolves the final status.
const register = async (s, user, expires = 60, opts = {}) => statusOf(await registerUe(s, user, { expires, ...opts }));

const SDP = `v=0
o=- 1 1 IN IP4 127.0.0.2
s=-
c=IN IP4 127.0.0.2
t=0 0
m=audio 9 RTP/AVP 8
a=rtpmap:8 PCMA/8000
`.replace(/\n/g, '\r\n');

after(async () => {
  for (const s of sockets) s.close();
});

test('an INVITE from a source that registered nothing is refused 403 by the P-CSCF (even with a registered From)', { timeout: 15000 }, async () => {
  const s = await rawSip('127.0.0.3');
  // ue1 is registered (from 127.0.0.1:5080, by the lab's SIPp UE), but not from this source
  const r = s.request('INVITE', { ruri: `sip:ue1@${DOMAIN}`, from: 'ue1', to: 'ue1', extra: 'Content-Type: application/sdp\n', body: SDP });
  const res = await s.waitFor(/^SIP\/2\.0 [2-6]/, r.branch);
  assert.equal(statusOf(res), 403, res);
});

test('PAI is the identity registered from the source: a spoofed From and a forged PAI get the registered one', { timeout: 30000 }, async () => {
  const a = await rawSip('127.0.0.2'); // registers ue9, then claims to be alice
  const b = await rawSip('127.0.0.4'); // registers erin, receives the call
  assert.equal(await register(a, 'ue9'), 200, 'REGISTER ue9 from 127.0.0.2');
  assert.equal(await register(b, 'erin'), 200, 'REGISTER erin from 127.0.0.4');
  try {
    for (const [from, forgedPai] of [['alice', 'alice'], ['ue9', 'bob']]) {
      const r = a.request('INVITE', { ruri: `sip:erin@${DOMAIN}`, from, to: 'erin',
        extra: `P-Asserted-Identity: <sip:${forgedPai}@${DOMAIN}>\nContent-Type: application/sdp\n`, body: SDP });
      const inv = await b.waitFor(/^INVITE /, r.callId, 5000);
      assert.ok(inv, `erin's socket got no INVITE (From ${from})`);
      assert.deepEqual(headers(inv, 'P-Asserted-Identity'), [`<sip:ue9@${DOMAIN}>`], `From ${from}: ${inv}`);
      assert.match(headers(inv, 'From')[0], new RegExp(`^<sip:${from}@`), 'From itself is passed on as sent');
      // erin declines (486); ue9 ends its INVITE and ACKs the final answer
      const vias = headers(inv, 'Via').join('\r\nVia: ');
      b.sendRaw(`SIP/2.0 486 Busy Here
Via: ${vias}
${['From', 'Call-ID', 'CSeq'].map((h) => `${h}: ${headers(inv, h)[0]}`).join('\n')}
To: ${headers(inv, 'To')[0]};tag=${rnd(4)}
Content-Length: 0

`, Number(headers(inv, 'Via')[0].match(/^SIP\/2\.0\/UDP [^:;]+:(\d+)/)?.[1] ?? 5060));
      // erin is registered by nothing else in the light core's tests (a UE such as ue5 has stale bindings of
      // earlier files, whose unanswered branches kept the final answer back past this test's wait); should
      // another binding appear, the proxy waits for its branch before it forwards a final answer: ue9
      // cancels, which ends the branches that answered at once.
      a.sendRaw(`CANCEL sip:erin@${DOMAIN} SIP/2.0
Via: SIP/2.0/UDP ${a.address}:${a.port};branch=${r.branch};rport
Max-Forwards: 70
From: ${headers(inv, 'From')[0]}
To: <sip:erin@${DOMAIN}>
Call-ID: ${r.callId}
CSeq: 1 CANCEL
Content-Length: 0

`);
      const fin = await a.waitFor(/^SIP\/2\.0 [4-6]\d\d/, (t) => t.includes(r.callId) && /^CSeq: 1 INVITE/m.test(t), 10000);
      assert.ok(fin, 'no final answer to the INVITE after the CANCEL');
      a.sendRaw(`ACK sip:erin@${DOMAIN} SIP/2.0
Via: SIP/2.0/UDP ${a.address}:${a.port};branch=${r.branch};rport
Max-Forwards: 70
${['From', 'Call-ID'].map((h) => `${h}: ${headers(fin, h)[0]}`).join('\n')}
To: ${headers(fin, 'To')[0]}
CSeq: 1 ACK
Content-Length: 0

`);
    }
  } finally {
    await register(a, 'ue9', 0);
    await register(b, 'erin', 0);
  }
  // de-registered: the same source is refused again
  const r = a.request('INVITE', { ruri: `sip:erin@${DOMAIN}`, from: 'ue9', to: 'erin', extra: 'Content-Type: application/sdp\n', body: SDP });
  assert.equal(statusOf(await a.waitFor(/^SIP\/2\.0 [2-6]/, r.branch)), 403, 'a source whose registration ended is refused');
});

test('the S-CSCF port refuses requests that do not come from the P-CSCF', { timeout: 15000 }, async () => {
  const s = await rawSip('127.0.0.1'); // even from the lab's own address
  for (const method of ['OPTIONS', 'REGISTER', 'INVITE']) {
    const r = s.request(method, { ruri: method === 'INVITE' ? `sip:ue1@${DOMAIN}` : `sip:${DOMAIN}`, from: 'ue1', to: method === 'INVITE' ? 'ue1' : 'ue1',
      toPort: SCSCF_PORT, ...(method === 'INVITE' ? { extra: 'Content-Type: application/sdp\n', body: SDP } : {}) });
    const res = await s.waitFor(/^SIP\/2\.0 [2-6]/, r.branch);
    assert.equal(statusOf(res), 403, `${method} straight to the S-CSCF: ${res}`);
    assert.match(res.split('\r\n')[0], /Only via the P-CSCF/);
  }
});

test('an oversize message gets 513, a CSeq method other than the request\'s 400 (sanity), a normal OPTIONS 200', { timeout: 15000 }, async () => {
  const s = await rawSip('127.0.0.1');
  let r = s.request('OPTIONS', { extra: `X-Padding: ${'x'.repeat(20000)}\n` });
  assert.equal(statusOf(await s.waitFor(/^SIP\/2\.0 /, r.branch)), 513, '20 KB OPTIONS');
  const branch = `z9hG4bK${rnd()}`;
  s.sendRaw(`OPTIONS sip:${DOMAIN} SIP/2.0
Via: SIP/2.0/UDP 127.0.0.1:${s.port};branch=${branch};rport
Max-Forwards: 70
From: <sip:ue9@${DOMAIN}>;tag=${rnd(4)}
To: <sip:ue9@${DOMAIN}>
Call-ID: ${rnd(8)}
CSeq: 1 INVITE
Content-Length: 0

`);
  assert.equal(statusOf(await s.waitFor(/^SIP\/2\.0 /, branch)), 400, 'OPTIONS with CSeq method INVITE');
  r = s.request('OPTIONS');
  assert.equal(statusOf(await s.waitFor(/^SIP\/2\.0 /, r.branch)), 200, 'a normal OPTIONS');
});

test('a flood from one address is blocked by pike; other sources go on; the address recovers', { timeout: 40000 }, async () => {
  const flood = await rawSip('127.0.0.5');
  const other = await rawSip('127.0.0.6');
  const N = 200;
  const branches = [];
  for (let i = 0; i < N; i++) branches.push(flood.request('OPTIONS', { callId: `flood-${i}-${rnd(4)}` }).branch);
  await sleep(1500);
  const answered = branches.filter((b) => flood.got.some((t) => t.includes(b))).length;
  assert.ok(answered > 0, 'pike blocked the first requests too');
  assert.ok(answered < N / 2, `${answered} of ${N} flood requests were answered`);
  // still blocked, while another address is served
  let r = flood.request('OPTIONS');
  assert.equal(await flood.waitFor(/^SIP\/2\.0 /, r.branch, 1000), null, 'the flooding address is answered right after the flood');
  r = other.request('OPTIONS');
  assert.equal(statusOf(await other.waitFor(/^SIP\/2\.0 /, r.branch)), 200, 'another address is not blocked');
  // a quiet address is let in again (pike: 2 s units, unblocked once its rate falls)
  const end = Date.now() + 20000;
  let back = null;
  while (!back && Date.now() < end) {
    await sleep(1000);
    r = flood.request('OPTIONS');
    back = await flood.waitFor(/^SIP\/2\.0 200/, r.branch, 1000);
  }
  assert.ok(back, 'the address was still blocked 20 s after the flood');
});

test('no software name or version in the core\'s Server or User-Agent (its answers, its own CANCEL and ACK)', { timeout: 20000 }, async () => {
  const a = await rawSip('127.0.0.7'); // registers ue9, calls frank
  const b = await rawSip('127.0.0.8'); // registers frank, rings, gets the P-CSCF's CANCEL
  const answers = [];
  let r = a.request('OPTIONS');
  answers.push(await a.waitFor(/^SIP\/2\.0 /, r.branch));
  r = a.request('REGISTER', { from: 'ue9', extra: 'Expires: 60\n' });
  answers.push(await a.waitFor(/^SIP\/2\.0 /, r.branch)); // 401 of the S-CSCF
  assert.equal(await register(a, 'ue9'), 200, 'REGISTER ue9 from 127.0.0.7');
  assert.equal(await register(b, 'frank'), 200, 'REGISTER frank from 127.0.0.8');
  try {
    r = a.request('INVITE', { ruri: `sip:frank@${DOMAIN}`, from: 'ue9', to: 'frank', extra: 'Content-Type: application/sdp\n', body: SDP });
    const inv = await b.waitFor(/^INVITE /, r.callId, 5000);
    assert.ok(inv, "frank's socket got no INVITE");
    const vias = headers(inv, 'Via').join('\r\nVia: ');
    const common = `${['From', 'Call-ID', 'CSeq'].map((h) => `${h}: ${headers(inv, h)[0]}`).join('\n')}\nTo: ${headers(inv, 'To')[0]};tag=frank1\n`;
    const viaPort = Number(headers(inv, 'Via')[0].match(/^SIP\/2\.0\/UDP [^:;]+:(\d+)/)?.[1] ?? 5060);
    b.sendRaw(`SIP/2.0 180 Ringing\nVia: ${vias}\n${common}Content-Length: 0\n\n`, viaPort);
    answers.push(await a.waitFor(/^SIP\/2\.0 180/, r.callId, 5000));
    a.sendRaw(`CANCEL sip:frank@${DOMAIN} SIP/2.0
Via: SIP/2.0/UDP ${a.address}:${a.port};branch=${r.branch};rport
Max-Forwards: 70
From: ${headers(inv, 'From')[0]}
To: <sip:frank@${DOMAIN}>
Call-ID: ${r.callId}
CSeq: 1 CANCEL
Content-Length: 0

`);
    const cancel = await b.waitFor(/^CANCEL /, r.callId, 5000);
    assert.ok(cancel, 'the P-CSCF sent frank no CANCEL');
    b.sendRaw(`SIP/2.0 200 OK\nVia: ${headers(cancel, 'Via').join('\r\nVia: ')}\n${['From', 'To', 'Call-ID', 'CSeq'].map((h) => `${h}: ${headers(cancel, h)[0]}`).join('\n')}\nContent-Length: 0\n\n`, viaPort);
    b.sendRaw(`SIP/2.0 487 Request Terminated\nVia: ${vias}\n${common}Content-Length: 0\n\n`, viaPort);
    const fin = await a.waitFor(/^SIP\/2\.0 487/, r.callId, 5000);
    assert.ok(fin, 'no 487 for the cancelled INVITE');
    a.sendRaw(`ACK sip:frank@${DOMAIN} SIP/2.0
Via: SIP/2.0/UDP ${a.address}:${a.port};branch=${r.branch};rport
Max-Forwards: 70
From: ${headers(fin, 'From')[0]}
To: ${headers(fin, 'To')[0]}
Call-ID: ${r.callId}
CSeq: 1 ACK
Content-Length: 0

`);
    assert.ok(await b.waitFor(/^ACK /, r.callId, 3000), "the P-CSCF's own ACK of the 487 did not reach frank");
    assert.ok(answers.every(Boolean), 'an answer is missing');
    assert.ok(headers(answers[0], 'Server').length > 0, 'the OPTIONS answer names a (generic) Server');
    // everything the core sent either socket: its answers, the relayed INVITE, its own CANCEL and ACK
    for (const msg of [...a.got, ...b.got]) {
      for (const h of [...headers(msg, 'Server'), ...headers(msg, 'User-Agent')]) {
        assert.doesNotMatch(h, /kamailio|\d+\.\d+/i, `${msg.split('\r\n')[0]}: ${h}`);
      }
    }
  } finally {
    await register(a, 'ue9', 0);
    await register(b, 'frank', 0);
  }
});

test('a PUBLISH (presence) is refused 489 by the core, never routed back to the UE; no Content-Length warning for UDP', { timeout: 20000 }, async () => {
  const s = await rawSip('127.0.0.7');
  assert.equal(await register(s, 'ue9'), 200, 'REGISTER ue9 from 127.0.0.7');
  try {
    // linphone's presence PUBLISH to its own AoR, over UDP without Content-Length (RFC 3261 18.3 allows it)
    const r = s.request('PUBLISH', { ruri: `sip:ue9@${DOMAIN}`, from: 'ue9', extra: 'Event: presence\nExpires: 600\n', contentLength: false });
    const res = await s.waitFor(/^SIP\/2\.0 [2-6]/, r.branch, 5000);
    assert.equal(statusOf(res), 489, `PUBLISH answered: ${res}`);
    assert.match(reasonOf(res), /no presence server/);
    assert.equal(await s.waitFor(/^PUBLISH /, r.callId, 1000), null, 'the PUBLISH came back to the UE as a terminating request');
    const log = fs.readFileSync(path.join(logDir(), 'kamailio.log'), 'latin1');
    assert.doesNotMatch(log, /content length header missing/, 'Kamailio warned about a request without Content-Length');
  } finally {
    await register(s, 'ue9', 0);
  }
});

// start-kamailio.sh's defaults (KAMAILIO_AUTHBAN_FAILS, KAMAILIO_AUTHBAN_SECONDS); ./lab passes neither.
const BAN_FAILS = 10;
const BAN_SECONDS = 60;

test(`digest guessing: ${BAN_FAILS} failures ban the user (even a right password, from anywhere) and the source; others unaffected`, { timeout: 30000 }, async () => {
  const guesser = await rawSip('127.0.0.9');
  const other = await rawSip('127.0.0.10');
  for (let i = 1; i <= BAN_FAILS; i++) {
    assert.equal(await register(guesser, 'frank', 60, { password: `guess-${i}` }), 403, `guess ${i} for frank`);
  }
  for (const [s, what] of [[guesser, 'from the guessing source'], [other, 'from another source']]) {
    const res = await registerUe(s, 'frank'); // the right password
    assert.equal(statusOf(res), 403, `frank's right password ${what} during the ban: ${res}`);
    assert.match(reasonOf(res), /too many failed authentications for this user/, res);
    assert.deepEqual(headers(res, 'Retry-After'), [String(BAN_SECONDS)], res);
  }
  // another user from another source is served; from the guessing source (banned as a source too) it is not
  assert.equal(await register(other, 'ue9'), 200, 'ue9 from another source during frank\'s ban');
  await register(other, 'ue9', 0);
  const res = await registerUe(guesser, 'ue9');
  assert.equal(statusOf(res), 403, `ue9 from the banned source: ${res}`);
  assert.match(reasonOf(res), /too many failed authentications from this address/, res);
  // the ban is per user and per source: the gateway's socket (a trusted node) and its users log in as ever
  const log = fs.readFileSync(path.join(logDir(), 'kamailio.log'), 'latin1');
  assert.match(log, /auth ban: u:frank banned for \d+ s after \d+ failed authentications/);
  assert.doesNotMatch(log, /auth ban: s:127\.0\.0\.1:/, 'a source on the lab\'s own address was banned');
});
