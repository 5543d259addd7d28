// IMS data channels through the gateway (issue #25, docs/datachannel.md "Calls"): a browser user (kate) and an
// IMS UE (ue10: harness/runner/dc-ue.py, SIP through the P-CSCF, aiortc for the data channels) exchange chat
// messages both ways on the application channel (stream 1000, a=dcmap + a=dcsa 3gpp-req-app, TS 26.114/TS 24.186)
// that the call's SDP negotiates. The gateway splits each SDP: audio to rtpengine, the data-channel section to the
// data-channel endpoint (media-relay/datachannel). MO (the page calls the UE) and MT (the UE calls the page), in
// Chromium and Firefox. Checked: the IMS side's SDP (a=dcmap/a=dcsa/ice-lite), every message each way in order,
// the gateway's call info (the endpoint's counters and channel map), no endpoint session left after the call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { outDir, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { DC_UE, chatBothWays, endpointList, sleepMs, startDcUe, waitUntil } from '../runner/dc-ue.mjs';
import * as gw from '../runner/gateway.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'kate';
const N = 20; // messages each way per call
const results = [];
let ue;

before(async () => {
  await gw.waitHealthy(15000);
  ue = await startDcUe(DC_UE, { messages: N, intervalMs: 20 });
});

after(async () => {
  await ue?.stop();
  if (results.length) fs.writeFileSync(path.join(outDir(), 'datachannel-calls.json'), JSON.stringify(results, null, 2));
});

// One call with the chat channel open: messages both ways, the counters, the hang-up; returns what it measured.
async function exchange(t, kind, direction, client, token, callId, mark, hangupBy, { holdResume = false, viaUi = false } = {}) {
  const { chat, page, info } = await chatBothWays({ client, ue, callId, mark, n: N, callInfo: (id) => gw.callInfo(token, id), label: kind });
  assert.equal(chat.id, 1000, 'the page opened the negotiated channel with stream id 1000');
  assert.ok(page.received >= N, `the page received ${page.received} of ${N} messages from the IMS UE`);
  const dc = info.dataChannels;
  assert.ok(dc, `the gateway's call info has no dataChannels: ${JSON.stringify(info)}`);
  assert.equal(dc.browserLeg, 'up', `the endpoint's browser leg: ${dc.browserLeg}`);
  assert.equal(dc.imsLeg, 'up', `the endpoint's IMS leg: ${dc.imsLeg}`);
  assert.ok(dc.channels.some((c) => c.label === 'chat' && c.browserStream === 1000 && c.imsStream === 1000 && c.negotiated),
    `the endpoint does not map chat 1000 -> 1000: ${JSON.stringify(dc.channels)}`);
  assert.ok(dc.toIms.messages >= N && dc.toBrowser.messages >= N,
    `the endpoint relayed ${dc.toIms.messages} messages toward IMS and ${dc.toBrowser.messages} toward the browser (want >= ${N} each)`);
  assert.equal(dc.toIms.dropped + dc.toBrowser.dropped, 0, `the endpoint dropped messages: ${JSON.stringify(dc)}`);
  assert.equal(info.media.packetsToIms > 0 && info.media.packetsToBrowser > 0, true,
    `the call's audio did not flow both ways beside the data channel: ${JSON.stringify(info.media)}`);
  if (holdResume) {
    // hold and resume by re-offers from the page: the gateway keeps the endpoint's sections (same port, ICE
    // credentials, fingerprint), so the channel goes on: N more messages must reach the UE after the resume
    const m = ue.mark();
    await client.reoffer(callId, { direction: 'sendonly' });
    await client.reoffer(callId, { direction: 'sendrecv' });
    for (let i = 0; i < N; i++) assert.ok(await client.sendData(callId, `after the resume #${i}`), `${kind} could not send after the resume`);
    await ue.waitFor((e) => e.event === 'received' && e.label === 'chat' && e.count >= 2 * N, 10000, `${N} more messages after hold and resume`, m);
  }
  let extra = holdResume ? N : 0;
  if (viaUi) {
    // the phone's chat pane as a person uses it: the UE's messages are listed, a typed one is sent
    const shown = await client.page.evaluate(() => document.querySelectorAll('#chat-log li.in').length);
    assert.ok(shown >= N, `the chat pane lists ${shown} received messages (want ${N})`);
    const m = ue.mark();
    await client.page.type('#chat-text', `typed in ${kind}`);
    await client.page.click('#chat-send');
    await ue.waitFor((e) => e.event === 'message' && e.text === `typed in ${kind}`, 5000, 'the message typed in the chat pane', m);
    extra += 1;
  }
  const endMark = ue.mark();
  if (hangupBy === 'browser') await client.hangup(callId);
  else ue.send({ cmd: 'bye' });
  const ended = await ue.waitFor((e) => e.event === 'ended' && e.callId === callId, 10000, 'the end of the call', endMark);
  const u = ended.channels.chat;
  assert.ok(u, `the IMS UE reports no chat channel: ${JSON.stringify(ended)}`);
  assert.equal(u.sent, N, `the IMS UE sent ${u.sent} of ${N} messages`);
  const want = N + extra;
  assert.equal(u.received, want, `the IMS UE received ${u.received} of ${want} messages from ${kind}`);
  assert.ok(u.inOrder, 'the IMS UE got the ordered channel\'s messages out of order');
  await client.waitFor('ended', callId, 10000);
  const fin = await waitUntil(async () => (await gw.callInfo(token, callId)).dataChannels, 5000, 'the ended call\'s data-channel counters');
  assert.ok(fin.toIms.messages >= N, `the ended call's final counters lost the messages: ${JSON.stringify(fin)}`);
  await waitUntil(async () => !(await endpointList()).includes(callId), 5000, `the endpoint to delete the session of ${callId}`);
  const r = {
    browser: kind, direction, callId, messagesEachWay: N,
    toIms: { messages: fin.toIms.messages, bytes: fin.toIms.bytes, relayUsP50: fin.toIms.relayUsP50, delayMs: u.delayMs },
    toBrowser: { messages: fin.toBrowser.messages, bytes: fin.toBrowser.bytes, relayUsP50: fin.toBrowser.relayUsP50, delayMs: page.delayMs },
  };
  results.push(r);
  t.diagnostic(`${kind} ${direction}: ${N} messages each way; browser -> UE delay p50 ${u.delayMs?.p50} ms (max ${u.delayMs?.max}), `
    + `UE -> browser p50 ${page.delayMs?.p50} ms (max ${page.delayMs?.max}); endpoint relay p50 ${fin.toIms.relayUsP50} µs / ${fin.toBrowser.relayUsP50} µs`);
}

