// Integration: IPv6 on Gm, IPv4 toward the browser (issue #23; TS 23.334's IPv4/IPv6 interworking at the
// eIMS-AGW; docs/ims-sim.md "IPv6 on Gm"). This file brings up an IMS side of its own on IPv6 only, beside the
// lab's IPv4 one: LAB_IMS6_ADDR (a ULA) on the lab namespace's loopback, a light Kamailio (P-CSCF :5060,
// S-CSCF :5062) listening only there, an rtpengine whose "pub" interface is the browser link's IPv4 address
// and whose "ims" interface is the IPv6 one (ng 127.0.0.1:2263, media 31500-31599), a gateway of its own
// (HTTP 8099, SIP [LAB_IMS6_ADDR]:5071, rtpengine's DTMF log on 127.0.0.1:2264) and the SIPp UEs over IPv6 (ue4
// answering and ue5 calling with preconditions, ue6 sending RFC 4733 digits).
// MO and MT calls with preconditions carry media both ways; the UEs see c=IN IP6 and nothing IPv4, the browser
// c=IN IP4 and IPv4 candidates only, and the SIP the UEs got names the gateway in brackets. DTMF from an IPv6 UE
// reaches the browser.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { gatewayUrl, labRoot, logDir, outDir } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const V6 = LAB.LAB_IMS6_ADDR;
const PCSCF = `[${V6}]:${LAB.LAB_PCSCF.split(':').pop()}`;
const HTTP_PORT = 8099;
const SIP_PORT = 5071;
const NG = `${LAB.LAB_LOOPBACK}:2263`;
const DTMF_LOG = `${LAB.LAB_LOOPBACK}:2264`; // this rtpengine's RFC 4733 events -> this file's gateway
const HOST = new URL(gatewayUrl()).hostname; // the browser link's address (198.18.0.1 under ./lab test)
const BASE = `http://${HOST}:${HTTP_PORT}`;
const USER = 'frank';
const UE_LOGS = path.join(logDir(), 'ipv6');
// the UEs of this file: over IPv6 at this file's P-CSCF, their logs apart from the lab's UEs of the same names
const UE_ENV = { KAMAILIO: PCSCF, UE_IP: V6, LAB_LOGDIR: UE_LOGS };
process.env.LAB_GW = BASE; // every runner helper below talks to this file's gateway

const gw = await import('../runner/gateway.mjs');
const { endedCleanly, moCall, mtCall } = await import('../runner/scenario.mjs');
const {
  assertNoRtpengineSession, inviteSdpSeenByUe, loggedInPage, messageSeenByUe, responseSdpSeenByUe, waitForUeMessage,
} = await import('../runner/testkit.mjs');

const procs = [];
let page;

function own(name, cmd, args, env = {}) {
  const p = start(name, cmd, args, { log: path.join(logDir(), `${name}.log`), env: { ...process.env, ...env }, group: true });
  procs.push(p);
  return p;
}

// Polls check() (a command that exits 0 when ready) until it succeeds, or fails naming what did not come up.
async function ready(what, proc, check, ms = 20000) {
  for (const end = Date.now() + ms; ;) {
    const gone = await Promise.race([proc.done, sleep(200).then(() => null)]);
    if (gone) throw new Error(`${what} exited (${JSON.stringify(gone)}): ${proc.tail().slice(-600)}`);
    try {
      check();
      return;
    } catch { /* not yet */ }
    if (Date.now() > end) throw new Error(`${what} not ready within ${ms} ms: ${proc.tail().slice(-600)}`);
  }
}

// The UAS UE `mode` as `user` over IPv6, resolved once it registered (run-ue.sh execs sipp only then).
async function startUas(mode, user) {
  const p = own(`ipv6-${user}`, 'bash', [path.join(labRoot(), 'sipp-scenarios', 'run-ue.sh'), mode], UE_ENV);
  await ready(`SIPp ${mode} ${user} over IPv6`, p, () => {
    if (fs.readFileSync(`/proc/${p.pid}/comm`, 'utf8').trim() !== 'sipp') throw new Error('not yet');
  }, 30000);
}

function assertCall(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'not answered');
  assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, `media not both ways: ${JSON.stringify(r.info.media)}`);
  assert.ok(r.browser?.packetsReceived > 0, 'the browser received no media');
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  assert.equal(r.info.preconditions, true, 'the call ran without preconditions');
}

