// Integration: SIP dialog features of the gateway (issues #12, #13) through gateway + Kamailio + rtpengine + SIPp,
// asserting the wire at the UE (its sipp -trace_msg log) and what the browser was told.
// RFC 4028 session timers: the UE refreshes and then stops (the gateway ends the session), the gateway refreshes
// by re-INVITE (the browser sees nothing), 422 and the retry both ways, and the gateway's UPDATE refreshes on MO.
// Forking on MO: a ringing branch cancelled by the proxy, and a second 2xx that the gateway ACKs and BYEs.
// Offerless (delayed-offer) INVITE: the browser makes the offer, the 200 carries it, the ACK the answer.
// ./lab test starts the gateway with lab.ims.min-se=2 (harness/lib/components.sh) so 4 s intervals are allowed.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { logDir } from '../kit/env.mjs';
import { assertNoRtpengineSession, incomingCall, loggedInPage, receivedDuring as packetsReceivedDuring, timedUeMessages, titled, waitForUeMessage, waitReceiving } from '../runner/testkit.mjs';
import { startUe } from '../runner/ue.mjs';
import { LAB } from '../kit/addresses.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'carol';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let page;
let client;

before(async () => {
  page = await loggedInPage(USER, 'test-dialog-carol');
  ({ client } = page);
});

after(async () => page?.close());

// The messages of a UE log (sipp -trace_msg) for one call, as {t: ms, dir: 'sent' | 'received', first: first
// line, text}.
function wire(log, callId) {
  return timedUeMessages(log).filter((m) => m.text.includes(`Call-ID: ${callId}`)).map(({ t, text }) => ({
    t,
    dir: /message sent/i.test(text) ? 'sent' : 'received',
    first: text.split(/\r?\n/).find((l) => /^(SIP\/2\.0 \d+|[A-Z]+ sip:)/.test(l)) ?? '',
    text,
  }));
}
const header = (text, name) => new RegExp(`^${name}:\\s*(.*)$`, 'mi').exec(text)?.[1]?.trim() ?? null;
const ueLog = (mode, user = USER) => path.join(logDir(), `sipp-${mode}-${user}-messages.log`);
// The gateway's messages to the page about one call (the page keeps every message as {t, msg}).
const events = async (callId) => (await client.events()).map((e) => e.msg).filter((m) => m.callId === callId);

test(titled('RFC 4028 MT: the UE refreshes by UPDATE, then stops: the gateway BYEs at expiry, the browser hears session-expired'), { timeout: 45000 }, async () => {
  const { ue, incoming } = await incomingCall(client, USER, 'uac-timer', null, { timeoutMs: 40000 });
  const { callId } = incoming;
  try {
    const t0 = Date.now();
    await client.answer(callId);
    const ended = await client.waitFor('ended', callId, 20000);
    const lasted = Date.now() - t0;
    assert.equal(ended.reason, 'session-expired', JSON.stringify(ended));
    // two refreshes at 1.5 s and 3 s, then 4 s - 4/3 s: about 5.7 s; one interval alone would be 2.7 s
    assert.ok(lasted > 4000, `the refreshes kept the session beyond one interval (lasted ${lasted} ms)`);
    const r = await ue.done;
    assert.equal(r.code, 0, `SIPp checks Session-Expires/Require on the 200s and gets the BYE: exit ${r.code}: ${r.output}`);
    const w = wire(ueLog('uac-timer', USER), callId);
    const ok = w.find((m) => m.dir === 'received' && /^SIP\/2\.0 200/.test(m.first) && /CSeq:\s*1 INVITE/i.test(m.text));
    assert.ok(ok, 'the UE got the 200 to its INVITE');
    assert.equal(header(ok.text, 'Session-Expires'), '4;refresher=uac');
    assert.match(header(ok.text, 'Require') ?? '', /timer/);
    assert.match(ok.text, /^Supported:.*timer/mi);
    const updOks = w.filter((m) => m.dir === 'received' && /^SIP\/2\.0 200/.test(m.first) && /CSeq:\s*\d+ UPDATE/i.test(m.text));
    assert.equal(updOks.length, 2, 'both refreshes answered 200');
    for (const u of updOks) assert.equal(header(u.text, 'Session-Expires'), '4;refresher=uac');
    assert.ok(w.some((m) => m.dir === 'received' && /^BYE /.test(m.first)), 'the gateway sent BYE');
    const types = (await events(callId)).map((e) => e.type);
    assert.ok(!types.includes('reoffer'), `the refreshes did not reach the browser: ${types}`);
  } finally {
    ue.kill();
    await client.hangup(callId).catch(() => {});
  }
  await assertNoRtpengineSession();
});

