// Integration: the limits that need small values to be reached in a test (docs/security.md) — token
// expiry, sessions in total, calls per user, m-lines per SDP, WebSockets per source address — against a gateway of its own (the lab's jar,
// HTTP 8091, SIP 5076, the lab's Kamailio and rtpengine) started with tight `--lab.*` limits and stopped
// by PID afterwards. Uses carol and dave; one test file runs at a time, so they are free.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { gatewayUrl, labRoot, logDir, passwordOf } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';
import { jvmOf } from '../runner/gateway.mjs';
import { LAB } from '../kit/addresses.mjs';

const HTTP_PORT = Number(LAB.LAB_LIMITS_TEST_GW_PORT);
const SIP_PORT = Number(LAB.LAB_LIMITS_TEST_GW_SIP_PORT);
// on the address the lab's own gateway serves (the browser namespace reaches it there: docs/media.md "Topology")
const HTTP_ADDR = new URL(gatewayUrl()).hostname;
const BASE = `http://${HTTP_ADDR}:${HTTP_PORT}`;
const TTL_S = 6;
let gateway;
let browser;

async function api(method, p, { token, body } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = 'application/json';
  const res = await fetch(`${BASE}${p}`, { method, headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(10000) });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* keep null */ }
  return { status: res.status, body: json };
}

