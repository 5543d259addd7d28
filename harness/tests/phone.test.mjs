// Browser-level tests of the web phone (webclient/public): the page driven as a person would, by clicks and
// typing (never window.labClient calls), against the real gateway, Kamailio, rtpengine and SIPp UEs:
// sign-in (a wrong password first), the address book, a call to ue1 with the live charts showing real
// numbers, mute, hang-up and the call-log entry; a dialed call to ue8 held and resumed; an incoming call
// from ue2 that rings and is answered, and one that is declined. Screenshots: <LAB_OUT>/screenshots/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { gatewayUrl, labRoot, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { BROWSER, titled } from '../runner/testkit.mjs';
import { startUe } from '../runner/ue.mjs';

const USER = 'dave';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const SHOTS = path.join(process.env.LAB_OUT || path.join(labRoot(), 'out', 'test'), 'screenshots');
let browser;
let client;
let page;

before(async () => {
  await gw.waitHealthy(15000);
  browser = await launchBrowser();
  client = await openClient(browser, { name: `test-phone-${BROWSER}` });
  page = client.page;
  await (page.setViewportSize ? page.setViewportSize({ width: 1280, height: 960 }) : page.setViewport({ width: 1280, height: 960 }));
  fs.mkdirSync(SHOTS, { recursive: true });
});

afterEach(async () => { if (page) await hangUpAny(); });

after(async () => {
  await client?.logout().catch(() => {});
  await browser?.close();
});

// Polls `fn(arg)` in the page until it returns something truthy; that value, or an error naming `what`.
async function until(what, fn, arg = null, ms = 15000) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    last = await page.evaluate(fn, arg);
    if (last) return last;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms (page error: ${await client.errorText()})`);
    await sleep(200);
  }
}

const visible = (sel) => until(`${sel} visible`, (s) => { const el = document.querySelector(s); return Boolean(el && el.offsetParent !== null); }, sel);
const text = (sel) => page.evaluate((s) => document.querySelector(s)?.textContent.trim() ?? null, sel);
const shot = (name) => page.screenshot({ path: path.join(SHOTS, `phone-${BROWSER}-${name}.png`), fullPage: true });

async function typeInto(sel, value) {
  await page.evaluate((s) => { document.querySelector(s).value = ''; }, sel);
  await page.type(sel, value);
}

const seen = new Set();   // calls an earlier step already had on the call screen

// The call screen's new call once it is connected (data-state answered); never one seen before.
async function connected() {
  const callId = await until('the call screen says connected', (old) => {
    const el = document.querySelector('#active');
    return el && !el.hidden && !old.includes(el.dataset.callId) && el.dataset.state === 'answered'
      && document.querySelector('#active-state').textContent === 'Connected' && el.dataset.callId;
  }, [...seen], 20000);
  seen.add(callId);
  return callId;
}

// A person's way out after a failed step: hang up whatever is on the call screen, wait for the idle screen.
async function hangUpAny() {
  for (let i = 0; i < 3; i++) {
    const up = await page.evaluate(() => !document.querySelector('#active').hidden).catch(() => false);
    if (!up) return;
    await page.click('#hangup-btn').catch(() => {});
    await sleep(1000);
  }
}

// The newest call-log row: {who, direction, duration, ended, callId}.
async function lastLogRow(callId) {
  return until(`call log row of ${callId}`, (id) => {
    const tr = document.querySelector(`#call-log tr[data-call-id="${CSS.escape(id)}"]`);
    return tr && { who: tr.cells[0].textContent, direction: tr.cells[1].textContent, duration: tr.cells[3].textContent, ended: tr.cells[4].textContent };
  }, callId);
}

test(titled('phone: the address book is the lab users of users.txt, without passwords'), async () => {
  const res = await fetch(`${gatewayUrl()}/contacts.json`);
  assert.equal(res.status, 200);
  const body = await res.text();
  const users = fs.readFileSync(path.join(labRoot(), 'ims-sim', 'users.txt'), 'utf8').split('\n')
    .filter((l) => l.includes(':') && !l.startsWith('#')).map((l) => l.split(':').map((x) => x.trim()));
  const names = new Set(users.map(([u]) => u));
  const { contacts } = JSON.parse(body);
  assert.ok(contacts.length >= 6, 'contacts listed');
  for (const c of contacts) assert.ok(names.has(c.user), `${c.user} is not a user of users.txt`);
  for (const [, password] of users) assert.ok(!body.includes(password), 'a password is in contacts.json');
});

