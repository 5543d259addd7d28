// Integration: TLS on both sides of the gateway (docs/security.md "TLS" and "SIP over TLS"), with one
// gateway of this file's own: the lab's command line plus Spring Boot's server.ssl (HTTPS + WSS on the
// browser link's address, port 8093, as `./lab up --bind ADDR` serves it) and --lab.ims.transport=tls
// toward the P-CSCF's TLS listener (127.0.0.1:5061; SIP udp+tls 5074). Both use the run's self-signed
// certificate (./lab's lab_test_cert: SANs 198.18.0.1 and 127.0.0.1, key mode 0600); the gateway trusts only
// it for SIP, Node trusts it (NODE_EXTRA_CA_CERTS: chain and address are verified), the browser accepts it
// as a user who clicked through the warning would (acceptInsecureCerts), loadgen trusts it by --ca. dave is
// this file's browser user, bob loadgen's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { gatewayUrl, labRoot, logDir, outDir, passwordOf } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const HTTP_PORT = Number(LAB.LAB_TLS_TEST_GW_PORT);
const SIP_PORT = Number(LAB.LAB_TLS_TEST_GW_SIP_PORT);
const PCSCF_TLS = ADDRESSES.pcscfTls;
const CERT = process.env.LAB_TEST_CERT;
const KEY = process.env.LAB_TEST_KEY;
const HOST = new URL(gatewayUrl()).hostname; // the browser link's address (198.18.0.1 under ./lab test)
const BASE = `https://${HOST}:${HTTP_PORT}`;
const USER = 'dave';
// every runner helper below reads LAB_GW when it is called: they all talk to this file's gateway
process.env.LAB_GW = BASE;

const { launchBrowser, openClient } = await import('../runner/browser.mjs');
const gw = await import('../runner/gateway.mjs');
const { endedCleanly, moCall, mtCall } = await import('../runner/scenario.mjs');
const { assertNoRtpengineSession } = await import('../runner/testkit.mjs');

let proc;
let epcscfOrigin = ''; // the eP-CSCF's WebSocket origin the lab's gateway was given (lab.wic.ws-url), kept by this one
let browser;
let client;
let token;

// Established TCP connections of a java process to the P-CSCF's TLS port, from the kernel's table.
function tlsConnections() {
  const out = execFileSync('ss', ['-Htnp', 'state', 'established', `( dport = :${PCSCF_TLS.split(':')[1]} )`]).toString();
  return out.split('\n').filter((l) => l.includes('"java"'));
}

function assertMediaBothWays(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'answered');
  assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, JSON.stringify(r.info.media));
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
}

before(async () => {
  assert.ok(CERT && KEY && fs.existsSync(CERT) && fs.existsSync(KEY), 'LAB_TEST_CERT/LAB_TEST_KEY not set: run through ./lab test');
  assert.equal(fs.statSync(KEY).mode & 0o077, 0, 'the private key is readable by others');
  let args = commandOf('gateway').argv.slice(1); // java -jar ... as ./lab started the lab's gateway
  for (const [name, value] of [['server.port', HTTP_PORT], ['lab.sip.port', SIP_PORT],
    ['lab.rtpengine.dtmf-log', ''], // rtpengine's DTMF log goes to the lab's gateway
    ['server.ssl.certificate', `file:${CERT}`], ['server.ssl.certificate-private-key', `file:${KEY}`],
    ['lab.ims.transport', 'tls'], ['lab.ims.proxy', PCSCF_TLS],
    ['lab.sip.tls.certificate', CERT], ['lab.sip.tls.private-key', KEY], ['lab.sip.tls.trust', CERT]]) {
    args = gw.withOption(args, name, value);
  }
  const wicUrl = args.find((a) => a.startsWith('--lab.wic.ws-url='))?.slice('--lab.wic.ws-url='.length);
  epcscfOrigin = wicUrl ? new URL(wicUrl).origin : '';
  proc = await gw.startOwnGateway('gateway-tls', args, BASE, { label: 'TLS gateway' });
  assert.equal((await gw.health()).imsTransport, 'tls');
  browser = await launchBrowser({ acceptInsecureCerts: true });
});

after(async () => {
  await client?.logout().catch(() => {});
  await client?.close();
  await browser?.close();
  if (proc) await stop(proc, 'SIGTERM', 15000);
});

test('HTTPS: the page with the certificate for the bound address, and no plain HTTP on that port', { timeout: 20000 }, async () => {
  // Node verifies chain and SAN here (NODE_EXTRA_CA_CERTS = the run's certificate): a mismatch would throw
  const page = await fetch(`${BASE}/`, { signal: AbortSignal.timeout(5000) });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<html/i);
  // HSTS over HTTPS only (docs/security.md "Response headers"); the page's WebSocket is wss:// of this origin
  assert.equal(page.headers.get('strict-transport-security'), 'max-age=31536000', 'HSTS on the HTTPS page');
  // ... and the eP-CSCF's, when the gateway names one for the SIP-over-WebSocket client (docs/ims-sim.md)
  const sockets = `wss://${HOST}:${HTTP_PORT}${epcscfOrigin ? ` ${epcscfOrigin}` : ''}`;
  assert.ok((page.headers.get('content-security-policy') ?? '').includes(`connect-src 'self' ${sockets};`),
    `the page may open WebSockets to its own origin${epcscfOrigin ? ' and the eP-CSCF' : ''} only: connect-src 'self' ${sockets}; in ${page.headers.get('content-security-policy')}`);
  const plain = await fetch(`http://${HOST}:${HTTP_PORT}/`, { signal: AbortSignal.timeout(5000) }).catch((e) => ({ error: e }));
  if (!plain.error) {
    // Tomcat answers a plain request on a TLS port with 400 "This combination of host and port requires TLS."
    assert.equal(plain.status, 400);
    assert.equal(plain.headers.get('strict-transport-security'), null, 'no HSTS over plain HTTP (RFC 6797 §7.2)');
    assert.doesNotMatch(await plain.text(), /<html/i, 'the page was served over plain HTTP');
  }
  const res = await fetch(`http://${HOST}:${HTTP_PORT}/api/v1/health`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
  assert.notEqual(res?.status, 200, 'health answered over plain HTTP');
});