// The call's audio through rtpengine goes on: its packet counters grow both ways over half a second (25 packets of 20 ms).
async function assertAudioFlows(token, callId, when) {
  const before = (await gw.callInfo(token, callId)).media;
  await sleepMs(500);
  const now = (await gw.callInfo(token, callId)).media;
  assert.ok(now.packetsToIms > before.packetsToIms && now.packetsToBrowser > before.packetsToBrowser,
    `the call's audio stopped ${when}: packets to IMS ${before.packetsToIms} -> ${now.packetsToIms}, to the browser ${before.packetsToBrowser} -> ${now.packetsToBrowser}`);
}

// Mid-call (issue #25, docs/datachannel.md "Mid-call"): an audio call got its chat channel by a re-INVITE; messages
// both ways, then `remove` takes it away again (port 0): the UE's channel closes, the page's too, the endpoint's
// session is gone while the call and its audio go on; the hang-up.
async function chatThenRemove(t, kind, direction, client, token, callId, mark, remove) {
  const { chat, page, info } = await chatBothWays({ client, ue, callId, mark, n: N, callInfo: (id) => gw.callInfo(token, id), label: kind });
  assert.equal(chat.id, 1000, 'the channel added mid-call is the negotiated chat channel, stream id 1000');
  assert.ok(page.received >= N, `the page received ${page.received} of ${N} messages from the IMS UE after the re-INVITE`);
  const dc = info.dataChannels;
  assert.ok(dc?.toIms.messages >= N && dc?.toBrowser.messages >= N,
    `the endpoint relayed too few messages for the channel added mid-call: ${JSON.stringify(dc)}`);
  const rmark = ue.mark();
  await remove();
  await ue.waitFor((e) => e.event === 'removed' && e.what === 'application', 10000, 'the re-INVITE removing the chat channel (port 0)', rmark);
  await waitUntil(async () => !(await endpointList()).includes(callId), 5000,
    `the endpoint to delete the session of ${callId} once the data-channel section was removed (the call goes on)`);
  await waitUntil(async () => (await client.dataChannels(callId))?.every((c) => c.state === 'closed'), 5000,
    `the page's chat channel to close after the removal (${JSON.stringify(await client.dataChannels(callId))})`);
  const callNow = (await client.calls()).find((c) => c.callId === callId);
  assert.notEqual(callNow?.state, 'ended', `the call did not go on after the removal of its data channel: ${JSON.stringify(callNow)}`);
  await assertAudioFlows(token, callId, 'after the data channel was removed');
  const fin = (await gw.callInfo(token, callId)).dataChannels;
  assert.ok(fin?.toIms.messages >= N, `the call info lost the removed channel's last counters: ${JSON.stringify(fin)}`);
  const endMark = ue.mark();
  await client.hangup(callId);
  await ue.waitFor((e) => e.event === 'ended' && e.callId === callId, 10000, 'the end of the call', endMark);
  await client.waitFor('ended', callId, 10000);
  t.diagnostic(`${kind} ${direction} mid-call: ${N} messages each way on the chat channel added by re-INVITE, then removed (port 0); `
    + `endpoint relay p50 ${fin.toIms.relayUsP50} µs / ${fin.toBrowser.relayUsP50} µs`);
  results.push({ browser: kind, direction: `${direction} mid-call`, callId, messagesEachWay: N, toIms: fin.toIms, toBrowser: fin.toBrowser });
}

