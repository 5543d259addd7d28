// Real-time text through the gateway (issue #25, docs/datachannel.md "Calls" MO real-time text): the phone (kate)
// calls the RFC 4103 UE (ue10: harness/runner/dc-ue.py, registered through the P-CSCF, its text from
// harness/tests/rfc4103_ue.py) with the option "real-time text": a T.140 data channel (RFC 8865, a=dcmap
// subprotocol "t140") beside the audio. The gateway has the data-channel endpoint bridge it and offers the IMS side
// m=text (t140 + red, RFC 4103/2198) instead of m=application. Text typed into the phone's pane reaches the UE, the
// UE's reaches the pane, character for character, with the UE's text packets dropped at 5 % each way (seeded), so
// what arrives whole arrives through the redundancy. Chromium, then Firefox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { outDir, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { DC_UE, endpointList, sleepMs, startDcUe, waitUntil } from '../runner/dc-ue.mjs';
import * as gw from '../runner/gateway.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'kate';
const T140 = { id: 1001, label: 't140', protocol: 't140' };   // webclient/public/rtt.js T140_CHANNEL
const FROM_PAGE = 'Hi IMS: é € 😀 typed live.';
const FROM_UE = 'Hello browser, ü 漢 ok!';
const results = [];
let ue;

before(async () => {
  await gw.waitHealthy(15000);
  ue = await startDcUe(DC_UE, { messages: 0, textLoss: 0.05, textSeed: 144 });
});

after(async () => {
  await ue?.stop();
  if (results.length) fs.writeFileSync(path.join(outDir(), 'rtt-calls.json'), JSON.stringify(results, null, 2));
});

// One answered call with real-time text: both type at once (the UE at 20 characters a second, the page through its
// pane, key by key); every character must arrive once, in order, each way; redundancy on the wire; the hang-up.
async function exchange(t, kind, direction, client, token, callId, mark, hangupBy) {
  await waitUntil(async () => (await client.realTimeText(callId))?.state === 'open', 10000, 'the page\'s T.140 channel to open');
  // both type at once: the UE at 20 characters a second, the page through its pane, key by key
  ue.send({ cmd: 'type', text: FROM_UE, cps: 20 });
  await client.page.click('#rtt-input');
  await client.page.keyboard.type(FROM_PAGE, { delay: 40 });
  await ue.waitFor((e) => e.event === 'typed' && e.callId === callId && e.chars === FROM_UE.length, 10000, 'the end of its typing', mark);
  const atUe = () => ue.events.slice(mark).filter((e) => e.event === 'text' && e.callId === callId).map((e) => e.text).join('');
  try {
    await waitUntil(async () => atUe().length >= FROM_PAGE.length, 5000, 'the page\'s text at the UE');
  } catch { /* compared below, with what did arrive */ }
  assert.equal(atUe(), FROM_PAGE, 'the RFC 4103 UE got other text than the page typed');
  let rtt;
  try {
    rtt = await waitUntil(async () => { const r = await client.realTimeText(callId); return r.received.length >= FROM_UE.length && r; }, 5000, 'the UE\'s text at the page');
  } catch { rtt = await client.realTimeText(callId); }
  assert.equal(rtt.received, FROM_UE, 'the page got other text than the UE typed');
  assert.equal(rtt.sent, FROM_PAGE, 'the pane sent other text than was typed into it');
  const pane = await client.page.evaluate(() => document.querySelector('#rtt-received').textContent);
  assert.equal(pane, FROM_UE, 'the real-time-text pane shows other text than the UE typed');
  const info = await gw.callInfo(token, callId);
  const tx = info.dataChannels?.text;
  assert.ok(tx, `the gateway's call info has no dataChannels.text: ${JSON.stringify(info.dataChannels)}`);
  assert.equal(tx.state, 'answered', `the text bridge is not answered: ${JSON.stringify(tx)}`);
  assert.equal(tx.redundancy, 2, `the bridge does not send with 2 redundant generations: ${JSON.stringify(tx)}`);
  assert.equal(tx.toBrowser.lost, 0, `the bridge marked text from the UE lost: ${JSON.stringify(tx)}`);
  // the last text goes out twice more as redundancy (2 × 300 ms): a doubled character would arrive now
  await new Promise((r) => setTimeout(r, 700));
  const endMark = ue.mark();
  if (hangupBy === 'browser') await client.hangup(callId);
  else ue.send({ cmd: 'bye' });
  const ended = await ue.waitFor((e) => e.event === 'ended' && e.callId === callId, 10000, 'the end of the call', endMark);
  assert.equal(ended.text.received, FROM_PAGE, 'after the last redundant packets the UE has other text than the page typed (a character doubled?)');
  const s = ended.text.stats;
  assert.ok(s.red_packets > 0 && s.red_blocks_max === 2, `the UE saw no RED packets with 2 generations on the wire: ${JSON.stringify(s)}`);
  assert.equal(s.lost, 0, `the UE marked text from the gateway lost: ${JSON.stringify(s)}`);
  assert.equal(tx.toBrowser.recovered <= s.send_dropped, true, `the bridge recovered more packets than the UE dropped: ${JSON.stringify({ tx, s })}`);
  const r = { browser: kind, direction, callId, fromPage: FROM_PAGE, fromUe: FROM_UE, ue: s, bridge: tx };
  results.push(r);
  t.diagnostic(`${kind} ${direction}: ${[...FROM_PAGE].length} characters to the UE, ${[...FROM_UE].length} to the page, exact; UE dropped ${s.send_dropped} sent / ${s.recv_dropped} received packets, `
    + `recovered ${tx.toBrowser.recovered} at the bridge / ${s.recovered} at the UE; ${s.red_packets} RED packets with up to ${s.red_blocks_max} redundant blocks`);
}