// The IMS leg as the UE saw it: IPv6 only, rtpengine's IPv6 address.
function assertIpv6Sdp(sdp, what) {
  assert.ok(sdp, `${what}: no SDP in the UE's message log`);
  assert.match(sdp, new RegExp(`^c=IN IP6 ${V6.replace(/\./g, '\\.')}\\r?$`, 'm'), `${what} has no c=IN IP6 ${V6}:\n${sdp}`);
  assert.doesNotMatch(sdp, /IP4/, `${what} carries IPv4 toward an IPv6-only IMS:\n${sdp}`);
}

// The browser leg: IPv4 only (c= and candidates), rtpengine's browser-facing address.
function assertIpv4BrowserSdp(sdp, what) {
  assert.ok(sdp, `${what}: no SDP`);
  assert.match(sdp, new RegExp(`^c=IN IP4 ${ADDRESSES.pub.replace(/\./g, '\\.')}\\r?$`, 'm'), `${what}:\n${sdp}`);
  assert.doesNotMatch(sdp, /^c=IN IP6/m, `${what} has an IPv6 connection line:\n${sdp}`);
  assert.doesNotMatch(sdp, /^a=candidate:\S+ \d+ \S+ \d+ [0-9a-f]*:[0-9a-f:]* /mi, `${what} offers an IPv6 candidate:\n${sdp}`);
}

before(async () => {
  fs.mkdirSync(UE_LOGS, { recursive: true });
  const has = execFileSync('ip', ['-6', '-o', 'addr', 'show', 'dev', 'lo']).toString().includes(`${V6}/128`);
  if (!has) execFileSync('ip', ['-6', 'addr', 'add', `${V6}/128`, 'dev', 'lo', 'nodad']);
  const rtp = own('ipv6-rtpengine', 'bash', [path.join(labRoot(), 'media-relay', 'start-rtpengine.sh'), `--interface=ims/${V6}`],
    { RTPENGINE_NG: NG, RTPENGINE_IFACE: `pub/${ADDRESSES.pub}`, RTPENGINE_PORT_MIN: '31500', RTPENGINE_PORT_MAX: '31599', RTPENGINE_DTMF_LOG: DTMF_LOG });
  await ready('rtpengine (pub IPv4 + ims IPv6)', rtp, () => execFileSync('python3', [path.join(labRoot(), 'media-relay', 'ng-ping.py'), NG, '1']));
  const kam = own('ipv6-kamailio', 'bash', [path.join(labRoot(), 'ims-sim', 'start-kamailio.sh'), path.join(outDir(), 'ipv6-kamailio')],
    { KAMAILIO_ADDR: V6, KAMAILIO_TRUSTED_NODES: `${V6}:${SIP_PORT}`, KAMAILIO_TLS_CERT: '', KAMAILIO_TLS_KEY: '', KAMAILIO_TLS_CA: '' });
  await ready(`Kamailio on ${PCSCF}`, kam, () => execFileSync('python3', [path.join(labRoot(), 'harness', 'lib', 'sip-options.py'), PCSCF, '1']));
  let args = commandOf('gateway').argv.slice(1); // java -jar ... as ./lab started the lab's gateway
  for (const [name, value] of [['server.port', HTTP_PORT], ['lab.sip.host', V6], ['lab.sip.port', SIP_PORT],
    ['lab.ims.proxy', PCSCF], ['lab.ims.transport', 'udp'], ['lab.rtpengine.ng', NG], ['lab.rtpengine.dtmf-log', DTMF_LOG],
    ['lab.sip.trusted-sources', PCSCF], ['lab.rtpengine.session-prefix', 'gw-ipv6-']]) {
    args = gw.withOption(args, name, value);
  }
  procs.push(await gw.startOwnGateway('gateway-ipv6', args, BASE, { label: 'IPv6 gateway' }));
  await startUas('volte-uas', 'ue4');
  page = await loggedInPage(USER, 'test-ipv6-frank');
});

after(async () => {
  await page?.close();
  for (const p of procs.reverse()) await stop(p, 'SIGTERM', 10000);
});

test('the gateway on IPv6: SIP listening on its IPv6 address, registered at the IPv6 P-CSCF', { timeout: 20000 }, async () => {
  const h = await gw.health();
  assert.equal(h.sip, `[${V6}]:${SIP_PORT}`, `health: ${JSON.stringify(h)}`);
  assert.equal(h.imsPcscf, PCSCF, `health: ${JSON.stringify(h)}`);
  const listening = execFileSync('ss', ['-Hlnu', `( sport = :${SIP_PORT} )`]).toString() + execFileSync('ss', ['-Hlnt', `( sport = :${SIP_PORT} )`]).toString();
  assert.ok(listening.includes(`[${V6}]:${SIP_PORT}`), `no UDP/TCP listener on [${V6}]:${SIP_PORT}:\n${listening}`);
  assert.doesNotMatch(listening, new RegExp(`\\b\\d+\\.\\d+\\.\\d+\\.\\d+:${SIP_PORT}\\b`), `an IPv4 listener on the SIP port:\n${listening}`);
  assert.ok((await gw.currentSession(page.token)).registration.expires > 0, `${USER} not registered over IPv6`);
});

