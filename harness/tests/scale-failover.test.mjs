// Integration (issue #28, docs/scale-out.md "Hosts that do not come back"): the hosts layout of
// `./lab up --gateways 2 --relays 2` (harness/lib/hosts-up.sh, beside the lab this test runs in; this process's
// namespace is the client host, where the browser sits) and a host dying under a browser's calls. Per call the
// outcome — kept with media (its gap in ms, per direction, from captures on the client host and on the IMS host),
// ended with a reason, or lost — goes to out/test/scale-failover-*.json; 0 lost and every kept call's gap < 3 s.
//  1. a relay host dies (its rtpengine and keepalived SIGKILLed, its namespace deleted: it does not come back): its
//     standby relay, which follows its calls in Redis (keyspace notifications), takes its service address over
//     (VRRP) and carries its calls on; the other relay's call is untouched. The standby has the calls' media and keys
//     but no ICE state (rtpengine keeps none in Redis): the browser's consent checks go unanswered until the page
//     restarts ICE (lab-client, when its ICE connection turns 'disconnected'); a kept call must have them answered.
//  2. a gateway host dies under a browser's call (its JVM SIGKILLed, its namespace deleted): HAProxy closes the
//     browser's WebSocket, another gateway ends the call toward IMS from the dialog the dead one kept in Redis (BYE
//     at the UE with the dialog's Call-ID and tags, the relay session deleted), and the browser logs in again
//     through HAProxy on the live gateway: its logout of the dead session tells it the call ended (gateway-failed),
//     and the new REGISTER removes the dead gateway's contact: the registrar holds exactly one binding for the
//     user, the live gateway's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { labRoot, logDir, outDir, passwordOf } from '../kit/env.mjs';
import { captureOn, datagrams, flowAcross, killHost, mediaOf, outcome, stunAnswers } from '../kit/failover.mjs';
import { downHostsLayout, HOSTS_ENTRY, hostAddr, hostNs, sessionIdentities, upHostsLayout } from '../kit/hosts-layout.mjs';
import { listCalls } from '../kit/ng.mjs';
import { headers, rawUe, register, statusOf } from '../kit/sip-ue.mjs';
import { sleep } from '../kit/procs.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';
import { BROWSER, receivedDuring, titled, waitReceiving } from '../runner/testkit.mjs';

const root = labRoot();
const RUN = path.join(outDir(), 'scale-failover');
const host = hostAddr;
const NS = hostNs;
const NG_PORT = LAB.LAB_RTPENGINE_NG.split(':')[1];
const RELAYS = [1, 2].map((i) => ({ i, name: i === 1 ? 'rtpengine' : `rtpengine${i}`, vrrp: `vrrp${i}`, ns: NS(`relay${i}`), addr: host(LAB.LAB_HOSTS_RELAY_BASE, i) }));
const ENTRY = HOSTS_ENTRY;
const GAP_LIMIT_MS = 3000;
let layout = null;
let browser = null; // one browser for both cases (each has a page of its own): its start counted once

before(async () => {
  layout = await upHostsLayout({ root, run: RUN, name: 'scale-failover', log: path.join(logDir(), 'scale-failover.log') });
  browser = await launchBrowser({ netns: null, extraOrigins: [ENTRY] });
});

// SIGTERM: the layout's supervisor stops its components newest first and deletes the namespaces
after(async () => {
  await browser?.close();
  await downHostsLayout(layout);
});

