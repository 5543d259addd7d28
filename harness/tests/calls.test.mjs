// Integration: real calls through gateway + Kamailio + rtpengine + SIPp with the lab up (./lab test).
// Kept in one file so the calls run one after another (rtpengine session counts must return to 0).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import path from 'node:path';
import { ADDRESSES } from '../kit/addresses.mjs';
import { logDir } from '../kit/env.mjs';
import { ledgerFile, startTime } from '../kit/procs.mjs';
import fs from 'node:fs';
import * as gw from '../runner/gateway.mjs';
import {
  assertAssertedIdentityRegistered, assertImsSdpClean, assertNoRtpengineSession, hopsOf, inviteSdpSeenByUe, loggedInPage, messageSeenByUe, responseSdpSeenByUe, titled, waitForUeMessage,
} from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'alice';
const MEDIA_MS = 3000;
let page;
let client;
let token;

before(async () => {
  page = await loggedInPage(USER, 'test-calls-alice');
  ({ client, token } = page);
});

after(async () => page?.close());

// kit/procs.mjs adopt: the browser its driver launched in the browser namespace is in the supervisor's ledger, so a
// run that dies before closing it still has ./lab's cleanup stop it (harness/lib/procs.sh procs_children)
test(titled('the browser is in the supervisor\'s ledger (out/RUN/children) with its pid and start time'), () => {
  const { kind, pid } = page.browser;
  assert.ok(ledgerFile(), 'LAB_PIDS is not set: this file runs under ./lab test');
  const ledger = fs.readFileSync(ledgerFile(), 'utf8');
  assert.ok(ledger.split('\n').includes(`browser-${kind} ${pid} ${startTime(pid)}`), `the ledger lacks "browser-${kind} ${pid} <start time>": ${ledger}`);
  // the pid is the browser's (Chromium's own, over CDP), or for Firefox netns-exec.py's in front of it, leading their process group
  const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ');
  assert.match(cmd, kind === 'firefox' ? /netns-exec\.py|firefox/ : /chromium/, `pid ${pid} of the ledger runs ${cmd}, not the ${kind}`);
  const pgid = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[2];
  assert.equal(Number(pgid), pid, `the ${kind} (pid ${pid}) does not lead its process group (${pgid}): the cleanup would stop it alone`);
});

function assertGoodCall(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  const m = r.info?.media ?? {};
  assert.ok(m.packetsToIms > 0, `rtpengine packetsToIms ${m.packetsToIms}`);
  assert.ok(m.packetsToBrowser > 0, `rtpengine packetsToBrowser ${m.packetsToBrowser}`);
  assert.ok(r.browser?.packetsSent > 0, `browser packetsSent ${r.browser?.packetsSent}`);
  assert.ok(r.browser?.packetsReceived > 0, `browser packetsReceived ${r.browser?.packetsReceived}`);
  assert.ok(r.ended, "'ended' received");
  assert.ok(endedCleanly(r.ended), `ended cleanly: ${JSON.stringify(r.ended)}`);
}

// docs/media.md "A page's first connection": the login's throw-away connection of two local peer connections
// (labClient.prewarm 'auto': Firefox only, where it pays)
test(titled('the page\'s warm-up connection at login: in Firefox it connected within its second, in Chromium none'), () => {
  const w = page.prewarmed;
  if (page.browser.kind !== 'firefox') {
    assert.equal(w, null, `${page.browser.kind} made a warm-up connection (${JSON.stringify(w)}): 'auto' makes one in Firefox only`);
    return;
  }
  assert.ok(w, 'login() returned no `prewarmed`: the Firefox page made no warm-up connection (labClient.prewarm is \'auto\' by default)');
  assert.equal(w.connected, true, `the warm-up pair did not connect (${w.ms} ms): the first call pays the browser's first connection`);
  assert.ok(w.ms < 1000, `the warm-up took ${w.ms} ms`);
});

