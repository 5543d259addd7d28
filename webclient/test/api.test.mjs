// Integration: API error handling that needs no media (./lab test, lab up). Uses bob, so it does not
// disturb alice's calls in calls.test.mjs if the files run concurrently.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { passwordOf } from '../runner/env.mjs';
import * as gw from '../runner/gateway.mjs';
import { startUe } from '../runner/ue.mjs';
import fs from 'node:fs';

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

// De-REGISTER is proven on the IMS side: with the binding gone the S-CSCF answers 404 itself; had the
// binding stayed, the INVITE would reach the gateway, which answers 480 for a user without a session.
async function ueCallResult(user) {
  const ue = startUe('uac', user, 500, { timeoutMs: 15000 });
  const done = await ue.done;
  return { code: done.code, text: `${done.output}\n${fs.readFileSync(done.logFile, 'utf8')}` };
}

test('logout de-REGISTERs: a UE calling the user then gets 404 from the S-CSCF', { timeout: 30000 }, async () => {
  const res = await gw.login('dave', passwordOf('dave'));
  assert.equal(res.status, 201);
  const me = await gw.currentSession(res.body.token);
  assert.ok(me.registration?.expires > 0, JSON.stringify(me));
  assert.equal((await gw.logout(res.body.token)).status, 204);
  await new Promise((r) => setTimeout(r, 500));
  const call = await ueCallResult('dave');
  assert.notEqual(call.code, 0, 'the call must fail');
  assert.match(call.text, /404/, call.text);
});

test('losing the WebSocket de-REGISTERs too', { timeout: 40000 }, async () => {
  const page = await openClient(browser, { name: 'test-api-dave' });
  await page.login('dave', passwordOf('dave'));
  await page.close(); // the page goes away: its WebSocket closes without a logout
  await new Promise((r) => setTimeout(r, 1000));
  const call = await ueCallResult('dave');
  assert.notEqual(call.code, 0, 'the call must fail');
  assert.match(call.text, /404/, call.text);
});
