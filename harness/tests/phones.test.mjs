// Integration: real SIP phones from Debian (baresip, linphone; headless, docs/phones.md) registered at the
// lab's P-CSCF call a browser user (MT at the gateway) and are called by one (MO), with the phone's default
// codecs and with PCMA forced; media both ways (the phone's RTP port on the wire, the browser's getStats),
// the ACK and the BYE delivered (each side's view: the phone's own SIP trace, the gateway's sipFlow).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rtpPackets, startCapture } from '../kit/capture.mjs';
import { sleep } from '../kit/procs.mjs';
import * as gw from '../runner/gateway.mjs';
import { endedCleanly } from '../runner/scenario.mjs';
import { IMS_DOMAIN, startPhone } from '../runner/phone-ua.mjs';
import { assertNoRtpengineSession, loggedInPage, waitReceiving } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'bob';               // the browser user
const MEDIA_MS = 2500;            // audio per call
const MIN_PACKETS = 40;           // of ~125 at 20 ms in MEDIA_MS, each way on the phone's RTP port
const PT = { PCMA: 8, PCMU: 0 };
let page;

before(async () => { page = await loggedInPage(USER, 'test-phones-bob'); });
after(async () => page?.close());

const isInvite = (m) => /\bINVITE$/i.test(m.cseq ?? '');
const toTag = (m) => m.headers.match(/^(?:To|t)\s*:.*;\s*tag=([^;\s]+)/im)?.[1] ?? null;

// The ACK of the phone's 200 (MO): same To tag as the 200 (an ACK of a non-2xx answer of a forked leg is another)
function ackOf200(phone, callId) {
  const ok = phone.sipMessages(callId).find((m) => m.dir === 'sent' && m.status === 200 && isInvite(m));
  if (!ok) return null;
  return phone.sipMessages(callId).find((m) => m.dir === 'received' && m.method === 'ACK' && toTag(m) === toTag(ok)) ?? null;
}
const line = (m) => `${m.dir} ${m.startLine}`;

// The SIP a phone saw of a call, one line a message, for failure messages.
function flowOf(phone, callId) {
  return phone.sipMessages(callId).map(line).join(' | ') || '(no message of this call in its trace)';
}

// The final answer the phone got to its INVITE (MT), or null.
function inviteAnswer(phone, callId) {
  return phone.sipMessages(callId).find((m) => m.dir === 'received' && m.status >= 200 && isInvite(m)) ?? null;
}

// The phone's own SIP of its latest outgoing INVITE: its Call-ID.
function lastInviteCallId(phone) {
  return phone.sipMessages().filter((m) => m.dir === 'sent' && m.method === 'INVITE').at(-1)?.callId ?? null;
}

// RTP on the phone's port: packets it sent and received, and their payload types.
async function phoneRtp(cap, phone) {
  const file = await cap.stop();
  const pkts = await rtpPackets(file, phone.rtpPort);
  // only what tshark decoded as RTP (linphone also sends a STUN binding request from its RTP port)
  const rtp = pkts.filter((p) => p.ssrc !== '');
  const sent = rtp.filter((p) => p.src === phone.rtpPort);
  const received = rtp.filter((p) => p.dst === phone.rtpPort);
  return { sent: sent.length, received: received.length, sentPt: [...new Set(sent.map((p) => p.pt))], receivedPt: [...new Set(received.map((p) => p.pt))], file };
}

function assertMedia(phone, rtp, stats, codec) {
  const who = phone.kind;
  assert.ok(rtp.sent >= MIN_PACKETS, `${who} sent ${rtp.sent} RTP packets from port ${phone.rtpPort} (want >= ${MIN_PACKETS}; ${rtp.file})`);
  assert.ok(rtp.received >= MIN_PACKETS, `${who} received ${rtp.received} RTP packets on port ${phone.rtpPort} (want >= ${MIN_PACKETS}; ${rtp.file})`);
  if (codec) {
    assert.deepEqual(rtp.sentPt, [PT[codec]], `${who} should send only ${codec} (payload type ${PT[codec]}), sent payload types ${rtp.sentPt}`);
    assert.deepEqual(rtp.receivedPt, [PT[codec]], `${who} should receive only ${codec} (payload type ${PT[codec]}), got payload types ${rtp.receivedPt}`);
  }
  assert.ok(stats?.packetsSent > 0 && stats?.packetsReceived > 0, `browser getStats: sent ${stats?.packetsSent}, received ${stats?.packetsReceived}`);
}

