// Integration (issue #28, docs/scale-out.md "Hosts"): the scale-out layout of `./lab up --gateways 2 --relays 2
// --ims 3gpp` as separate hosts — every gateway, relay, Redis and HAProxy in a network namespace of its own on the lab
// bridge, the 3GPP core (its DNS, MariaDB, HSS, S-, I-, P-CSCF) with its UEs on the IMS host — started by the lab's own
// functions and supervisor (harness/lib/hosts-up.sh), beside the lab this test runs in. This process's namespace is
// the client host (198.18.16.1), where browsers sit. (The light core's hosts layout is scale-failover's.)
//  1. hosts, not ports: each component runs in a namespace of its own, listens on its host's address and on the
//     lab's usual port (the same on every gateway, every relay), and on no loopback address — the 3GPP core's nodes
//     too, on the IMS host's address;
//  2. a real browser (Chromium) loads the web client through HAProxy's address; two users log in, one on each gateway
//     host (each registered by IMS-AKA through the P-CSCF on the IMS host); one calls ue1 on the IMS host (MO), ue2
//     there calls the other (MT, ue2 registered by IMS-AKA too): audio reaches the page on both calls, each gateway
//     host carries one call (its own metrics, asked on its host), the P-CSCF's asserted identities reach both ends.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { labRoot, logDir, outDir, passwordOf } from '../kit/env.mjs';
import { mediaOf } from '../kit/failover.mjs';
import { downHostsLayout, HOSTS_ENTRY, hostAddr, hostNs, sessionIdentities, ueOnImsHost, upHostsLayout } from '../kit/hosts-layout.mjs';
import { listCalls } from '../kit/ng.mjs';
import { sleep } from '../kit/procs.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';
import { receivedDuring, waitReceiving } from '../runner/testkit.mjs';

const root = labRoot();
const RUN = path.join(outDir(), 'scale-hosts');
const RUN_LOGS = path.join(RUN, 'logs');
const host = hostAddr;
const NS = hostNs;
const GW_PORT = Number(LAB.LAB_GW_PORT);
const GATEWAYS = [1, 2].map((i) => ({ i, name: i === 1 ? 'gateway' : `gateway${i}`, ns: NS(`gw${i}`), addr: host(LAB.LAB_HOSTS_GW_BASE, i) }));
const RELAYS = [1, 2].map((i) => ({ name: i === 1 ? 'rtpengine' : `rtpengine${i}`, ns: NS(`relay${i}`), addr: host(LAB.LAB_HOSTS_RELAY_BASE, i),
  hostAddr: host(LAB.LAB_HOSTS_RELAY_HOST_BASE, i) }));
const NG_PORT = LAB.LAB_RTPENGINE_NG.split(':')[1];
const IMS = LAB.LAB_HOSTS_IMS_ADDR;
const MT_MEDIA_MS = 6000; // how long ue2's SIPp uac sends media before its BYE (run-ue.sh's uac argument)
const PCSCF_PORT = LAB.LAB_PCSCF.split(':')[1];
const ENTRY = HOSTS_ENTRY;
let layout = null;

/** stdout of CMD in network namespace NS (ip netns exec). */
const inNs = (ns, cmd, args) => execFileSync('ip', ['netns', 'exec', ns, cmd, ...args], { encoding: 'utf8', timeout: 10000 });

/** The "NAME PID" lines of the layout's supervisor. */
function pids() {
  return Object.fromEntries(fs.readFileSync(path.join(RUN, 'pids'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/)).map(([n, p]) => [n, Number(p)]));
}

/** A gateway's call attempts in DIRECTION (mo, mt), read on its own host (its metrics are host-only). */
function attempts(g, direction) {
  const text = inNs(g.ns, 'curl', ['-sf', '-m', '3', `http://${g.addr}:${GW_PORT}/actuator/prometheus`]);
  return Number((text.match(new RegExp(`^gw_call_attempts_total\\{direction="${direction}"\\} (\\S+)`, 'm')) ?? [])[1] ?? 0);
}