// Every error code docs/architecture.md names (REST and WebSocket) has a sentence in app.js's ERROR_TEXT.
test(titled('phone: every API error code of docs/architecture.md has a message'), async () => {
  const doc = fs.readFileSync(path.join(labRoot(), 'docs', 'architecture.md'), 'utf8');
  const api = doc.slice(doc.indexOf('## Browser API'), doc.indexOf('## rtpengine flags'));
  const codes = new Set([...api.matchAll(/"code":"([a-z-]+)"|\b\d{3} `([a-z-]+)`/g)].map((m) => m[1] ?? m[2]));
  const list = api.slice(api.indexOf('error codes:'), api.indexOf('`ended.reason` is one of'));
  assert.ok(list.length > 100, 'the WebSocket error code list in docs/architecture.md');
  for (const m of list.matchAll(/`([a-z][a-z-]+)`/g)) if (!['dtmf', 'telephone-event'].includes(m[1])) codes.add(m[1]);
  assert.ok(codes.size >= 25, `found ${codes.size} codes in docs/architecture.md`);
  const js = fs.readFileSync(path.join(labRoot(), 'webclient', 'public', 'app.js'), 'utf8');
  const table = js.slice(js.indexOf('const ERROR_TEXT = {'), js.indexOf('};', js.indexOf('const ERROR_TEXT = {')));
  const missing = [...codes].filter((c) => !table.includes(`'${c}':`) && !new RegExp(`\\n\\s*${c}:`).test(table));
  assert.deepEqual(missing, [], 'codes without a message in app.js ERROR_TEXT');
});

test(titled('phone: sign in (a wrong password first), registration state and contacts'), { timeout: 30000 }, async () => {
  assert.equal(await text('#reg-state'), 'Not signed in');
  await typeInto('#login-user', USER);
  await typeInto('#login-password', 'not-the-password');
  await page.click('#login-btn');
  await until('the wrong-password message', () => document.querySelector('#error').dataset.code === 'auth-failed' && !document.querySelector('#error').hidden);
  assert.equal(await text('#error-title'), 'Wrong user name or password.');
  await shot('login-error');
  await typeInto('#login-password', passwordOf(USER));
  await page.click('#login-btn');
  await until('registered', () => document.querySelector('#reg-state').dataset.state === 'registered');
  assert.equal(await text('#reg-state'), `Registered as ${USER}`);
  // "Call as": the registered identities (P-Associated-URI), the default one selected (docs/ims-sim.md "Registered identities")
  const callAs = await page.evaluate(() => ({ value: document.querySelector('#call-as').value,
    options: [...document.querySelectorAll('#call-as option')].map((o) => o.textContent) }));
  assert.deepEqual(callAs, { value: `sip:${USER}@ims.lab`, options: [`sip:${USER}@ims.lab (default)`] }, 'the Call as list');
  assert.ok(await page.evaluate(() => document.querySelector('#error').hidden), 'the old error is cleared');
  await visible('#contacts li[data-user="ue1"] button');
  assert.equal(await page.evaluate((u) => document.querySelector(`#contacts li[data-user="${u}"]`), USER), null, 'oneself is not listed');
});

