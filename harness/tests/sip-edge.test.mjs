// Integration: the gateway's SIP edge as a real network meets it (issue #29, docs/security.md "SIP sources",
// "Call targets", "DTMF from rtpengine"): the header shapes real phones send (an empty Supported: etc.) ring
// the browser; an INVITE forged from the P-CSCF's address but another port is refused; a scanner's guesses
// get the same answer whether or not the user exists, and the login name of a logged-in user (what svwar guesses)
// is no reachable contact: the IMS reaches erin only at her registration's random Contact user part; a raw-host call from the browser is refused; a forged
// DTMF-log datagram shows no digit. Raw SIP from the harness's peer (kit/sip.mjs, trusted beside the P-CSCF).
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sipHeader, sipSocket } from '../kit/sip.mjs';
import { logDir, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { assertNoRtpengineSession } from '../runner/testkit.mjs';
import { LAB } from '../kit/addresses.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'erin';
const DTMF_LOG = { host: LAB.LAB_RTPENGINE_DTMF_LOG.split(':')[0], port: Number(LAB.LAB_RTPENGINE_DTMF_LOG.split(':')[1]) }; // rtpengine's DTMF log destination
let browser;
let page;
let token;
let contact; // erin's registered Contact user part (random per registration): where the IMS sends her INVITEs

before(async () => {
  await gw.waitHealthy(15000);
  browser = await launchBrowser();
  page = await openClient(browser, { name: 'test-sip-edge-erin' });
  ({ token } = await page.login(USER, passwordOf(USER)));
  contact = await gw.contactUser(token);
});

after(async () => {
  await page?.logout().catch(() => {});
  await browser?.close();
});

const statusLine = (text) => text?.split('\r\n')[0] ?? null;
const firstLines = (s) => JSON.stringify(s.got.map(statusLine));
const sdp = (port) => `v=0\no=phone 1 1 IN IP4 127.0.0.1\ns=-\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio ${port} RTP/AVP 0 8 101\n`
  + 'a=rtpmap:0 PCMU/8000\na=rtpmap:8 PCMA/8000\na=rtpmap:101 telephone-event/8000\na=sendrecv\n';

// An INVITE to sip:`user`@gateway (To: sip:`to`@ims.lab) with these headers between CSeq and the body (LF line
// ends; sip.mjs makes CRLF). As the P-CSCF sends it to erin: invite(contact, headers, USER).
const invite = (user, headers, to = user) => `INVITE sip:${user}@\${GW} SIP/2.0\n`
  + 'Via: SIP/2.0/UDP ${ADDR}:${PORT};branch=${BRANCH};rport\nMax-Forwards: 70\n'
  + `From: "Phone" <sip:ue9@ims.lab>;tag=\${FROMTAG}\nTo: <sip:${to}@ims.lab>\nCall-ID: \${CALLID}\nCSeq: 1 INVITE\n`
  + `${headers}\n${sdp('${PORT}')}`;

// The shapes third-party phones send (RFC 3261 §7.3.1, §20, §25; baresip, linphone, desk phones).
const SHAPES = [
  ['an empty Supported:, Require:, Allow: and Allow-Events:, no Content-Length (UDP)',
    'Contact: <sip:ue9@${ADDR}:${PORT}>\nSupported:\nRequire:\nAllow:\nAllow-Events:\nContent-Type: application/sdp\n'],
  ['compact forms (i f t m c k u l), two Supported headers, Allow over two headers',
    'm: <sip:ue9@${ADDR}:${PORT};transport=udp>;+sip.instance="<urn:uuid:00000000-0000-1000-8000-000000000009>"\n'
    + 'k: replaces, outbound\nSupported: gruu, path\nAllow: INVITE, ACK, CANCEL, BYE\nAllow: OPTIONS, UPDATE, INFO\n'
    + 'u: presence, kpml, talk\nc: application/sdp\nl: ${LENGTH}\n'],
  ['linphone/baresip extras: Session-Expires and Min-SE, Accept, User-Agent, P-Preferred-Identity, Privacy',
    'Contact: <sip:ue9@${ADDR}:${PORT}>;expires=3600\nSupported: timer, 100rel, replaces, norefersub\n'
    + 'Session-Expires: 1800\nMin-SE: 90\nAccept: application/sdp, application/dtmf-relay\nUser-Agent: baresip v3.0.0\n'
    + 'P-Preferred-Identity: <sip:ue9@ims.lab>\nPrivacy: none\nAllow-Events: talk, hold, refer\n'
    + 'Content-Type: application/sdp\nContent-Length: ${LENGTH}\n'],
];

for (const [what, headers] of SHAPES) {
  test(`a phone's INVITE with ${what} rings the browser`, { timeout: 20000 }, async () => {
    const s = await sipSocket();
    try {
      const mark = await page.mark();
      const inv = s.send(invite(contact, headers, USER), { ADDR: s.address });
      const ringing = await s.waitFor(/^SIP\/2\.0 18\d /, inv.CALLID, 8000);
      assert.ok(ringing, `no 18x to the INVITE; got ${firstLines(s)}`);
      const incoming = await page.waitFor('incoming', inv.CALLID, 5000, mark);
      assert.equal(incoming.callId, inv.CALLID, 'the browser is told of this call');
      // the phone gives up: CANCEL → 200, 487 to the INVITE, ACK
      const via = sipHeader(inv.text, 'Via');
      s.send(`CANCEL sip:${contact}@\${GW} SIP/2.0\nVia: ${via}\nMax-Forwards: 70\nFrom: ${sipHeader(inv.text, 'From')}\n`
        + `To: <sip:${USER}@ims.lab>\nCall-ID: ${inv.CALLID}\nCSeq: 1 CANCEL\nContent-Length: 0\n\n`);
      const terminated = await s.waitFor(/^SIP\/2\.0 487 /, inv.CALLID, 5000);
      assert.ok(terminated, `no 487 after the CANCEL; got ${firstLines(s)}`);
      s.ack(inv, terminated);
      assert.equal((await page.waitFor('ended', inv.CALLID, 5000, mark)).reason, 'remote-cancel');
      assert.ok(!s.got.some((t) => /^SIP\/2\.0 500 /.test(t)), `a 500 was sent: ${firstLines(s)}`);
    } finally {
      s.close();
    }
    await assertNoRtpengineSession();
  });
}

test('an INVITE from the P-CSCF\'s address but another port (its Via claiming :5060 or not) is refused 403 and rings no browser', { timeout: 15000 }, async () => {
  const s = await sipSocket('127.0.0.1'); // the P-CSCF is 127.0.0.1:5060; this is 127.0.0.1:<ephemeral>
  try {
    for (const via of [{}, { PORT: 5060 }]) { // the Via's sent-by is the sender's own claim; rport brings the answer back
      const mark = await page.mark();
      const inv = s.send(invite(contact, 'Contact: <sip:ceo@${ADDR}:${PORT}>\nContent-Type: application/sdp\nContent-Length: ${LENGTH}\n', USER),
        { ADDR: s.address, ...via });
      const final = await s.waitFor(/^SIP\/2\.0 [1-6]\d\d /, inv.CALLID, 5000);
      assert.equal(statusLine(final), 'SIP/2.0 403 Forbidden', `Via ${JSON.stringify(via)}: got ${firstLines(s)}`);
      await assert.rejects(page.waitFor('incoming', inv.CALLID, 1500, mark), /timeout after/, 'the browser must not ring');
    }
  } finally {
    s.close();
  }
});

test('a scanner\'s guesses (svwar-style INVITE/OPTIONS/REGISTER for users that exist, are logged in, or not) all get the same answer', { timeout: 20000 }, async () => {
  const answers = new Map();
  const mark = await page.mark();
  for (const address of ['127.0.0.1', '127.0.0.2']) {
    const s = await sipSocket(address);
    try {
      for (const user of [USER, 'alice', 'nosuchuser', '1000', 'admin']) {
        for (const method of ['INVITE', 'OPTIONS', 'REGISTER']) { // svwar's three methods
          const ruri = method === 'REGISTER' ? 'sip:ims.lab' : `sip:${user}@\${GW}`;
          const text = method === 'INVITE'
            ? invite(user, 'Contact: <sip:scan@${ADDR}:${PORT}>\nContent-Type: application/sdp\nContent-Length: ${LENGTH}\n')
            : `${method} ${ruri} SIP/2.0\nVia: SIP/2.0/UDP \${ADDR}:\${PORT};branch=\${BRANCH};rport\nMax-Forwards: 70\n`
              + `From: <sip:${user}@ims.lab>;tag=\${FROMTAG}\nTo: <sip:${user}@ims.lab>\nCall-ID: \${CALLID}\nCSeq: 1 ${method}\n`
              + 'Contact: <sip:scan@${ADDR}:${PORT}>\nContent-Length: 0\n\n';
          const sent = s.send(text, { ADDR: s.address });
          const first = await s.waitFor(/^SIP\/2\.0 /, sent.CALLID, 3000);
          answers.set(`${method} ${user} from ${address}`, statusLine(first));
        }
      }
    } finally {
      s.close();
    }
  }
  const distinct = new Set(answers.values());
  assert.deepEqual([...distinct], ['SIP/2.0 403 Forbidden'], `the answers tell users apart: ${JSON.stringify(Object.fromEntries(answers))}`);
  const events = (await page.events()).slice(mark).filter((e) => e.msg.type === 'incoming');
  assert.deepEqual(events, [], 'no guess rang the browser');
});

test('a scan that reaches the gateway through the P-CSCF (its trusted source): INVITEs to login names, logged-in erin\'s included, and to a stale contact get what a user who is not logged in gets; none rings', { timeout: 20000 }, async () => {
  const s = await sipSocket(); // the harness's peer, trusted beside the P-CSCF: what a scan relayed by the IMS looks like
  const mark = await page.mark();
  const answers = new Map();
  try {
    // a contact of the same form that no registration holds (a logged-out session's, or a guess of the form)
    for (const user of [USER, 'alice', 'nosuchuser', 'admin', `w${'0'.repeat(32)}`]) {
      const sent = s.send(invite(user, 'Contact: <sip:scan@${ADDR}:${PORT}>\nContent-Type: application/sdp\nContent-Length: ${LENGTH}\n'),
        { ADDR: s.address });
      const final = await s.waitFor(/^SIP\/2\.0 [2-6]\d\d /, sent.CALLID, 5000);
      answers.set(user, statusLine(final));
      if (final) s.ack(sent, final);
    }
  } finally {
    s.close();
  }
  assert.deepEqual([...new Set(answers.values())], ['SIP/2.0 480 Temporarily Unavailable'],
    `each guess must get the not-logged-in answer (480), the logged-in user's login name too: ${JSON.stringify(Object.fromEntries(answers))}`);
  assert.match(contact, /^w[0-9a-f]{32}$/, `erin's registered contact user part is random, not her login: ${contact}`);
  const events = (await page.events()).slice(mark).filter((e) => e.msg.type === 'incoming');
  assert.deepEqual(events, [], 'no guess rang the browser');
});

const UE1_RAW = `sip:ue1@${LAB.LAB_LOOPBACK}:${LAB.LAB_UE1_SIP_PORT}`; // ue1's own SIP address, not its IMPU
test(`the browser cannot call a raw SIP host (${UE1_RAW}, ue1@127.0.0.2): error forbidden-target, no SIP`, { timeout: 20000 }, async () => {
  for (const to of [UE1_RAW, 'ue1@127.0.0.2']) {
    const mark = await page.mark();
    await assert.rejects(page.call(to), (e) => {
      assert.match(e.message, /forbidden-target: cannot call '[^']+': only users of ims\.lab and tel: numbers may be called/, e.message);
      return true;
    });
    const calling = (await page.events()).slice(mark).filter((e) => e.msg.type === 'calling');
    assert.deepEqual(calling, [], `no call was placed to ${to}`);
  }
  await assertNoRtpengineSession();
});

test('a forged DTMF-log datagram (from 127.0.0.1, a live call\'s rtpengine call-id) shows no digit; the gateway logs it dropped', { timeout: 30000 }, async () => {
  const callId = await page.call('ue1');
  const forger = dgram.createSocket('udp4');
  try {
    await page.waitFor('answered', callId, 15000);
    await assertFarUeAssertedIdentity({ token, callId, ue: 'ue1' });
    const sessions = await gw.rtpengineSessions();
    const ngCallId = (sessions.callIds ?? []).find((id) => id.endsWith(callId));
    assert.ok(ngCallId, `rtpengine holds the call ${callId}: ${JSON.stringify(sessions)}`);
    await new Promise((r) => forger.bind(0, '127.0.0.1', r));
    const mark = await page.mark();
    const record = JSON.stringify({ callid: ngCallId, source_tag: 'forged', tags: ['forged'], type: 'DTMF',
      timestamp: Math.floor(Date.now() / 1000), source_ip: '127.0.0.1', event: 5, duration: 140, volume: 10 });
    forger.send(Buffer.from(record), DTMF_LOG.port, DTMF_LOG.host);
    await assert.rejects(page.waitFor('dtmf', callId, 1500, mark), /timeout after/, 'the browser must not show a forged digit');
    const log = fs.readFileSync(path.join(logDir(), 'gateway.log'), 'utf8');
    assert.match(log, new RegExp(`DTMF log datagram from 127\\.0\\.0\\.1:${forger.address().port} dropped: not rtpengine's socket`),
      'the gateway saw the datagram and refused its sender');
  } finally {
    forger.close();
    await page.hangup(callId);
    await page.waitFor('ended', callId, 8000).catch(() => {});
  }
  await assertNoRtpengineSession();
});

test('a BYE of the gateway answered 478 (as a proxy that cannot reach a GRUU contact) is logged and reported: sip-failure to the browser, failedRequests', { timeout: 30000 }, async () => {
  const s = await sipSocket();
  try {
    const mark = await page.mark();
    const inv = s.send(invite(contact, 'Contact: <sip:ue9@${ADDR}:${PORT}>\nContent-Type: application/sdp\nContent-Length: ${LENGTH}\n', USER),
      { ADDR: s.address });
    await page.waitFor('incoming', inv.CALLID, 8000, mark);
    await page.answer(inv.CALLID);
    const ok = await s.waitFor(/^SIP\/2\.0 200 /, inv.CALLID, 8000);
    assert.ok(ok, `no 200 to the INVITE; got ${firstLines(s)}`);
    const target = /<([^>]+)>/.exec(sipHeader(ok, 'Contact'))[1];
    s.send(`ACK ${target} SIP/2.0\nVia: SIP/2.0/UDP \${ADDR}:\${PORT};branch=\${BRANCH};rport\nMax-Forwards: 70\n`
      + `From: ${sipHeader(inv.text, 'From')}\nTo: ${sipHeader(ok, 'To')}\nCall-ID: ${inv.CALLID}\nCSeq: 1 ACK\nContent-Length: 0\n\n`,
    { ADDR: s.address });
    await new Promise((r) => setTimeout(r, 500));
    await page.hangup(inv.CALLID);
    const bye = await s.waitFor(/^BYE /, inv.CALLID, 5000);
    assert.ok(bye, `the gateway sent no BYE; got ${firstLines(s)}`);
    const copy = ['Via', 'From', 'To', 'Call-ID', 'CSeq'].map((h) => `${h}: ${sipHeader(bye, h)}`).join('\n');
    s.sendRaw(`SIP/2.0 478 Unresolvable destination\n${copy}\nContent-Length: 0\n\n`);
    const failure = await page.waitFor('sip-failure', inv.CALLID, 5000, mark);
    assert.equal(failure.method, 'BYE');
    assert.equal(failure.sipCode, 478);
    assert.equal(failure.reason, 'Unresolvable destination');
    const info = await gw.callInfo(token, inv.CALLID);
    assert.deepEqual(info.failedRequests, ['BYE 478 Unresolvable destination'], JSON.stringify(info));
    assert.match(fs.readFileSync(path.join(logDir(), 'gateway.log'), 'utf8'),
      new RegExp(`call ${inv.CALLID}: the gateway's BYE failed: 478 Unresolvable destination`), 'the gateway logs it');
  } finally {
    s.close();
  }
  await assertNoRtpengineSession();
});