test(titled('a relay host dies under two calls: its standby takes its address and its calls over, every call kept with media, gap < 3 s'), { timeout: 120000 }, async () => {
  const client = await openClient(browser, { name: `scale-failover-relay-${BROWSER}`, url: `${ENTRY}/` });
  const capClient = await captureOn(null, 'failover-relay-client', 'udp and portrange 30000-30999');
  const capIms = await captureOn(NS('ims'), 'failover-relay-ims', 'udp and portrange 30000-30999');
  const ids = [];
  try {
    await client.login('erin', passwordOf('erin'));
    for (let k = 0; k < 2; k++) {
      const id = await client.call('ue1');
      ids.push(id);
      await client.waitFor('answered', id, 15000);
      await waitReceiving(client, id);
    }
    const media = await Promise.all(ids.map((id) => mediaOf(RELAYS, NG_PORT, id)));
    // the young call's relay dies as soon as the call has audio (~1-2 s after the relay created it): rtpengine
    // writes a call's DTLS-SRTP keys to Redis when it confirms the browser's address, which with its default endpoint
    // learning came 3 s after the answer, so such a call reached the standby without keys and was lost; the hosts
    // layout's relays confirm at the first SRTP packet (docs/scale-out.md). The older call is on the other relay.
    const victim = media[1].relay;
    assert.notEqual(media[0].relay, victim, `the two calls must be on different relays (both on ${victim.name})`);
    const kill = await killHost(path.join(RUN, 'pids'), [victim.name, victim.vrrp], victim.ns);
    const ages = media.map((m) => (m.createdMs == null ? null : kill.at - m.createdMs));
    assert.ok(ages[1] != null && ages[1] < 3000, `the killed relay's call must be younger than 3 s at the kill (the window the test is about), it was ${ages[1]} ms old`);
    // the far UE's P-Asserted-Identity is one of erin's registered identities (RFC 3325, TS 24.229 §5.1.2A)
    for (const id of ids) await assertFarUeAssertedIdentity({ callId: id, identities: await sessionIdentities(client), log: path.join(RUN, 'logs', 'sipp-uas-ue1-messages.log'), where: 'the INVITE at ue1 on the IMS host' });
    // the browser's ICE consent checks to the killed relay's address go unanswered (the standby has the call's media
    // and keys, not its ICE state): once its ICE connection turns 'disconnected' the page restarts ICE (lab-client
    // #recoverIce). Watched for at least 6 s and until the page restarted ICE and is connected for 2 s (at most 16 s).
    const ice = [];
    for (let connectedSince = null; Date.now() - kill.at < 16000; await sleep(250)) {
      const c = (await client.calls()).find((x) => x.callId === ids[1]);
      if (ice.at(-1)?.state !== c?.iceConnectionState) ice.push({ ms: Date.now() - kill.at, state: c?.iceConnectionState, restarts: c?.iceRestarts });
      const up = c && c.iceRestarts > 0 && /connected|completed/.test(c.iceConnectionState ?? '');
      connectedSince = up ? (connectedSince ?? Date.now()) : null;
      if (connectedSince && Date.now() - connectedSince >= 2000 && Date.now() - kill.at >= 6000) break;
    }
    const until = Date.now();
    const pageAfter = await Promise.all(ids.map((id) => receivedDuring(client, id, 1000)));
    const [cf, ci] = [await capClient.stop(), await capIms.stop()];
    const [rowsC, rowsI] = [await datagrams(cf), await datagrams(ci)];
    const stun = await Promise.all(media.map((m) => stunAnswers(cf, `${m.relay.addr}:${m.browserPort}`)));
    const calls = await client.calls();
    const report = ids.map((id, k) => {
      const m = media[k];
      const c = calls.find((x) => x.callId === id);
      const toBrowser = flowAcross(rowsC, `${m.relay.addr}:${m.browserPort}`, kill.at, until);
      const toIms = flowAcross(rowsI, `${m.relay.addr}:${m.imsPort}`, kill.at, until);
      const consentAnswers = stun[k].filter((t) => t > kill.at).length;
      const o = outcome({ toBrowser, toIms, consent: consentAnswers > 0, ended: c?.state === 'ended' ? (c.reason ?? 'ended') : null });
      return { callId: id, relay: m.relay.name, killedRelay: m.relay === victim, ageAtKillMs: ages[k], ...o, toBrowser, toIms, consentAnswersAfter: consentAnswers,
        iceRestarts: c?.iceRestarts ?? null, pagePacketsAfter: pageAfter[k] };
    });
    const file = path.join(outDir(), `scale-failover-relay-kill-${BROWSER}.json`);
    fs.writeFileSync(file, `${JSON.stringify({ browser: BROWSER, killed: { relay: victim.name, host: victim.ns, pids: kill.pids, at: kill.at }, watchedMs: until - kill.at, iceOfKilledCall: ice, calls: report }, null, 2)}\n`);
    for (const r of report) {
      console.log(`${r.callId} on ${r.relay}${r.killedRelay ? ' (killed)' : ''}, ${r.ageAtKillMs} ms old at the kill: ${r.outcome}${r.outcome === 'kept' ? `, gap ${r.gapMs} ms (to browser ${r.toBrowser.gapMs}, to IMS ${r.toIms.gapMs})` : ''}${r.reason ? ` ${r.reason}` : ''}; consent answered ${r.consentAnswersAfter}x after the kill, ICE restarts ${r.iceRestarts}; page ${r.pagePacketsAfter} packets in 1 s after`);
    }
    console.log(`ICE of the killed relay's call (ms after the kill): ${ice.map((x) => `${x.ms} ${x.state}/${x.restarts}`).join(', ')}`);
    const lost = report.filter((r) => r.outcome === 'lost');
    assert.deepEqual(lost.map((r) => r.callId), [], `calls lost when ${victim.name}'s host died (no media both ways after it, or the browser's ICE consent checks never answered again, and no end): ${JSON.stringify(lost)}`);
    const slow = report.filter((r) => r.outcome === 'kept' && r.gapMs >= GAP_LIMIT_MS);
    assert.deepEqual(slow.map((r) => r.callId), [], `kept calls whose media gap was ${GAP_LIMIT_MS} ms or more: ${JSON.stringify(slow)}`);
    for (const r of report.filter((x) => x.outcome === 'kept')) {
      assert.ok(r.pagePacketsAfter > 20, `kept call ${r.callId}: the page's own count after the failover must show audio (${r.pagePacketsAfter} packets in 1 s)`);
    }
    assert.ok(report.some((r) => r.killedRelay), 'a call was on the killed relay');
  } finally {
    for (const id of ids) await client.hangup(id).catch(() => {});
    await client.logout().catch(() => {});
    await client.close();
    await capClient.stop().catch(() => {});
    await capIms.stop().catch(() => {});
  }
  // the killed relay's calls were deleted through its address, now on the standby: nothing left anywhere
  // (asked until none is left, at most 3 s: the gateways' deletes go on their release thread)
  let left = [];
  for (const until = Date.now() + 3000; ; await sleep(250)) {
    left = [];
    for (const r of RELAYS) left.push(...(await listCalls(`${r.addr}:${NG_PORT}`)).filter((c) => ids.some((id) => c.endsWith(id))));
    if (!left.length || Date.now() > until) break;
  }
  assert.deepEqual(left, [], `sessions left on the relays after the hangups: ${left.join(' ')}`);
});

