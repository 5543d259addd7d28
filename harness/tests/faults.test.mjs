// Integration (issue #12): faults in the middle of a call, and what becomes of the call — the IMS UE gets its
// BYE, the browser its `ended`, and no rtpengine session is left. Chromium only (not a media file).
//  - rtpengine killed (SIGKILL) and started again with its own command line (harness/kit/restart.mjs): the
//    lab's gateway notices the lost session (call/MediaReconciler) and ends the call `media-lost`;
//  - the browser vanishes (its page closed): the call ends, BYE toward IMS;
//  - the gateway crashes and restarts, and stops gracefully: a gateway of this file's own (the lab's
//    gateway's command line, HTTP 8092, SIP 5077), so the lab's gateway stays up for the other tests.
// Users: alice and bob on the lab's gateway; heidi on this file's own gateway with the lab's Kamailio (its crash test
// leaves her binding there until it expires: each registration's Contact is random, so the restarted gateway's
// REGISTER adds a binding instead of replacing it; no other file calls her), carol with this file's own Kamailio.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { incomingCall, loggedInPage, waitForUeMessage } from '../runner/testkit.mjs';
import { launchBrowser as launch, gatewayOrigins } from '../runner/browser.mjs';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { gatewayUrl, labRoot, logDir, passwordOf } from '../kit/env.mjs';
import { start, stop, sleep, waitFor } from '../kit/procs.mjs';
import { commandOf, restart } from '../kit/restart.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

// rtpengine's sessions, asked directly (ng `list` on the address in its command line): the call-ids of one
// gateway carry its prefix `gw<SIP port>-` (lab.rtpengine.session-prefix), so each gateway's are told apart.
function bdecode(buf) {
  let i = 0;
  const next = () => {
    const c = String.fromCharCode(buf[i]);
    if (c === 'i') { const e = buf.indexOf(0x65, i); const n = Number(buf.subarray(i + 1, e).toString()); i = e + 1; return n; }
    if (c === 'l') { i++; const out = []; while (buf[i] !== 0x65) out.push(next()); i++; return out; }
    if (c === 'd') { i++; const out = {}; while (buf[i] !== 0x65) { const k = next(); out[k] = next(); } i++; return out; }
    const colon = buf.indexOf(0x3a, i);
    const len = Number(buf.subarray(i, colon).toString());
    const str = buf.subarray(colon + 1, colon + 1 + len).toString('latin1');
    i = colon + 1 + len;
    return str;
  };
  return next();
}

function ngAddress() {
  const arg = commandOf('rtpengine').argv.find((a) => a.startsWith('--listen-ng='));
  const [host, port] = (arg ? arg.slice('--listen-ng='.length) : ADDRESSES.rtpengineNg).split(':');
  return { host, port: Number(port) };
}

