// Integration: TURN for a browser behind a symmetric NAT (docs/security.md "TURN", docs/media.md "Topology").
// The browser runs in LAB_BROWSER_SNAT_NS (198.19.1.2) behind lab-snat: a masquerade with a random port per
// mapping, whose firewall forwards UDP only to the TURN server (coturn on LAB_STUN, REST-API shared secret in
// LAB_TURN_SECRET). This file starts a gateway of its own (the lab's command line plus lab.webrtc.turn-uris and
// lab.webrtc.turn-secret-file, HTTP 8094, SIP 5079) that hands each login TURN credentials expiring with its session. With
// them the call has media both ways over a relayed candidate pair (getStats), on the wire between coturn's relay
// address and rtpengine; without them (the page's iceServers emptied) the same call gets no media, and coturn
// refuses a wrong credential. erin is this file's user.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { datagramsDuring } from '../kit/capture.mjs';
import { gatewayUrl, logDir, passwordOf } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const HTTP_PORT = Number(LAB.LAB_TURN_TEST_GW_PORT);
const SIP_PORT = Number(LAB.LAB_TURN_TEST_GW_SIP_PORT);
const PEER_PORT = LAB.LAB_TURN_TEST_PEER_PORT; // turnutils_peer, the far end of a relayed allocation
const HOST = new URL(gatewayUrl()).hostname; // the browser link's address (198.18.0.1 under ./lab test)
const BASE = `http://${HOST}:${HTTP_PORT}`;
const USER = 'erin';
const MEDIA_MS = 3000;
const TURN_URI = process.env.LAB_TURN_URI;
const TURN_SECRET = process.env.LAB_TURN_SECRET;
const TURN_HOST = ADDRESSES.stun.split(':')[0];
const TOKEN_TTL = 3600; // the session's lifetime, which the TURN credentials share
// every runner helper below reads LAB_GW when it is called: they all talk to this file's gateway
process.env.LAB_GW = BASE;

const { launchBrowser, openClient } = await import('../runner/browser.mjs');
const gw = await import('../runner/gateway.mjs');
const { endedCleanly, moCall, mtCall } = await import('../runner/scenario.mjs');
const { assertNoRtpengineSession, titled } = await import('../runner/testkit.mjs');

let proc;
let browser;
let client;
let token;
let iceServers;

before(async () => {
  assert.ok(process.env.LAB_BROWSER_SNAT_NS && TURN_URI && TURN_SECRET, 'LAB_BROWSER_SNAT_NS/LAB_TURN_URI/LAB_TURN_SECRET not set: run through ./lab test');
  assert.equal(fs.statSync(TURN_SECRET).mode & 0o077, 0, 'the TURN secret is readable by others');
  let args = commandOf('gateway').argv.slice(1); // java -jar ... as ./lab started the lab's gateway
  for (const [name, value] of [['server.port', HTTP_PORT], ['lab.sip.port', SIP_PORT],
    ['lab.rtpengine.dtmf-log', ''], // rtpengine's DTMF log goes to the lab's gateway
    ['lab.rtpengine.media-start-timeout-ms', 6000], // the call without TURN ends sooner
    ['lab.api.token-ttl-seconds', TOKEN_TTL],
    ['lab.webrtc.turn-uris', TURN_URI], ['lab.webrtc.turn-secret-file', TURN_SECRET]]) {
    args = gw.withOption(args, name, value);
  }
  assert.ok(!args.some((a) => a.includes(fs.readFileSync(TURN_SECRET, 'utf8').trim())), 'the secret is on the command line');
  proc = await gw.startOwnGateway('gateway-turn', args, BASE, { label: 'TURN gateway' });
  browser = await launchBrowser({ netns: process.env.LAB_BROWSER_SNAT_NS });
  client = await openClient(browser, { name: `test-turn-${USER}` });
  ({ token } = await client.login(USER, passwordOf(USER)));
  iceServers = await client.page.evaluate(() => window.labClient.iceServers);
});

