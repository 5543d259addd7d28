// Integration (issue #28, docs/scale-out.md "Hosts"): the scale-out layout of `./lab up --gateways 2 --relays 2`
// as separate hosts — every gateway, relay, Kamailio (with its UEs), Redis and HAProxy in a network namespace of its
// own on the lab bridge — started by the lab's own functions and supervisor (harness/lib/hosts-up.sh), beside the lab
// this test runs in. This process's namespace is the client host (198.18.16.1), where browsers sit.
//  1. hosts, not ports: each component runs in a namespace of its own, listens on its host's address and on the
//     lab's usual port (the same on every gateway, every relay), and on no loopback address;
//  2. a real browser (Chromium) loads the web client through HAProxy's address, logs in, calls ue1 on the IMS host:
//     audio reaches the page (the relay's media on its host address), the call is on one gateway host and one
//     relay host (each asked on its own host), the host-only endpoints are refused through HAProxy.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { labRoot, logDir, outDir, passwordOf } from '../kit/env.mjs';
import { mediaOf } from '../kit/failover.mjs';
import { downHostsLayout, HOSTS_ENTRY, hostAddr, hostNs, sessionIdentities, upHostsLayout } from '../kit/hosts-layout.mjs';
import { listCalls } from '../kit/ng.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';
import { receivedDuring, waitReceiving } from '../runner/testkit.mjs';

const root = labRoot();
const RUN = path.join(outDir(), 'scale-hosts');
const host = hostAddr;
const NS = hostNs;
const GW_PORT = Number(LAB.LAB_GW_PORT);
const GATEWAYS = [1, 2].map((i) => ({ name: i === 1 ? 'gateway' : `gateway${i}`, ns: NS(`gw${i}`), addr: host(LAB.LAB_HOSTS_GW_BASE, i) }));
const RELAYS = [1, 2].map((i) => ({ name: i === 1 ? 'rtpengine' : `rtpengine${i}`, ns: NS(`relay${i}`), addr: host(LAB.LAB_HOSTS_RELAY_BASE, i),
  hostAddr: host(LAB.LAB_HOSTS_RELAY_HOST_BASE, i) }));
const NG_PORT = LAB.LAB_RTPENGINE_NG.split(':')[1];
const ENTRY = HOSTS_ENTRY;
let layout = null;

/** stdout of CMD in network namespace NS (ip netns exec). */
const inNs = (ns, cmd, args) => execFileSync('ip', ['netns', 'exec', ns, cmd, ...args], { encoding: 'utf8', timeout: 10000 });

/** The "NAME PID" lines of the layout's supervisor. */
function pids() {
  return Object.fromEntries(fs.readFileSync(path.join(RUN, 'pids'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/)).map(([n, p]) => [n, Number(p)]));
}

before(async () => {
  layout = await upHostsLayout({ root, run: RUN, name: 'scale-hosts', log: path.join(logDir(), 'scale-hosts.log') });
});

// SIGTERM: the layout's supervisor stops its components newest first and deletes the namespaces
after(async () => { await downHostsLayout(layout); });