test(titled('phone: call ue1 from the contacts, live charts with real numbers, mute, hang up, call log'), { timeout: 60000 }, async () => {
  await page.click('#contacts li[data-user="ue1"] button');
  const callId = await connected();
  assert.equal(await text('#active-peer'), 'ue1');
  assert.ok(await page.evaluate(() => document.querySelector('#videos').hidden), 'no video boxes on an audio call');
  // Charts: at least 3 samples with audio flowing both ways, RTT and jitter measured.
  const numbers = await until('the charts show audio both ways with RTT', () => {
    const ds = (id) => window.Chart.getChart(id)?.data.datasets ?? [];
    const vals = (id, i) => (ds(id)[i]?.data ?? []).map((p) => p.y).filter((y) => typeof y === 'number');
    const [tx, rx, rtt, jitter, loss] = [vals('chart-bitrate', 0), vals('chart-bitrate', 1), vals('chart-delay', 0), vals('chart-delay', 1), vals('chart-loss', 0)];
    if (tx.filter((v) => v > 5).length < 3 || rx.filter((v) => v > 5).length < 3 || !rtt.length || !jitter.length || !loss.length) return null;
    return { tx: tx.at(-1), rx: rx.at(-1), rtt: rtt.at(-1), jitter: jitter.at(-1), loss: loss.at(-1),
      tiles: ['tx', 'rx', 'rtt', 'jitter', 'loss'].map((k) => document.getElementById(`tile-${k}`).textContent) };
  }, null, 30000).catch(async (e) => {
    const data = await page.evaluate(() => ['chart-bitrate', 'chart-delay', 'chart-loss'].map((id) => window.Chart.getChart(id)?.data.datasets
      .map((d) => `${d.label}: ${d.data.map((p) => (p.y == null ? '-' : Math.round(p.y))).join(' ')}`).join('; ')).join(' | '));
    throw new Error(`${e.message}; charts: ${data}`);
  });
  assert.ok(numbers.tx > 5 && numbers.tx < 200, `send bitrate ${numbers.tx} kbit/s`);
  assert.ok(numbers.rx > 5 && numbers.rx < 200, `receive bitrate ${numbers.rx} kbit/s`);
  assert.ok(numbers.rtt >= 0 && numbers.rtt < 1000, `RTT ${numbers.rtt} ms`);
  for (const t of numbers.tiles) assert.match(t, /^\d+(\.\d)?$/, `a tile shows ${t}`);
  await shot('call-charts');

  await page.click('#mute-btn');
  await until('muted', () => document.querySelector('#mute-btn').getAttribute('aria-pressed') === 'true');
  assert.equal(await text('#mute-btn'), 'Unmute');
  assert.equal((await client.calls()).find((c) => c.callId === callId).muted, true);
  await page.click('#mute-btn');
  await until('unmuted', () => document.querySelector('#mute-btn').getAttribute('aria-pressed') === 'false');

  await sleep(1200);   // a call log duration of at least a second
  await page.click('#hangup-btn');
  const row = await lastLogRow(callId);
  assert.equal(row.who, 'ue1');
  assert.match(row.direction, /out/);
  assert.match(row.duration, /^\d\d:\d\d$/);
  assert.notEqual(row.duration, '00:00');
  assert.equal(row.ended, 'you hung up');
  assert.equal(await client.errorText(), null, 'no error on the page');
  await visible('#idle');
  assert.match(await text('#event-log'), /ue1 answered/, 'gateway events in words');
  await shot('call-log');
});

test(titled('phone: keypad to ue6, and the keys ue6 sends are shown'), { timeout: 60000 }, async () => {
  await page.click('#contacts li[data-user="ue6"] button');
  const callId = await connected();
  await until('the keys ue6 sent (26*)', () => document.querySelector('#dtmf-received').textContent === '26*', null, 15000);
  await page.click('#keypad-btn');
  await visible('#keypad button[data-key="5"]');
  for (const k of ['5', '#']) await page.click(`#keypad button[data-key="${k}"]`);
  assert.equal(await text('#dtmf-sent'), '5#');
  assert.match(await text('#dtmf-path'), /^sent (by the browser|through the gateway)/);
  await sleep(800);   // the tones go out before the hang-up
  assert.equal(await client.errorText(), null, 'the keys went out without an error');
  await shot('keypad');
  await page.click('#hangup-btn');
  await lastLogRow(callId);
});

test(titled('phone: a video call to ue7 shows the videos; audio calls have none'), { timeout: 60000 }, async () => {
  await page.click('#contacts li[data-user="ue7"] button');
  const callId = await connected();
  await visible('#videos');
  const tracks = await until('local and remote video tracks on the page', () => {
    const n = (id) => document.getElementById(id).srcObject?.getVideoTracks().length ?? 0;
    return n('local-video') && n('remote-video') ? { local: n('local-video'), remote: n('remote-video') } : null;
  });
  assert.deepEqual(tracks, { local: 1, remote: 1 });
  await shot('video-call');
  await page.click('#hangup-btn');
  await lastLogRow(callId);
  assert.ok(await page.evaluate(() => document.querySelector('#videos').hidden), 'the videos go with the call');
});