test(titled('RFC 4028 MT: refresher=uas, no UPDATE allowed: the gateway refreshes by re-INVITE with its unchanged SDP, the browser sees nothing'), { timeout: 45000 }, async () => {
  const { ue, incoming, mark } = await incomingCall(client, USER, 'uac-timer-gw', null, { timeoutMs: 40000 });
  const { callId } = incoming;
  try {
    await client.answer(callId);
    const ended = await client.waitFor('ended', callId, 20000, mark);
    assert.equal(ended.reason, 'remote-hangup', JSON.stringify(ended));
    const r = await ue.done;
    assert.equal(r.code, 0, `SIPp takes two re-INVITE refreshes with Session-Expires: exit ${r.code}: ${r.output}`);
    const w = wire(ueLog('uac-timer-gw', USER), callId);
    const ok = w.find((m) => m.dir === 'received' && /^SIP\/2\.0 200/.test(m.first) && /CSeq:\s*1 INVITE/i.test(m.text));
    assert.equal(header(ok.text, 'Session-Expires'), '4;refresher=uas');
    const refreshes = w.filter((m) => m.dir === 'received' && /^INVITE /.test(m.first));
    assert.equal(refreshes.length, 2, 'two re-INVITE refreshes');
    const body = (t) => t.slice(t.search(/^v=0/m)).trim();
    for (const re of refreshes) {
      assert.equal(header(re.text, 'Session-Expires'), '4;refresher=uac');
      assert.equal(body(re.text), body(ok.text), 'the refresh offers the SDP of the 200 again, o= version unchanged');
    }
    const types = (await events(callId)).map((e) => e.type);
    assert.ok(!types.includes('reoffer'), `no offer to the browser: ${types}`);
  } finally {
    ue.kill();
    await client.hangup(callId).catch(() => {});
  }
  await assertNoRtpengineSession();
});

test(titled('RFC 4028 MT: Session-Expires under the gateway\'s Min-SE gets 422 with Min-SE; the retry with it is answered, then expires'), { timeout: 45000 }, async () => {
  const { ue, incoming } = await incomingCall(client, USER, 'uac-timer-422', null, { timeoutMs: 40000 });
  const { callId } = incoming;
  try {
    await client.answer(callId);
    // the UE never refreshes the 2 s interval it got: the gateway ends the call 2 s - 2/3 s after the ACK
    const ended = await client.waitFor('ended', callId, 15000);
    assert.equal(ended.reason, 'session-expired', JSON.stringify(ended));
    const r = await ue.done;
    assert.equal(r.code, 0, `SIPp: 422, retry, 200, BYE: exit ${r.code}: ${r.output}`);
    const w = wire(ueLog('uac-timer-422', USER), callId);
    const rej = w.find((m) => m.dir === 'received' && /^SIP\/2\.0 422/.test(m.first));
    assert.ok(rej, 'the UE got 422');
    assert.equal(header(rej.text, 'Min-SE'), '2');
    const ok = w.find((m) => m.dir === 'received' && /^SIP\/2\.0 200/.test(m.first) && /CSeq:\s*2 INVITE/i.test(m.text));
    assert.equal(header(ok.text, 'Session-Expires'), '2;refresher=uac');
  } finally {
    ue.kill();
    await client.hangup(callId).catch(() => {});
  }
  await assertNoRtpengineSession();
});

// Packets the browser received over `ms`.
const receivedDuring = (callId, ms) => packetsReceivedDuring(client, callId, ms);

