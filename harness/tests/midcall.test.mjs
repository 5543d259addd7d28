// Integration: offers in an established call (RFC 3264 §8) through gateway + Kamailio + rtpengine + SIPp:
// browser hold/resume by `reoffer` → re-INVITE to ue8, an ICE restart answered by rtpengine alone (no SIP),
// ue9's re-INVITE (hold) and UPDATE (resume) answered by the browser via `reoffer`/`reanswer`, and an MT call whose
// media path breaks: the page restarts ICE by itself (lab-client #recoverIce) and gets its audio back.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { logDir } from '../kit/env.mjs';
import { assertNoRtpengineSession, incomingCall, loggedInPage, receivedDuring as packetsReceivedDuring, ueMessages, titled, waitReceiving as waitReceivingAudio } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'bob';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let page;
let client;

before(async () => {
  page = await loggedInPage(USER, 'test-midcall-bob');
  ({ client } = page);
});

after(async () => page?.close());

// The INVITEs ue8 received for a call, in order, as {direction, body} (sipp -trace_msg log).
function invitesSeenByUe8(callId) {
  const log = path.join(logDir(), 'sipp-uas-reinvite-ue8-messages.log');
  return ueMessages(log).filter((b) => /message received/i.test(b) && /^INVITE sip:/m.test(b) && b.includes(`Call-ID: ${callId}`))
    .map((b) => ({ direction: /a=(sendrecv|sendonly|recvonly|inactive)/.exec(b)?.[1] ?? null, body: b }));
}

const audioDirections = (m) => m.transceivers.filter((t) => t.kind === 'audio').map((t) => t.currentDirection);
const ufrag = (sdp) => /a=ice-ufrag:(\S+)/.exec(sdp)?.[1];

// Packets the browser received over `ms`.
const receivedDuring = (callId, ms) => packetsReceivedDuring(client, callId, ms);

const waitReceiving = (callId, opts) => waitReceivingAudio(client, callId, opts);

// The page answers a re-offer by itself (setRemoteDescription, createAnswer, setLocalDescription): the audio
// transceivers' current directions once they are `want`, or as they are after `ms`.
async function directionsBecome(callId, want, ms = 5000) {
  for (const end = Date.now() + ms; ;) {
    const dirs = audioDirections(await client.media(callId));
    if (JSON.stringify(dirs) === JSON.stringify(want) || Date.now() > end) return dirs;
    await sleep(100);
  }
}

async function waitIceConnected(callId, ms = 8000) {
  const until = Date.now() + ms;
  for (;;) {
    const m = await client.media(callId);
    if (m.iceConnectionState === 'connected' || m.iceConnectionState === 'completed') return m;
    if (Date.now() > until) throw new Error(`ICE is ${m.iceConnectionState} after ${ms} ms`);
    await sleep(200);
  }
}

