// Integration: the gateway's browser side over TLS (docs/security.md "TLS"), as `./lab up --bind ADDR`
// serves it: a gateway of this file's own (the lab's command line, HTTP 8093, SIP 5079) with Spring
// Boot's server.ssl on the browser link's address and the run's self-signed certificate (./lab's
// lab_test_cert, SANs 198.18.0.1 and 127.0.0.1). Node trusts that certificate (NODE_EXTRA_CA_CERTS), so
// its requests check the chain and the address; the browser accepts it as a user who clicked through
// the warning would (acceptInsecureCerts). A call with media goes through https + wss, and the same
// port refuses plain HTTP.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gatewayUrl, logDir, passwordOf } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';

const HTTP_PORT = 8093;
const SIP_PORT = 5079;
const CERT = process.env.LAB_TEST_CERT;
const KEY = process.env.LAB_TEST_KEY;
const HOST = new URL(gatewayUrl()).hostname; // the browser link's address (198.18.0.1 under ./lab test)
const BASE = `https://${HOST}:${HTTP_PORT}`;
// every runner helper below reads LAB_GW when it is called: they all talk to this file's TLS gateway
process.env.LAB_GW = BASE;

const { launchBrowser, openClient } = await import('../runner/browser.mjs');
const gw = await import('../runner/gateway.mjs');
const { endedCleanly, moCall } = await import('../runner/scenario.mjs');
const { assertNoRtpengineSession } = await import('../runner/testkit.mjs');

let proc;
let browser;

function withOption(args, name, value) {
  return [...args.filter((a) => !a.startsWith(`--${name}=`)), `--${name}=${value}`];
}

before(async () => {
  assert.ok(CERT && KEY && fs.existsSync(CERT) && fs.existsSync(KEY), 'LAB_TEST_CERT/LAB_TEST_KEY not set: run through ./lab test');
  assert.equal(fs.statSync(KEY).mode & 0o077, 0, 'the private key is readable by others');
  let args = commandOf('gateway').argv.slice(1); // java -jar ... as ./lab started the lab's gateway
  args = withOption(args, 'server.port', HTTP_PORT);
  args = withOption(args, 'lab.sip.port', SIP_PORT);
  args = withOption(args, 'lab.rtpengine.dtmf-log', ''); // rtpengine's DTMF log goes to the lab's gateway
  args = withOption(args, 'server.ssl.certificate', `file:${CERT}`);
  args = withOption(args, 'server.ssl.certificate-private-key', `file:${KEY}`);
  proc = start('gateway-https', 'java', args, {
    log: path.join(logDir(), 'gateway-https.log'),
    // without the LAB_* variables: Spring would read e.g. LAB_IMS as the property lab.ims
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LAB_'))),
  });
  const end = Date.now() + 90000;
  for (;;) {
    const done = await Promise.race([proc.done, sleep(1000).then(() => null)]);
    if (done) throw new Error(`the https gateway exited (${JSON.stringify(done)}): ${proc.tail().slice(-400)}`);
    const h = await fetch(`${BASE}/api/v1/health`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
    if (h?.status === 200) break;
    if (Date.now() > end) throw new Error('the https gateway did not get healthy within 90 s');
  }
  browser = await launchBrowser({ acceptInsecureCerts: true });
});

after(async () => {
  await browser?.close();
  if (proc) await stop(proc, 'SIGTERM', 15000);
});

test('the TLS port serves the page over https with the certificate for its address, and no plain HTTP', { timeout: 20000 }, async () => {
  // Node verifies chain and SAN here (NODE_EXTRA_CA_CERTS = the run's certificate): a mismatch would throw
  const page = await fetch(`${BASE}/`, { signal: AbortSignal.timeout(5000) });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<html/i);
  const plain = await fetch(`http://${HOST}:${HTTP_PORT}/`, { signal: AbortSignal.timeout(5000) }).catch((e) => ({ error: e }));
  if (!plain.error) {
    // Tomcat answers a plain request on a TLS port with 400 "This combination of host and port requires TLS."
    assert.equal(plain.status, 400);
    assert.doesNotMatch(await plain.text(), /<html/i, 'the page was served over plain HTTP');
  }
  const res = await fetch(`http://${HOST}:${HTTP_PORT}/api/v1/health`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
  assert.notEqual(res?.status, 200, 'health answered over plain HTTP');
});

test('login over https hands out a wss:// WebSocket URL', { timeout: 20000 }, async () => {
  const r = await gw.login('carol', passwordOf('carol'));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  try {
    assert.equal(r.body.wsUrl, `wss://${HOST}:${HTTP_PORT}/ws`);
  } finally {
    await gw.logout(r.body.token);
  }
});

test('a browser call over https + wss: MO to ue1 with media both ways, rtpengine offers the bound address', { timeout: 60000 }, async () => {
  await sleep(500); // carol's de-REGISTER from the test before
  const client = await openClient(browser, { name: 'test-https-carol', url: `${BASE}/` });
  try {
    assert.equal(await client.page.evaluate(() => window.isSecureContext), true, 'the https page is a secure context');
    const { token } = await client.login('carol', passwordOf('carol'));
    const wsUrl = await client.page.evaluate(() => window.labClient.ws?.url);
    assert.match(wsUrl ?? '', new RegExp(`^wss://${HOST.replace(/\./g, '\\.')}:${HTTP_PORT}/ws`), `the page's WebSocket: ${wsUrl}`);
    const r = await moCall(client, { token, from: 'carol', to: 'ue1', hangup: 'browser', mediaMs: 2000 });
    assert.equal(r.error, null, r.error);
    assert.ok(r.answered, 'answered');
    // the answer the browser got names rtpengine's browser-facing address, the one the gateway is bound to
    assert.match(r.answerSdp ?? '', new RegExp(`^c=IN IP4 ${HOST.replace(/\./g, '\\.')}\\r?$`, 'm'), r.answerSdp);
    assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, JSON.stringify(r.info.media));
    assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
    await client.logout();
    await assertNoRtpengineSession(); // this gateway's sessions (its prefix gw5079-)
  } finally {
    await client.close();
  }
});
