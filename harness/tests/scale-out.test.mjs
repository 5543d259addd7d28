// Integration (issue #14, docs/scale-out.md): one gateway in front of two rtpengine instances that persist their
// calls in Redis. Its own components, started and stopped by PID (the lab's rtpengine, gateway and ports stay
// untouched): redis-server, rtpengine "relay-a" and "relay-b" (own ng ports and media ranges, each its own Redis
// database), a gateway (HTTP 8093, SIP 5078) with `--lab.rtpengine.ng=<a>,<b>`; the lab's Kamailio and SIPp ue1
// (echo). loadgen's gateway mode places real WebRTC calls (ICE, DTLS-SRTP, SRTP both ways through ue1's echo).
//  1. spread: the calls land on both relays (each relay's own ng `list`), and each call on one only;
//  2. relay kill: relay-a is SIGKILLed mid-call and started again on the same Redis; relay-b's calls go on
//     untouched, relay-a's are either kept (restored from Redis, media both ways after the restart) or ended
//     by the gateway (`media-lost`, BYE toward IMS) — which one, and how many, goes to scale-out-relay-kill.json;
//     no session is left on either relay afterwards;
//  2b. the same with every call's RTP sequence wrapped before the kill (rtpengine 10.5 then sends the restored calls
//     to the browser with the wrong SRTP ROC): each of relay-a's calls is ended media-lost after the browser's
//     media-reports, none left up silent;
//  3. two gateways: a second gateway (HTTP 8096, SIP 5100) on the same relays, both with token prefixes (g1., g2.)
//     behind HAProxy (127.0.0.1:8097, the configuration harness/lib/haproxy-config.sh writes for ./lab up); two users log in through
//     it (one lands on each gateway), originate calls and answer MT calls from SIPp ue2: each gateway takes its
//     share of MO calls and the MT call of the user it holds, every call with media.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { labRoot, logDir, outDir, passwordOf } from '../kit/env.mjs';
import { listCalls, ng } from '../kit/ng.mjs';
import { start, stop, sleep, waitFor } from '../kit/procs.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { receivedDuring, waitReceiving } from '../runner/testkit.mjs';
import { jvmOf } from '../runner/gateway.mjs';
import { commandOf } from '../kit/restart.mjs';
import { LAB } from '../kit/addresses.mjs';

// this file's ports (harness/addresses.env LAB_SCALE_TEST_*)
const GW1 = LAB.LAB_SCALE_TEST_GW1_PORT;
const GW2 = LAB.LAB_SCALE_TEST_GW2_PORT;
const LB_PORT = LAB.LAB_SCALE_TEST_LB_PORT;
const HTTP = `http://127.0.0.1:${GW1}`;
const SIP_PORT = Number(LAB.LAB_SCALE_TEST_GW1_SIP_PORT);
const PREFIX = `gw${SIP_PORT}-`;
const REDIS = { host: '127.0.0.1', port: Number(LAB.LAB_SCALE_TEST_REDIS_PORT) };
const RELAYS = [
  // media ports apart from the lab's own rtpengine (30000-30999), its data-channel endpoint (LAB_DATACHANNEL_PORT_*) and ipv6.test's relay
  { name: 'relay-a', ng: `127.0.0.1:${LAB.LAB_SCALE_TEST_RELAY_A_NG_PORT}`, ports: LAB.LAB_SCALE_TEST_RELAY_A_PORTS.split('-').map(Number), db: 1 },
  { name: 'relay-b', ng: `127.0.0.1:${LAB.LAB_SCALE_TEST_RELAY_B_NG_PORT}`, ports: LAB.LAB_SCALE_TEST_RELAY_B_PORTS.split('-').map(Number), db: 2 },
];
const CALLS = 6;
const MEDIA_S = 24;
const USER = 'carol';
const root = labRoot();
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LAB_')));
const procs = {};

/** This gateway's call-ids (without its prefix) that one relay holds now, from the relay itself. */
async function held(relay) {
  return (await listCalls(relay.ng)).filter((id) => id.startsWith(PREFIX)).map((id) => id.slice(PREFIX.length));
}

/** True when Redis answers PING with PONG. */
function redisPing() {
  return new Promise((resolve) => {
    const s = net.connect(REDIS.port, REDIS.host, () => s.write('PING\r\n'));
    s.setTimeout(500, () => { s.destroy(); resolve(false); });
    s.on('data', (d) => { s.destroy(); resolve(d.toString().startsWith('+PONG')); });
    s.on('error', () => resolve(false));
  });
}