after(async () => {
  await client?.logout().catch(() => {});
  await client?.close?.();
  await browser?.close();
  if (proc) await stop(proc, 'SIGTERM', 15000);
});

// The candidates a fresh RTCPeerConnection in the page gathers with these iceServers.
async function gather(servers) {
  return client.page.evaluate(async (s) => {
    const pc = new RTCPeerConnection({ iceServers: s });
    pc.addTransceiver('audio');
    const found = [];
    pc.onicecandidate = (e) => { if (e.candidate?.candidate) found.push(e.candidate.candidate); };
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((resolve) => {
      const t = setTimeout(resolve, 8000);
      pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') { clearTimeout(t); resolve(); } };
    });
    pc.close();
    return found;
  }, servers);
}

const relayOf = (cands) => cands.filter((c) => / typ relay/.test(c));

// The call's datagrams on the core's side: to and from the symmetric NAT's outside address and coturn.
const traffic = (run) => datagramsDuring(`turn-${browser.kind}`, `udp and (host ${ADDRESSES.snatOutside} or host ${TURN_HOST})`, run);

function assertRelayed(r, datagrams) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  assert.ok(r.browser?.packetsSent > 20 && r.browser?.packetsReceived > 20, `browser packets ${JSON.stringify(r.browser)}`);
  assert.equal(r.browser?.localCandidateType, 'relay', `selected pair ${r.browser?.localCandidate} (${r.browser?.localCandidateType})`);
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 20 && m.packetsToBrowser > 20, `rtpengine packets ${JSON.stringify(m)}`);
  // rtpengine talks to coturn's relay address, never to the NAT; the NAT talks only to coturn's port
  const relayToRtpengine = datagrams.filter((d) => d.src.startsWith(`${TURN_HOST}:`) && d.dst.startsWith(`${ADDRESSES.pub}:`));
  const rtpengineToRelay = datagrams.filter((d) => d.src.startsWith(`${ADDRESSES.pub}:`) && d.dst.startsWith(`${TURN_HOST}:`));
  assert.ok(relayToRtpengine.length > 20 && rtpengineToRelay.length > 20,
    `datagrams relay->rtpengine ${relayToRtpengine.length}, rtpengine->relay ${rtpengineToRelay.length}`);
  const natDirect = datagrams.filter((d) => (d.src.startsWith(`${ADDRESSES.snatOutside}:`) && !d.dst.startsWith(`${ADDRESSES.stun}`))
    || (d.dst.startsWith(`${ADDRESSES.snatOutside}:`) && !d.src.startsWith(`${ADDRESSES.stun}`)));
  assert.equal(natDirect.length, 0, `datagrams between the NAT and anything but coturn's port: ${JSON.stringify(natDirect.slice(0, 3))}`);
}

test(titled('TURN: the login hands out REST-API credentials that expire with the session, and coturn relays only with them'), { timeout: 90000 }, async () => {
  assert.ok(Array.isArray(iceServers) && iceServers.length === 1, `iceServers from the login: ${JSON.stringify(iceServers)}`);
  const [s] = iceServers;
  assert.deepEqual(s.urls, [TURN_URI]);
  const [expiry, user] = s.username.split(':');
  assert.equal(user, USER);
  const hmac = (name) => crypto.createHmac('sha1', fs.readFileSync(TURN_SECRET, 'utf8').trim()).update(name).digest('base64');
  assert.equal(s.credential, hmac(s.username), 'credential = base64(HMAC-SHA1(secret, username))');
  const left = Number(expiry) - Date.now() / 1000;
  assert.ok(left > TOKEN_TTL - 60 && left <= TOKEN_TTL + 1, `credentials valid for ${left} s, want the session's ${TOKEN_TTL}`);
  const good = relayOf(await gather(iceServers));
  assert.ok(good.length > 0 && good.every((c) => c.includes(` ${TURN_HOST} `)), `relay candidates with the gateway's credentials: ${good}`);
  const wrong = relayOf(await gather([{ ...s, credential: `${s.credential.slice(0, -4)}AAA=` }]));
  assert.equal(wrong.length, 0, `coturn allocated with a wrong credential: ${wrong}`);
  // signed with the right secret (the TURN REST API's HMAC-SHA1), but expired a minute ago
  const old = `${Math.floor(Date.now() / 1000) - 60}:${USER}`;
  const expired = relayOf(await gather([{ urls: s.urls, username: old, credential: hmac(old) }]));
  assert.equal(expired.length, 0, `coturn allocated with an expired user name: ${expired}`);
});