async function ngList() {
  const { host, port } = ngAddress();
  const sock = dgram.createSocket('udp4');
  const cookie = `faults${process.pid}_${Date.now()}`;
  try {
    const reply = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from rtpengine ${host}:${port} to list`)), 3000);
      sock.on('message', (m) => { clearTimeout(timer); resolve(m); });
      sock.send(Buffer.from(`${cookie} d7:command4:list5:limiti1000ee`), port, host);
    });
    const dict = bdecode(reply.subarray(reply.indexOf(0x20) + 1));
    return dict.calls ?? [];
  } finally {
    sock.close();
  }
}

const MAIN_PREFIX = `gw${ADDRESSES.gatewaySip.split(':')[1]}-`;

// No session of the gateway with `prefix` left (its deletes may trail `ended` a little: polled).
async function assertNoSessionOf(prefix, ms = 5000) {
  const end = Date.now() + ms;
  let ours;
  do {
    ours = (await ngList()).filter((id) => id.startsWith(prefix));
    if (!ours.length) return;
    await sleep(250);
  } while (Date.now() < end);
  assert.deepEqual(ours, [], `rtpengine sessions of ${prefix} left`);
}
const assertNoRtpengineSession = () => assertNoSessionOf(MAIN_PREFIX);

// The lab's gateway reconciles every 10 s (lab.rtpengine.reconcile-ms): a lost call ends within ~2 rounds.
const RECONCILE_WAIT_MS = 30000;

async function answered(client, user) {
  const { ue, incoming } = await incomingCall(client, user, 'uac-wait', 90000);
  await client.answer(incoming.callId);
  await sleep(1500); // media flowing
  return { ue, callId: incoming.callId };
}

test('rtpengine killed and restarted mid-call: the call ends media-lost, the UE gets its BYE, no session is left', { timeout: 90000 }, async () => {
  const page = await loggedInPage('alice', 'test-faults-alice');
  const { client } = page;
  let ue;
  try {
    let callId;
    ({ ue, callId } = await answered(client, 'alice'));
    assert.deepEqual((await ngList()).filter((id) => id.startsWith(MAIN_PREFIX)), [MAIN_PREFIX + callId]);
    await restart('rtpengine', { pauseMs: 500, ready: async () => (await gw.health()).rtpengine === 'ok' });
    const ended = await client.waitFor('ended', callId, RECONCILE_WAIT_MS);
    assert.equal(ended.reason, 'media-lost', JSON.stringify(ended));
    const u = await ue.done;
    assert.equal(u.code, 0, `the UE got no BYE: ${u.output}`);
    await assertNoRtpengineSession();
  } finally {
    ue?.kill();
    await page.close();
  }
});

test('the browser vanishes mid-call (page closed): the call ends, the UE gets its BYE, no session is left', { timeout: 60000 }, async () => {
  const page = await loggedInPage('bob', 'test-faults-bob');
  let ue;
  try {
    ({ ue } = await answered(page.client, 'bob'));
    await page.client.close(); // the tab goes away: no hangup, no logout
    const u = await ue.done;
    assert.equal(u.code, 0, `the UE got no BYE: ${u.output}`);
    await assertNoRtpengineSession();
  } finally {
    ue?.kill();
    await page.browser.close();
  }
});

// ---- a gateway of this file's own ----
const HTTP_PORT = Number(LAB.LAB_FAULTS_TEST_GW_PORT);
const SIP_PORT = Number(LAB.LAB_FAULTS_TEST_GW_SIP_PORT);
let gwArgs;
let base;
let browser;

// this file's gateway, healthy (90 s at most)
const startOwnGateway = (args = gwArgs) => gw.startOwnGateway('gateway-faults', args, base, { seconds: 90, label: 'faults gateway' });

// The plain-argument gateway a test leaves healthy is kept for the next one (each JVM start costs seconds);
// a test that fails stops it, and the next starts a fresh one.
let kept = null;
async function ownGateway() {
  if (kept && (await waitFor(kept, 0)) === null) return kept;
  kept = await startOwnGateway();
  return kept;
}
async function keep(proc, ok) {
  if (ok && proc && (await waitFor(proc, 0)) === null) { kept = proc; return; }
  kept = null;
  if (proc) await stop(proc, 'SIGTERM', 15000);
}
async function release() {
  const k = kept;
  kept = null;
  if (k) await stop(k, 'SIGTERM', 15000);
}

const GRACE_MS = 4000;
// The lab's gateway waits the default 30 s for a final answer (lab.ims.invite-timeout-ms; ImsPropertiesTest checks
// the default): this file's own gateway waits INVITE_TIMEOUT_MS, so the same code path is tested in seconds.
const INVITE_TIMEOUT_MS = 4000;
const OWN_PREFIX = `gw${SIP_PORT}-`;
const ownSessions = async () => (await ngList()).filter((id) => id.startsWith(OWN_PREFIX));

async function heidiCallsUe1() {
  const client = await openClient(browser, { name: 'test-faults-heidi', url: `${base}/` });
  const { token } = await client.login('heidi', passwordOf('heidi'));
  const callId = await client.call('ue1');
  await client.waitFor('answered', callId, 15000);
  // heidi's registered set as this file's gateway reports it (the runner's gateway module talks to the lab's)
  const session = await fetch(`${base}/api/v1/sessions/current`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(session.status, 200, `heidi's session at the faults gateway: HTTP ${session.status}`);
  await assertFarUeAssertedIdentity({ identities: (await session.json()).registration?.identities, callId, ue: 'ue1', where: 'the INVITE of heidi\'s call at ue1' });
  return { client, callId, token };
}

const ownCallInfo = async (token, callId) => {
  const res = await fetch(`${base}/api/v1/calls/${encodeURIComponent(callId)}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json().catch(() => null) };
};

before(async () => {
  const main = commandOf('gateway').argv; // java -jar ... as ./lab started it
  let args = main.slice(1);
  args = gw.withOption(args, 'server.port', HTTP_PORT);
  args = gw.withOption(args, 'lab.sip.port', SIP_PORT);
  args = gw.withOption(args, 'lab.rtpengine.dtmf-log', ''); // rtpengine's DTMF log goes to the lab's gateway
  args = gw.withOption(args, 'lab.rtpengine.reconcile-ms', 2000);
  args = gw.withOption(args, 'lab.api.ws-reconnect-grace-ms', GRACE_MS);
  args = gw.withOption(args, 'lab.ims.invite-timeout-ms', INVITE_TIMEOUT_MS);
  gwArgs = args;
  const u = new URL(gatewayUrl());
  u.port = String(HTTP_PORT);
  base = u.origin;
  // getUserMedia needs a secure context: this gateway's origin is treated as one too (the last flag counts)
  browser = await launch({ extraArgs: [`--unsafely-treat-insecure-origin-as-secure=${[...gatewayOrigins(), base].join(',')}`] });
});

after(async () => { await release(); await browser?.close(); });

test('the gateway crashes mid-call: restarted, it deletes the rtpengine session its earlier run left', { timeout: 150000 }, async () => {
  let proc = await ownGateway();
  let client;
  let ok = false;
  try {
    ({ client } = await heidiCallsUe1());
    assert.equal((await ownSessions()).length, 1, 'the call has its rtpengine session (this gateway\'s prefix)');
    await stop(proc, 'SIGKILL', 1000);
    await client.close();
    client = null;
    proc = await startOwnGateway();
    await assertNoSessionOf(OWN_PREFIX, 10000); // left by the crashed run, deleted at start
    ok = true;
  } finally {
    await client?.close();
    await keep(proc, ok);
  }
});

test(`the WebSocket is lost mid-call: a new one with the token within the grace period (${GRACE_MS} ms) keeps the call; without one it ends and the UE gets its BYE`, { timeout: 120000 }, async () => {
  const proc = await ownGateway();
  let client;
  let ok = false;
  try {
    let callId;
    let token;
    ({ client, callId, token } = await heidiCallsUe1());
    await client.page.evaluate(() => window.labClient.ws.close(4000)); // the socket drops; the page stays
    await sleep(GRACE_MS / 2);
    const url = new URL('/ws', base.replace(/^http/, 'ws')).href;
    const reopened = await client.page.evaluate(([u, t]) => new Promise((resolve) => {
      const w = new WebSocket(u, ['lab.v1', `lab.token.${t}`]);
      w.onopen = () => { window.faultsSocket = w; resolve(true); };
      w.onclose = () => resolve(false);
    }), [url, token]);
    assert.ok(reopened, 'a new socket with the same token is accepted within the grace period');
    await sleep(GRACE_MS + 1500);
    const kept = await ownCallInfo(token, callId);
    assert.equal(kept.status, 200, JSON.stringify(kept.body));
    assert.equal(kept.body.state, 'confirmed', `the call survives its socket: ${JSON.stringify(kept.body)}`);

    await client.page.evaluate(() => window.faultsSocket.close(4000)); // lost again, nobody comes back
    await sleep(GRACE_MS / 2);
    assert.equal((await ownCallInfo(token, callId)).body?.state, 'confirmed', 'still within the grace period');
    const ueLog = path.join(logDir(), 'sipp-uas-ue1-messages.log');
    assert.ok(await waitForUeMessage(ueLog, callId, /^BYE /, 10000), `ue1 got no BYE for ${callId} after the grace period`);
    assert.equal((await ownCallInfo(token, callId)).status, 401, 'the session ended with the grace period');
    await assertNoSessionOf(OWN_PREFIX);
    ok = true;
  } finally {
    await client?.close();
    await keep(proc, ok);
  }
});

test('the gateway stops (SIGTERM) mid-call: the UE gets a BYE and no session is left', { timeout: 150000 }, async () => {
  let proc = await ownGateway();
  let client;
  let ok = false;
  try {
    let callId;
    ({ client, callId } = await heidiCallsUe1());
    assert.equal((await ownSessions()).length, 1);
    const exit = await stop(proc, 'SIGTERM', 15000);
    assert.ok(exit, 'stopped');
    const ueLog = path.join(logDir(), 'sipp-uas-ue1-messages.log');
    assert.ok(await waitForUeMessage(ueLog, callId, /^BYE /), `ue1 got no BYE for ${callId}`);
    await client.close();
    client = null;
    proc = await startOwnGateway();
    assert.deepEqual(await ownSessions(), [], 'the shutdown deleted the session');
    ok = true;
  } finally {
    await client?.close();
    await keep(proc, ok);
  }
});

test(`the UE never answers: after lab.ims.invite-timeout-ms (${INVITE_TIMEOUT_MS} ms on this file's gateway) the gateway CANCELs, the call ends timeout, no session is left`, { timeout: 90000 }, async () => {
  const { startUe } = await import('../runner/ue.mjs');
  const ue = startUe('uas-noanswer', 'ue5', null, { timeoutMs: 85000 });
  const proc = await ownGateway(); // its INVITE timeout is INVITE_TIMEOUT_MS (before())
  let client;
  let ok = false;
  try {
    await ue.ready(); // ue5's REGISTER
    client = await openClient(browser, { name: 'test-faults-noanswer', url: `${base}/` });
    const { token } = await client.login('heidi', passwordOf('heidi'));
    const callId = await client.call('ue5');
    const t0 = Date.now();
    const ended = await client.waitFor('ended', callId, INVITE_TIMEOUT_MS + 15000);
    assert.equal(ended.reason, 'timeout', JSON.stringify(ended));
    const waited = Date.now() - t0;
    assert.ok(waited >= INVITE_TIMEOUT_MS - 500, `the call ended ${waited} ms after it was placed, before the ${INVITE_TIMEOUT_MS} ms INVITE timeout`);
    const ueLog = path.join(logDir(), 'sipp-uas-noanswer-ue5-messages.log');
    assert.ok(await waitForUeMessage(ueLog, callId, /^CANCEL /), `ue5 got no CANCEL for ${callId}`);
    const session = await fetch(`${base}/api/v1/sessions/current`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(session.status, 200, `heidi's session at the faults gateway: HTTP ${session.status}`);
    await assertFarUeAssertedIdentity({ identities: (await session.json()).registration?.identities, callId, log: ueLog, where: 'the INVITE at ue5 (uas-noanswer)' });
    await assertNoSessionOf(OWN_PREFIX);
    ok = true;
  } finally {
    ue.kill();
    await ue.done;
    await client?.close();
    await keep(proc, ok);
  }
});

// ---- Kamailio restarted mid-call: a Kamailio of this file's own (ims-sim/start-kamailio.sh, P-CSCF 5160, S-CSCF
// 5162) behind this file's gateway, so the lab's Kamailio keeps the registrations of the UEs other test files use
// (ue1, ue3 … register once, when ./lab starts them). It keeps its registrations in memory (usrloc db_mode 0, the
// P-CSCF's htables): a restart forgets them all.
const KAM_PCSCF_PORT = Number(LAB.LAB_FAULTS_TEST_PCSCF_PORT);
const KAM_SCSCF_PORT = Number(LAB.LAB_FAULTS_TEST_SCSCF_PORT);
const KAM_DOWN_MS = 3000; // longer than the keepalive's interval + deadline: at least one probe goes unanswered
const KEEPALIVE_MS = 1000;

async function kamailioAnswers(port) {
  const { execFile } = await import('node:child_process');
  const script = path.join(labRoot(), 'harness', 'lib', 'sip-options.py');
  return new Promise((resolve) => execFile('python3', [script, `127.0.0.1:${port}`, '0.5'], (e) => resolve(!e)));
}

async function startOwnKamailio() {
  const rundir = path.join(logDir(), '..', 'kamailio-faults');
  const proc = start('kamailio-faults', 'bash', [path.join(labRoot(), 'ims-sim', 'start-kamailio.sh'), rundir], {
    log: path.join(logDir(), 'kamailio-faults.log'),
    env: { ...process.env, KAMAILIO_ADDR: '127.0.0.1', KAMAILIO_PORT: String(KAM_PCSCF_PORT), SCSCF_PORT: String(KAM_SCSCF_PORT), IMS_DOMAIN: 'ims.lab' },
    group: true, // kamailio forks its workers: a stop reaches them all
  });
  const end = Date.now() + 20000;
  for (;;) {
    const done = await Promise.race([proc.done, sleep(200).then(() => null)]);
    if (done) throw new Error(`the faults Kamailio exited (${JSON.stringify(done)}): ${proc.tail().slice(-400)}`);
    if (await kamailioAnswers(KAM_PCSCF_PORT)) return proc;
    if (Date.now() > end) throw new Error('the faults Kamailio did not answer OPTIONS within 20 s');
  }
}

async function ownDialogs() {
  const res = await fetch(`${base}/actuator/prometheus`, { signal: AbortSignal.timeout(3000) });
  const line = (await res.text()).split('\n').find((l) => l.startsWith('gw_sip_dialogs'));
  return line ? Number(line.split(' ').pop()) : NaN;
}

async function assertNoOwnDialog(ms = 10000) {
  const end = Date.now() + ms;
  let n;
  do {
    n = await ownDialogs();
    if (n === 0) return;
    await sleep(250);
  } while (Date.now() < end);
  assert.equal(n, 0, 'SIP dialogs left in the faults gateway');
}

const registrationOf = async (token) => (await (await fetch(`${base}/api/v1/sessions/current`, { headers: { authorization: `Bearer ${token}` } })).json()).registration;

test('Kamailio restarted mid-call: media goes on, the BYE after the restart reaches the UE, the keepalive re-REGISTERs the user and an MT call reaches the browser again; no session or dialog left', { timeout: 150000 }, async () => {
  await release(); // this test's gateway has other arguments on the same ports
  let kam = await startOwnKamailio();
  // this gateway takes SIP requests from its own P-CSCF only (the lab's gateway trusts the lab's: docs/security.md "SIP sources")
  let args = gw.withOption(gwArgs, 'lab.ims.proxy', `127.0.0.1:${KAM_PCSCF_PORT}`);
  args = gw.withOption(gw.withOption(args, 'lab.sip.trusted-sources', `127.0.0.1:${KAM_PCSCF_PORT}`), 'lab.ims.keepalive-ms', KEEPALIVE_MS);
  const proc = await startOwnGateway(args);
  const ueEnv = { env: { KAMAILIO: `127.0.0.1:${KAM_PCSCF_PORT}` }, timeoutMs: 90000 };
  let client;
  let ue;
  try {
    client = await openClient(browser, { name: 'test-faults-kamailio', url: `${base}/` });
    const { token } = await client.login('carol', passwordOf('carol'));
    const before = await registrationOf(token);
    assert.equal(before.refreshes, 0);

    // an MT call ue2 -> carol through this Kamailio, answered, media flowing
    let incoming;
    ({ ue, incoming } = await incomingCall(client, 'carol', 'uac-wait', 60000, ueEnv));
    const { callId } = incoming;
    await client.answer(callId);
    await sleep(1500);
    assert.equal((await ownSessions()).length, 1, 'the call has its rtpengine session');
    const a = await client.stats(callId);

    await stop(kam, 'SIGKILL', 2000); // the whole Kamailio (its process group), nothing cleaned up
    await sleep(KAM_DOWN_MS);
    kam = await startOwnKamailio();
    const backAt = Date.now();

    // media does not pass Kamailio: the echo from ue2 keeps coming through rtpengine
    await sleep(1000);
    const b = await client.stats(callId);
    const pkts = b.packetsReceived - a.packetsReceived;
    assert.ok(pkts > 25 * ((KAM_DOWN_MS + 1000) / 1000), `media stopped during the restart: ${pkts} packets received in ${KAM_DOWN_MS + 1000}+ ms`);
    assert.equal((await ownCallInfo(token, callId)).body?.state, 'confirmed', 'the call survives the restart');

    // the keepalive saw the silence and the answer after it: carol is registered again with the new Kamailio
    let reg;
    for (let i = 0; i < 40; i++, await sleep(250)) {
      reg = await registrationOf(token);
      if (reg?.refreshes >= 1) break;
    }
    assert.ok(reg?.refreshes >= 1, `carol was not re-REGISTERed after the restart: ${JSON.stringify(reg)}`);
    const reRegisteredMs = Date.parse(reg.registeredAt) - backAt;
    assert.ok(reRegisteredMs < 5000, `re-REGISTER ${reRegisteredMs} ms after Kamailio answered again`);

    // the browser hangs up: the in-dialog BYE follows the Record-Route through the restarted Kamailio (no state
    // needed there) and ue2 answers it; the gateway's call and rtpengine session end
    await client.hangup(callId);
    const ended = await client.waitFor('ended', callId, 10000);
    assert.equal(ended.reason, 'local-hangup', JSON.stringify(ended));
    const u = await ue.done;
    ue = null;
    assert.equal(u.code, 0, `ue2 got no BYE through the restarted Kamailio: ${u.output}`);
    await assertNoSessionOf(OWN_PREFIX);
    await assertNoOwnDialog();

    // an MT call after the restart reaches the browser (ue2 registers with the new Kamailio, carol is there again)
    let second;
    ({ ue, incoming: second } = await incomingCall(client, 'carol', 'uac-wait', 60000, ueEnv));
    await client.answer(second.callId);
    await sleep(1000);
    await client.hangup(second.callId);
    assert.equal((await ue.done).code, 0, 'the second call ended cleanly');
    ue = null;
    await assertNoSessionOf(OWN_PREFIX);
    await assertNoOwnDialog();
  } finally {
    ue?.kill();
    await client?.close();
    await stop(proc, 'SIGTERM', 15000);
    await stop(kam, 'SIGTERM', 5000);
  }
});