// --- components ------------------------------------------------------------------------------------------
async function ready(name, proc, check, seconds) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const done = await waitFor(proc, 300);
    if (done) throw new Error(`${name} exited (${JSON.stringify(done)}): ${proc.tail().slice(-400)}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${name} not ready within ${seconds} s: ${proc.tail().slice(-400)}`);
  }
}

function startRelay(relay) {
  const redis = `${REDIS.host}:${REDIS.port}/${relay.db}`;
  const p = start(relay.name, 'bash', [path.join(root, 'media-relay', 'start-rtpengine.sh'), `--redis=${redis}`, `--redis-write=${redis}`],
    { log: path.join(logDir(), `scale-out-${relay.name}.log`), env: { ...env, RTPENGINE_NG: relay.ng, RTPENGINE_IFACE: '127.0.0.1',
      RTPENGINE_PORT_MIN: String(relay.ports[0]), RTPENGINE_PORT_MAX: String(relay.ports[1]) } });
  procs[relay.name] = p;
  return ready(relay.name, p, async () => (await ng(relay.ng, { command: 'ping' }, 300)).result === 'pong', 20);
}

before(async () => {
  const jar = path.join(root, 'signaling-gw', 'target', 'signaling-gw.jar');
  assert.ok(fs.existsSync(jar), `${jar} missing (./lab builds it)`);
  const loadgen = path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(root, 'media-relay', 'build'), 'loadgen', 'loadgen');
  assert.ok(fs.existsSync(loadgen), `${loadgen} missing (./lab test --only scale-out builds media-relay)`);
  const redisDir = path.join(outDir(), 'scale-out-redis');
  fs.mkdirSync(redisDir, { recursive: true });
  procs.redis = start('redis', 'redis-server', ['--bind', REDIS.host, '--port', String(REDIS.port), '--save', '', '--appendonly', 'no',
    '--dir', redisDir, '--daemonize', 'no'], { log: path.join(logDir(), 'scale-out-redis.log'), env });
  await ready('redis', procs.redis, redisPing, 10);
  for (const r of RELAYS) await startRelay(r);
  procs.gateway = start('gateway-scale', 'java', [...jvmOf(commandOf('gateway').argv), '--server.address=127.0.0.1', `--server.port=${GW1}`,
    '--lab.sip.host=127.0.0.1', `--lab.sip.port=${SIP_PORT}`, '--lab.rtpengine.dtmf-log=', '--lab.rtpengine.reconcile-ms=2000',
    `--lab.limits.calls-per-user=${CALLS}`, // one loadgen user places all the calls (the default allows 4)
    '--lab.api.token-prefix=g1.',
    `--lab.rtpengine.ng=${RELAYS.map((r) => r.ng).join(',')}`, `--lab.webclient.dir=${path.join(root, 'webclient', 'public')}`],
  { log: path.join(logDir(), 'gateway-scale.log'), env });
  await ready('gateway-scale', procs.gateway, async () => (await fetch(`${HTTP}/api/v1/health`, { signal: AbortSignal.timeout(2000) })).status === 200, 90);
  const health = await (await fetch(`${HTTP}/api/v1/health`)).json();
  assert.equal(health.rtpengine, 'ok', JSON.stringify(health));
  assert.deepEqual(Object.keys(health.rtpengines), RELAYS.map((r) => r.ng));
});

after(async () => {
  for (const name of ['haproxy', 'gateway-scale2', 'gateway-scale', 'loadgen', 'loadgen-mt', ...RELAYS.map((r) => r.name), 'redis']) {
    const p = name === 'gateway-scale' ? procs.gateway : procs[name];
    if (p) await stop(p, 'SIGTERM', 10000);
  }
});

/** SIGKILLs a relay and starts it again on its Redis database 1 s later; resolves the ms until it answers again. */
async function restartRelay(relay) {
  const killedAt = Date.now();
  await stop(procs[relay.name], 'SIGKILL', 2000);
  await sleep(1000);
  await startRelay(relay);
  return Date.now() - killedAt;
}

/**
 * Places CALLS loadgen calls through the gateway, waits until every one is in a relay, SIGKILLs relay-a 4 s later and
 * starts it again on its Redis database, and waits for loadgen. `name` names the logs; `lgArgs` go to loadgen.
 * Returns each relay's calls as loadgen saw them and the outcome on relay-a: kept with media, kept silent, ended.
 */