// coturn's turnutils_uclient from the core namespace: allocate, a channel to PEER:3480, one message (and wait for
// its echo). Its credential is one of the TURN REST API's, valid for 60 s (not the secret).
function uclient(peer) {
  const username = `${Math.floor(Date.now() / 1000) + 60}:probe`;
  const credential = crypto.createHmac('sha1', fs.readFileSync(TURN_SECRET, 'utf8').trim()).update(username).digest('base64');
  const [host, port] = ADDRESSES.stun.split(':');
  return new Promise((resolve) => {
    execFile('turnutils_uclient', ['-n', '1', '-m', '1', '-c', '-u', username, '-w', credential, '-e', peer, '-r', PEER_PORT, '-p', port, host],
      { timeout: 30000 }, (error, stdout, stderr) => resolve(`${stdout}${stderr}${error && !stdout && !stderr ? error.message : ''}`));
  });
}

test(titled('TURN: coturn relays to rtpengine\'s browser-facing address only'), { timeout: 90000 }, async () => {
  // an echo on rtpengine's address (coturn's turnutils_peer), standing in for rtpengine: the message comes back
  const peer = start('turn-peer', 'turnutils_peer', ['-L', ADDRESSES.pub, '-p', PEER_PORT], { log: path.join(logDir(), 'turn-peer.log') });
  try {
    await sleep(500);
    const toRtpengine = await uclient(ADDRESSES.pub);
    assert.doesNotMatch(toRtpengine, /403|Forbidden/, toRtpengine.slice(-600));
    assert.match(toRtpengine, /tot_recv_msgs=1\b/, `the echo did not come back through the relay: ${toRtpengine.slice(-600)}`);
  } finally {
    await stop(peer, 'SIGTERM', 5000);
  }
  const toBrowser = await uclient(ADDRESSES.browser); // another host on the core's links
  assert.match(toBrowser, /403 \(Forbidden IP\)/, toBrowser.slice(-600));
});

test(titled('MO call from behind a symmetric NAT through TURN: media both ways over a relay pair'), { timeout: 45000 }, async () => {
  const { r, datagrams } = await traffic(() => moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS }));
  assertRelayed(r, datagrams);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});

test(titled('MT call from ue2 to a browser behind a symmetric NAT through TURN: media both ways over a relay pair'), { timeout: 45000 }, async () => {
  const { r, datagrams } = await traffic(() => mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS }, hangup: 'ue', maxMs: 15000 }));
  assertRelayed(r, datagrams);
  assert.equal(r.ue?.code, 0, `SIPp exit ${r.ue?.code}: ${r.ue?.output}`);
  await assertNoRtpengineSession();
});

test(titled('the same MO call without TURN gets no media through the symmetric NAT (media-timeout)'), { timeout: 45000 }, async () => {
  await client.page.evaluate(() => { window.labClient.iceServers = []; });
  let r;
  try {
    r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'remote', mediaMs: 15000, maxMs: 20000 });
  } finally {
    await client.page.evaluate((s) => { window.labClient.iceServers = s; }, iceServers);
  }
  assert.ok(r.answered, `answered: ${r.error}`);
  assert.equal(r.ended?.reason, 'media-timeout', JSON.stringify(r.ended));
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  assert.equal(r.browser?.packetsReceived ?? 0, 0, `browser packets ${JSON.stringify(r.browser)}`);
  const m = r.info?.media ?? {};
  assert.equal(m.packetsToIms ?? 0, 0, `rtpengine packets ${JSON.stringify(m)}`);
  await assertNoRtpengineSession();
});