before(async () => {
  // java as ./lab started its gateway (the jar, or its extracted copy with the class-data sharing archive)
  gateway = start('gateway-limits', 'java', [...jvmOf(commandOf('gateway').argv), `--server.address=${HTTP_ADDR}`, `--server.port=${HTTP_PORT}`,
    '--lab.sip.host=127.0.0.1', `--lab.sip.port=${SIP_PORT}`, '--lab.rtpengine.dtmf-log=',
    `--lab.webclient.dir=${path.join(labRoot(), 'webclient', 'public')}`,
    `--lab.api.token-ttl-seconds=${TTL_S}`, '--lab.api.max-sessions=1',
    '--lab.limits.calls-per-user=0', '--lab.limits.mlines-per-sdp=1', '--lab.api.ws-connections-per-address=1'],
  // without the LAB_* variables: Spring would read e.g. LAB_IMS as the property lab.ims
  { log: path.join(logDir(), 'gateway-limits.log'), env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LAB_'))) });
  const end = Date.now() + 90000;
  for (;;) {
    const done = await Promise.race([gateway.done, sleep(250).then(() => null)]);
    if (done) throw new Error(`the limits gateway exited (${JSON.stringify(done)}): ${gateway.tail().slice(-400)}`);
    const h = await api('GET', '/api/v1/health').catch(() => null);
    if (h?.status === 200) break;
    if (Date.now() > end) throw new Error('the limits gateway did not get healthy within 90 s');
  }
  browser = await launchBrowser({ extraOrigins: [BASE] });
});

after(async () => {
  await browser?.close();
  if (gateway) await stop(gateway, 'SIGTERM', 10000);
});

test('sessions in total: with max-sessions=1 a second user gets 503 too-many-sessions, the first may log in again', { timeout: 30000 }, async () => {
  const first = await api('POST', '/api/v1/sessions', { body: { user: 'carol', password: passwordOf('carol') } });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  try {
    const second = await api('POST', '/api/v1/sessions', { body: { user: 'dave', password: passwordOf('dave') } });
    assert.equal(second.status, 503);
    assert.equal(second.body?.code, 'too-many-sessions');
    const again = await api('POST', '/api/v1/sessions', { body: { user: 'carol', password: passwordOf('carol') } });
    assert.equal(again.status, 201, 'replacing one\'s own session is not a new one');
    assert.equal((await api('DELETE', '/api/v1/sessions/current', { token: again.body.token })).status, 204);
  } finally {
    await api('DELETE', '/api/v1/sessions/current', { token: first.body.token });
  }
});

test(`a token expires after ${TTL_S} s: refused on REST, its page's WebSocket closed`, { timeout: 40000 }, async () => {
  await sleep(500); // carol's de-REGISTER from the test before
  const page = await openClient(browser, { name: 'test-limits-expiry', url: `${BASE}/` });
  try {
    const { token } = await page.login('carol', passwordOf('carol'));
    assert.equal((await api('GET', '/api/v1/sessions/current', { token })).status, 200);
    await sleep(TTL_S * 1000 + 1500);
    const res = await api('GET', '/api/v1/sessions/current', { token });
    assert.equal(res.status, 401);
    assert.equal(res.body?.code, 'bad-token');
    // REST checks the expiry itself; the socket is closed by the gateway's expiry sweep (once a second) and the
    // close handshake after it: polled for up to 5 s
    let wsOpen = true;
    for (const end = Date.now() + 5000; wsOpen && Date.now() < end; await sleep(wsOpen ? 100 : 0)) {
      wsOpen = await page.page.evaluate(() => window.labClient.ws !== null);
    }
    assert.equal(wsOpen, false, 'the gateway closed the expired session\'s socket');
  } finally {
    await page.close();
  }
});

test('quotas before rtpengine: a call beyond calls-per-user -> too-many-calls, a video call beyond mlines-per-sdp -> too-many-mlines', { timeout: 40000 }, async () => {
  const page = await openClient(browser, { name: 'test-limits-quota', url: `${BASE}/` });
  try {
    await page.login('carol', passwordOf('carol'));
    await assert.rejects(page.call('ue1'), /too-many-calls/);
    await assert.rejects(page.call('ue1', { video: true }), /too-many-mlines/);
    const sessions = await fetch(`${BASE}/api/v1/rtpengine/sessions`).then((r) => r.json());
    assert.equal(sessions.count, 0, `rtpengine was asked for nothing: ${JSON.stringify(sessions.callIds)}`);
  } finally {
    await page.logout().catch(() => {});
    await page.close();
  }
});

// A raw WebSocket from this process (its source address is the gateway's own, 198.18.0.1 in the test topology:
// not loopback, so counted): resolves once open or closed, records its messages and its close.
function socket(token) {
  const ws = new WebSocket(`${BASE.replace(/^http/, 'ws')}/ws`, ['lab.v1', `lab.token.${token}`]);
  const s = { ws, messages: [], closed: null };
  s.opened = new Promise((resolve) => {
    ws.on('open', () => resolve(true));
    ws.on('message', (data) => s.messages.push(JSON.parse(data.toString())));
    ws.on('close', (code, reason) => { s.closed = { code, reason: reason.toString() }; resolve(false); });
    ws.on('error', () => {}); // the close follows
  });
  s.close = async () => {
    if (s.closed) return;
    ws.close(1000);
    for (let i = 0; i < 40 && !s.closed; i++) await sleep(50);
  };
  return s;
}

test('WebSockets per source address: beyond ws-connections-per-address=1 the socket gets error too-many-connections and close 4429; the open one and its session are untouched; once it closes a new one opens', { timeout: 30000 }, async () => {
  await sleep(500); // the page of the test before has closed its socket
  const login = await api('POST', '/api/v1/sessions', { body: { user: 'carol', password: passwordOf('carol') } });
  assert.equal(login.status, 201, JSON.stringify(login.body));
  let { token } = login.body;
  const open = [];
  try {
    const a = socket(token);
    open.push(a);
    assert.equal(await a.opened, true, `the first socket opens: ${JSON.stringify(a.closed)}`);
    const b = socket(token);
    open.push(b);
    await b.opened;
    for (let i = 0; i < 40 && !b.closed; i++) await sleep(50);
    assert.deepEqual(b.closed, { code: 4429, reason: 'too-many-connections' }, 'the second socket from this address is refused');
    assert.equal(b.messages[0]?.type, 'error', JSON.stringify(b.messages));
    assert.equal(b.messages[0]?.code, 'too-many-connections', JSON.stringify(b.messages));
    assert.match(b.messages[0]?.message ?? '', /more than 1 WebSockets from /);
    await sleep(500);
    assert.equal(a.closed, null, 'the open socket was not replaced by the refused one');
    assert.equal(a.ws.readyState, WebSocket.OPEN);
    assert.equal((await api('GET', '/api/v1/sessions/current', { token })).status, 200, 'the session lives on');
    await a.close(); // a closed socket ends its session (lab.api.ws-reconnect-grace-ms 0): log in again
    assert.equal(a.closed?.code, 1000);
    await sleep(500); // the gateway's side of the close, the de-REGISTER
    const again = await api('POST', '/api/v1/sessions', { body: { user: 'carol', password: passwordOf('carol') } });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    token = again.body.token;
    const c = socket(token);
    open.push(c);
    assert.equal(await c.opened, true, `a new socket opens once the first closed: ${JSON.stringify(c.closed)}`);
    await sleep(500);
    assert.equal(c.closed, null, 'and stays open');
    assert.deepEqual(c.messages.filter((m) => m.type === 'error'), []);
  } finally {
    for (const s of open) await s.close();
    await api('DELETE', '/api/v1/sessions/current', { token });
  }
});