// The UE's view of a call: the requests of the dialog CALL_ID that reached ue1 (its SIPp message log), e.g. the BYE.
function requestsAtUe(log, callId) {
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, 'latin1').split(/\r?\n(?=[A-Z]+ sip:|SIP\/2\.0 )/)
    .filter((m) => /^[A-Z]+ sip:/.test(m) && new RegExp(`^Call-ID:\\s*${callId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'mi').test(m));
}

// The registrar's bindings of USER, as its 2xx lists them (RFC 3261 §10.3 step 8): a REGISTER from the client host
// that removes a contact never bound (Expires: 0), so it changes nothing and the answer lists what is bound.
async function bindingsOf(user) {
  const ue = await rawUe(LAB.LAB_HOSTS_CLIENT_ADDR, { target: `${LAB.LAB_HOSTS_IMS_ADDR}:${LAB.LAB_PCSCF.split(':').at(-1)}` });
  try {
    const res = await register(ue, user, { expires: 0, contact: `<sip:probe-${process.pid}@${LAB.LAB_HOSTS_CLIENT_ADDR}:${ue.port}>` });
    assert.equal(statusOf(res), 200, `the registrar's answer to a binding query for ${user}: ${res?.split('\r\n')[0] ?? 'none in 3 s'}`);
    return headers(res, 'Contact').flatMap((h) => h.split(/,(?=\s*<)/)).map((c) => c.trim()).filter((c) => c && !c.includes('probe-'));
  } finally {
    ue.close();
  }
}

