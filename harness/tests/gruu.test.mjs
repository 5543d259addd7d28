// Integration: GRUU (RFC 5627) at the light IMS core (ims-sim/kamailio.cfg.tmpl route[GRUU], docs/ims-sim.md
// "GRUU"). A raw UE (harness/kit/sip-ue.mjs) registers grace with +sip.instance and "Supported: gruu", as
// linphone does, and gets a pub-gruu "sip:grace@ims.lab;gr=urn:uuid:…". A request to that GRUU, and the
// in-dialog requests of a dialog whose Contact is the GRUU (the gateway's ACK and BYE), must reach the UE's
// registered contact; before, the last proxy hop tried to resolve "ims.lab" and answered 478.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { endedCleanly } from '../runner/scenario.mjs';
import { assertNoRtpengineSession, loggedInPage, titled } from '../runner/testkit.mjs';
import { DOMAIN, headers, rawUe, register, statusOf } from '../kit/sip-ue.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const INSTANCE = `urn:uuid:${randomUUID()}`;
let ue; // grace with +sip.instance: holds the GRUU
let plain; // grace again, a binding without an instance (a second device)
let caller; // ue9, sends a request to the GRUU
let gruu;

before(async () => {
  ue = await rawUe('127.0.0.11');
  plain = await rawUe('127.0.0.12');
  caller = await rawUe('127.0.0.13');
  const res = await register(ue, 'grace', { contact: `<sip:grace@${ue.address}:${ue.port}>;+sip.instance="<${INSTANCE}>"`, extra: 'Supported: gruu, path\n' });
  assert.equal(statusOf(res), 200, `REGISTER of grace with +sip.instance: ${res}`);
  gruu = headers(res, 'Contact').join(',').match(/pub-gruu="([^"]+)"/)?.[1];
  assert.equal(gruu, `sip:grace@${DOMAIN};gr=${INSTANCE}`, `the 200 to REGISTER hands out the public GRUU: ${headers(res, 'Contact')}`);
  assert.equal(statusOf(await register(plain, 'grace')), 200, 'REGISTER of grace without an instance');
  assert.equal(statusOf(await register(caller, 'ue9')), 200, 'REGISTER of ue9');
});

after(async () => {
  for (const [s, user] of [[ue, 'grace'], [plain, 'grace'], [caller, 'ue9']]) {
    if (!s) continue;
    await register(s, user, { expires: 0 }).catch(() => {});
    s.close();
  }
});

// The answer of a UAS to `req` (its Via, From, To with our tag, Call-ID, CSeq, Record-Route), back to the P-CSCF.
function answer(s, req, status, { tag = 'gruu1', contact = null, body = '' } = {}) {
  const viaPort = Number(headers(req, 'Via')[0].match(/^SIP\/2\.0\/UDP [^:;]+:(\d+)/)?.[1] ?? 5060);
  const to = headers(req, 'To')[0];
  s.sendRaw(`SIP/2.0 ${status}
Via: ${headers(req, 'Via').join('\r\nVia: ')}
${headers(req, 'Record-Route').map((r) => `Record-Route: ${r}\n`).join('')}From: ${headers(req, 'From')[0]}
To: ${/;tag=/.test(to) ? to : `${to};tag=${tag}`}
Call-ID: ${headers(req, 'Call-ID')[0]}
CSeq: ${headers(req, 'CSeq')[0]}
${contact ? `Contact: <${contact}>\n` : ''}${body ? 'Content-Type: application/sdp\n' : ''}Content-Length: ${Buffer.byteLength(body, 'latin1')}

${body}`, viaPort);
}

test('a request to the GRUU reaches the instance that holds it, not the user\'s other binding', { timeout: 15000 }, async () => {
  const r = caller.request('MESSAGE', { ruri: gruu, from: 'ue9', to: 'grace', extra: 'Content-Type: text/plain\n', body: 'to the GRUU' });
  const msg = await ue.waitFor(/^MESSAGE /, r.callId, 5000);
  assert.ok(msg, `the GRUU's instance got no MESSAGE (caller got: ${caller.got.filter((t) => t.includes(r.callId)).map((t) => t.split('\r\n')[0]).join(', ') || 'nothing'})`);
  assert.equal(msg.split(' ')[1], `sip:grace@${ue.address}:${ue.port}`, 'R-URI is the registered contact');
  answer(ue, msg, '200 OK');
  assert.equal(statusOf(await caller.waitFor(/^SIP\/2\.0 [2-6]/, r.callId, 5000)), 200, 'the MESSAGE\'s answer');
  assert.equal(plain.got.filter((t) => t.includes(r.callId)).length, 0, 'the binding without the instance got the GRUU\'s MESSAGE');
});

test(titled('the gateway\'s ACK and BYE reach a UE whose Contact is its GRUU'), { timeout: 40000 }, async () => {
  const page = await loggedInPage('alice', 'test-gruu-alice');
  try {
    const callId = await page.client.call('grace');
    const inv = await ue.waitFor(/^INVITE /, () => true, 15000);
    assert.ok(inv, 'grace\'s GRUU instance got no INVITE');
    const sipCallId = headers(inv, 'Call-ID')[0];
    await assertFarUeAssertedIdentity({ token: page.token, callId: sipCallId, invite: inv, where: 'the INVITE at grace\'s GRUU instance' });
    const offer = inv.split('\r\n\r\n')[1] ?? '';
    const pts = offer.match(/^m=audio \d+ [^ ]+ ([\d ]+)/m)?.[1].split(' ') ?? [];
    const pt = pts.includes('8') ? '8' : pts[0];
    assert.ok(pt, `no audio payload type in the gateway's offer: ${offer}`);
    const sdp = `v=0\r\no=grace 1 1 IN IP4 ${ue.address}\r\ns=-\r\nc=IN IP4 ${ue.address}\r\nt=0 0\r\nm=audio 6998 RTP/AVP ${pt}\r\n`
      + `${pt === '8' ? 'a=rtpmap:8 PCMA/8000\r\n' : ''}a=sendrecv\r\n`;
    // the other binding rings too (a fork): it declines, so grace's 200 is the one answer
    const forked = await plain.waitFor(/^INVITE /, sipCallId, 3000);
    if (forked) answer(plain, forked, '486 Busy Here', { tag: 'plain1' });
    answer(ue, inv, '200 OK', { contact: gruu, body: sdp });
    const ack = await ue.waitFor(/^ACK /, sipCallId, 8000);
    assert.ok(ack, `no ACK reached the GRUU's contact (the gateway's ACK went to ${gruu})`);
    assert.equal(ack.split(' ')[1], `sip:grace@${ue.address}:${ue.port}`, 'the ACK\'s R-URI is the registered contact');
    await page.client.waitFor('answered', callId, 10000);
    const mark = await page.client.mark();
    await page.client.hangup(callId);
    const bye = await ue.waitFor(/^BYE /, sipCallId, 8000);
    assert.ok(bye, `no BYE reached the GRUU's contact (the gateway's BYE went to ${gruu})`);
    assert.equal(bye.split(' ')[1], `sip:grace@${ue.address}:${ue.port}`, 'the BYE\'s R-URI is the registered contact');
    answer(ue, bye, '200 OK');
    const ended = await page.client.waitFor('ended', callId, 10000, mark);
    assert.ok(endedCleanly(ended), `ended: ${JSON.stringify(ended)}`);
    await assertNoRtpengineSession();
  } finally {
    await page.close();
  }
});
