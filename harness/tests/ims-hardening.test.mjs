// Integration: the light IMS core's hardening (ims-sim/kamailio.cfg.tmpl, docs/ims-sim.md "Hardening"),
// by raw SIP over UDP at the lab's Kamailio. The lab's own components all send from 127.0.0.1; "other"
// sources are further loopback addresses (127.0.0.2 ... 127.0.0.9), which reach Kamailio on 127.0.0.1
// like a UE on another host would. Registers ue9 and erin from raw sockets and de-registers them after.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { ADDRESSES } from '../kit/addresses.mjs';
import { passwordOf } from '../kit/env.mjs';
import { sipSocket } from '../kit/sip.mjs';
import { sleep } from '../kit/procs.mjs';

const DOMAIN = 'ims.lab';
const SCSCF_PORT = Number(ADDRESSES.scscf.split(':')[1]);
const rnd = (n = 6) => randomBytes(n).toString('hex');
const md5 = (s) => createHash('md5').update(s).digest('hex');
const statusOf = (text) => (text ? Number(text.split(' ')[1]) : null);
const headers = (text, name) => text.split('\r\n\r\n')[0].split('\r\n')
  .filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`)).map((l) => l.slice(name.length + 1).trim());
const sockets = [];

// A UDP socket on `address` sending SIP to Kamailio's P-CSCF (harness/kit/sip.mjs; sendRaw(text, port) for
// another of its ports), plus request(): a request from this socket's address.
async function rawSip(address) {
  const s = await sipSocket(address, { target: ADDRESSES.pcscf });
  s.request = (method, { ruri = `sip:${DOMAIN}`, from = 'ue9', to = from, extra = '', body = '', cseq = 1, callId = rnd(8), toPort } = {}) => {
    const branch = `z9hG4bK${rnd()}`;
    s.sendRaw(`${method} ${ruri} SIP/2.0
Via: SIP/2.0/UDP ${address}:${s.port};branch=${branch};rport
Max-Forwards: 70
From: <sip:${from}@${DOMAIN}>;tag=${rnd(4)}
To: <sip:${to}@${DOMAIN}>
Call-ID: ${callId}
CSeq: ${cseq} ${method}
Contact: <sip:${from}@${address}:${s.port}>
${extra}Content-Length: ${Buffer.byteLength(body, 'latin1')}

${body}`, toPort);
    return { branch, callId };
  };
  sockets.push(s);
  return s;
}

// REGISTER `user` from socket s with digest (realm ims.lab), expires seconds; resolves the final status.
async function register(s, user, expires = 60) {
  const callId = rnd(8);
  const reg = (cseq, auth = '') => s.request('REGISTER', { from: user, callId, cseq, extra: `Expires: ${expires}\n${auth}` });
  let r = reg(1);
  let res = await s.waitFor(/^SIP\/2\.0 [2-6]/, r.branch);
  if (statusOf(res) !== 401) return statusOf(res);
  const ch = headers(res, 'WWW-Authenticate')[0];
  const p = (k) => ch.match(new RegExp(`${k}="?([^",]+)"?`))?.[1];
  const uri = `sip:${DOMAIN}`;
  const ha1 = md5(`${user}:${p('realm')}:${passwordOf(user)}`);
  const ha2 = md5(`REGISTER:${uri}`);
  let auth = `Authorization: Digest username="${user}", realm="${p('realm')}", nonce="${p('nonce')}", uri="${uri}", algorithm=MD5`;
  if (p('qop')) {
    const cnonce = rnd(4);
    auth += `, qop=auth, nc=00000001, cnonce="${cnonce}", response="${md5(`${ha1}:${p('nonce')}:00000001:${cnonce}:auth:${ha2}`)}"`;
  } else {
    auth += `, response="${md5(`${ha1}:${p('nonce')}:${ha2}`)}"`;
  }
  r = reg(2, `${auth}\n`);
  res = await s.waitFor(/^SIP\/2\.0 [2-6]/, r.branch);
  return statusOf(res);
}

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
