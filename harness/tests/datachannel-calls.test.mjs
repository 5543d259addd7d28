// IMS data channels through the gateway (issue #25, docs/datachannel.md "Calls"): a browser user (kate) and an
// IMS UE (ue10: harness/runner/dc-ue.py, SIP through the P-CSCF, aiortc for the data channels) exchange chat
// messages both ways on the application channel (stream 1000, a=dcmap + a=dcsa 3gpp-req-app, TS 26.114/TS 24.186)
// that the call's SDP negotiates. The gateway splits each SDP: audio to rtpengine, the data-channel section to the
// data-channel endpoint (media-relay/datachannel). MO (the page calls the UE) and MT (the UE calls the page), in
// Chromium and Firefox. Checked: the IMS side's SDP (a=dcmap/a=dcsa/ice-lite), every message each way in order,
// the gateway's call info (the endpoint's counters and channel map), no endpoint session left after the call.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { outDir, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { DC_UE, chatBothWays, startDcUe, waitUntil } from '../runner/dc-ue.mjs';
import * as gw from '../runner/gateway.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'kate';
const N = 20; // messages each way per call
const results = [];
let ue;

// The endpoint's session list (its control protocol's `list`, the raw reply): no session may outlive its call.
function endpointList() {
  const ctl = LAB.LAB_DATACHANNEL_CTL;
  const [host, port] = [ctl.slice(0, ctl.lastIndexOf(':')), Number(ctl.slice(ctl.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => { s.close(); reject(new Error(`the data-channel endpoint at ${ctl} did not answer 'list'`)); }, 2000);
    s.on('message', (m) => { clearTimeout(timer); s.close(); resolve(m.toString('latin1')); });
    s.send(Buffer.from('dcl1 d7:command4:liste', 'latin1'), port, host);
  });
}

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
  });
}