// Short texts for the mid-call cases, typed through the page's API (one message per character) and by the UE.
const MID_PAGE = 'added mid-call é €';
const MID_UE = 'text now ü ok';

// Text both ways on a call whose text came mid-call (or beside m=application): every character once, each way.
async function textBothWays(client, callId, mark, what) {
  await waitUntil(async () => (await client.realTimeText(callId))?.state === 'open', 10000, `the page's T.140 channel to open (${what})`);
  ue.send({ cmd: 'type', text: MID_UE, cps: 30 });
  for (const ch of MID_PAGE) {
    assert.ok(await client.sendText(callId, ch), `the page could not send '${ch}' on its T.140 channel (${what})`);
    await sleepMs(25);
  }
  const atUe = () => ue.events.slice(mark).filter((e) => e.event === 'text' && e.callId === callId).map((e) => e.text).join('');
  try {
    await waitUntil(async () => atUe().length >= MID_PAGE.length, 5000, 'the page\'s text at the UE');
  } catch { /* compared below */ }
  assert.equal(atUe(), MID_PAGE, `the RFC 4103 UE got other text than the page typed (${what})`);
  let rtt;
  try {
    rtt = await waitUntil(async () => { const r = await client.realTimeText(callId); return r.received.length >= MID_UE.length && r; }, 5000, 'the UE\'s text at the page');
  } catch { rtt = await client.realTimeText(callId); }
  assert.equal(rtt.received, MID_UE, `the page got other text than the UE typed (${what})`);
}