test(titled('MO call to ue8: hold and resume by re-INVITE, ICE restart without SIP'), { timeout: 60000 }, async () => {
  const callId = await client.call('ue8');
  try {
    await client.waitFor('answered', callId, 15000);
    await assertFarUeAssertedIdentity({ token: page.token, callId, ue: 'ue8' });
    await waitReceiving(callId);
    assert.ok(await receivedDuring(callId, 1500) > 20, 'audio flows before the hold');

    await client.reoffer(callId, { direction: 'sendonly' });
    assert.deepEqual(audioDirections(await client.media(callId)), ['sendonly']);
    let invites = invitesSeenByUe8(callId);
    assert.equal(invites.length, 2, 'INVITE + re-INVITE at ue8');
    assert.equal(invites[1].direction, 'sendonly', 'the hold reached the UE as a=sendonly');
    assert.doesNotMatch(invites[1].body, /a=(ice-ufrag|fingerprint|rtcp-mux|group:BUNDLE)/, 'no WebRTC lines in the re-INVITE');
    assert.ok(await receivedDuring(callId, 1500) < 5, 'nothing is played to the browser on hold');

    await client.reoffer(callId, { direction: 'sendrecv' });
    assert.deepEqual(audioDirections(await client.media(callId)), ['sendrecv']);
    invites = invitesSeenByUe8(callId);
    assert.equal(invites.length, 3);
    assert.equal(invites[2].direction, 'sendrecv', 'the resume reached the UE');
    await waitReceiving(callId);
    assert.ok(await receivedDuring(callId, 1500) > 20, 'audio flows again after the resume');

    const before = await client.media(callId);
    const mark = await client.mark();
    await client.reoffer(callId, { iceRestart: true });
    const reanswer = await client.waitFor('reanswer', callId, 1000, mark);
    assert.equal(reanswer.sipReoffer, false, 'the ICE restart did not go to IMS');
    const afterRestart = await waitIceConnected(callId);
    assert.notEqual(ufrag(afterRestart.localSdp), ufrag(before.localSdp), 'the browser has new ICE credentials');
    assert.notEqual(ufrag(afterRestart.remoteSdp), ufrag(before.remoteSdp), 'rtpengine answered with new ICE credentials');
    assert.equal(invitesSeenByUe8(callId).length, 3, 'no re-INVITE for the ICE restart');
    // ICE "connected" can come a moment before rtpengine has latched onto the new pair (seen once in a
    // clean-clone run: a 1.5 s window right after it got fewer than 20 packets); audio must resume within 5 s
    // and then flow steadily.
    await waitReceiving(callId, { min: 10, ms: 5000 });
    assert.ok(await receivedDuring(callId, 1500) > 20, 'audio flows after the ICE restart');

    const info = await client.waitFor('ended', callId, 1).catch(() => null);
    assert.equal(info, null, 'the call is still up');
  } finally {
    await client.hangup(callId);
    await client.waitFor('ended', callId, 5000).catch(() => {});
  }
  await assertNoRtpengineSession();
});

test(titled('mid-call messages in the wrong state are refused and the call survives'), { timeout: 40000 }, async () => {
  const callId = await client.call('ue8');
  try {
    await client.waitFor('answered', callId, 15000);
    await assertFarUeAssertedIdentity({ token: page.token, callId, ue: 'ue8' });
    const mark = await client.mark();
    const m = await client.media(callId);
    await client.sendRaw(JSON.stringify({ type: 'reanswer', callId, sdp: m.localSdp }));
    const e1 = await client.waitFor('error', callId, 3000, mark);
    assert.equal(e1.code, 'bad-state');
    await client.sendRaw(JSON.stringify({ type: 'reoffer', callId, sdp: 'not an sdp' }));
    const e2 = await client.waitFor('error', callId, 3000, mark);
    assert.equal(e2.code, 'bad-sdp');
    await client.sendRaw(JSON.stringify({ type: 'reoffer', callId: 'nope', sdp: m.localSdp }));
    const e3 = await client.waitFor('error', 'nope', 3000, mark);
    assert.equal(e3.code, 'unknown-call');
    assert.ok(await receivedDuring(callId, 1000) > 10, 'the call still carries audio');
  } finally {
    await client.hangup(callId);
    await client.waitFor('ended', callId, 5000).catch(() => {});
  }
  await assertNoRtpengineSession();
});

test(titled('MT call from ue9: hold by re-INVITE and resume by UPDATE are answered by the browser'), { timeout: 60000 }, async () => {
  const { ue, incoming, mark } = await incomingCall(client, USER, 'uac-reinvite', 4000, { timeoutMs: 60000 });
  const { callId } = incoming;
  try {
    await client.answer(callId);
    await waitReceiving(callId);

    const hold = await client.waitFor('reoffer', callId, 10000, mark);
    assert.equal(hold.method, 'INVITE');
    assert.match(hold.sdp, /a=sendonly/, 'the browser is offered a=sendonly');
    assert.match(hold.sdp, /UDP\/TLS\/RTP\/SAVPF/, 'the re-offer to the browser is DTLS-SRTP');
    assert.deepEqual(await directionsBecome(callId, ['recvonly']), ['recvonly']);

    const resume = await client.waitFor('reoffer', callId, 10000, mark);
    assert.equal(resume.method, 'UPDATE');
    assert.deepEqual(await directionsBecome(callId, ['sendrecv']), ['sendrecv']);
    await waitReceiving(callId);
    assert.ok(await receivedDuring(callId, 1000) > 20, 'audio flows after the resume');

    const ended = await client.waitFor('ended', callId, 10000, mark);
    assert.equal(ended.reason, 'remote-hangup');
    const r = await ue.done;
    assert.equal(r.code, 0, `SIPp ue9 checks the answers (recvonly, then sendrecv): exit ${r.code}: ${r.output}`);
  } finally {
    ue.kill();
    await client.hangup(callId).catch(() => {});
  }
  await assertNoRtpengineSession();
});