// The page calls ue5 playing SIPp `mode`; `body(callId, mark)` runs once the call is answered (mark: the page's
// event index before the call). The UE is stopped and the call hung up whatever happens; resolves the Call-ID.
async function answeredUe5Call(mode, body) {
  const ue = startUe(mode, 'ue5', null, { timeoutMs: 40000 });
  let callId;
  try {
    await ue.ready(); // ue5's REGISTER
    const mark = await client.mark();
    callId = await client.call('ue5');
    await client.waitFor('answered', callId, 15000, mark);
    await body(callId, mark);
    await assertFarUeAssertedIdentity({ token: page.token, callId, log: ueLog(mode, 'ue5'), where: `the INVITE at ue5 (${mode})` });
  } finally {
    ue.kill();
    await ue.done;
    if (callId) await client.hangup(callId).catch(() => {});
  }
  return callId;
}

test(titled('RFC 4028 MO: INVITE with Supported: timer and Session-Expires; the callee sets 4 s, refresher=uac: the gateway refreshes by UPDATE'), { timeout: 45000 }, async () => {
  await answeredUe5Call('uas-timer', async (callId) => {
    await sleep(5200); // refreshes at 2 s and 4 s
    const types = (await events(callId)).map((e) => e.type);
    assert.ok(!types.includes('ended'), `the call is up after more than one interval: ${types}`);
    assert.ok(!types.includes('reoffer') && !types.includes('reanswer'), `the browser saw no refresh: ${types}`);
    await client.hangup(callId);
    await sleep(500);
    const w = wire(ueLog('uas-timer', 'ue5'), callId);
    const inv = w.find((m) => m.dir === 'received' && /^INVITE /.test(m.first));
    assert.match(inv.text, /^Supported:.*timer/mi);
    assert.equal(header(inv.text, 'Session-Expires'), '1800', 'lab.ims.session-expires, default 1800');
    assert.equal(header(inv.text, 'Min-SE'), '2');
    const updates = w.filter((m) => m.dir === 'received' && /^UPDATE /.test(m.first));
    assert.ok(updates.length >= 2, `the gateway refreshed at half the interval: ${updates.length} UPDATE(s)`);
    for (const u of updates) {
      assert.equal(header(u.text, 'Session-Expires'), '4;refresher=uac');
      assert.doesNotMatch(u.text, /^Content-Type: application\/sdp/mi, 'a refresh UPDATE carries no SDP');
    }
  });
  await assertNoRtpengineSession();
});

test(titled('RFC 4028 MO: the callee answers 422 with Min-SE 3600: the gateway sends the INVITE again (same Call-ID, next CSeq) with Session-Expires and Min-SE 3600, and the browser sees one answered call'), { timeout: 45000 }, async () => {
  const callId = await answeredUe5Call('uas-timer-422', async (callId, mark) => {
    await waitReceiving(client, callId);
    assert.ok(await receivedDuring(callId, 1500) > 20, 'audio after the retried INVITE was answered');
    const types = (await events(callId)).map((e) => e.type);
    assert.equal(types.filter((t) => t === 'answered').length, 1, `one answer at the browser: ${types}`);
    assert.ok(!types.includes('ended'), `the 422 did not end the call: ${types}`);
    await client.hangup(callId);
    await client.waitFor('ended', callId, 10000, mark);
    assert.ok(await waitForUeMessage(ueLog('uas-timer-422', 'ue5'), callId, /^BYE /), 'the hang-up reached the UE (its BYE within 5 s)');
  });
  const w = wire(ueLog('uas-timer-422', 'ue5'), callId);
  const invites = w.filter((m) => m.dir === 'received' && /^INVITE /.test(m.first));
  assert.equal(invites.length, 2, 'the INVITE and its retry, in the same call (Call-ID)');
  assert.equal(header(invites[0].text, 'Session-Expires'), '1800');
  assert.ok(w.some((m) => m.dir === 'sent' && /^SIP\/2\.0 422/.test(m.first) && /^Min-SE: 3600/mi.test(m.text)), 'the UE sent 422 with Min-SE 3600');
  assert.match(header(invites[1].text, 'CSeq'), /^2 INVITE$/, 'the retry has the next CSeq');
  assert.match(header(invites[1].text, 'Session-Expires'), /^3600\b/, 'the retry asks for the 422\'s Min-SE');
  assert.equal(header(invites[1].text, 'Min-SE'), '3600');
  await assertNoRtpengineSession();
});