test(titled('MO call to ue1, browser hangs up'), { timeout: 40000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS });
  assertGoodCall(r);
  assert.equal(r.info.direction, 'mo');
  // the page's set-up timing (lab-client timing(), the scenario report's page_timing_ms): DTLS connected is the DTLS
  // transport's own 'connected', after the answer was applied (the browser needs the answer's fingerprint)
  const t = r.pageTiming ?? {};
  assert.ok(typeof t.offerToConnectedMs === 'number' && typeof t.offerToPcConnectedMs === 'number',
    `the page recorded no DTLS connected time for the MO call: ${JSON.stringify(t)}`);
  assert.ok(t.offerToConnectedMs >= t.setupMs, `the page's DTLS connected (${t.offerToConnectedMs} ms) came before the answer reached it (${t.setupMs} ms): ${JSON.stringify(t)}`);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});

test(titled('MO: ue1 gets a P-Asserted-Identity from the registered set (P-Associated-URI), From the default identity'), { timeout: 40000 }, async () => {
  const ids = (await gw.currentSession(token)).registration?.identities;
  // the light S-CSCF answers the REGISTER with P-Associated-URI: <sip:USER@ims.lab>
  assert.deepEqual(ids, [`sip:${USER}@ims.lab`], 'the registered identities of the login');
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 1000 });
  assertGoodCall(r);
  const invite = await waitForUeMessage(path.join(logDir(), 'sipp-uas-ue1-messages.log'), r.callId, /^INVITE /);
  assert.ok(invite, `no INVITE for ${r.callId} in ue1's message log`);
  assertAssertedIdentityRegistered(invite, ids, 'the INVITE at ue1');
  assert.match(invite, new RegExp(`^From: .*<${ids[0]}>`, 'm'), `From is the default identity ${ids[0]}: ${invite}`);
  await assertNoRtpengineSession();
});

test(titled('MO call to ue3, IMS side hangs up (BYE after ~4 s)'), { timeout: 40000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue3', hangup: 'remote', maxMs: 15000 });
  assertGoodCall(r);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue3' });
  await assertNoRtpengineSession();
});

test(titled('MT call from ue2, UE hangs up'), { timeout: 45000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: MEDIA_MS }, hangup: 'ue', maxMs: 15000 });
  assertGoodCall(r);
  assert.equal(r.info.direction, 'mt');
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  // the browser's answer as IMS got it: no mDNS name, no zero address, not on hold
  assertImsSdpClean(responseSdpSeenByUe(path.join(logDir(), `sipp-uac-${USER}-messages.log`), r.callId), '200 OK at ue2', [ADDRESSES.browser]);
  await assertNoRtpengineSession();
});

test(titled('MT call from ue2, browser hangs up'), { timeout: 45000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac-wait', arg: 15000 }, hangup: 'browser', mediaMs: MEDIA_MS, maxMs: 15000 });
  assertGoodCall(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession();
});

test(titled('malformed JSON over WS -> error bad-json, and a call still works'), { timeout: 40000 }, async () => {
  const mark = await client.mark();
  await client.sendRaw('{"type":"call", "to": ');
  const err = await client.waitFor('error', null, 5000, mark);
  assert.equal(err.code, 'bad-json');
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 2000 });
  assertGoodCall(r);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  await assertNoRtpengineSession();
});

test(titled('call to an unregistered user -> ended with 404, no rtpengine session left'), { timeout: 30000 }, async () => {
  const callId = await client.call('nobody');
  const ended = await client.waitFor('ended', callId, 15000);
  assert.equal(ended.sipCode, 404, JSON.stringify(ended));
  await assertNoRtpengineSession();
});

test(titled('IMS leg SDP as ue1 received it: plain RTP/AVP, no ICE/DTLS/BUNDLE and no WebRTC-only lines'), { timeout: 30000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 1000 });
  assertGoodCall(r);
  const sdp = inviteSdpSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), r.callId);
  assert.ok(sdp, `no INVITE for ${r.callId} in ue1's message log`);
  assertImsSdpClean(sdp, 'INVITE at ue1', [ADDRESSES.browser]);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  assert.match(sdp, /^m=audio \d+ RTP\/AVP /m, sdp);
  assert.match(sdp, /^a=rtcp:\d+/m, 'RTCP on its own port');
  for (const banned of [/^a=(ice-ufrag|ice-pwd|candidate|fingerprint|setup|rtcp-mux)/m, /^a=group:BUNDLE/m,
    /^a=(msid|msid-semantic|ssrc|ssrc-group|mid|rtcp-fb|extmap|extmap-allow-mixed)\b/m, /SAVPF/]) {
    assert.doesNotMatch(sdp, banned, sdp);
  }
  await assertNoRtpengineSession();
});