// The call's text removed (port 0): the UE's text ends with exactly what was typed, the endpoint's session goes, the
// call and its audio go on; then the hang-up.
async function removeTextAndHangUp(t, kind, direction, client, token, callId, mark, remove) {
  await sleepMs(700); // the last text goes out twice more as redundancy (2 × 300 ms) before it is removed
  const rmark = ue.mark();
  await remove();
  const removed = await ue.waitFor((e) => e.event === 'removed' && e.what === 'text', 10000, 'the re-INVITE removing m=text (port 0)', rmark);
  assert.equal(removed.text.received, MID_PAGE, 'after the removal the UE has other text than the page typed (a character doubled or lost?)');
  await waitUntil(async () => !(await endpointList()).includes(callId), 5000,
    `the endpoint to delete the session (and its text bridge) of ${callId} once the text was removed (the call goes on)`);
  const before = (await gw.callInfo(token, callId)).media;
  await sleepMs(500);
  const info = await gw.callInfo(token, callId);
  assert.ok(info.media.packetsToIms > before.packetsToIms && info.media.packetsToBrowser > before.packetsToBrowser,
    `the call's audio stopped after the text was removed: ${JSON.stringify({ before, now: info.media })}`);
  const tx = info.dataChannels?.text;
  assert.equal(tx?.toBrowser?.lost, 0, `the bridge marked text from the UE lost: ${JSON.stringify(tx)}`);
  const endMark = ue.mark();
  await client.hangup(callId);
  await ue.waitFor((e) => e.event === 'ended' && e.callId === callId, 10000, 'the end of the call', endMark);
  results.push({ browser: kind, direction: `${direction} mid-call`, callId, fromPage: MID_PAGE, fromUe: MID_UE, ue: removed.text.stats, bridge: tx });
  t.diagnostic(`${kind} ${direction} mid-call: text added by re-INVITE, ${[...MID_PAGE].length} characters to the UE and ${[...MID_UE].length} to the page exact, then removed (port 0)`);
}