test('MO over IPv6 on Gm with preconditions to ue4: media both ways, c=IN IP6 at the UE, the browser leg IPv4', { timeout: 45000 }, async () => {
  const r = await moCall(page.client, { token: page.token, from: USER, to: 'ue4', hangup: 'browser', mediaMs: 2500 });
  assertCall(r);
  const log = path.join(UE_LOGS, 'sipp-volte-uas-ue4-messages.log');
  assertIpv6Sdp(inviteSdpSeenByUe(log, r.callId), 'the INVITE at ue4');
  assertIpv4BrowserSdp(r.answerSdp, 'the answer the browser got');
  const headers = messageSeenByUe(log, r.callId, /^INVITE /);
  assert.match(headers ?? '', new RegExp(`^Contact: <sip:[^@>]+@\\[${V6}\\]:${SIP_PORT};`, 'm'), `the gateway's Contact at ue4:\n${headers}`);
  assert.match(headers ?? '', new RegExp(`^Via: SIP/2\\.0/UDP \\[${V6}\\]:${SIP_PORT};`, 'mi'), `the gateway's Via at ue4:\n${headers}`);
  await assertFarUeAssertedIdentity({ token: page.token, callId: r.callId, log, where: 'the INVITE at ue4 over IPv6' });
  await assertNoRtpengineSession();
});

test('MT over IPv6 on Gm with preconditions from ue5: media both ways, c=IN IP6 in the 200 at the UE, the browser leg IPv4', { timeout: 50000 }, async () => {
  const r = await mtCall(page.client, { token: page.token, user: USER, ue: { mode: 'volte-uac', arg: 2500, from: 'ue5', env: UE_ENV }, hangup: 'ue', maxMs: 15000 });
  assertCall(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  assertIpv6Sdp(responseSdpSeenByUe(path.join(UE_LOGS, `sipp-volte-uac-${USER}-messages.log`), r.callId), 'the 200 at ue5');
  assertIpv4BrowserSdp(r.incomingSdp, 'the offer the browser got');
  await assertNoRtpengineSession();
});

// An MO call from the page to `ue` (a SIPp UE of this file over IPv6, serving in `mode`): body(callId, log, mark)
// once answered; hung up afterwards, the hang-up's BYE seen at the UE. The INVITE at the UE is IPv6 only and asserts
// a registered identity of frank's.
async function ipv6Call(ue, mode, body) {
  const log = path.join(UE_LOGS, `sipp-${mode}-${ue}-messages.log`);
  const mark = await page.client.mark();
  const callId = await page.client.call(ue);
  try {
    await page.client.waitFor('answered', callId, 15000, mark);
    assertIpv6Sdp(inviteSdpSeenByUe(log, callId), `the INVITE at ${ue}`);
    await assertFarUeAssertedIdentity({ token: page.token, callId, log, where: `the INVITE at ${ue} over IPv6` });
    await body(callId, log, mark);
  } finally {
    await page.client.hangup(callId).catch(() => {});
    await page.client.waitFor('ended', callId, 5000).catch(() => {});
  }
  assert.ok(await waitForUeMessage(log, callId, /^BYE /), `the hang-up reached ${ue} over IPv6 (no BYE for ${callId} in ${log})`);
  await assertNoRtpengineSession();
}

test('DTMF over IPv6 on Gm: ue6 sends RFC 4733 digits 2 6 * from its IPv6 address, the browser gets one dtmf per digit', { timeout: 60000 }, async () => {
  await startUas('uas-dtmf', 'ue6');
  await ipv6Call('ue6', 'uas-dtmf', async (callId, _log, mark) => {
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await page.client.waitFor('dtmf', callId, 8000, mark));
    assert.equal(got.map((m) => m.digit).join(''), '26*', `the digits ue6 sent over IPv6 as the browser got them: ${JSON.stringify(got)}`);
    for (const m of got) assert.equal(m.source, 'ims', `a digit from the IMS side: ${JSON.stringify(m)}`);
    const sent = fs.readFileSync(path.join(UE_LOGS, 'ue6-rfc4733.log'), 'utf8');
    assert.match(sent, new RegExp(`sent 26\\* .* from ${V6}:\\d+ to ${V6}:\\d+`), `ue6's RFC 4733 sender went over IPv6 (ue6-rfc4733.log):\n${sent}`);
  });
});