// The BYE the gateway sent for the browser's hang-up reached the phone: the phone answered it 200 and its call ended.
async function assertByeDelivered(phone, callId, ended) {
  try {
    await phone.waitCallState('closed', 5000);
  } catch (e) {
    assert.fail(`${phone.kind} never got the gateway's BYE for ${callId} (the browser hung up; the gateway's end: `
      + `${JSON.stringify(ended)}): ${e.message}; its SIP: ${flowOf(phone, callId)}`);
  }
  const bye = phone.sipMessages(callId).find((m) => m.dir === 'received' && m.method === 'BYE');
  assert.ok(bye, `${phone.kind}'s call ended but it received no BYE for ${callId}: ${flowOf(phone, callId)}`);
  const ok = phone.sipMessages(callId).find((m) => m.dir === 'sent' && m.status === 200 && /\bBYE$/.test(m.cseq ?? ''));
  assert.ok(ok, `${phone.kind} did not answer the BYE 200: ${flowOf(phone, callId)}`);
}

for (const kind of ['baresip', 'linphone']) {
  for (const codec of [null, 'PCMA']) {
    const what = `${kind}${codec ? `, ${codec} only` : ', default codecs'}`;
    describe(`phone ${what}`, () => {
      let phone;
      before(async () => {
        phone = await startPhone(kind, { codecs: codec ? [codec] : null });
        await phone.waitRegistered(10000);
      });
      after(async () => phone?.stop());

      test(`${what}: the phone calls the browser user (MT at the gateway), media both ways, ACK and BYE delivered`, { timeout: 40000 }, async () => {
        const { client, token } = page;
        const mark = await client.mark();
        const cap = await startCapture(phone.rtpPort, `phone-${kind}-mt`);
        let callId = null;
        try {
          await phone.dial(`sip:${USER}@${IMS_DOMAIN}`);
          // the browser rings, or the phone's INVITE got a final error answer
          const incoming = client.waitFor('incoming', null, 12000, mark);
          incoming.catch(() => {});
          const failed = phone.waitCallState('closed', 12000).then(() => 'closed', () => null);
          const first = await Promise.race([incoming.then((i) => i), failed]);
          if (first === 'closed' || !first) {
            const id = lastInviteCallId(phone);
            const ans = id && inviteAnswer(phone, id);
            assert.fail(ans ? `INVITE from ${kind} answered ${ans.startLine.replace(/^SIP\/2\.0 /, '')} (Call-ID ${id}): ${flowOf(phone, id)}`
              : `INVITE from ${kind} reached no browser: ${id ? flowOf(phone, id) : 'the phone sent no INVITE'} (state ${JSON.stringify(phone.state())})`);
          }
          callId = first.callId;
          await client.answer(callId);
          await phone.waitCallState('established', 8000);
          await waitReceiving(client, callId);
          await sleep(MEDIA_MS);
          const stats = await client.stats(callId);
          const during = await gw.callInfo(token, callId).catch(() => null);
          // the phone hangs up (default codecs) or the browser (PCMA): BYE each way across the two runs
          const byPhone = !codec;
          if (byPhone) await phone.hangup(); else await client.hangup(callId);
          const ended = await client.waitFor('ended', callId, 8000);
          const rtp = await phoneRtp(cap, phone);
          assertMedia(phone, rtp, stats, codec);

          // the ACK: the phone sent one for the 200, the gateway saw it, and the 200 was not retransmitted
          const info = await gw.callInfo(token, callId).catch(() => during);
          const flow = info?.sipFlow ?? during?.sipFlow ?? [];
          const oks = phone.sipMessages(callId).filter((m) => m.dir === 'received' && m.status === 200 && isInvite(m));
          assert.ok(phone.sipMessages(callId).some((m) => m.dir === 'sent' && m.method === 'ACK'), `${kind} sent no ACK: ${flowOf(phone, callId)}`);
          assert.ok(flow.includes('ACK'), `the gateway never saw ${kind}'s ACK (its sipFlow: ${flow.join(', ')})`);
          // one retransmission at T1 (500 ms) can happen on a busy host while the ACK crosses three proxy hops;
          // an ACK that never arrives makes it 7 and more (RFC 3261 §13.3.1.4)
          assert.ok(oks.length <= 2, `${kind} got the gateway's 200 ${oks.length} times (retransmitted: its ACK did not arrive): ${flowOf(phone, callId)}`);
          if (byPhone) {
            assert.ok(endedCleanly(ended), `the browser's call did not end cleanly after ${kind}'s BYE: ${JSON.stringify(ended)}`);
            const byeOk = phone.sipMessages(callId).find((m) => m.dir === 'received' && m.status === 200 && /\bBYE$/.test(m.cseq ?? ''));
            assert.ok(byeOk, `${kind}'s BYE got no 200 from the gateway: ${flowOf(phone, callId)}`);
            await phone.waitCallState('closed', 5000);
          } else {
            await assertByeDelivered(phone, callId, ended);
          }
        } finally {
          await cap.stop().catch(() => {});
          if (phone.call && phone.call.state !== 'closed') await phone.hangup().catch(() => {});
          if (callId) await client.hangup(callId).catch(() => {});
        }
        await assertNoRtpengineSession();
      });

      test(`${what}: the browser user calls the phone (MO at the gateway), media both ways, ACK and BYE delivered`, { timeout: 40000 }, async () => {
        const { client } = page;
        const cap = await startCapture(phone.rtpPort, `phone-${kind}-mo`);
        let callId = null;
        try {
          callId = await client.call(phone.user, codec ? { imsCodec: codec } : {});
          await phone.waitIncoming(12000).catch(async (e) => {
            const ended = await client.waitFor('ended', callId, 500).catch(() => null);
            throw new Error(`${kind} never rang for the browser's call ${callId}${ended ? ` (ended ${JSON.stringify(ended)})` : ''}: ${e.message}`);
          });
          await phone.answer();
          await client.waitFor('answered', callId, 8000);
          await phone.waitCallState('established', 8000);
          // RFC 3325 at the phone: the INVITE it traced asserts one of bob's registered identities
          const inviteAtPhone = phone.sipMessages(callId).find((m) => m.dir === 'received' && m.method === 'INVITE');
          assert.ok(inviteAtPhone, `${kind} traced no INVITE for ${callId}: ${flowOf(phone, callId)}`);
          await assertFarUeAssertedIdentity({ token: page.token, callId, invite: inviteAtPhone.headers, where: `the INVITE at ${kind}` });
          // the gateway's ACK reaches the phone: one 200 sent (no retransmission), one ACK received
          for (const end = Date.now() + 2000; Date.now() < end && !ackOf200(phone, callId);) await sleep(100);
          const contact = phone.sipMessages(callId).find((m) => m.dir === 'sent' && m.status === 200 && isInvite(m))?.headers.match(/^(?:Contact|m)\s*:\s*(.*)$/im)?.[1];
          assert.ok(ackOf200(phone, callId),
            `${kind} never got the gateway's ACK to its 200 (its Contact ${contact ?? '?'}): ${flowOf(phone, callId)}`);
          await waitReceiving(client, callId);
          await sleep(MEDIA_MS);
          const stats = await client.stats(callId);
          await client.hangup(callId);
          const ended = await client.waitFor('ended', callId, 8000);
          await assertByeDelivered(phone, callId, ended);
          const rtp = await phoneRtp(cap, phone);
          assertMedia(phone, rtp, stats, codec);
          const oks = phone.sipMessages(callId).filter((m) => m.dir === 'sent' && m.status === 200 && isInvite(m));
          assert.ok(oks.length <= 2, `${kind} sent its 200 ${oks.length} times (the gateway's ACK came late or not at all): ${flowOf(phone, callId)}`);
        } finally {
          await cap.stop().catch(() => {});
          if (phone.call && phone.call.state !== 'closed') await phone.hangup().catch(() => {});
          if (callId) await client.hangup(callId).catch(() => {});
        }
        await assertNoRtpengineSession();
      });
    });
  }
}
