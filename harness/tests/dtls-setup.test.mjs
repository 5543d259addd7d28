// Integration: DTLS roles on the browser leg (RFC 5763 §5, RFC 4145 §4.1) with SDPs a JSEP browser would
// not send: a page-side RTCPeerConnection whose SDP loses its a=setup line (or claims `active`) before it
// goes to the gateway over the raw WebSocket. rtpengine must take the role opposite to the one the SDP
// states or defaults to (offer: active, answer: passive), and DTLS must come up (`connected`, audio).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoRtpengineSession, incomingCall, loggedInPage } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'carol';
let page;
let client;

before(async () => {
  page = await loggedInPage(USER, 'test-dtls-carol');
  ({ client } = page);
  await client.page.evaluate(PAGE_HELPERS);
});

after(async () => page?.close());

// In the page: a peer connection with the fake microphone, non-trickle; its SDPs are rewritten by
// `setup` ('drop' removes a=setup, else the value to put there) before they go to the gateway.
const PAGE_HELPERS = () => {
  const rewrite = (sdp, setup) => (setup === 'drop'
    ? sdp.replace(/^a=setup:.*\r\n/gm, '')
    : sdp.replace(/^a=setup:.*$/gm, `a=setup:${setup}`));
  const gathered = (pc) => new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
  });
  const connected = (pc, ms) => new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`DTLS/ICE not connected in ${ms} ms: ${pc.connectionState}`)), ms);
    const check = () => { if (pc.connectionState === 'connected') { clearTimeout(t); resolve(); } };
    pc.addEventListener('connectionstatechange', check);
    check();
  });
  const received = async (pc) => {
    let n = 0;
    (await pc.getStats()).forEach((s) => { if (s.type === 'inbound-rtp') n += s.packetsReceived; });
    return n;
  };
  window.rawLeg = { rewrite, gathered, connected, received };
};

// {callId, answerSetup, received, error}: error is set (and the rest may be null) when the leg failed.
async function rawMo(to, setup) {
  return client.page.evaluate(async ([dest, role]) => {
    const { rewrite, gathered, connected, received } = window.rawLeg;
    const r = { callId: null, answerSetup: null, received: 0, error: null };
    try {
      const pc = new RTCPeerConnection({});
      window.rawPc = pc;
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      stream.getTracks().forEach((t) => pc.addTrack(t, stream));
      await pc.setLocalDescription(await pc.createOffer());
      await gathered(pc);
      const mark = window.labClient.mark();
      window.labClient.sendRaw(JSON.stringify({ type: 'call', to: dest, sdp: rewrite(pc.localDescription.sdp, role) }));
      r.callId = (await window.labClient.waitFor('calling', null, 10000, mark)).callId;
      const answered = await window.labClient.waitFor('answered', r.callId, 15000, mark);
      r.answerSetup = /a=setup:(\w+)/.exec(answered.sdp)?.[1] ?? null;
      await pc.setRemoteDescription({ type: 'answer', sdp: answered.sdp });
      await connected(pc, 8000);
      await new Promise((res) => setTimeout(res, 1500));
      r.received = await received(pc);
    } catch (e) {
      r.error = e.message;
    }
    return r;
  }, [to, setup]);
}

async function hangupRaw(callId) {
  await client.page.evaluate(async (id) => {
    const mark = window.labClient.mark();
    window.labClient.sendRaw(JSON.stringify({ type: 'hangup', callId: id }));
    await window.labClient.waitFor('ended', id, 5000, mark).catch(() => {});
    window.rawPc?.close();
  }, callId);
}

// actpass: either role is allowed; `lab.rtpengine.dtls-on-actpass` active (the default) makes rtpengine the DTLS client,
// so a lost last flight of the handshake is the browser's to resend (docs/media.md "A lost last DTLS flight")
for (const [setup, expected] of [['drop', 'passive'], ['active', 'passive'], ['actpass', 'active']]) {
  test(`MO offer with ${setup === 'drop' ? 'no a=setup' : `a=setup:${setup}`}: rtpengine answers ${expected} and DTLS comes up`, { timeout: 40000 }, async () => {
    const r = await rawMo('ue1', setup);
    try {
      assert.equal(r.error, null, r.error);
      assert.equal(r.answerSetup, expected, `rtpengine's a=setup in the answer to an offer with ${setup === 'drop' ? 'no a=setup' : `a=setup:${setup}`}`);
      assert.ok(r.received > 20, `browser received ${r.received} packets`);
      await assertFarUeAssertedIdentity({ token: page.token, callId: r.callId, ue: 'ue1' });
    } finally {
        if (r.callId) await hangupRaw(r.callId);
    }
    await assertNoRtpengineSession();
  });
}

test('MT answer without a=setup: rtpengine takes active (an answer defaults to passive) and DTLS comes up', { timeout: 45000 }, async () => {
  const { ue, incoming } = await incomingCall(client, USER);
  const { callId } = incoming;
  try {
    const r = await client.page.evaluate(async ([id, offer]) => {
      const { rewrite, gathered, connected, received } = window.rawLeg;
      const pc = new RTCPeerConnection({});
      window.rawPc = pc;
      await pc.setRemoteDescription({ type: 'offer', sdp: offer });
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      stream.getTracks().forEach((t) => pc.addTrack(t, stream));
      // Chrome takes the passive role when its own answer says so; the gateway then gets no a=setup.
      const answer = await pc.createAnswer();
      await pc.setLocalDescription({ type: 'answer', sdp: rewrite(answer.sdp, 'passive') });
      await gathered(pc);
      const ownRole = /a=setup:(\w+)/.exec(pc.localDescription.sdp)?.[1];
      window.labClient.sendRaw(JSON.stringify({ type: 'answer', callId: id, sdp: rewrite(pc.localDescription.sdp, 'drop') }));
      await connected(pc, 8000);
      await new Promise((res) => setTimeout(res, 1500));
      return { ownRole, received: await received(pc) };
    }, [callId, incoming.sdp]);
    assert.equal(r.ownRole, 'passive', 'Chrome is passive (what the gateway must assume without a=setup)');
    assert.ok(r.received > 20, `browser received ${r.received} packets`);
  } finally {
    await hangupRaw(callId);
    ue.kill();
  }
  await assertNoRtpengineSession();
});
