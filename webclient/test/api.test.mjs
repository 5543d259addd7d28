// Integration: API error handling that needs no media (./lab test, lab up). Uses bob, so it does not
// disturb alice's calls in calls.test.mjs if the files run concurrently.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { passwordOf } from '../runner/env.mjs';
import * as gw from '../runner/gateway.mjs';

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
