// Integration: the gateway's HTTP edge as a client from outside meets it (docs/security.md "HTTP errors",
// "Response headers", "Health"): every refusal — Spring MVC's (method, media type, Accept, unreadable or too-deep
// JSON, unknown path), /error itself, Tomcat's own (a request line it cannot parse, oversized headers) — is the
// API's {code, message} JSON with its 4xx status and no Java class name; the security headers on the page, the
// API, the errors and the WebSocket upgrade; the health answer without and with a token; logout in a real page,
// 20 times, never a 401 (issue #29). Uses erin.
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { after, before, test } from 'node:test';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { gatewayUrl, passwordOf } from '../kit/env.mjs';
import * as gw from '../runner/gateway.mjs';

const USER = 'erin';
// a Java class or exception name, a package, Jackson's limit accessor: none may reach a client
const CLASS_NAME = /[A-Z][A-Za-z]+(Exception|Error|Constraints)\b|\bjava\.|org\.springframework|com\.fasterxml|getMax|Tomcat/;
let browser;
let page;

before(async () => {
  await gw.waitHealthy(15000);
  browser = await launchBrowser();
  page = await openClient(browser, { name: 'test-http-edge-erin' });
});

after(async () => {
  await page?.logout().catch(() => {});
  await page?.close();
  await browser?.close();
});

