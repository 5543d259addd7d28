// Integration: API error handling that needs no media (./lab test, lab up). Uses bob, so it does not
// disturb alice's calls in calls.test.mjs if the files run concurrently.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { gatewayUrl, passwordOf } from '../kit/env.mjs';
import * as gw from '../runner/gateway.mjs';
import { startUe } from '../runner/ue.mjs';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';

const USER = 'bob';
let browser;
let client;

before(async () => {
  await gw.waitHealthy(15000);
  browser = await launchBrowser();
  client = await openClient(browser, { name: 'test-api-bob' });
});

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
});

test('login with a bad password -> 401 auth-failed (REST and page)', { timeout: 20000 }, async () => {
  const res = await gw.login(USER, `${passwordOf(USER)}-wrong`);
  assert.equal(res.status, 401);
  assert.equal(res.body?.code, 'auth-failed');
  await assert.rejects(client.login(USER, 'definitely-wrong'), /auth-failed/);
  assert.match(await client.errorText(), /auth-failed/, 'error shown on the page');
});

test('hangup of an unknown callId -> error unknown-call, session keeps working', { timeout: 20000 }, async () => {
  await client.login(USER, passwordOf(USER));
  const mark = await client.mark();
  await client.hangup('no-such-call-id');
  const err = await client.waitFor('error', null, 5000, mark);
  assert.equal(err.code, 'unknown-call');
  const again = await client.mark();
  await client.hangup('another-unknown');
  assert.equal((await client.waitFor('error', null, 5000, again)).code, 'unknown-call');
});

// TS 24.371 WAF role: every call but login needs a live token. Raw HTTP, so what is checked is the
// gateway's answer on the wire, not the page's handling of it.
async function restStatus(path, token) {
  const res = await fetch(`${gatewayUrl()}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(5000) });
  const body = await res.json().catch(() => null);
  return { status: res.status, code: body?.code };
}

const wsUpgradeStatus = async (token) => (await gw.wsUpgrade({ protocols: token ? ['lab.v1', `lab.token.${token}`] : ['lab.v1'] })).status;

test('no or unknown token: REST calls get 401 bad-token and the WebSocket upgrade is refused', { timeout: 20000 }, async () => {
  const bogus = randomBytes(16).toString('hex');
  for (const [path, token] of [['/api/v1/sessions/current', null], ['/api/v1/sessions/current', bogus], ['/api/v1/calls/some-call', bogus]]) {
    assert.deepEqual(await restStatus(path, token), { status: 401, code: 'bad-token' }, `${path} with ${token ? 'an unknown' : 'no'} token`);
  }
  assert.equal(await wsUpgradeStatus(null), 401, 'upgrade without a token');
  assert.equal(await wsUpgradeStatus(bogus), 401, 'upgrade with an unknown token');
  // the same requests with a live token pass, and fail again once it is logged out
  const res = await gw.login('dave', passwordOf('dave'));
  assert.equal(res.status, 201);
  const { token } = res.body;
  assert.equal((await restStatus('/api/v1/sessions/current', token)).status, 200, 'live token on REST');
  assert.equal((await gw.logout(token)).status, 204);
  assert.deepEqual(await restStatus('/api/v1/sessions/current', token), { status: 401, code: 'bad-token' }, 'token after logout');
  assert.equal(await wsUpgradeStatus(token), 401, 'upgrade with a logged-out token');
  const again = await gw.login('dave', passwordOf('dave'));
  assert.equal(await wsUpgradeStatus(again.body.token), 101, 'upgrade with a live token');
  await gw.logout(again.body.token); // 204, or 401 when closing the socket already ended the session
  await new Promise((r) => setTimeout(r, 500)); // its de-REGISTER done before the next test logs dave in
});

// De-REGISTER is proven on the IMS side: with the binding gone the S-CSCF answers 404 itself; had the
// binding stayed, the INVITE would reach the gateway, which answers 480 for a user without a session.
async function ueCallResult(user) {
  const ue = startUe('uac', user, 500, { timeoutMs: 15000 });
  const done = await ue.done;
  return { code: done.code, text: `${done.output}\n${fs.readFileSync(done.logFile, 'utf8')}` };
}

// The gateway answers the logout (or sees the socket close) and de-REGISTERs after it: on a busy host its
// 200 may come a moment later, so a UE's call that still reaches the gateway is tried again (3 tries, 1 s apart).
async function ueCallAfterDeregister(user) {
  let call;
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, i ? 1000 : 500));
    call = await ueCallResult(user);
    if (call.code !== 0 && /SIP\/2\.0 404 /.test(call.text)) break;
  }
  return call;
}

test('logout de-REGISTERs: a UE calling the user then gets 404 from the S-CSCF', { timeout: 30000 }, async () => {
  const res = await gw.login('dave', passwordOf('dave'));
  assert.equal(res.status, 201);
  const me = await gw.currentSession(res.body.token);
  assert.ok(me.registration?.expires > 0, JSON.stringify(me));
  assert.equal((await gw.logout(res.body.token)).status, 204);
  const call = await ueCallAfterDeregister('dave');
  assert.notEqual(call.code, 0, 'the call must fail');
  assert.match(call.text, /SIP\/2\.0 404 /, call.text);
});

test('losing the WebSocket de-REGISTERs too', { timeout: 40000 }, async () => {
  const page = await openClient(browser, { name: 'test-api-dave' });
  await page.login('dave', passwordOf('dave'));
  await page.close(); // the page goes away: its WebSocket closes without a logout
  const call = await ueCallAfterDeregister('dave');
  assert.notEqual(call.code, 0, 'the call must fail');
  assert.match(call.text, /SIP\/2\.0 404 /, call.text);
});
