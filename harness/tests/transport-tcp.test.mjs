// Integration: SIP over TCP between the gateway and Kamailio, both call directions.
// ./lab test starts a second gateway (HTTP 8089, SIP 5072) with --lab.ims.transport=tcp; LAB_GW_TCP names it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const tcpGw = process.env.LAB_GW_TCP;
if (tcpGw) process.env.LAB_GW = tcpGw; // every runner helper reads LAB_GW when it is called

const gw = await import('../runner/gateway.mjs');
const { endedCleanly, moCall, mtCall } = await import('../runner/scenario.mjs');
const { assertNoRtpengineSession, loggedInPage } = await import('../runner/testkit.mjs');

const USER = 'bob';
let page;
let client;
let token;

// Established TCP connections from a gateway (java) to Kamailio's 5060, from the kernel's table:
// JAIN-SIP connects from an ephemeral port; only the TCP gateway speaks TCP to Kamailio.
function sipTcpConnections() {
  const out = execFileSync('ss', ['-Htnp', 'state', 'established', '( dport = :5060 )']).toString();
  return out.split('\n').filter((l) => l.includes('"java"'));
}

before(async () => {
  assert.ok(tcpGw, 'LAB_GW_TCP is not set: run through ./lab test');
  const h = await gw.waitHealthy(15000);
  assert.equal(h.imsTransport, 'tcp');
  page = await loggedInPage(USER, 'test-tcp-bob');
  ({ client, token } = page);
});

after(async () => page?.close());

function assertMediaBothWays(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, JSON.stringify(r.info.media));
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
}

test('REGISTER went over TCP: a TCP connection to Kamailio is up', () => {
  assert.ok(sipTcpConnections().length > 0, 'no established TCP connection from a gateway to :5060');
});

test('re-REGISTER: the gateway refreshes a 10 s registration before it expires', { timeout: 20000 }, async () => {
  const first = await gw.currentSession(token);
  assert.equal(first.registration.expires, 10, JSON.stringify(first));
  const end = Date.now() + 15000;
  let now = first;
  while (now.registration.refreshes < 1 && Date.now() < end) {
    await new Promise((res) => setTimeout(res, 500));
    now = await gw.currentSession(token);
  }
  assert.ok(now.registration.refreshes >= 1, `no refresh within 15 s: ${JSON.stringify(now)}`);
  assert.ok(Date.parse(now.registration.registeredAt) > Date.parse(first.registration.registeredAt));
});

test('MO call over SIP/TCP to ue1, browser hangs up', { timeout: 40000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 2000 });
  assertMediaBothWays(r);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  assert.deepEqual(r.info.sipFlow.slice(0, 1), ['INVITE']);
  assert.ok(r.info.sipFlow.includes('BYE'), r.info.sipFlow.join(','));
});

test('MT call over SIP/TCP from ue2 (Kamailio reaches the TCP contact), UE hangs up', { timeout: 45000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: 2000 }, hangup: 'ue', maxMs: 15000 });
  assertMediaBothWays(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession();
});
