// REST helpers for the gateway's browser API (docs/architecture.md), used from Node.
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { gatewayUrl, logDir } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';

async function request(method, path, { token, body, timeoutMs = 10000 } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(`${gatewayUrl()}${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new Error(`gateway ${method} ${path} unreachable at ${gatewayUrl()}: ${e.cause?.code ?? e.message}`);
  }
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON: keep the text */ }
  return { status: res.status, body: json ?? text };
}

function expect(res, status, what) {
  if (res.status !== status) {
    const code = typeof res.body === 'object' && res.body?.code ? ` ${res.body.code}` : '';
    throw new Error(`${what}: HTTP ${res.status}${code}`);
  }
  return res.body;
}

// Raw result ({status, body}) so tests can assert on failures such as 401 auth-failed.
export const login = (user, password) => request('POST', '/api/v1/sessions', { body: { user, password } });
// POST /api/v1/sessions from a chosen loopback source address (the per-address limits count by it), raw
// HTTP: {status, body, code, token}; status null (code "error: …") when the gateway did not answer.
// `base` is the gateway's URL (the soak passes its own), `headers` extra request headers (e.g. Origin).
export function loginFrom(localAddress, user, password, { base = gatewayUrl(), headers = {} } = {}) {
  const body = JSON.stringify({ user, password });
  return new Promise((resolve) => {
    const req = (base.startsWith('https:') ? https : http).request(`${base}/api/v1/sessions`, {
      method: 'POST', localAddress, timeout: 10000,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
    }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* keep null */ }
        resolve({ status: res.statusCode, body: json, code: json?.code ?? null, token: json?.token ?? null });
      });
    });
    req.on('timeout', () => req.destroy(new Error('login: no answer within 10 s')));
    req.on('error', (e) => resolve({ status: null, body: null, code: `error: ${e.message}`, token: null }));
    req.end(body);
  });
}
export const logout = (token) => request('DELETE', '/api/v1/sessions/current', { token });

// GET /api/v1/health from the harness (the gateway's host: it gets the details, docs/security.md): the body,
// also with 503 (status "down": no rtpengine answers); anything else throws.
export async function health() {
  const res = await request('GET', '/api/v1/health');
  return res.status === 503 ? res.body : expect(res, 200, 'health');
}

export async function callInfo(token, callId) {
  return expect(await request('GET', `/api/v1/calls/${encodeURIComponent(callId)}`, { token }), 200, `call info ${callId}`);
}

export async function rtpengineSessions() {
  return expect(await request('GET', '/api/v1/rtpengine/sessions'), 200, 'rtpengine sessions');
}

// rtpengine's delete may trail the `ended` message a little: poll until the count is 0.
export async function waitNoSessions(timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await rtpengineSessions();
    if (s.count === 0 || Date.now() > end) return s;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function waitHealthy(timeoutMs = 15000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const h = await health();
      if (h.status === 'up') return h;
      if (Date.now() > end) throw new Error(`gateway health is ${JSON.stringify(h)}`);
    } catch (e) {
      if (Date.now() > end) throw e;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

// The caller's own session and its IMS registration ({user, registration: {expires, refreshes, registeredAt, …,
// contact}}: contact is the registered Contact URI, its user part random per registration).
export async function currentSession(token) {
  return expect(await request('GET', '/api/v1/sessions/current', { token }), 200, 'current session');
}

// The user part of the session's registered Contact (random per registration, docs/security.md "SIP sources"):
// what the IMS addresses the user's INVITEs to (sip:<it>@<gateway>), the login name being no reachable user.
export async function contactUser(token) {
  const reg = (await currentSession(token)).registration;
  const m = /^sip:([^@]+)@/.exec(reg?.contact ?? '');
  if (!m) throw new Error(`the session has no registered contact: ${JSON.stringify(reg)}`);
  return m[1];
}

// A raw WebSocket upgrade of /ws offering `protocols` (Sec-WebSocket-Protocol; the session token rides as
// `lab.token.<token>` next to `lab.v1`) plus `headers`: {status, protocol}, status 101 when accepted.
export function wsUpgrade({ protocols = [], query = '', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const h = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), ...headers };
    if (protocols.length) h['sec-websocket-protocol'] = protocols.join(', ');
    // wss:// when the gateway serves TLS (tls.test.mjs); Node checks its certificate (NODE_EXTRA_CA_CERTS)
    const req = (gatewayUrl().startsWith('https:') ? https : http).get(`${gatewayUrl()}/ws${query}`, { timeout: 5000, headers: h });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode, protocol: res.headers['sec-websocket-protocol'], headers: res.headers }); });
    req.on('response', (res) => { res.resume(); resolve({ status: res.statusCode, headers: res.headers }); });
    req.on('timeout', () => req.destroy(new Error('no answer to the WebSocket upgrade within 5 s')));
    req.on('error', reject);
  });
}

// `args` (a java command line) with `--name=value` in place of any `--name=…` it had.
export function withOption(args, name, value) {
  return [...args.filter((a) => !a.startsWith(`--${name}=`)), `--${name}=${value}`];
}

// The java arguments the lab started its gateway with, up to and including its jar (`-jar`, the jar; with the
// class-data sharing archive, harness/lib/build.sh gateway_java, its options before them): a test's own gateway
// starts the same way, with options of its own after these. `argv` is the lab gateway's command line
// (harness/kit/restart.mjs commandOf('gateway').argv).
export function jvmOf(argv) {
  const jar = argv.indexOf('-jar');
  if (jar < 0 || jar + 1 >= argv.length) throw new Error(`the lab's gateway was not started with -jar: ${argv.join(' ')}`);
  return argv.slice(1, jar + 2);
}

// A gateway of a test's own: `java args` (e.g. the lab gateway's argv through withOption), started without the LAB_*
// variables (Spring would read e.g. LAB_IMS as the property lab.ims), logging to logDir()/<name>.log; resolves the
// process once `${base}/api/v1/health` answers 200. When it exits first or is not healthy within `seconds`, it is
// stopped and the error names `label` (and the log's tail).
export async function startOwnGateway(name, args, base, { seconds = 120, label = name } = {}) {
  const proc = start(name, 'java', args, {
    log: path.join(logDir(), `${name}.log`),
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LAB_'))),
  });
  const end = Date.now() + seconds * 1000;
  for (;;) {
    // polled every 250 ms: the test goes on as soon as the gateway answers
    const done = await Promise.race([proc.done, sleep(250).then(() => null)]);
    if (done) throw new Error(`the ${label} exited (${JSON.stringify(done)}): ${proc.tail().slice(-600)}`);
    const h = await fetch(`${base}/api/v1/health`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
    if (h?.status === 200) return proc;
    if (Date.now() > end) {
      await stop(proc);
      throw new Error(`the ${label} did not get healthy within ${seconds} s`);
    }
  }
}