test(titled('a gateway host dies under a call: another gateway ends it cleanly from Redis, the browser logs in again there, one registration'), { timeout: 90000 }, async () => {
  const client = await openClient(browser, { name: `scale-failover-gateway-${BROWSER}`, url: `${ENTRY}/` });
  const ueLog = path.join(RUN, 'logs', 'sipp-uas-ue1-messages.log');
  try {
    await client.login('erin', passwordOf('erin'));
    const token = await client.token();
    const g = Number(/^g(\d+)\./.exec(token)?.[1]);
    assert.ok(g === 1 || g === 2, `the session's token names its gateway (g1. or g2.): ${token.slice(0, 4)}…`);
    const survivor = g === 1 ? 2 : 1;
    const before = await bindingsOf('erin');
    assert.equal(before.length, 1, `erin has one binding before the kill: ${JSON.stringify(before)}`);
    const id = await client.call('ue1');
    await client.waitFor('answered', id, 15000);
    await waitReceiving(client, id);
    const relayOf = await Promise.all(RELAYS.map(async (r) => (await listCalls(`${r.addr}:${NG_PORT}`).catch(() => [])).some((c) => c.endsWith(id))));
    assert.ok(relayOf.some(Boolean), `the call ${id} has a session on a relay before the kill`);

    const kill = await killHost(path.join(RUN, 'pids'), [g === 1 ? 'gateway' : `gateway${g}`], NS(`gw${g}`));
    let wsClosedMs = null;
    let bye = null;
    let byeMs = null;
    while (Date.now() - kill.at < 15000 && (wsClosedMs === null || bye === null)) {
      if (wsClosedMs === null && await client.page.evaluate(() => window.labClient.ws === null)) wsClosedMs = Date.now() - kill.at;
      if (bye === null) {
        bye = requestsAtUe(ueLog, id).find((m) => m.startsWith('BYE ')) ?? null;
        if (bye) byeMs = Date.now() - kill.at;
      }
      await sleep(100);
    }
    const left = [];
    for (const r of RELAYS) left.push(...(await listCalls(`${r.addr}:${NG_PORT}`).catch(() => [])).filter((c) => c.endsWith(id)));
    const t0 = Date.now();
    await client.login('erin', passwordOf('erin'));
    const reloginMs = Date.now() - t0;
    const newToken = await client.token();
    const pageCall = (await client.calls()).find((c) => c.callId === id);
    const after = await bindingsOf('erin');
    const report = { browser: BROWSER, killed: { gateway: g, host: NS(`gw${g}`), pids: kill.pids, at: kill.at }, call: id,
      websocketClosedMs: wsClosedMs, byeAtUeMs: byeMs, byeReason: bye ? headers(bye.replace(/\r?\n/g, '\r\n'), 'Reason')[0] ?? null : null,
      relaySessionsLeft: left, pageCall: { state: pageCall?.state ?? null, reason: pageCall?.reason ?? null }, reloginMs, newGateway: Number(/^g(\d+)\./.exec(newToken)?.[1]), bindingsBefore: before, bindingsAfter: after };
    fs.writeFileSync(path.join(outDir(), `scale-failover-gateway-kill-${BROWSER}.json`), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`gateway ${g} killed: WebSocket closed after ${wsClosedMs} ms, BYE at ue1 after ${byeMs} ms (${report.byeReason}), relay sessions left ${left.length}; the page's call ${report.pageCall.state} (${report.pageCall.reason}); login again ${reloginMs} ms on gateway ${report.newGateway}; erin's bindings ${after.length}: ${after.join(' ')}`);

    assert.ok(wsClosedMs !== null, `the browser's WebSocket to the dead gateway ${g} was still open 15 s after the kill: HAProxy must close it`);
    assert.ok(bye, `no BYE for call ${id} reached ue1 within 15 s of gateway ${g}'s death: the call would be an orphan at the IMS (${ueLog})`);
    assert.match(bye, /^Reason:.*cause=503/mi, `the BYE says why (Reason: SIP;cause=503): ${bye.split(/\r?\n/).slice(0, 12).join(' | ')}`);
    assert.deepEqual(left, [], `relay sessions of the dead gateway's call left after its BYE: ${left.join(' ')}`);
    assert.deepEqual(report.pageCall, { state: 'ended', reason: 'gateway-failed' },
      `the page learns at its next login (its logout of the dead session, answered by the live gateway) that the call ended and why: ${JSON.stringify(report.pageCall)}`);
    assert.equal(report.newGateway, survivor, `the login after the kill lands on the live gateway ${survivor}: token ${newToken?.slice(0, 4)}…`);
    const survivorAddr = host(LAB.LAB_HOSTS_GW_BASE, survivor);
    assert.equal(after.length, 1, `erin must have exactly one binding at the registrar after the login on gateway ${survivor} (the dead gateway's removed): ${JSON.stringify(after)}`);
    assert.ok(after[0].includes(`@${survivorAddr}:`), `erin's one binding is the live gateway's (${survivorAddr}): ${after[0]}`);
    // That REGISTER (erin's new contact, the dead one at ;expires=0) is not a de-REGISTER: the P-CSCF still asserts
    // erin on her next call (the 60-minute soak found 245 calls refused 403 when it took it for one).
    const id2 = await client.call('ue1');
    await client.waitFor('answered', id2, 15000);
    let invite2 = null;
    for (let waited = 0; waited <= 3000 && !invite2; waited += 100) {
      invite2 = requestsAtUe(ueLog, id2).find((m) => m.startsWith('INVITE ')) ?? null;
      if (!invite2) await sleep(100);
    }
    await client.hangup(id2).catch(() => {});
    await client.waitFor('ended', id2, 5000).catch(() => {});
    const pai = invite2 ? headers(invite2.replace(/\r?\n/g, '\r\n'), 'P-Asserted-Identity') : [];
    assert.ok(pai.some((v) => /sip:erin@/.test(v)), `erin's call after the takeover must be asserted as erin by the P-CSCF: P-Asserted-Identity ${JSON.stringify(pai)} in the INVITE at ue1 (${invite2 ? 'seen' : `no INVITE for ${id2} in ${ueLog}`})`);
  } finally {
    await client.logout().catch(() => {});
    await client.close();
  }
});