test(titled('offerless INVITE from ue2: the browser offers, the 200 carries it as plain RTP/AVP, the ACK\'s answer reaches the browser, audio both ways'), { timeout: 45000 }, async () => {
  const { ue, incoming, mark } = await incomingCall(client, USER, 'uac-offerless', null, { timeoutMs: 40000 });
  const { callId } = incoming;
  try {
    assert.equal(incoming.offerless, true, JSON.stringify(incoming));
    assert.equal(incoming.sdp ?? null, null, 'no offer to show the browser');
    await client.answer(callId);
    const answered = await client.waitFor('answered', callId, 10000, mark);
    assert.match(answered.sdp, /UDP\/TLS\/RTP\/SAVPF/, 'the answer to the browser is DTLS-SRTP (rtpengine)');
    await waitReceiving(client, callId);
    assert.ok(await receivedDuring(callId, 1500) > 20, 'the UE echoes the browser\'s audio back');
    const ended = await client.waitFor('ended', callId, 15000, mark);
    assert.equal(ended.reason, 'remote-hangup');
    const r = await ue.done;
    assert.equal(r.code, 0, `SIPp checks the offer in the 200 (RTP/AVP, Opus): exit ${r.code}: ${r.output}`);
    const w = wire(ueLog('uac-offerless', USER), callId);
    const inv = w.find((m) => m.dir === 'sent' && /^INVITE /.test(m.first));
    assert.match(inv.text, /Content-Length:\s*0/i, 'the INVITE had no SDP');
    const ok = w.find((m) => m.dir === 'received' && /^SIP\/2\.0 200/.test(m.first) && /CSeq:\s*1 INVITE/i.test(m.text));
    assert.match(ok.text, /^m=audio \d+ RTP\/AVP /m, 'the offer in the 200 is plain RTP toward IMS');
    assert.doesNotMatch(ok.text, /a=(ice-ufrag|fingerprint|rtcp-mux|group:BUNDLE)/, 'no WebRTC lines toward IMS');
    const ack = w.find((m) => m.dir === 'sent' && /^ACK /.test(m.first));
    assert.match(ack.text, /^m=audio \d+ RTP\/AVP /m, 'the answer went in the ACK');
  } finally {
    ue.kill();
    await client.hangup(callId).catch(() => {});
  }
  await assertNoRtpengineSession();
});