// RFC 3261 §12.1.1/§12.1.2/§12.2.1.1, RFC 3327, RFC 3608, checked on the messages the UEs received
// (sipp -trace_msg) and on the routing the proxies logged. Each role record-routes, so a request that
// follows the route set crosses P-CSCF (5060), S-CSCF (5062) and P-CSCF again; one sent straight to the
// remote Contact, or only to the outbound proxy, shows fewer Via hops.
const PROXY_HOPS = [ADDRESSES.pcscf, ADDRESSES.scscf, ADDRESSES.pcscf];
const GATEWAY_HOP = ADDRESSES.gatewaySip;

function kamailioLogged(callId, what) {
  const lines = fs.readFileSync(path.join(logDir(), 'kamailio.log'), 'utf8').split('\n');
  return lines.some((l) => l.includes(callId) && what.test(l));
}

test(titled('Record-Route and Path on the wire: BYE and 200 follow the P-CSCF/S-CSCF route set'), { timeout: 45000 }, async () => {
  // MO, the gateway is the UAC: its BYE follows the reversed Record-Route of the 200.
  const mo = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 1000 });
  assertGoodCall(mo);
  const ue1Log = path.join(logDir(), 'sipp-uas-ue1-messages.log');
  const invite = messageSeenByUe(ue1Log, mo.callId, /^INVITE /);
  assert.ok(invite, `no INVITE for ${mo.callId} in ue1's message log`);
  assert.deepEqual(hopsOf(invite, 'Record-Route'), PROXY_HOPS, invite);
  await assertFarUeAssertedIdentity({ token, callId: mo.callId, ue: 'ue1' });
  const moBye = await waitForUeMessage(ue1Log, mo.callId, /^BYE /);
  assert.ok(moBye, `no BYE for ${mo.callId} in ue1's message log`);
  assert.deepEqual(hopsOf(moBye, 'Via'), [...PROXY_HOPS, GATEWAY_HOP], moBye);
  // RFC 3608: the gateway preloaded the Service-Route the registrar gave it (the P-CSCF checks the Route).
  assert.ok(kamailioLogged(mo.callId, /P-CSCF originating INVITE from alice .*Service-Route preloaded/), 'Service-Route not preloaded');

  // MT, the gateway is the UAS: its 200 carries the Record-Route; its BYE follows it.
  const mt = await mtCall(client, { token, user: USER, ue: { mode: 'uac-wait', arg: 15000 }, hangup: 'browser', mediaMs: 1000, maxMs: 15000 });
  assertGoodCall(mt);
  assert.equal(mt.ue.code, 0, `SIPp exit ${mt.ue.code}: ${mt.ue.output}`);
  const ue2Log = path.join(logDir(), `sipp-uac-wait-${USER}-messages.log`);
  const ok = messageSeenByUe(ue2Log, mt.callId, /^SIP\/2\.0 200 /);
  assert.ok(ok, `no 200 for ${mt.callId} in ue2's message log`);
  assert.deepEqual(hopsOf(ok, 'Record-Route'), PROXY_HOPS, ok);
  const mtBye = messageSeenByUe(ue2Log, mt.callId, /^BYE /);
  assert.ok(mtBye, `no BYE for ${mt.callId} in ue2's message log`);
  assert.deepEqual(hopsOf(mtBye, 'Via'), [...PROXY_HOPS, GATEWAY_HOP], mtBye);
  // RFC 3327: the S-CSCF sent the INVITE to the gateway's contact through the Path the P-CSCF added at
  // REGISTER (the terminating P-CSCF's Record-Route above is the result). The contact's user part is the
  // registration's random one (docs/security.md "SIP sources"), not the login name.
  const contact = await gw.contactUser(token);
  assert.ok(kamailioLogged(mt.callId, new RegExp(`S-CSCF terminating INVITE -> sip:${contact}@${GATEWAY_HOP.replace(/\./g, '\\.')}.*next hop sip:pcscf@127\\.0\\.0\\.1;lr`)),
    `the S-CSCF did not route the INVITE to the registered contact sip:${contact}@${GATEWAY_HOP} through the Path`);
  await assertNoRtpengineSession();
});