for (const kind of ['chromium', 'firefox']) {
  describe(`datachannel calls (${kind})`, () => {
    // one browser and login per kind for both calls (a Firefox start takes seconds)
    let browser;
    let client;
    let token;
    before(async () => {
      browser = await launchBrowser({ kind });
      client = await openClient(browser, { name: `dc-${kind}` });
      ({ token } = await client.login(USER, passwordOf(USER)));
    });
    after(async () => {
      await client?.logout().catch(() => {});
      await browser?.close();
    });
    // a failed step leaves no call behind for the next test: the page hangs up, the UE ends what it has
    async function cleanOnFailure(callId, steps) {
      try {
        await steps();
      } catch (e) {
        await client.hangup(callId).catch(() => {});
        ue.send({ cmd: 'bye' });
        throw e;
      }
    }

    test(`datachannel calls (${kind}): MO, the page calls the IMS UE with a chat channel; messages both ways, and after hold and resume`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const callId = await client.call(DC_UE, { dataChannels: true });
      await cleanOnFailure(callId, async () => {
        const incoming = await ue.waitFor((e) => e.event === 'incoming', 10000, 'the INVITE', mark);
        assert.ok(incoming.dcmap.some((l) => /^a=dcmap:1000 label="chat"/.test(l)), `the INVITE's SDP lacks a=dcmap:1000: ${incoming.dcmap}`);
        assert.ok(incoming.dcmap.includes('a=dcsa:1000 3gpp-req-app:org.lab.chat'), `the INVITE's SDP lacks the a=dcsa 3gpp-req-app line: ${incoming.dcmap}`);
        assert.ok(incoming.iceLite, 'the INVITE\'s SDP does not say a=ice-lite (the endpoint is ICE-lite toward IMS)');
        assert.equal(incoming.audio, true, 'the INVITE has no audio m-line beside the data channel');
        await assertFarUeAssertedIdentity({ token, callId, invite: (incoming.pai ?? []).map((v) => `P-Asserted-Identity: ${v}`).join('\r\n'),
          where: `the INVITE at ${DC_UE} (its P-Asserted-Identity headers: ${JSON.stringify(incoming.pai)})` });
        await client.waitFor('answered', callId, 10000);
        await exchange(t, kind, 'MO', client, token, callId, mark, 'browser', { holdResume: true });
      });
    });

    test(`datachannel calls (${kind}): MT, the IMS UE calls the page with a chat channel; messages both ways, one typed in the chat pane`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const pmark = await client.mark();
      ue.send({ cmd: 'call', to: USER });
      const incoming = await client.waitFor('incoming', null, 10000, pmark);
      assert.match(incoming.sdp ?? '', /a=dcmap:1000 label="chat"/, `the offer the page got lacks the IMS side's a=dcmap:1000: ${incoming.sdp}`);
      assert.match(incoming.sdp, /^a=ice-lite/m, 'the offer the page got does not say a=ice-lite (rtpengine and the endpoint are ICE-lite)');
      await cleanOnFailure(incoming.callId, async () => {
        await client.answer(incoming.callId);
        await ue.waitFor((e) => e.event === 'answered', 15000, 'the 200 to its INVITE', mark);
        await exchange(t, kind, 'MT', client, token, incoming.callId, mark, 'ue', { viaUi: true });
      });
    });

    test(`datachannel calls (${kind}): mid-call MO, the page adds a chat channel to its audio call (re-INVITE), chats, and removes it (port 0)`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const callId = await client.call(DC_UE);
      await cleanOnFailure(callId, async () => {
        const incoming = await ue.waitFor((e) => e.event === 'incoming', 10000, 'the INVITE', mark);
        assert.equal(incoming.application, false, 'the audio call\'s INVITE already had a data-channel section');
        await client.waitFor('answered', callId, 10000);
        // the page applies the gateway's answer after `answered`; a re-offer needs it applied (signalling stable)
        await waitUntil(async () => (await client.sdp(callId)).remote !== null, 5000, `the page to apply the answer of ${callId}`);
        await client.addDataChannels(callId);
        const added = await ue.waitFor((e) => e.event === 'added' && e.what === 'application', 10000, 'the re-INVITE adding the chat channel', mark);
        assert.ok(added.dcmap.some((l) => /^a=dcmap:1000 label="chat"/.test(l)), `the re-INVITE's section lacks a=dcmap:1000: ${added.dcmap}`);
        assert.ok(added.dcmap.includes('a=dcsa:1000 3gpp-req-app:org.lab.chat'), `the re-INVITE's section lacks a=dcsa 3gpp-req-app: ${added.dcmap}`);
        assert.ok(added.iceLite, 'the re-INVITE\'s SDP does not say a=ice-lite (the endpoint is ICE-lite toward IMS)');
        await chatThenRemove(t, kind, 'MO', client, token, callId, mark, () => client.removeDataChannels(callId));
      });
    });

    test(`datachannel calls (${kind}): mid-call MT, the IMS UE re-INVITEs its audio call with a chat channel, both chat, and it removes it (port 0)`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const pmark = await client.mark();
      ue.send({ cmd: 'call', to: USER, media: 'audio' });
      const incoming = await client.waitFor('incoming', null, 10000, pmark);
      assert.doesNotMatch(incoming.sdp ?? '', /^m=application/m, 'the audio call\'s offer to the page already had a data-channel section');
      await cleanOnFailure(incoming.callId, async () => {
        await client.answer(incoming.callId);
        await ue.waitFor((e) => e.event === 'answered', 15000, 'the 200 to its INVITE', mark);
        ue.send({ cmd: 'add', what: 'application' });
        const re = await ue.waitFor((e) => e.event === 'reinvited' && e.what === 'application', 15000, 'the answer to its re-INVITE adding the chat channel', mark);
        assert.equal(re.status, 200, `the re-INVITE adding the chat channel was answered ${re.status}`);
        await ue.waitFor((e) => e.event === 'added' && e.what === 'application', 5000, 'the chat channel accepted in the 200', mark);
        // (the browser's remoteDescription drops a=dcmap: the page's channel, opened from the raw re-offer, tells)
        const chans = await waitUntil(async () => client.dataChannels(incoming.callId), 5000, 'the page to open the channels of the UE\'s re-offer');
        assert.ok(chans.some((c) => c.id === 1000 && c.label === 'chat'), `the page did not get the UE's chat channel 1000 from the re-offer: ${JSON.stringify(chans)}`);
        await chatThenRemove(t, kind, 'MT', client, token, incoming.callId, mark, () => ue.send({ cmd: 'remove', what: 'application' }));
      });
    });
  });
}