test(titled('P-Asserted-Identity: MT, the identity the P-CSCF asserted for ue2 reaches the browser; MO, ue1 gets the one asserted for the browser user (the gateway asked with P-Preferred-Identity)'), { timeout: 45000 }, async () => {
  const { ue, incoming, mark } = await incomingCall(client, USER, 'uac-wait', 20000, { timeoutMs: 30000 });
  try {
    assert.deepEqual(incoming.assertedIdentity, ['sip:ue2@ims.lab'], JSON.stringify(incoming));
    await client.hangup(incoming.callId);
    await client.waitFor('ended', incoming.callId, 10000, mark);
  } finally {
    ue.kill();
    await ue.done;
  }
  const callId = await client.call('ue1');
  try {
    await client.waitFor('answered', callId, 15000);
  } finally {
    await client.hangup(callId).catch(() => {});
  }
  const inv = wire(path.join(logDir(), 'sipp-uas-ue1-messages.log'), callId).find((m) => m.dir === 'received' && /^INVITE /.test(m.first));
  assert.ok(inv, `ue1 got the INVITE of ${callId}`);
  assert.equal(header(inv.text, 'P-Asserted-Identity'), `<sip:${USER}@ims.lab>`);
  assert.equal(header(inv.text, 'P-Preferred-Identity'), null, 'the P-CSCF removed P-Preferred-Identity (TS 24.229 §5.2.6.3)');
  await assertFarUeAssertedIdentity({ token: page.token, callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});

test(titled('early media on MO: ue5\'s 183 with SDP (no 100rel) reaches the browser as progress with the answer and its audio plays; the 200\'s changed SDP is followed'), { timeout: 45000 }, async () => {
  const ue = startUe('uas-early', 'ue5', null, { timeoutMs: 40000 });
  let callId;
  try {
    await ue.ready(); // ue5's REGISTER
    const mark = await client.mark();
    callId = await client.call('ue5');
    const progress = await client.waitFor('progress', callId, 15000, mark);
    assert.equal(progress.sipCode, 183);
    assert.match(progress.sdp ?? '', /UDP\/TLS\/RTP\/SAVPF/, 'the early answer, as rtpengine made it for the browser');
    // ue5 answers 3 s after its 183: one 2 s window from the progress leaves 1.6 s for ICE and DTLS (20 packets are
    // 0.4 s). Only the 183's port echoes (the 200 moves the media to one that does not, checked below), so what
    // comes back is early media even if the 200 arrived at the window's end.
    assert.ok(await receivedDuring(callId, 2000) > 20, 'early media: the UE echoes the browser\'s audio before the 200');
    await client.waitFor('answered', callId, 10000, mark);
    await sleep(500);
    // the 200 moved the UE's media to a port where it echoes nothing: a gateway that kept the 183's SDP would still
    // have rtpengine send to the echoing port
    const after = await receivedDuring(callId, 1500);
    assert.ok(after < 5, `rtpengine follows the 200's SDP (new UE port): ${after} packets came back`);
    await client.hangup(callId);
    await waitForUeMessage(ueLog('uas-early', 'ue5'), callId, /^BYE /);
  } finally {
    if (callId) await client.hangup(callId).catch(() => {});
    ue.kill();
    await ue.done;
  }
  const w = wire(ueLog('uas-early', 'ue5'), callId);
  assert.ok(w.some((m) => m.dir === 'received' && /^BYE /.test(m.first)), 'the hang-up reached ue5');
  assert.ok(!w.some((m) => m.dir === 'received' && /^PRACK /.test(m.first)), 'an unreliable 183 is not PRACKed');
  await assertFarUeAssertedIdentity({ token: page.token, callId, log: ueLog('uas-early', 'ue5'), where: 'the INVITE at ue5 (uas-early)' });
  await assertNoRtpengineSession();
});

// A call from the browser to ue5 while it has two contacts (SIPp modes `modeA` at 5094, `modeB` at 5100, so
// the S-CSCF forks): answered, audio with the branch that carries it, one call and one answer at the
// browser, hung up by the browser (the UEs run until the hang-up's BYE reached `carrier`, the mode whose branch
// carries the call). Returns the Call-ID; the UEs are stopped.
async function forkedCall(modeA, modeB, carrier) {
  const a = startUe(modeA, 'ue5', null, { timeoutMs: 40000 });
  let b = null;
  let callId;
  try {
    await a.ready();
    b = startUe(modeB, 'ue5', null, { timeoutMs: 40000 });
    await b.ready(); // both REGISTERs: the S-CSCF now has two contacts for ue5
    const mark = await client.mark();
    callId = await client.call('ue5');
    await client.waitFor('answered', callId, 15000, mark);
    await waitReceiving(client, callId);
    assert.ok(await receivedDuring(callId, 1500) > 20, 'audio with the branch that carries the call');
    const evs = (await client.events()).slice(mark).map((e) => e.msg);
    assert.equal(new Set(evs.filter((e) => e.callId).map((e) => e.callId)).size, 1, 'one call at the browser');
    assert.equal(evs.filter((e) => e.type === 'answered').length, 1);
    await client.hangup(callId);
    await client.waitFor('ended', callId, 10000, mark);
    await waitForUeMessage(ueLog(carrier, 'ue5'), callId, /^BYE /);
  } finally {
    if (callId) await client.hangup(callId).catch(() => {});
    a.kill();
    b?.kill();
    await a.done;
    await b?.done;
  }
  return callId;
}

test(titled('forking on MO: ue5 has two contacts; one sends 183 + SDP and answers, the other rings and is cancelled by the proxy; the browser sees one call'), { timeout: 45000 }, async () => {
  const callId = await forkedCall('uas-fork-a', 'uas-fork-b', 'uas-fork-a');
  const wa = wire(ueLog('uas-fork-a', 'ue5'), callId);
  const wb = wire(ueLog('uas-fork-b', 'ue5'), callId);
  assert.ok(wb.some((m) => m.dir === 'sent' && /^SIP\/2\.0 180/.test(m.first)), 'branch B rang (a second early dialog)');
  assert.ok(wa.some((m) => m.dir === 'sent' && /^SIP\/2\.0 183/.test(m.first)), 'branch A sent 183 with SDP');
  const tagOf = (w, re) => /^To:.*;tag=([^;\s]+)/mi.exec(w.find((m) => m.dir === 'sent' && re.test(m.first))?.text ?? '')?.[1];
  assert.notEqual(tagOf(wa, /^SIP\/2\.0 183/), tagOf(wb, /^SIP\/2\.0 180/), 'two early dialogs: different To tags');
  assert.ok(wb.some((m) => m.dir === 'received' && /^CANCEL /.test(m.first)), 'branch B was cancelled');
  assert.ok(!wb.some((m) => m.dir === 'received' && /^(BYE|PRACK) /.test(m.first)), 'no BYE or PRACK went to branch B');
  assert.ok(wa.some((m) => m.dir === 'received' && /^ACK /.test(m.first)), 'the 200 of branch A was ACKed');
  assert.ok(wa.some((m) => m.dir === 'received' && /^BYE /.test(m.first)), 'the hang-up went to branch A');
  for (const mode of ['uas-fork-a', 'uas-fork-b']) await assertFarUeAssertedIdentity({ token: page.token, callId, log: ueLog(mode, 'ue5'), where: `the INVITE at ue5's branch ${mode}` });
  await assertNoRtpengineSession();
});

test(titled('forking on MO, both branches answer: the first 2xx carries the call; the second, sent after the proxy\'s CANCEL, is ACKed and ended with BYE at once (RFC 3261 §13.2.2.4); the browser sees one call'), { timeout: 45000 }, async () => {
  const callId = await forkedCall('uas-fork-late-2xx', 'uas-fork-2xx-b', 'uas-fork-2xx-b');
  const [late, first] = ['uas-fork-late-2xx', 'uas-fork-2xx-b'].map((mode) => wire(ueLog(mode, 'ue5'), callId));
  const okOf = (w) => w.find((m) => m.dir === 'sent' && /^SIP\/2\.0 200/.test(m.first) && /^CSeq: \d+ INVITE/mi.test(m.text));
  const at = (w, re) => w.find((m) => m.dir === 'received' && re.test(m.first));
  const [okLate, okFirst] = [okOf(late), okOf(first)];
  assert.ok(okFirst, `branch B (${LAB.LAB_UE5_SECOND_SIP_PORT}) answered at once`);
  assert.ok(at(late, /^CANCEL /), `branch A (${LAB.LAB_UE5_SIP_PORT}) got the proxy's CANCEL`);
  assert.ok(okLate && okLate.t >= at(late, /^CANCEL /).t, 'branch A answered 200 after the CANCEL (the race)');
  const tagOf = (m) => /^To:.*;tag=([^;\s]+)/mi.exec(m.text)?.[1];
  assert.notEqual(tagOf(okLate), tagOf(okFirst), 'two dialogs: different To tags');
  for (const [name, w] of [['A', late], ['B', first]]) {
    assert.ok(at(w, /^ACK /), `branch ${name}'s 200 was ACKed`);
    assert.ok(at(w, /^BYE /), `branch ${name} got a BYE`);
  }
  const lateAckToBye = at(late, /^BYE /).t - at(late, /^ACK /).t;
  const firstAckToBye = at(first, /^BYE /).t - at(first, /^ACK /).t;
  assert.ok(lateAckToBye < 1000, `the second 2xx's dialog was ended right after its ACK (${lateAckToBye} ms)`);
  // the page hangs up at least 2 s after `answered` (which the gateway sends after its ACK): audio seen within 500 ms
  // windows, then 1.5 s of it (forkedCall)
  assert.ok(firstAckToBye >= 1500, `the first 2xx's dialog carried the call until the hang-up (${firstAckToBye} ms)`);
  for (const mode of ['uas-fork-late-2xx', 'uas-fork-2xx-b']) await assertFarUeAssertedIdentity({ token: page.token, callId, log: ueLog(mode, 'ue5'), where: `the INVITE at ue5's branch ${mode}` });
  await assertNoRtpengineSession();
});