test('hosts, not ports: every component in a namespace of its own, on its host address and the lab port, none on loopback', { timeout: 30000 }, () => {
  const p = pids();
  const want = ['redis', 'kamailio', 'haproxy', 'ue1', ...GATEWAYS.map((g) => g.name), ...RELAYS.map((r) => r.name)];
  for (const n of want) assert.ok(p[n], `${n} is not in the layout's pids (${JSON.stringify(p)})`);
  const netOf = (pid) => fs.statSync(`/proc/${pid}/ns/net`).ino;
  const mine = fs.statSync('/proc/self/ns/net').ino;
  const nets = new Map(['redis', 'kamailio', 'haproxy', ...GATEWAYS.map((g) => g.name), ...RELAYS.map((r) => r.name)].map((n) => [n, netOf(p[n])]));
  assert.equal(new Set(nets.values()).size, nets.size, `two components share a network namespace: ${JSON.stringify([...nets])}`);
  assert.ok(![...nets.values()].includes(mine), 'a component runs in the client host\'s (this test\'s) namespace');
  assert.equal(netOf(p.ue1), nets.get('kamailio'), 'the UEs sit on the IMS host with Kamailio');

  // what each host listens on (ss in its namespace): its address, the lab's port, never a loopback address
  // (a Java socket on an IPv4 address shows as [::ffff:A]:P)
  const listening = (ns) => inNs(ns, 'ss', ['-H', '-lntu']).trim().split('\n').filter(Boolean)
    .map((l) => l.split(/\s+/)[4].replace(/^\[::ffff:([0-9.]+)\]/, '$1'));
  for (const g of GATEWAYS) {
    const socks = listening(g.ns);
    assert.ok(socks.includes(`${g.addr}:${GW_PORT}`), `${g.name} does not listen on ${g.addr}:${GW_PORT}: ${socks.join(' ')}`);
    assert.ok(socks.includes(`${g.addr}:${LAB.LAB_GW_SIP_PORT}`), `${g.name}'s SIP is not on ${g.addr}:${LAB.LAB_GW_SIP_PORT}: ${socks.join(' ')}`);
    assert.deepEqual(socks.filter((s) => s.startsWith('127.') || s.startsWith('[::1]')), [], `${g.name} listens on loopback: ${socks.join(' ')}`);
  }
  for (const r of RELAYS) {
    // a relay's ng listens on its host's own address (ng to a service address the host holds is forwarded there:
    // docs/scale-out.md); the service address is on the host (keepalived)
    const socks = listening(r.ns);
    assert.ok(socks.includes(`${r.hostAddr}:${NG_PORT}`), `${r.name}'s ng is not on its host's address ${r.hostAddr}:${NG_PORT}: ${socks.join(' ')}`);
    assert.deepEqual(socks.filter((s) => s.startsWith('127.') || s.startsWith('[::1]')), [], `${r.name} listens on loopback: ${socks.join(' ')}`);
    const addrs = inNs(r.ns, 'ip', ['-4', '-o', 'addr', 'show', 'dev', 'eth0']);
    assert.ok(addrs.includes(` ${r.addr}/`), `${r.name}'s host does not hold its service address ${r.addr}: ${addrs}`);
  }
  const ims = listening(NS('ims'));
  assert.ok(ims.includes(`${LAB.LAB_HOSTS_IMS_ADDR}:${LAB.LAB_PCSCF.split(':')[1]}`), `the P-CSCF is not on the IMS host's address: ${ims.join(' ')}`);
  assert.deepEqual(ims.filter((s) => s.startsWith('127.')), [], `something on the IMS host listens on loopback: ${ims.join(' ')}`);
});

test('a browser through HAProxy\'s host: login, a call to ue1 on the IMS host with audio back, on one gateway host and one relay host', { timeout: 90000 }, async () => {
  // the host-only endpoints are not reachable through the balancer
  assert.equal((await fetch(`${ENTRY}/actuator/prometheus`)).status, 403, '/actuator through HAProxy must be refused');
  const attempts = (g) => {
    const text = inNs(g.ns, 'curl', ['-sf', '-m', '3', `http://${g.addr}:${GW_PORT}/actuator/prometheus`]);
    return Number((text.match(/^gw_call_attempts_total\{direction="mo"\} (\S+)/m) ?? [])[1] ?? 0);
  };
  const before = GATEWAYS.map(attempts);
  const browser = await launchBrowser({ netns: null, extraOrigins: [ENTRY] }); // the client host: this namespace
  const client = await openClient(browser, { name: 'scale-hosts-browser', url: `${ENTRY}/` });
  let callId = null;
  try {
    await client.login('erin', passwordOf('erin'));
    callId = await client.call('ue1');
    await client.waitFor('answered', callId, 15000);
    await waitReceiving(client, callId);
    // the far UE's P-Asserted-Identity is one of erin's registered identities (RFC 3325, TS 24.229 §5.1.2A)
    await assertFarUeAssertedIdentity({ callId: callId, identities: await sessionIdentities(client), log: path.join(RUN, 'logs', 'sipp-uas-ue1-messages.log'), where: 'the INVITE at ue1 on the IMS host' });
    const got = await receivedDuring(client, callId, 1500);
    assert.ok(got > 20, `audio from ue1 reaches the page through the relay host: ${got} packets in 1.5 s`);
    // each relay lists its own calls and its standby copies of the other's: the call's sockets say where it is
    const lists = await Promise.all(RELAYS.map((r) => listCalls(`${r.addr}:${NG_PORT}`)));
    assert.ok(lists.some((l) => l.some((id) => id.endsWith(callId))), `no relay lists the call: ${JSON.stringify(lists)}`);
    const on = [(await mediaOf(RELAYS, NG_PORT, callId)).relay];
    const delta = GATEWAYS.map((g, i) => attempts(g) - before[i]);
    assert.deepEqual([...delta].sort(), [0, 1], `the call went through one gateway host: attempts ${delta.join('/')}`);
    console.log(`browser call ${callId}: ${got} packets in 1.5 s, on ${on[0].name} (${on[0].addr}), gateway attempts ${delta.join('/')}`);
  } finally {
    if (callId) await client.hangup(callId).catch(() => {});
    await client.logout().catch(() => {});
    await browser.close();
  }
});