test(titled('phone: dial ue8 on the dial pad, hold and resume'), { timeout: 60000 }, async () => {
  await typeInto('#call-to', '');
  for (const k of 'ue') await page.type('#call-to', k);   // names are typed, digits could be tapped
  await page.click('#dialpad button[data-key="8"]');
  assert.equal(await page.evaluate(() => document.querySelector('#call-to').value), 'ue8');
  await page.click('#call-btn');
  const callId = await connected();
  await page.click('#hold-btn');
  await until('on hold', () => document.querySelector('#active').dataset.state === 'held', null, 15000);
  assert.equal(await text('#active-state'), 'On hold');
  assert.equal(await text('#hold-btn'), 'Resume');
  const held = await client.media(callId);
  assert.deepEqual(held.transceivers.filter((t) => t.kind === 'audio').map((t) => t.currentDirection), ['sendonly']);
  await shot('on-hold');
  await page.click('#hold-btn');
  await until('resumed', () => document.querySelector('#active').dataset.state === 'answered', null, 15000);
  const resumed = await client.media(callId);
  assert.deepEqual(resumed.transceivers.filter((t) => t.kind === 'audio').map((t) => t.currentDirection), ['sendrecv']);
  await page.click('#hangup-btn');
  const row = await lastLogRow(callId);
  assert.equal(row.who, 'ue8');
});

test(titled('phone: an incoming call from ue2 rings; answer, then hang up'), { timeout: 60000 }, async () => {
  const ue = startUe('uac-wait', USER, 20000, { timeoutMs: 40000 });
  try {
    await visible('#incoming');
    assert.match(await text('#incoming-from'), /ue2/);
    await until('the ring tone plays', () => document.querySelector('#incoming').dataset.ringing === 'yes', null, 5000);
    await shot('incoming');
    await page.click('#answer-btn');
    const callId = await connected();
    assert.equal(await page.evaluate(() => document.querySelector('#incoming').dataset.ringing), 'no', 'ringing stops on answer');
    await sleep(1500);
    await page.click('#hangup-btn');
    const row = await lastLogRow(callId);
    assert.match(row.who, /ue2/);
    assert.match(row.direction, /in/);
    assert.equal(row.ended, 'you hung up');
    const done = await ue.done;
    assert.equal(done.code, 0, `SIPp UE: ${done.output}`);
  } finally {
    ue.kill();
  }
});

test(titled('phone: an incoming call from ue2 is declined'), { timeout: 60000 }, async () => {
  const ue = startUe('uac-wait', USER, 20000, { timeoutMs: 40000 });
  try {
    await visible('#incoming');
    const callId = await page.evaluate(() => document.querySelector('#incoming').dataset.callId);
    await page.click('#reject-btn');
    const row = await lastLogRow(callId);
    assert.match(row.direction, /in/);
    assert.equal(row.duration, '—');
    assert.equal(row.ended, 'declined');
    assert.ok(await page.evaluate(() => document.querySelector('#incoming').hidden), 'the incoming screen is gone');
    const done = await Promise.race([ue.done, sleep(15000).then(() => null)]);
    assert.ok(done, 'the SIPp UE ended after the decline');
    assert.notEqual(done.code, 0, 'the UE\'s call failed (declined)');
  } finally {
    ue.kill();
  }
});

// Last: the page ran everything above (sign-in, charts, video, keypad, the audio worklet) under the gateway's
// Content-Security-Policy without one violation, and "Sign out" ends the session without an error.
test(titled('phone: no Content-Security-Policy violation in all of the above; sign out by the button'), { timeout: 30000 }, async () => {
  const policy = await page.evaluate(async () => (await fetch('/')).headers.get('content-security-policy'));
  assert.match(policy ?? '', /script-src 'self'/, `the page is served with its policy: ${policy}`);
  assert.deepEqual(await client.cspViolations(), [], 'CSP violations while the page was used');
  const token = await page.evaluate(() => window.labClient.token);
  assert.ok(token, 'still signed in before the sign-out');
  await page.click('#logout-btn');
  await until('signed out', () => document.querySelector('#reg-state').dataset.state === 'signed-out');
  assert.equal(await client.errorText(), null, 'no error shown after signing out');
  assert.equal((await gw.logout(token)).status, 401, 'the session is gone after the button');
});