/** The gateway a session's token names (HAProxy routes by its prefix g<i>.). */
const gatewayOf = (token) => GATEWAYS.find((g) => token.startsWith(`g${g.i}.`));

before(async () => {
  layout = await upHostsLayout({ root, run: RUN, name: 'scale-hosts', log: path.join(logDir(), 'scale-hosts.log'), ims: '3gpp' });
});

// SIGTERM: the layout's supervisor stops its components newest first and deletes the namespaces
after(async () => { await downHostsLayout(layout); });

test('hosts, not ports: every component in a namespace of its own, on its host address and the lab port, none on loopback (the 3GPP core on the IMS host)', { timeout: 30000 }, () => {
  const p = pids();
  const want = ['redis', 'ims3gpp', 'haproxy', 'ue1', ...GATEWAYS.map((g) => g.name), ...RELAYS.map((r) => r.name)];
  for (const n of want) assert.ok(p[n], `${n} is not in the layout's pids (${JSON.stringify(p)})`);
  const netOf = (pid) => fs.statSync(`/proc/${pid}/ns/net`).ino;
  const mine = fs.statSync('/proc/self/ns/net').ino;
  const nets = new Map(['redis', 'ims3gpp', 'haproxy', ...GATEWAYS.map((g) => g.name), ...RELAYS.map((r) => r.name)].map((n) => [n, netOf(p[n])]));
  assert.equal(new Set(nets.values()).size, nets.size, `two components share a network namespace: ${JSON.stringify([...nets])}`);
  assert.ok(![...nets.values()].includes(mine), 'a component runs in the client host\'s (this test\'s) namespace');
  assert.equal(netOf(p.ue1), nets.get('ims3gpp'), 'the UEs sit on the IMS host with the 3GPP core');

  // what each host listens on (ss in its namespace): its address, the lab's port, never a loopback address
  // (a Java socket on an IPv4 address shows as [::ffff:A]:P)
  const listening = (ns) => inNs(ns, 'ss', ['-H', '-lntu']).trim().split('\n').filter(Boolean)
    .map((l) => l.split(/\s+/)[4].replace(/^\[::ffff:([0-9.]+)\]/, '$1'));
  const onLoopback = (socks) => socks.filter((s) => s.startsWith('127.') || s.startsWith('[::1]') || s.startsWith('::1'));
  for (const g of GATEWAYS) {
    const socks = listening(g.ns);
    assert.ok(socks.includes(`${g.addr}:${GW_PORT}`), `${g.name} does not listen on ${g.addr}:${GW_PORT}: ${socks.join(' ')}`);
    assert.ok(socks.includes(`${g.addr}:${LAB.LAB_GW_SIP_PORT}`), `${g.name}'s SIP is not on ${g.addr}:${LAB.LAB_GW_SIP_PORT}: ${socks.join(' ')}`);
    assert.deepEqual(onLoopback(socks), [], `${g.name} listens on loopback: ${socks.join(' ')}`);
  }
  for (const r of RELAYS) {
    // a relay's ng listens on its host's own address (ng to a service address the host holds is forwarded there:
    // docs/scale-out.md); the service address is on the host (keepalived)
    const socks = listening(r.ns);
    assert.ok(socks.includes(`${r.hostAddr}:${NG_PORT}`), `${r.name}'s ng is not on its host's address ${r.hostAddr}:${NG_PORT}: ${socks.join(' ')}`);
    assert.deepEqual(onLoopback(socks), [], `${r.name} listens on loopback: ${socks.join(' ')}`);
    const addrs = inNs(r.ns, 'ip', ['-4', '-o', 'addr', 'show', 'dev', 'eth0']);
    assert.ok(addrs.includes(` ${r.addr}/`), `${r.name}'s host does not hold its service address ${r.addr}: ${addrs}`);
  }
  // the 3GPP core's nodes, each on the IMS host's address and its usual port (harness/addresses.env)
  const ims = listening(NS('ims'));
  const core = { 'P-CSCF': PCSCF_PORT, 'I-CSCF': LAB.LAB_IMS3_ICSCF_PORT, 'S-CSCF': LAB.LAB_IMS3_SCSCF_PORT, DNS: '53',
    'HSS (Diameter)': LAB.LAB_IMS3_HSS_DIAMETER_PORT, 'MariaDB': LAB.LAB_IMS3_DB_PORT };
  for (const [node, port] of Object.entries(core)) {
    assert.ok(ims.includes(`${IMS}:${port}`), `the 3GPP core's ${node} is not on the IMS host's address ${IMS}:${port}: ${ims.join(' ')}`);
  }
  // the SIPp UEs' remote-control sockets (keys and commands that stop or steer a UE, no authentication) are the one
  // exception: on the IMS host's loopback, never on a wildcard address (run-ue.sh -ci), so no other host reaches them
  const imsOwners = inNs(NS('ims'), 'ss', ['-H', '-lntup']).trim().split('\n').filter(Boolean)
    .map((l) => ({ net: l.split(/\s+/)[0], sock: l.split(/\s+/)[4], proc: /users:\(\("([^"]+)"/.exec(l)?.[1] ?? '?' }));
  const wildcard = imsOwners.filter((o) => /^(0\.0\.0\.0|\*|\[::\]):/.test(o.sock));
  assert.deepEqual(wildcard, [], `something on the IMS host listens on every address (reachable from the other hosts): ${JSON.stringify(wildcard)}`);
  const loopback = imsOwners.filter((o) => onLoopback([o.sock]).length);
  assert.ok(loopback.every((o) => o.net === 'udp' && o.proc === 'sipp'), `something on the IMS host other than SIPp's remote control listens on loopback: ${JSON.stringify(loopback)}`);
  assert.ok(loopback.length > 0, `no SIPp remote-control socket on the IMS host's loopback (the UEs run there): ${JSON.stringify(imsOwners)}`);
});

test('a browser through HAProxy\'s host on the 3GPP core: one user on each gateway host, MO to ue1 and MT from ue2 on the IMS host, audio back on both', { timeout: 90000 }, async () => {
  // the host-only endpoints are not reachable through the balancer
  assert.equal((await fetch(`${ENTRY}/actuator/prometheus`)).status, 403, '/actuator through HAProxy must be refused');
  const before = GATEWAYS.map((g) => ({ mo: attempts(g, 'mo'), mt: attempts(g, 'mt') }));
  const browser = await launchBrowser({ netns: null, extraOrigins: [ENTRY] }); // the client host: this namespace
  const caller = await openClient(browser, { name: 'scale-hosts-alice', url: `${ENTRY}/` });
  const callee = await openClient(browser, { name: 'scale-hosts-bob', url: `${ENTRY}/` });
  let moId = null;
  let mtId = null;
  let ue = null;
  try {
    // alice and bob log in through HAProxy (round robin: the page's own requests move it too): bob logs in again until
    // he is on the other gateway host than alice
    const gwA = gatewayOf((await caller.login('alice', passwordOf('alice'))).token);
    let gwB = gatewayOf((await callee.login('bob', passwordOf('bob'))).token);
    for (let k = 0; k < 4 && gwB === gwA; k++) {
      await callee.logout();
      gwB = gatewayOf((await callee.login('bob', passwordOf('bob'))).token);
    }
    assert.ok(gwA && gwB, `a token without a gateway prefix (g1./g2.): alice on ${gwA?.name}, bob on ${gwB?.name}`);
    assert.notEqual(gwB, gwA, `bob's five logins through HAProxy all landed on ${gwA.name}, alice's gateway`);
    // both registered by IMS-AKA through the P-CSCF on the IMS host (the gateway's session reports the flow)
    for (const [c, who] of [[caller, 'alice'], [callee, 'bob']]) {
      const r = await fetch(`${ENTRY}/api/v1/sessions/current`, { headers: { authorization: `Bearer ${await c.token()}` } });
      assert.equal(r.status, 200, `GET /api/v1/sessions/current of ${who} through HAProxy: ${r.status}`);
      const reg = (await r.json()).registration;
      assert.equal(reg?.auth, 'AKAv1-MD5', `${who} is not registered by IMS-AKA: ${JSON.stringify(reg)}`);
    }

    // MO: alice -> ue1 through her gateway host, the P-CSCF, S-CSCF, I-CSCF on the IMS host
    moId = await caller.call('ue1');
    await caller.waitFor('answered', moId, 15000);
    await waitReceiving(caller, moId);
    await assertFarUeAssertedIdentity({ callId: moId, identities: await sessionIdentities(caller), log: path.join(RUN_LOGS, 'sipp-uas-ue1-messages.log'), where: 'the INVITE at ue1 on the IMS host' });
    const moGot = await receivedDuring(caller, moId, 1500);
    assert.ok(moGot > 20, `MO: audio from ue1 reaches alice's page through a relay host: ${moGot} packets in 1.5 s`);

    // MT: ue2 on the IMS host (IMS-AKA) calls bob while alice's call is up: the S-CSCF routes it to bob's contact,
    // his gateway host's address
    const mark = await callee.mark();
    ue = ueOnImsHost({ root, logDir: RUN_LOGS, mode: 'uac', user: 'bob', arg: MT_MEDIA_MS, ims: '3gpp', timeoutMs: 40000 });
    const gaveUp = ue.done.then((u) => { throw new Error(`ue2 (SIPp uac on the IMS host) exited ${u.code} before its call reached bob's page: ${u.output}`); });
    const inc = await Promise.race([callee.waitFor('incoming', null, 15000, mark), gaveUp]);
    mtId = inc.callId;
    assert.deepEqual(inc.assertedIdentity, [`sip:ue2@${LAB.LAB_IMS_DOMAIN}`], 'the identity the P-CSCF asserted for ue2 reaches bob\'s page');
    await callee.answer(mtId);
    await waitReceiving(callee, mtId);
    const mtGot = await receivedDuring(callee, mtId, 1500);
    assert.ok(mtGot > 20, `MT: audio from ue2 reaches bob's page through a relay host: ${mtGot} packets in 1.5 s`);

    const on = { mo: (await mediaOf(RELAYS, NG_PORT, moId)).relay, mt: (await mediaOf(RELAYS, NG_PORT, mtId)).relay };
    const delta = GATEWAYS.map((g, k) => ({ gw: g.name, mo: attempts(g, 'mo') - before[k].mo, mt: attempts(g, 'mt') - before[k].mt }));
    const want = GATEWAYS.map((g) => ({ gw: g.name, mo: g === gwA ? 1 : 0, mt: g === gwB ? 1 : 0 }));
    assert.deepEqual(delta, want, `each gateway host carries one call (alice on ${gwA.name}, bob on ${gwB.name}): attempts ${JSON.stringify(delta)}`);
    console.log(`MO alice (${gwA.name}) -> ue1: ${moId}, ${moGot} packets in 1.5 s, relay ${on.mo.name}; MT ue2 -> bob (${gwB.name}): ${mtId}, ${mtGot} packets in 1.5 s, relay ${on.mt.name}`);

    // ue2 hangs up after its hold; alice hangs up hers: both end cleanly, and no relay keeps either call
    const u = await ue.done;
    ue = null;
    assert.equal(u.code, 0, `ue2's call to bob failed (SIPp exit ${u.code}): ${u.output}`);
    await callee.waitFor('ended', mtId, 10000);
    await caller.hangup(moId);
    await caller.waitFor('ended', moId, 10000);
    let left = [];
    for (const end = Date.now() + 5000; ; await sleep(250)) {
      const lists = await Promise.all(RELAYS.map((r) => listCalls(`${r.addr}:${NG_PORT}`)));
      left = lists.flat().filter((id) => id.endsWith(moId) || id.endsWith(mtId));
      if (left.length === 0 || Date.now() > end) break;
    }
    assert.deepEqual(left, [], 'relay sessions left 5 s after both calls ended');
    moId = null;
    mtId = null;
  } finally {
    ue?.kill();
    if (moId) await caller.hangup(moId).catch(() => {});
    if (mtId) await callee.hangup(mtId).catch(() => {});
    await caller.logout().catch(() => {});
    await callee.logout().catch(() => {});
    await browser.close();
  }
});