async function relayKill(name, lgArgs = []) {
  const lgJson = path.join(outDir(), `${name}-loadgen.json`);
  procs.loadgen = start('loadgen', path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(root, 'media-relay', 'build'), 'loadgen', 'loadgen'),
    ['--gateway', HTTP, '--user', USER, '--password', passwordOf(USER), '--to', 'ue1', '--calls', String(CALLS), '--cps', '3',
      '--duration', String(MEDIA_S), '--profiles', path.join(root, 'media-relay', 'bench', 'profiles.json'), '--json', lgJson, ...lgArgs],
    { log: path.join(logDir(), `${name}-loadgen.log`), env });

  // spread: wait until all calls are up in rtpengine (each relay asked itself)
  let before = null;
  const end = Date.now() + 20000;
  while (Date.now() < end) {
    const lists = await Promise.all(RELAYS.map(held));
    if (lists.flat().length === CALLS) { before = lists; break; }
    if (await waitFor(procs.loadgen, 500)) break;
  }
  assert.ok(before, `the ${CALLS} calls did not all reach rtpengine: ${procs.loadgen.tail().slice(-600)}`);
  const [onA, onB] = before;
  await sleep(4000); // media flowing on every call

  // kill relay-a mid-call, start it again on the same Redis database
  const restartedMs = await restartRelay(RELAYS[0]);
  const restored = await held(RELAYS[0]);

  const res = await waitFor(procs.loadgen, 80000);
  assert.ok(res, 'loadgen finished');
  const lg = JSON.parse(fs.readFileSync(lgJson, 'utf8'));
  const byId = new Map(lg.calls.map((c) => [c.gateway_call_id, c]));
  const summary = (ids) => ids.map((id) => {
    const c = byId.get(id) ?? {};
    return { call_id: id, ended_early: !!c.ended_early, end_reason: c.end_reason ?? null, sent: c.sent, recv: c.recv,
      srtp_errors: c.srtp_errors, recv_pct: c.sent ? Math.round((1000 * c.recv) / c.sent) / 10 : null };
  });
  const a = summary(onA);
  const b = summary(onB);
  const kept = a.filter((c) => !c.ended_early);
  const lost = a.filter((c) => c.ended_early);
  // kept with media: at most the kill-to-restart gap (+ DTLS/ICE recovery) missing of MEDIA_S seconds
  const keptWithMedia = kept.filter((c) => c.recv_pct >= 100 * (1 - (restartedMs / 1000 + 3) / MEDIA_S));
  const silent = kept.filter((c) => !keptWithMedia.includes(c));

  // no session left on either relay, nor in the gateway's view: the gateway deletes a call on the relay after
  // telling its browser `ended` (one delete after another), so this is polled for up to 10 s
  let left;
  let gwLeft;
  for (const end = Date.now() + 10000; ; await sleep(250)) {
    left = await Promise.all(RELAYS.map(held));
    gwLeft = await (await fetch(`${HTTP}/api/v1/rtpengine/sessions`)).json();
    if ((left.every((ids) => ids.length === 0) && gwLeft.count === 0) || Date.now() > end) break;
  }
  return { onA, onB, a, b, kept, lost, keptWithMedia, silent, restartedMs, restored, left, gwLeft, lg };
}

/** relay-b's calls ran their full time with media back on all but the last packets in flight. */
function assertUntouched(b) {
  for (const c of b) {
    assert.equal(c.ended_early, false, `relay-b call ${c.call_id} ended early (${c.end_reason})`);
    assert.ok(c.recv_pct >= 98, `relay-b call ${c.call_id}: ${c.recv} of ${c.sent} packets back`);
  }
}

