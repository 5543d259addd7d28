// Integration: SIP over TLS between the gateway and the P-CSCF (docs/security.md "SIP over TLS"), both call
// directions. Under ./lab test the lab's Kamailio also listens on tls:127.0.0.1:5061 with the run's
// self-signed certificate (LAB_TEST_CERT); this file starts a gateway of its own (the lab's command line
// with --lab.ims.transport=tls toward 127.0.0.1:5061, SIP udp+tls 5074, HTTP 8094) that trusts only that
// certificate, and stops it afterwards. dave is its user (no other file has him logged in at that time).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES } from '../kit/addresses.mjs';
import { gatewayUrl, logDir, passwordOf } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';

const HTTP_PORT = 8094;
const SIP_PORT = 5074;
const PCSCF_TLS = ADDRESSES.pcscfTls;
const CERT = process.env.LAB_TEST_CERT;
const KEY = process.env.LAB_TEST_KEY;
const u = new URL(gatewayUrl());
u.port = String(HTTP_PORT);
const BASE = u.origin;
const labGw = gatewayUrl();
process.env.LAB_GW = BASE; // every runner helper reads LAB_GW when it is called: they talk to this gateway

const { launchBrowser, openClient } = await import('../runner/browser.mjs');
const gw = await import('../runner/gateway.mjs');
const { endedCleanly, moCall, mtCall } = await import('../runner/scenario.mjs');
const { assertNoRtpengineSession } = await import('../runner/testkit.mjs');

const USER = 'dave';
let proc;
let browser;
let client;
let token;

function withOption(args, name, value) {
  return [...args.filter((a) => !a.startsWith(`--${name}=`)), `--${name}=${value}`];
}

// Established TCP connections of a java process to the P-CSCF's TLS port, from the kernel's table.
function tlsConnections() {
  const out = execFileSync('ss', ['-Htnp', 'state', 'established', `( dport = :${PCSCF_TLS.split(':')[1]} )`]).toString();
  return out.split('\n').filter((l) => l.includes('"java"'));
}

before(async () => {
  assert.ok(CERT && KEY && fs.existsSync(CERT), 'LAB_TEST_CERT/LAB_TEST_KEY not set: run through ./lab test');
  let args = commandOf('gateway').argv.slice(1); // java -jar ... as ./lab started the lab's gateway
  args = withOption(args, 'server.port', HTTP_PORT);
  args = withOption(args, 'lab.sip.port', SIP_PORT);
  args = withOption(args, 'lab.rtpengine.dtmf-log', '');
  args = withOption(args, 'lab.ims.transport', 'tls');
  args = withOption(args, 'lab.ims.proxy', PCSCF_TLS);
  args = withOption(args, 'lab.sip.tls.certificate', CERT);
  args = withOption(args, 'lab.sip.tls.private-key', KEY);
  args = withOption(args, 'lab.sip.tls.trust', CERT);
  proc = start('gateway-tls', 'java', args, {
    log: path.join(logDir(), 'gateway-tls.log'),
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LAB_'))),
  });
  const end = Date.now() + 90000;
  for (;;) {
    const done = await Promise.race([proc.done, sleep(1000).then(() => null)]);
    if (done) throw new Error(`the TLS gateway exited (${JSON.stringify(done)}): ${proc.tail().slice(-600)}`);
    const h = await fetch(`${BASE}/api/v1/health`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
    if (h?.status === 200) break;
    if (Date.now() > end) throw new Error('the TLS gateway did not get healthy within 90 s');
  }
  assert.equal((await gw.health()).imsTransport, 'tls');
  browser = await launchBrowser({ extraOrigins: [BASE, labGw] });
  client = await openClient(browser, { name: 'test-tls-dave', url: `${BASE}/` });
  ({ token } = await client.login(USER, passwordOf(USER)));
});

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
  if (proc) await stop(proc, 'SIGTERM', 15000);
});

function assertMediaBothWays(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, JSON.stringify(r.info.media));
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
}

test('REGISTER went over TLS: the gateway holds a TLS connection to the P-CSCF\'s 5061, the registration has its sip_flow', async () => {
  assert.ok(tlsConnections().length > 0, `no established connection from a gateway to ${PCSCF_TLS}`);
  const s = await gw.currentSession(token);
  assert.ok(s.registration.expires > 0, JSON.stringify(s));
});

test('MO call over SIP/TLS to ue1, browser hangs up', { timeout: 40000 }, async () => {
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 2000 });
  assertMediaBothWays(r);
  assert.deepEqual(r.info.sipFlow.slice(0, 1), ['INVITE']);
  assert.ok(r.info.sipFlow.includes('BYE'), r.info.sipFlow.join(','));
});

test('MT call over SIP/TLS from ue2 (Kamailio opens TLS to the gateway\'s contact and checks its certificate), UE hangs up', { timeout: 45000 }, async () => {
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: 2000 }, hangup: 'ue', maxMs: 15000 });
  assertMediaBothWays(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession();
});