for (const kind of ['chromium', 'firefox']) {
  describe(`rtt calls (${kind})`, () => {
    let browser;
    let client;
    let token;
    before(async () => {
      browser = await launchBrowser({ kind });
      client = await openClient(browser, { name: `rtt-${kind}` });
      ({ token } = await client.login(USER, passwordOf(USER)));
    });
    after(async () => {
      await client?.logout().catch(() => {});
      await browser?.close();
    });

    test(`rtt calls (${kind}): MO, the page calls the RFC 4103 UE with real-time text; typed text arrives each way, exactly`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const callId = await client.call(DC_UE, { dataChannels: [T140] });
      try {
        const incoming = await ue.waitFor((e) => e.event === 'incoming', 10000, 'the INVITE', mark);
        const text = incoming.text.join('\n');
        assert.match(text, /^m=text [1-9]\d* RTP\/AVP 100 98$/m, `the INVITE's SDP has no m=text offering red then t140: ${JSON.stringify(incoming.text)}`);
        assert.match(text, /^a=rtpmap:100 red\/1000$/m, `the INVITE's m=text lacks red/1000 (RFC 4103 redundancy): ${text}`);
        assert.match(text, /^a=fmtp:100 98\/98\/98$/m, `the INVITE's m=text does not offer 2 redundant generations: ${text}`);
        assert.match(text, /^a=rtpmap:98 t140\/1000$/m, `the INVITE's m=text lacks t140/1000: ${text}`);
        assert.equal(incoming.application, false, 'a call with the T.140 channel alone must not offer the IMS side m=application');
        assert.equal(incoming.audio, true, 'the INVITE has no audio beside the text');
        await assertFarUeAssertedIdentity({ token, callId, invite: (incoming.pai ?? []).map((v) => `P-Asserted-Identity: ${v}`).join('\r\n'),
          where: `the INVITE at ${DC_UE} (its P-Asserted-Identity headers: ${JSON.stringify(incoming.pai)})` });
        await client.waitFor('answered', callId, 10000);
        await exchange(t, kind, 'MO', client, token, callId, mark, 'browser');
      } catch (e) {
        await client.hangup(callId).catch(() => {});
        ue.send({ cmd: 'bye' });
        throw e;
      }
    });

    test(`rtt calls (${kind}): MT, the RFC 4103 UE calls the page with m=text; the page gets a T.140 channel, typed text arrives each way`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const pmark = await client.mark();
      ue.send({ cmd: 'call', to: USER, text: true });
      const incoming = await client.waitFor('incoming', null, 10000, pmark);
      try {
        assert.match(incoming.sdp ?? '', /^a=dcmap:\d+ label="t140";subprotocol="t140"$/m, `the offer the page got has no T.140 channel (RFC 8865): ${incoming.sdp}`);
        assert.doesNotMatch(incoming.sdp, /^m=text /m, 'the page was offered m=text, which a browser cannot take');
        await client.answer(incoming.callId);
        await ue.waitFor((e) => e.event === 'answered', 15000, 'the 200 to its INVITE', mark);
        const ans = ue.events.slice(mark).find((e) => e.event === 'text-answer');
        assert.ok(ans, `the 200's SDP has no m=text for the UE: ${JSON.stringify(ue.events.slice(mark).filter((e) => e.event === 'warning'))}`);
        assert.ok(ans.text.includes('a=rtpmap:100 red/1000'), `the 200's m=text dropped red (RFC 4103 redundancy): ${ans.text}`);
        await exchange(t, kind, 'MT', client, token, incoming.callId, mark, 'ue');
      } catch (e) {
        await client.hangup(incoming.callId).catch(() => {});
        ue.send({ cmd: 'bye' });
        throw e;
      }
    });
    test(`rtt calls (${kind}): mid-call MO, the page adds real-time text to its audio call (re-INVITE with m=text) and removes it`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const callId = await client.call(DC_UE);
      try {
        const incoming = await ue.waitFor((e) => e.event === 'incoming', 10000, 'the INVITE', mark);
        assert.equal(incoming.text.length, 0, 'the audio call\'s INVITE already had m=text');
        await client.waitFor('answered', callId, 10000);
        // the page applies the gateway's answer after `answered`; a re-offer needs it applied (signalling stable)
        await waitUntil(async () => (await client.sdp(callId)).remote !== null, 5000, `the page to apply the answer of ${callId}`);
        await client.addDataChannels(callId, [T140]);
        const added = await ue.waitFor((e) => e.event === 'added' && e.what === 'text', 10000, 'the re-INVITE adding m=text', mark);
        assert.match(added.text.join('\n'), /^m=text [1-9]\d* RTP\/AVP 100 98$/m, `the re-INVITE's m=text does not offer red then t140: ${JSON.stringify(added.text)}`);
        const re = ue.events.slice(mark).filter((e) => e.event === 'added');
        assert.ok(!re.some((e) => e.what === 'application'), 'a T.140 channel alone must not add m=application toward IMS');
        await textBothWays(client, callId, mark, 'MO mid-call');
        await removeTextAndHangUp(t, kind, 'MO', client, token, callId, mark, () => client.removeDataChannels(callId));
      } catch (e) {
        await client.hangup(callId).catch(() => {});
        ue.send({ cmd: 'bye' });
        throw e;
      }
    });

    test(`rtt calls (${kind}): mid-call MT, the RFC 4103 UE re-INVITEs its audio call with m=text, then removes it`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const pmark = await client.mark();
      ue.send({ cmd: 'call', to: USER, media: 'audio' });
      const incoming = await client.waitFor('incoming', null, 10000, pmark);
      try {
        await client.answer(incoming.callId);
        await ue.waitFor((e) => e.event === 'answered', 15000, 'the 200 to its INVITE', mark);
        ue.send({ cmd: 'add', what: 'text' });
        const re = await ue.waitFor((e) => e.event === 'reinvited' && e.what === 'text', 15000, 'the answer to its re-INVITE adding m=text', mark);
        assert.equal(re.status, 200, `the re-INVITE adding m=text was answered ${re.status}`);
        assert.match(re.sdp, /^m=text [1-9]\d* RTP\/AVP/m, `the 200 to the re-INVITE does not accept m=text: ${re.sdp}`);
        assert.match(re.sdp, /^a=rtpmap:\d+ red\/1000/m, `the 200's m=text dropped red: ${re.sdp}`);
        // (the browser's remoteDescription drops a=dcmap: the page's T.140 channel, opened from the raw re-offer, tells)
        await waitUntil(async () => client.realTimeText(incoming.callId), 5000, 'the page to get a T.140 channel from the UE\'s re-offer');
        await textBothWays(client, incoming.callId, mark, 'MT mid-call');
        await removeTextAndHangUp(t, kind, 'MT', client, token, incoming.callId, mark, () => ue.send({ cmd: 'remove', what: 'text' }));
      } catch (e) {
        await client.hangup(incoming.callId).catch(() => {});
        ue.send({ cmd: 'bye' });
        throw e;
      }
    });

    test(`rtt calls (${kind}): MT, the UE offers m=text and m=application together; the page gets one section with both channels, text and chat flow`, { timeout: 60000 }, async (t) => {
      const mark = ue.mark();
      const pmark = await client.mark();
      ue.send({ cmd: 'call', to: USER, text: true, chat: true });
      const incoming = await client.waitFor('incoming', null, 10000, pmark);
      try {
        const sdp = incoming.sdp ?? '';
        assert.equal((sdp.match(/^m=application /gm) ?? []).length, 1, `the page must get one data-channel section: ${sdp}`);
        assert.match(sdp, /^a=dcmap:1000 label="chat"/m, `the page's section lacks the UE's chat channel: ${sdp}`);
        assert.match(sdp, /^a=dcmap:\d+ label="t140";subprotocol="t140"$/m, `the page's section lacks the T.140 channel: ${sdp}`);
        assert.doesNotMatch(sdp, /^m=text /m, 'the page was offered m=text, which a browser cannot take');
        await client.answer(incoming.callId);
        await ue.waitFor((e) => e.event === 'answered', 15000, 'the 200 to its INVITE', mark);
        const ans = ue.events.slice(mark).find((e) => e.event === 'text-answer');
        assert.ok(ans, `the 200 has no m=text for the UE: ${JSON.stringify(ue.events.slice(mark).filter((e) => e.event === 'warning'))}`);
        await textBothWays(client, incoming.callId, mark, 'm=text beside m=application');
        await ue.waitFor((e) => e.event === 'open' && e.label === 'chat', 5000, 'its chat channel to open', mark);
        await waitUntil(async () => (await client.dataChannels(incoming.callId))?.find((c) => c.label === 'chat' && c.state === 'open'), 5000, 'the page\'s chat channel to open');
        assert.ok(await client.sendData(incoming.callId, 'chat beside text', 'chat'), 'the page could not send on its chat channel');
        await ue.waitFor((e) => e.event === 'message' && e.label === 'chat' && e.text === 'chat beside text', 5000, 'the page\'s chat message', mark);
        ue.send({ cmd: 'send', text: 'chat from the UE' });
        await waitUntil(async () => (await client.dataLog(incoming.callId)).some((m) => m.label === 'chat' && m.dir === 'in' && m.text === 'chat from the UE'), 5000,
          'the UE\'s chat message at the page');
        const info = await gw.callInfo(token, incoming.callId);
        assert.equal(info.dataChannels?.text?.state, 'answered', `the text bridge is not answered: ${JSON.stringify(info.dataChannels)}`);
        assert.ok(info.dataChannels.channels.some((c) => c.label === 'chat' && c.browserStream === 1000 && c.imsStream === 1000),
          `the endpoint does not relay chat 1000 -> 1000 beside the text: ${JSON.stringify(info.dataChannels.channels)}`);
        const endMark = ue.mark();
        ue.send({ cmd: 'bye' });
        await ue.waitFor((e) => e.event === 'ended' && e.callId === incoming.callId, 10000, 'the end of the call', endMark);
        t.diagnostic(`${kind} MT m=text + m=application: one section to the page, text exact both ways, chat both ways`);
      } catch (e) {
        await client.hangup(incoming.callId).catch(() => {});
        ue.send({ cmd: 'bye' });
        throw e;
      }
    });
  });
}