test(`${CALLS} calls through one gateway spread over two rtpengines; one killed mid-call and restarted on Redis: its calls kept or ended cleanly, the other's untouched, none leaked`, { timeout: 150000 }, async () => {
  const { onA, onB, a, b, kept, lost, keptWithMedia, silent, restartedMs, restored, left, gwLeft, lg } = await relayKill('scale-out');
  assert.ok(onA.length > 0 && onB.length > 0, `calls on both relays: a ${onA.length}, b ${onB.length}`);
  assert.equal(new Set([...onA, ...onB]).size, CALLS, 'each call on one relay only');
  assertUntouched(b);
  // relay-a's calls: each either kept with media after the restart, or ended by the gateway with media-lost
  for (const c of lost) assert.equal(c.end_reason, 'media-lost', `relay-a call ${c.call_id} ended with ${c.end_reason}`);

  const outcome = kept.length === a.length && silent.length === 0 ? 'kept (restored from Redis, media both ways)'
    : lost.length === a.length ? 'ended cleanly (media-lost, BYE toward IMS)'
      : silent.length ? 'kept by rtpengine but silent' : 'mixed';
  const report = {
    test: 'scale-out relay kill', relays: RELAYS.map((r) => r.ng), calls: CALLS, media_s: MEDIA_S,
    per_relay_calls: { [RELAYS[0].ng]: onA.length, [RELAYS[1].ng]: onB.length },
    killed: RELAYS[0].ng, restart_ms: restartedMs, restored_from_redis: restored.length,
    outcome, killed_relay_calls: { kept_with_media: keptWithMedia.length, kept_silent: silent.length, ended_media_lost: lost.length, calls: a },
    other_relay_calls: { untouched: b.filter((c) => !c.ended_early).length, calls: b },
    sessions_left: { [RELAYS[0].ng]: left[0].length, [RELAYS[1].ng]: left[1].length, gateway: gwLeft.count },
    loadgen: { setup_ok: lg.totals?.setup_ok, failed: lg.totals?.failed, ended_early: lg.totals?.ended_early },
  };
  fs.writeFileSync(path.join(outDir(), 'scale-out-relay-kill.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`relay kill: ${outcome}; relay-a ${a.length} calls (restored ${restored.length}, kept with media ${keptWithMedia.length}, silent ${silent.length}, media-lost ${lost.length}), relay-b ${b.length} untouched`);

  assert.equal(silent.length, 0, `relay-a calls kept but without media: ${JSON.stringify(silent)} (a call must keep its media or be ended)`);
  assert.deepEqual(left, [[], []], 'no session left on the relays');
  assert.equal(gwLeft.count, 0);
});

// rtpengine 10.5 restores a call's outgoing SRTP index as of its last Redis write (the answer): a call whose RTP
// sequence wrapped since is sent to the browser with ROC 0 while the browser is at ROC 1, and every packet fails
// authentication there, though rtpengine's own counters grow both ways. Every call here starts at sequence 65500,
// so all of relay-a's calls have wrapped at the kill: the browsers' media-reports show it and the gateway ends them.
test('a restored call the relay sends to the browser with the wrong SRTP ROC (its sequence wrapped before the kill) is ended media-lost, not left silent', { timeout: 150000 }, async () => {
  const { a, b, kept, lost, silent, left, gwLeft } = await relayKill('scale-out-wrapped', ['--first-seq', '65500']);
  console.log(`relay kill after a sequence wrap: relay-a ${a.length} calls, kept ${kept.length} (silent ${silent.length}), ended ${lost.map((c) => c.end_reason).join(',')}`);
  fs.writeFileSync(path.join(outDir(), 'scale-out-relay-kill-wrapped.json'), `${JSON.stringify({ killed_relay_calls: a, other_relay_calls: b }, null, 2)}\n`);
  assert.ok(a.length > 0, 'relay-a held calls');
  assertUntouched(b);
  for (const c of a) {
    assert.equal(c.end_reason, 'media-lost', `relay-a call ${JSON.stringify(c)}: ended media-lost by the gateway`);
    assert.ok(c.srtp_errors > 0, `relay-a call ${c.call_id}: the browser saw the relay's packets fail authentication`);
  }
  assert.deepEqual(left, [[], []], 'no session left on the relays');
  assert.equal(gwLeft.count, 0);
});

// The same watch with a real browser: the page (webclient/public/lab-client.js) answers each `media-check` with its
// getStats packetsReceived, and the gateway's verdict on the restored call is taken from those reports.
test('a browser call on a relay that restarts: the page answers the media-checks and the gateway judges the call by them', { timeout: 90000 }, async () => {
  // In this process's network namespace: this file's gateway and relays listen on 127.0.0.1 only.
  const browser = await launchBrowser({ netns: null, extraOrigins: [HTTP] });
  const client = await openClient(browser, { name: 'scale-out-browser', url: `${HTTP}/` });
  let callId = null;
  try {
    await client.login('dave', passwordOf('dave'));
    callId = await client.call('ue1');
    await client.waitFor('answered', callId, 15000);
    const i = (await Promise.all(RELAYS.map(held))).findIndex((ids) => ids.includes(callId));
    assert.ok(i >= 0, `call ${callId} is on one of the relays`);
    await waitReceiving(client, callId);
    assert.ok(await receivedDuring(client, callId, 1500) > 20, 'audio before the kill');
    // rtpengine writes the DTLS-SRTP keys to Redis when it confirms the peer's address, 3-4 s into the media; a
    // kill before that restores a call without keys (ended media-lost by the relay's counters, docs/scale-out.md)
    await sleep(4000);

    const mark = await client.mark();
    await restartRelay(RELAYS[i]);
    await client.waitFor('media-check', callId, 15000, mark);
    await client.waitFor('media-check', callId, 15000, mark);
    // the verdict in the gateway's log names what the browser reported
    const log = path.join(logDir(), 'gateway-scale.log');
    let verdict = null;
    for (const end = Date.now() + 15000; !verdict && Date.now() < end; await sleep(500)) {
      verdict = fs.readFileSync(log, 'utf8').split('\n').find((l) => l.includes(`call ${callId}:`) && /the browser rec/.test(l)) ?? null;
    }
    console.log(`browser call on ${RELAYS[i].name}: ${verdict?.replace(/^.*MediaReconciler - /, '')}`);
    assert.ok(verdict, 'the gateway judged the restored call by the page\'s media-reports');
    const ended = await client.waitFor('ended', callId, 1).catch(() => null);
    if (/media flows again/.test(verdict)) {
      assert.equal(ended, null, 'kept: the call is still up');
      assert.ok(await receivedDuring(client, callId, 1500) > 20, 'kept: audio reaches the page after the restart');
    } else {
      assert.equal((ended ?? await client.waitFor('ended', callId, 5000)).reason, 'media-lost');
    }
  } finally {
    if (callId) await client.hangup(callId).catch(() => {});
    await client.logout().catch(() => {});
    await browser.close();
  }
});

test('two gateways behind HAProxy: logins spread, each session stays on its gateway (REST + WebSocket), MO calls on both, an MT call reaches the gateway that holds the user', { timeout: 110000 }, async () => {
  const jar = path.join(root, 'signaling-gw', 'target', 'signaling-gw.jar');
  const HTTP2 = `http://127.0.0.1:${GW2}`;
  procs['gateway-scale2'] = start('gateway-scale2', 'java', [...jvmOf(commandOf('gateway').argv), '--server.address=127.0.0.1', `--server.port=${GW2}`,
    '--lab.sip.host=127.0.0.1', `--lab.sip.port=${LAB.LAB_SCALE_TEST_GW2_SIP_PORT}`, '--lab.rtpengine.dtmf-log=', '--lab.rtpengine.reconcile-ms=2000',
    '--lab.limits.calls-per-user=8', '--lab.api.token-prefix=g2.',
    `--lab.rtpengine.ng=${RELAYS.map((r) => r.ng).join(',')}`, '--lab.webclient.dir='],
  { log: path.join(logDir(), 'gateway-scale2.log'), env });
  await ready('gateway-scale2', procs['gateway-scale2'], async () => (await fetch(`${HTTP2}/api/v1/health`, { signal: AbortSignal.timeout(2000) })).status === 200, 90);

  // HAProxy with the configuration `./lab up --gateways 2` writes (harness/lib/haproxy-config.sh, called as scaleout.sh's
  // start_haproxy calls it), its frontend and stats on this test's loopback ports, its servers this test's two gateways
  const cfg = path.join(outDir(), 'scale-out-haproxy.cfg');
  const gen = start('haproxy-config', 'bash', [path.join(root, 'harness', 'lib', 'haproxy-config.sh'), cfg, `127.0.0.1:${LB_PORT}`,
    `127.0.0.1:${LAB.LAB_SCALE_TEST_LB_STATS_PORT}`, `127.0.0.1:${GW1}`, `127.0.0.1:${GW2}`], { log: path.join(logDir(), 'scale-out-haproxy.log'), env });
  assert.equal((await gen.done).code, 0, `harness/lib/haproxy-config.sh failed: ${gen.tail()}`);
  procs.haproxy = start('haproxy', 'haproxy', ['-db', '-f', cfg], { log: path.join(logDir(), 'scale-out-haproxy.log'), env });
  const LB = `http://127.0.0.1:${LB_PORT}`;
  await ready('haproxy', procs.haproxy, async () => (await fetch(`${LB}/api/v1/health`, { signal: AbortSignal.timeout(2000) })).status === 200, 20);
  assert.equal((await fetch(`${LB}/actuator/prometheus`)).status, 403, 'host-only endpoints are not reachable through the balancer');

  const attempts = async (url) => {
    const text = await (await fetch(`${url}/actuator/prometheus`)).text();
    const get = (dir) => Number((text.match(new RegExp(`^gw_call_attempts_total\\{direction="${dir}"\\} (\\S+)`, 'm')) ?? [])[1] ?? 0);
    return { mo: get('mo'), mt: get('mt') };
  };
  const before = await Promise.all([HTTP, HTTP2].map(attempts));

  // two users through the balancer: originate 4 calls to ue1 and answer the calls made to them
  const usersFile = path.join(outDir(), 'scale-out-users.txt');
  fs.writeFileSync(usersFile, ['carol', 'dave'].map((u) => `${u}:${passwordOf(u)}\n`).join(''), { mode: 0o600 });
  const lgJson = path.join(outDir(), 'scale-out-2gw-loadgen.json');
  procs['loadgen-mt'] = start('loadgen-mt', path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(root, 'media-relay', 'build'), 'loadgen', 'loadgen'),
    ['--gateway', LB, '--users', usersFile, '--to', 'ue1', '--calls', '4', '--cps', '2', '--duration', '6', '--answer', '--expect-calls', '2',
      '--timeout', '70', '--profiles', path.join(root, 'media-relay', 'bench', 'profiles.json'), '--json', lgJson],
    { log: path.join(logDir(), 'scale-out-2gw-loadgen.log'), env });
  // both sessions up: each user registered by one of the gateways
  const who = {};
  const end = Date.now() + 30000;
  while (Object.keys(who).length < 2 && Date.now() < end) {
    await sleep(500);
    for (const [i, url] of [HTTP, HTTP2].entries()) {
      const text = await (await fetch(`${url}/actuator/prometheus`)).text();
      const n = Number((text.match(/^gw_registrations (\S+)/m) ?? [])[1] ?? 0);
      if (n > 0) who[i] = n;
    }
  }
  assert.deepEqual(who, { 0: 1, 1: 1 }, 'one user registered on each gateway (HAProxy round robin)');
  // MT: SIPp ue2 calls each user in turn (through Kamailio: the INVITE goes to the Contact the holding gateway registered)
  for (const user of ['carol', 'dave']) {
    const ue = start(`ue2-${user}`, 'bash', [path.join(root, 'sipp-scenarios', 'run-ue.sh'), 'load-uac', user, '1', '1', '5000'],
      { log: path.join(logDir(), `scale-out-ue2-${user}.log`), env: { ...process.env, UE_RTP_ECHO: '1', UE_QUIET: '1' }, group: true });
    const res = await waitFor(ue, 40000);
    assert.equal(res?.code, 0, `ue2 -> ${user}: ${ue.tail().slice(-400)}`);
  }
  const lgRes = await waitFor(procs['loadgen-mt'], 80000);
  assert.ok(lgRes, 'loadgen finished');
  const lg = JSON.parse(fs.readFileSync(lgJson, 'utf8'));
  const after = await Promise.all([HTTP, HTTP2].map(attempts));
  const mo = after.map((a, i) => a.mo - before[i].mo);
  const mt = after.map((a, i) => a.mt - before[i].mt);
  console.log(`two gateways: MO attempts ${mo.join('/')}, MT attempts ${mt.join('/')}; loadgen set up ${lg.totals?.setup_ok}, failed ${lg.totals?.failed}`);
  fs.writeFileSync(path.join(outDir(), 'scale-out-gateways.json'), `${JSON.stringify({ mo_per_gateway: mo, mt_per_gateway: mt, totals: lg.totals }, null, 2)}\n`);
  assert.deepEqual(mo, [2, 2], 'MO calls: two through each gateway');
  assert.deepEqual(mt, [1, 1], 'MT calls: each reached the gateway holding its user');
  assert.equal(lg.totals?.failed, 0);
  for (const c of lg.calls) assert.ok(c.recv > 0 && !c.ended_early, `call ${c.gateway_call_id} (${c.direction}): ${c.recv} packets back, ${c.end_reason}`);
  assert.equal(lgRes.code, 0, procs['loadgen-mt'].tail().slice(-400));
});
