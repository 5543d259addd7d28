// Headless Debian Chromium (never Playwright's own download) driving the web client through
// window.labClient. One browser can hold several pages, one per logged-in user.
// Under ./lab demo/test the browser runs in its own network namespace (LAB_BROWSER_NS, or `netns`),
// started through netns-exec.sh while this runner stays in the lab's core namespace; it reaches the
// gateway and rtpengine on the browser link (docs/media.md "Topology"), never over loopback.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { gatewayUrl, logDir } from '../kit/env.mjs';

export const CHROMIUM = '/usr/bin/chromium';
// No --allow-loopback-in-peer-connection and nothing else that changes which addresses ICE offers.
export const CHROMIUM_FLAGS = [
  '--headless=new', '--no-sandbox',
  '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic',
];
const NETNS_EXEC = path.join(path.dirname(fileURLToPath(import.meta.url)), 'netns-exec.sh');

// The gateway origins the page may come from: getUserMedia needs a secure context, and
// http://<routable address> is not one, so the browser is told to treat these as secure.
export function gatewayOrigins() {
  return [gatewayUrl(), process.env.LAB_GW_TCP].filter(Boolean).map((u) => new URL(u).origin);
}

// The browser binary, or the wrapper that starts it inside network namespace `netns`.
export function browserExecutable(binary, netns) {
  if (!fs.existsSync(binary)) throw new Error(`${binary} not found (./lab installs it; or apt-get install ${path.basename(binary)})`);
  if (!netns) return { executablePath: binary, env: process.env };
  return { executablePath: NETNS_EXEC, env: { ...process.env, LAB_NETNS_EXEC_NS: netns, LAB_NETNS_EXEC_BIN: binary } };
}

// fakeAudioFile: a WAV the fake microphone plays in a loop (the audio check's test signal,
// test-signal.mjs) instead of Chromium's default beep. netns: the network namespace to run in
// (default LAB_BROWSER_NS; none = this process's namespace).
export async function launchBrowser({ extraArgs = [], fakeAudioFile = null, netns = process.env.LAB_BROWSER_NS || null } = {}) {
  const { executablePath, env } = browserExecutable(CHROMIUM, netns);
  const audio = fakeAudioFile ? [`--use-file-for-fake-audio-capture=${fakeAudioFile}`] : [];
  const secure = [`--unsafely-treat-insecure-origin-as-secure=${gatewayOrigins().join(',')}`];
  // headless:true makes Playwright add its own --headless; our later --headless=new wins.
  return chromium.launch({ executablePath, env, headless: true, args: [...CHROMIUM_FLAGS, ...secure, ...audio, ...extraArgs], timeout: 30000 });
}

// getUserMedia constraints that leave a test signal as it is (no echo canceller, noise suppressor or AGC).
export const RAW_AUDIO = Object.freeze({ echoCancellation: false, noiseSuppression: false, autoGainControl: false });

// Opens the web client in a new page; `name` names the console log file. rawAudio: capture with
// RAW_AUDIO (for the audio check) instead of the browser's voice processing.
export async function openClient(browser, { name = 'browser', url = `${gatewayUrl()}/`, rawAudio = false } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const logFile = path.join(logDir(), `${name}-console.log`);
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  const line = (kind, text) => log.write(`${new Date().toISOString()} ${kind} ${text}\n`);
  page.on('console', (m) => line(m.type(), m.text()));
  page.on('pageerror', (e) => line('pageerror', e.message));
  page.on('requestfailed', (r) => line('requestfailed', `${r.url()} ${r.failure()?.errorText ?? ''}`));
  try {
    const res = await page.goto(url, { waitUntil: 'load', timeout: 15000 });
    if (!res || !res.ok()) throw new Error(`HTTP ${res?.status() ?? 'no response'}`);
    await page.waitForFunction(() => window.labClient !== undefined, null, { timeout: 10000 });
    if (rawAudio) await page.evaluate((c) => { window.labClient.audioConstraints = c; }, RAW_AUDIO);
  } catch (e) {
    await context.close();
    log.end();
    throw new Error(`web client did not load from ${url}: ${firstLine(e.message)}`);
  }

  // page.evaluate wraps errors with a stack; keep the client's one-line message.
  const invoke = (method, ...args) => page.evaluate(([m, a]) => window.labClient[m](...a), [method, args])
    .catch((e) => { throw new Error(cleanError(e.message)); });

  return {
    page,
    logFile,
    login: (user, password) => invoke('login', user, password),
    logout: () => invoke('logout'),
    call: (to, opts = {}) => invoke('call', to, opts),
    answer: (callId, opts = {}) => invoke('answer', callId, opts),
    hangup: (callId) => invoke('hangup', callId),
    reject: (callId) => invoke('reject', callId),
    reoffer: (callId, opts = {}) => invoke('reoffer', callId, opts),
    media: (callId) => invoke('media', callId),
    refreshVideo: (callId) => invoke('refreshVideo', callId),
    dtmf: (callId, digits, durationMs) => invoke('dtmf', callId, digits, durationMs),
    insertDtmf: (callId, tones, durationMs, gapMs) => invoke('insertDtmf', callId, tones, durationMs, gapMs),
    waitFor: (type, callId = null, timeoutMs = 10000, fromIndex = 0) => invoke('waitFor', type, callId, timeoutMs, fromIndex),
    mark: () => invoke('mark'),
    stats: (callId = null) => invoke('stats', callId),
    samples: (callId) => invoke('samples', callId),
    sdp: (callId) => invoke('sdp', callId),
    // The audio check: record the call's remote audio in the page (public/audio-probe.js), fetch it later.
    recordAudio: (callId, opts = {}) => page.evaluate(async ([id, o]) => (await import('/audio-probe.js')).startRecording(id, o), [callId, opts])
      .catch((e) => { throw new Error(cleanError(e.message)); }),
    audioRecording: (callId) => page.evaluate(async (id) => (await import('/audio-probe.js')).audioRecording(id), callId)
      .catch((e) => { throw new Error(cleanError(e.message)); }),
    calls: () => invoke('calls'),
    sendRaw: (text) => invoke('sendRaw', text),
    events: () => page.evaluate(() => window.labClient.events),
    errorText: () => page.evaluate(() => (document.getElementById('error').hidden ? null : document.getElementById('error').textContent)),
    close: async () => { await context.close().catch(() => {}); log.end(); },
  };
}

function firstLine(s) {
  return String(s).split('\n')[0];
}

function cleanError(message) {
  return firstLine(message).replace(/^page\.evaluate:\s*/, '').replace(/^Error:\s*/, '');
}