// Everything to the page's UDP port `port` is dropped in the browser's namespace (nft, a table of this test's own):
// the path the call's ICE pair uses is gone, as when a network goes away under a call. Returns the undo.
function cutPathTo(port) {
  const ns = process.env.LAB_BROWSER_NS;
  assert.ok(ns, 'LAB_BROWSER_NS is not set: run through ./lab test (the browser namespace)');
  const nft = (args, input) => execFileSync('ip', ['netns', 'exec', ns, 'nft', ...args], { encoding: 'utf8', timeout: 5000, input });
  try {
    nft(['-f', '-'], `table inet midcall_cut {\n chain in { type filter hook input priority filter; policy accept; udp dport ${port} drop; }\n}\n`);
  } catch (e) {
    throw new Error(`cannot drop UDP to port ${port} in ${ns} with nft: ${String(e.stderr ?? e.message).trim()}`);
  }
  return () => { try { nft(['delete', 'table', 'inet', 'midcall_cut']); } catch { /* not there */ } };
}

// The INVITEs (initial and re-INVITEs) ue2 received for a call (sipp -trace_msg log of run-ue.sh uac-reinvited).
function invitesSeenByUe2(callId) {
  const log = path.join(logDir(), `sipp-uac-reinvited-${USER}-messages.log`);
  return ueMessages(log).filter((b) => /message received/i.test(b) && /^INVITE sip:/m.test(b) && b.includes(`Call-ID: ${callId}`)).length;
}

test(titled('MT call from ue2 whose media path breaks: the page restarts ICE by itself and audio comes back'), { timeout: 45000 }, async () => {
  const { ue, incoming } = await incomingCall(client, USER, 'uac-reinvited', 30000, { timeoutMs: 45000 });
  const { callId } = incoming;
  let restore = () => {};
  try {
    await client.answer(callId);
    await waitReceiving(callId);
    const up = (await client.calls()).find((c) => c.callId === callId);
    assert.equal(up?.state, 'answered', `the page's state of the answered MT call (${JSON.stringify(up)})`);
    const port = /:(\d+)\//.exec((await client.stats(callId)).localCandidate ?? '')?.[1];
    assert.ok(port, `the call's local ICE candidate is known (${(await client.stats(callId)).localCandidate})`);
    restore = cutPathTo(port);
    // ICE turns 'disconnected' once nothing arrives for a few seconds; 300 ms later the page re-offers with new
    // credentials (new ports), answered by rtpengine alone or through a re-INVITE to ue2 (both seen, see the docs), and
    // ICE connects again
    const seen = [];
    let c;
    for (const until = Date.now() + 20000; Date.now() < until; await sleep(250)) {
      c = (await client.calls()).find((x) => x.callId === callId);
      if (seen.at(-1) !== `${c?.iceConnectionState}/${c?.iceRestarts}`) seen.push(`${c?.iceConnectionState}/${c?.iceRestarts}`);
      if (c?.iceRestarts > 0 && /connected|completed/.test(c.iceConnectionState ?? '')) break;
    }
    assert.ok(c?.iceRestarts > 0 && /connected|completed/.test(c.iceConnectionState ?? ''),
      `within 20 s of the cut the page restarted ICE and is connected again (ICE state/restarts seen: ${seen.join(', ')}; call ${JSON.stringify(c)})`);
    assert.notEqual(c.state, 'ended', 'the call is still up');
    await waitReceiving(callId, { min: 10, ms: 5000 });
    assert.ok(await receivedDuring(callId, 1000) > 20, 'audio flows on the new path');
    const invites = invitesSeenByUe2(callId);
    assert.ok(invites === 1 || invites === 2, `ue2 got the INVITE and at most one re-INVITE (the restart), not ${invites}`);
    await client.hangup(callId);
    const r = await ue.done;
    assert.equal(r.code, 0, `SIPp ue2 (uac-reinvited) saw its call through to the BYE: exit ${r.code}: ${r.output}`);
  } finally {
    restore();
    ue.kill();
    await client.hangup(callId).catch(() => {});
    await client.waitFor('ended', callId, 5000).catch(() => {});
  }
  await assertNoRtpengineSession();
});