test('WSS: login over https hands out a wss:// URL, and the upgrade works over TLS', { timeout: 20000 }, async () => {
  const r = await gw.login('carol', passwordOf('carol'));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  try {
    assert.equal(r.body.wsUrl, `wss://${HOST}:${HTTP_PORT}/ws`);
    const up = await gw.wsUpgrade({ protocols: r.body.wsProtocols });
    assert.equal(up.status, 101, JSON.stringify(up));
    assert.equal(up.protocol, 'lab.v1');
  } finally {
    await gw.logout(r.body.token);
  }
});

test('SIP over TLS: the browser logs in over https + wss, its REGISTER goes over a TLS connection to the P-CSCF', { timeout: 30000 }, async () => {
  client = await openClient(browser, { name: 'test-tls-dave', url: `${BASE}/` });
  assert.equal(await client.page.evaluate(() => window.isSecureContext), true, 'the https page is a secure context');
  ({ token } = await client.login(USER, passwordOf(USER)));
  const wsUrl = await client.page.evaluate(() => window.labClient.ws?.url);
  assert.match(wsUrl ?? '', new RegExp(`^wss://${HOST.replace(/\./g, '\\.')}:${HTTP_PORT}/ws`), `the page's WebSocket: ${wsUrl}`);
  assert.ok(tlsConnections().length > 0, `no established connection from a gateway to ${PCSCF_TLS}`);
  assert.ok((await gw.currentSession(token)).registration.expires > 0);
});

test('MO call over https + wss and SIP/TLS to ue1 with media both ways; rtpengine offers the bound address', { timeout: 40000 }, async () => {
  assert.ok(client, 'not logged in (the test before failed)');
  const r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 2000 });
  assertMediaBothWays(r);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  // the answer the browser got names rtpengine's browser-facing address, the one the gateway is bound to
  assert.match(r.answerSdp ?? '', new RegExp(`^c=IN IP4 ${HOST.replace(/\./g, '\\.')}\\r?$`, 'm'), r.answerSdp);
  assert.ok(r.info.sipFlow.includes('BYE'), r.info.sipFlow.join(','));
});

test('MT call over SIP/TLS from ue2 (Kamailio opens TLS to the gateway\'s contact and checks its certificate), UE hangs up', { timeout: 45000 }, async () => {
  assert.ok(client, 'not logged in (the test before failed)');
  const r = await mtCall(client, { token, user: USER, ue: { mode: 'uac', arg: 2000 }, hangup: 'ue', maxMs: 15000 });
  assertMediaBothWays(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  await assertNoRtpengineSession(); // this gateway's sessions (its prefix gw5074-)
});

// loadgen's gateway mode over HTTPS + WSS (docs/loadgen.md): it trusts the run's certificate only when told
// (--ca); bob's credentials come from a users file (mode 0600). One call to ue1 (RTP echo), SRTP both ways.
test('loadgen over https + wss: refuses the certificate without --ca, places a call with media both ways with it', { timeout: 60000 }, async () => {
  const loadgen = path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(labRoot(), 'media-relay', 'build'), 'loadgen', 'loadgen');
  assert.ok(fs.existsSync(loadgen), `${loadgen} missing (./lab test --only tls builds media-relay)`);
  const users = path.join(outDir(), 'tls-loadgen-users.txt');
  fs.writeFileSync(users, `bob:${passwordOf('bob')}\n`, { mode: 0o600 });
  const json = path.join(outDir(), 'tls-loadgen.json');
  const common = ['--gateway', BASE, '--users', users, '--to', 'ue1', '--calls', '1', '--duration', '3',
    '--profiles', path.join(labRoot(), 'media-relay', 'bench', 'profiles.json'), '--json', json];
  const run = async (name, args) => {
    const p = start(name, loadgen, args, { log: path.join(logDir(), `${name}.log`) });
    const res = await Promise.race([p.done, sleep(40000).then(() => null)]);
    if (!res) await stop(p, 'SIGTERM', 5000);
    return { res, tail: p.tail() };
  };
  const refused = await run('loadgen-tls-noca', common);
  assert.equal(refused.res?.code, 2, `without --ca: ${JSON.stringify(refused.res)} ${refused.tail.slice(-400)}`);
  assert.match(refused.tail, /certificate not trusted/, refused.tail.slice(-400));
  const ok = await run('loadgen-tls', [...common, '--ca', CERT]);
  assert.equal(ok.res?.code, 0, `with --ca: ${JSON.stringify(ok.res)} ${ok.tail.slice(-600)}`);
  assert.match(ok.tail, /websocket \(TLS\)/, ok.tail.slice(-400));
  const r = JSON.parse(fs.readFileSync(json, 'utf8'));
  const t = r.totals;
  assert.equal(r.mode, 'gateway');
  assert.ok(t.setup_ok === 1 && t.dtls_ok === 1 && t.hung_up === 1, JSON.stringify(t));
  assert.ok(t.pkts_sent >= 140 && t.pkts_recv >= 0.9 * t.pkts_sent, JSON.stringify(t));
  assert.equal(r.gateway?.logout, 'ok', JSON.stringify(r.gateway));
  await assertNoRtpengineSession();
});