// One raw HTTP request (the path as written, no normalisation; any header, also none): {status, headers, text}.
function raw(method, path, { headers = {}, body } = {}) {
  const base = new URL(gatewayUrl());
  return new Promise((resolve, reject) => {
    const req = (base.protocol === 'https:' ? https : http).request({
      host: base.hostname, port: base.port, method, path, headers, timeout: 5000,
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 5 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_LOGIN = JSON.stringify({ user: 'nobody', password: 'x' });
const DEEP = `{"user":${'['.repeat(5000)}${']'.repeat(5000)}}`;
const MULTIPART = '--x\r\nContent-Disposition: form-data; name="user"\r\n\r\nalice\r\n--x--\r\n';

// [what, method, path, headers, body, status, code, Allow must contain]
const TABLE = [
  ['login as text/plain', 'POST', '/api/v1/sessions', { 'content-type': 'text/plain' }, JSON_LOGIN, 415, 'unsupported-media-type'],
  ['login as a form', 'POST', '/api/v1/sessions', { 'content-type': 'application/x-www-form-urlencoded' }, 'user=alice&password=x', 415, 'unsupported-media-type'],
  ['login as XML', 'POST', '/api/v1/sessions', { 'content-type': 'application/xml' }, '<login user="alice"/>', 415, 'unsupported-media-type'],
  ['login as multipart', 'POST', '/api/v1/sessions', { 'content-type': 'multipart/form-data; boundary=x' }, MULTIPART, 415, 'unsupported-media-type'],
  ['login with a garbage Content-Type', 'POST', '/api/v1/sessions', { 'content-type': 'garbage;;==/' }, JSON_LOGIN, 415, 'unsupported-media-type'],
  ['login without Content-Type', 'POST', '/api/v1/sessions', {}, JSON_LOGIN, 415, 'unsupported-media-type'],
  ['login with malformed JSON', 'POST', '/api/v1/sessions', { 'content-type': 'application/json' }, '{"user":', 400, 'bad-json'],
  ['login with JSON nested 5000 deep', 'POST', '/api/v1/sessions', { 'content-type': 'application/json' }, DEEP, 400, 'bad-json'],
  ['login with a JSON array', 'POST', '/api/v1/sessions', { 'content-type': 'application/json' }, '[1]', 400, 'bad-json'],
  ['GET /api/v1/sessions', 'GET', '/api/v1/sessions', {}, undefined, 405, 'method-not-allowed', 'POST'],
  ['PUT /api/v1/sessions', 'PUT', '/api/v1/sessions', { 'content-type': 'application/json' }, JSON_LOGIN, 405, 'method-not-allowed', 'POST'],
  ['POST /api/v1/health', 'POST', '/api/v1/health', {}, undefined, 405, 'method-not-allowed', 'GET'],
  ['TRACE /api/v1/sessions', 'TRACE', '/api/v1/sessions', {}, undefined, 405, 'method-not-allowed', 'POST'],
  ['PATCH /api/v1/sessions/current', 'PATCH', '/api/v1/sessions/current', {}, undefined, 405, 'method-not-allowed', 'DELETE'],
  ['health with Accept: application/xml', 'GET', '/api/v1/health', { accept: 'application/xml' }, undefined, 406, 'not-acceptable'],
  ['an unknown API path', 'GET', '/api/v1/no-such-thing', {}, undefined, 404, 'not-found'],
  ['an unknown file', 'GET', '/no-such-page.html', {}, undefined, 404, 'not-found'],
  ['GET /error', 'GET', '/error', {}, undefined, 404, 'not-found'],
  ['POST /error as XML', 'POST', '/error', { accept: 'application/xml' }, undefined, 404, 'not-found'],
  ['a path Tomcat cannot decode', 'GET', '/%', {}, undefined, 400, 'bad-request'],
  ['an encoded slash', 'GET', '/api/v1/calls/a%2Fb', {}, undefined, 400, 'bad-request'],
  ['a path parameter climbing up', 'GET', '/..;/etc/passwd', {}, undefined, 400, 'bad-request'],
  ['a 20 kB header', 'GET', '/api/v1/health', { 'x-big': 'a'.repeat(20000) }, undefined, 400, 'bad-request'],
];

test('HTTP error table: each refusal has its 4xx status and {code, message} JSON, no class name, the security headers', { timeout: 30000 }, async () => {
  const wrong = [];
  for (const [what, method, path, headers, body, status, code, allow] of TABLE) {
    const r = await raw(method, path, { headers, body });
    let json = null;
    try { json = JSON.parse(r.text); } catch { /* checked below */ }
    const got = `${method} ${path.slice(0, 40)} -> ${r.status} ${r.headers['content-type']} ${r.text.slice(0, 160)}`;
    if (r.status !== status) wrong.push(`${what}: expected ${status}, got ${got}`);
    if (r.status >= 500) wrong.push(`${what}: a 5xx: ${got}`);
    if (!/^application\/json/.test(r.headers['content-type'] ?? '')) wrong.push(`${what}: not JSON: ${got}`);
    if (json?.code !== code || typeof json?.message !== 'string' || !json.message) wrong.push(`${what}: expected {code: ${code}, message}, got ${got}`);
    if (CLASS_NAME.test(r.text)) wrong.push(`${what}: names a class: ${got}`);
    if (r.headers['x-content-type-options'] !== 'nosniff' || !r.headers['content-security-policy']) wrong.push(`${what}: no security headers: ${got}`);
    if (allow && !(r.headers.allow ?? '').includes(allow)) wrong.push(`${what}: Allow '${r.headers.allow}' lacks ${allow}`);
  }
  assert.deepEqual(wrong, [], 'requests answered otherwise than the table says');
});

// The security headers every kind of answer must carry; HSTS is for HTTPS only (tls.test.mjs checks it there).
function headerProblems(what, headers) {
  const p = [];
  const csp = headers['content-security-policy'] ?? '';
  for (const d of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]) {
    if (!csp.includes(d)) p.push(`${what}: CSP lacks ${d}: '${csp}'`);
  }
  if (!/connect-src 'self' ws:\/\/|connect-src 'self' wss:\/\//.test(csp)) p.push(`${what}: CSP does not allow the page's WebSocket: '${csp}'`);
  if (/unsafe-(inline|eval)/.test(csp)) p.push(`${what}: CSP allows unsafe-*: '${csp}'`);
  if (headers['x-content-type-options'] !== 'nosniff') p.push(`${what}: X-Content-Type-Options '${headers['x-content-type-options']}'`);
  if (headers['x-frame-options'] !== 'DENY') p.push(`${what}: X-Frame-Options '${headers['x-frame-options']}'`);
  if (headers['referrer-policy'] !== 'no-referrer') p.push(`${what}: Referrer-Policy '${headers['referrer-policy']}'`);
  if (gatewayUrl().startsWith('http:') && headers['strict-transport-security']) p.push(`${what}: HSTS over plain HTTP`);
  return p;
}

test('security headers on the page, its scripts, the API, its errors and the WebSocket upgrade (101 and 401)', { timeout: 20000 }, async () => {
  const problems = [];
  for (const path of ['/', '/index.html', '/app.js', '/vendor/chart.umd.min.js', '/style.css', '/api/v1/health', '/api/v1/sessions/current', '/nothing']) {
    const r = await raw('GET', path);
    if (path === '/' || path.endsWith('.js') || path.endsWith('.css') || path === '/api/v1/health') {
      if (r.status !== 200) problems.push(`${path}: HTTP ${r.status}`);
    }
    problems.push(...headerProblems(`GET ${path} (${r.status})`, r.headers));
  }
  const login = await gw.login(USER, passwordOf(USER));
  assert.equal(login.status, 201, `login ${JSON.stringify(login.body)}`);
  try {
    const up = await gw.wsUpgrade({ protocols: login.body.wsProtocols });
    assert.equal(up.status, 101, 'the upgrade with the token is accepted');
    problems.push(...headerProblems('WebSocket 101', up.headers));
    const refused = await gw.wsUpgrade({ protocols: ['lab.v1'] });
    assert.equal(refused.status, 401, 'the upgrade without a token is refused');
    problems.push(...headerProblems('WebSocket 401', refused.headers));
  } finally {
    await gw.logout(login.body.token);
  }
  assert.deepEqual(problems, [], 'answers without the security headers');
});

test('health: a client elsewhere (the browser) learns up/down only; with its session token, or on the host, the details', { timeout: 30000 }, async () => {
  const host = await gw.health();
  assert.equal(host.status, 'up', JSON.stringify(host));
  assert.ok(host.sip && host.imsProxy && host.imsTransport && host.rtpengine === 'ok' && host.rtpengines, `details on the gateway's host: ${JSON.stringify(host)}`);
  const get = (token) => page.page.evaluate(async (t) => {
    const r = await fetch('/api/v1/health', { headers: t ? { authorization: `Bearer ${t}` } : {} });
    return { status: r.status, body: await r.json().catch(() => null) };
  }, token);
  assert.deepEqual(await get(null), { status: 200, body: { status: 'up' } }, 'the public answer from the browser\'s address');
  assert.deepEqual(await get('not-a-live-token'), { status: 200, body: { status: 'up' } }, 'an unknown token gets the public answer');
  const { token } = await page.login(USER, passwordOf(USER));
  try {
    const withToken = await get(token);
    assert.equal(withToken.status, 200);
    assert.deepEqual(Object.keys(withToken.body), Object.keys(host), `the details with a session token: ${JSON.stringify(withToken.body)}`);
  } finally {
    const out = await page.logout();
    assert.equal(out.status, 204, 'logout');
  }
});

test('logout from the page 20 times in a row: the DELETE answers 204 every time, the session is gone after', { timeout: 90000 }, async () => {
  const statuses = [];
  for (let i = 0; i < 20; i++) {
    const { token } = await page.login(USER, passwordOf(USER));
    const { status } = await page.logout();
    statuses.push(status);
    const after = await raw('GET', '/api/v1/sessions/current', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(after.status, 401, `round ${i + 1}: the token still works after the logout`);
  }
  assert.deepEqual(statuses, Array(20).fill(204), `the logouts' HTTP statuses: ${statuses.join(' ')}`);
  assert.equal(await page.errorText(), null, 'no error shown by the page');
  assert.deepEqual(await page.cspViolations(), [], 'CSP violations in the page');
});
