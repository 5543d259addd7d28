// Headless Debian browsers driving the web client through window.labClient, behind one interface:
// Chromium (/usr/bin/chromium, Playwright over CDP) and Firefox ESR (/usr/bin/firefox-esr,
// puppeteer-core over WebDriver BiDi). Never a driver's own browser download. One browser can hold
// several pages, one per logged-in user. Which one: launchBrowser({kind}) or LAB_BROWSER (default
// chromium); the media tests run once per browser of LAB_BROWSERS (browserKinds()).
// Under ./lab demo/test the browser runs in its own network namespace (LAB_BROWSER_NS, or `netns`),
// started through netns-exec.py while this runner stays in the lab's core namespace; it reaches the
// gateway and rtpengine on the browser link (docs/media.md "Topology"), never over loopback.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gatewayUrl, logDir } from '../kit/env.mjs';
import { adopt } from '../kit/procs.mjs';
import { TEST_TONE_AMPLITUDE, TEST_TONES_HZ } from './test-signal.mjs';

export const BINARIES = Object.freeze({ chromium: '/usr/bin/chromium', firefox: '/usr/bin/firefox-esr' });
export const CHROMIUM = BINARIES.chromium;
// No flag that allows loopback ICE candidates, and nothing else that changes which addresses ICE offers.
export const CHROMIUM_FLAGS = [
  '--headless=new', '--no-sandbox',
  '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic',
];
// Firefox at its default privacy settings (host addresses hidden behind mDNS names, as shipped), plus
// what a headless test run needs (docs/notes/browser-topology-spike.md):
export function firefoxPrefs(secureHosts) {
  return {
    'media.navigator.streams.fake': true,          // fake microphone (a 1 kHz sine) and camera
    'media.navigator.permission.disabled': true,   // getUserMedia without a prompt
    'dom.securecontext.allowlist': secureHosts.join(','), // http://<gateway> counts as a secure context
    'media.autoplay.default': 0,                   // play remote audio / WebAudio without a gesture
    'media.autoplay.block-webaudio': false,
    // No sound device here: without a mock audio backend an AudioContext stays 'suspended' for ever.
    'media.cubeb.force_mock_context': true,
  };
}
const NETNS_EXEC = path.join(path.dirname(fileURLToPath(import.meta.url)), 'netns-exec.py');
// The driver library of each browser, loaded when a browser of that kind is first launched: a test process drives
// one kind, and importing both (Playwright alone takes about a second) would cost every test file the other's load.
const DRIVERS = {
  chromium: async () => (await import('playwright-core')).chromium,
  firefox: async () => (await import('puppeteer-core')).default,
};

// The browsers the media tests run in: LAB_BROWSERS (comma-separated), default chromium.
export function browserKinds() {
  const kinds = (process.env.LAB_BROWSERS || 'chromium').split(',').map((k) => k.trim()).filter(Boolean);
  for (const k of kinds) if (!BINARIES[k]) throw new Error(`LAB_BROWSERS: unknown browser '${k}' (chromium or firefox)`);
  return kinds;
}

// The gateway origins the page may come from: getUserMedia needs a secure context, and
// http://<routable address> is not one, so the browser is told to treat these as secure.
export function gatewayOrigins() {
  return [gatewayUrl(), process.env.LAB_GW_TCP].filter(Boolean).map((u) => new URL(u).origin);
}

// The pid of a Chromium that Playwright launched (its API does not give it): Chromium's own answer over CDP
// (SystemInfo.getProcessInfo, the process of type "browser"); netns-exec.py execs, so it is the launched pid.
async function chromiumPid(browser) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    const pid = processInfo.find((p) => p.type === 'browser')?.id;
    if (!pid) throw new Error(`Chromium named no browser process over CDP: ${JSON.stringify(processInfo)}`);
    return pid;
  } finally {
    await cdp.detach();
  }
}

// The browser binary, or the wrapper that starts it inside network namespace `netns`.
export function browserExecutable(binary, netns, { forwardBidi = false } = {}) {
  if (!fs.existsSync(binary)) throw new Error(`${binary} not found (./lab installs it; or apt-get install ${path.basename(binary)})`);
  if (!netns) return { executablePath: binary, env: process.env };
  const env = { ...process.env, LAB_NETNS_EXEC_NS: netns, LAB_NETNS_EXEC_BIN: binary };
  if (forwardBidi) env.LAB_NETNS_EXEC_FORWARD_BIDI = '1';
  return { executablePath: NETNS_EXEC, env };
}

// Replaces getUserMedia's audio by WebAudio oscillators at `tones` (Hz), each at `amplitude`: the audio
// check's test signal in browsers without a fake-capture file (Firefox). Video, if asked for, stays the
// browser's fake camera. Runs in the page before its own scripts.
function toneMicScript({ tones, amplitude }) {
  const real = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = async (c) => {
    const ctx = new AudioContext();
    await ctx.resume();
    const dest = ctx.createMediaStreamDestination();
    for (const f of tones) {
      const osc = new OscillatorNode(ctx, { frequency: f });
      osc.connect(new GainNode(ctx, { gain: amplitude })).connect(dest);
      osc.start();
    }
    window.__labToneCtx = ctx;
    if (!(c && c.video)) return dest.stream;
    const v = await real({ video: c.video });
    return new MediaStream([...dest.stream.getAudioTracks(), ...v.getVideoTracks()]);
  };
}

// launchBrowser({kind, fakeAudioFile, testTones, netns, extraArgs}) — a LabBrowser {kind, pid, version,
// newPage(), close()}; pid (the browser's process, in the supervisor's ledger: kit/procs.mjs adopt). fakeAudioFile: the audio check's WAV (test-signal.mjs) as the microphone
// (Chromium reads the file; Firefox, which has no such option, plays the same tones through WebAudio,
// TEST_TONES_HZ unless testTones says otherwise). netns: the network namespace to run in (default
// LAB_BROWSER_NS; none = this process's namespace). extraArgs: Chromium only.
// mediaPermission=false (Chromium): no --use-fake-ui-for-media-stream, so the page holds no media
// permission and Chromium hides its host address behind an mDNS name, as Firefox always does; the
// microphone is then WebAudio tones (testTones, default TEST_TONES_HZ), which need no permission.
// extraOrigins: more gateway origins to treat as secure (a test's own gateway on another port).
// acceptInsecureCerts: accept a certificate the browser does not trust (the lab's self-signed one for
// an https:// gateway; Playwright's ignoreHTTPSErrors, puppeteer's acceptInsecureCerts).
export async function launchBrowser({ kind = process.env.LAB_BROWSER || 'chromium', extraArgs = [], fakeAudioFile = null,
  testTones = null, netns = process.env.LAB_BROWSER_NS || null, mediaPermission = true, extraOrigins = [],
  acceptInsecureCerts = false } = {}) {
  const origins = [...gatewayOrigins(), ...extraOrigins.map((u) => new URL(u).origin)];
  if (!BINARIES[kind]) throw new Error(`unknown browser '${kind}' (chromium or firefox)`);
  if (kind === 'firefox') {
    const { executablePath, env } = browserExecutable(BINARIES.firefox, netns, { forwardBidi: true });
    const hosts = origins.map((o) => new URL(o).hostname);
    const puppeteer = await DRIVERS.firefox();
    const browser = await puppeteer.launch({ browser: 'firefox', executablePath, env, headless: true, timeout: 30000,
      protocolTimeout: 60000, acceptInsecureCerts, extraPrefsFirefox: firefoxPrefs([...new Set(hosts)]) });
    const tones = fakeAudioFile || testTones ? (testTones ?? TEST_TONES_HZ) : null;
    // puppeteer's child: Firefox, or netns-exec.py in front of it (the same process group)
    const pid = adopt('browser-firefox', browser.process().pid);
    return {
      kind,
      pid,
      version: await browser.version(),
      async newPage() {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        if (tones) await page.evaluateOnNewDocument(toneMicScript, { tones, amplitude: TEST_TONE_AMPLITUDE });
        return { context, page, waitForFunction: (fn, arg, timeout) => page.waitForFunction(fn, { timeout }, arg) };
      },
      close: () => browser.close(),
    };
  }
  const { executablePath, env } = browserExecutable(CHROMIUM, netns);
  const audio = fakeAudioFile ? [`--use-file-for-fake-audio-capture=${fakeAudioFile}`] : [];
  const flags = mediaPermission ? CHROMIUM_FLAGS : CHROMIUM_FLAGS.filter((f) => f !== '--use-fake-ui-for-media-stream');
  if (!mediaPermission) testTones ??= TEST_TONES_HZ;
  const secure = [`--unsafely-treat-insecure-origin-as-secure=${origins.join(',')}`];
  // headless:true makes Playwright add its own --headless; our later --headless=new wins.
  const chromium = await DRIVERS.chromium();
  const browser = await chromium.launch({ executablePath, env, headless: true, args: [...flags, ...secure, ...audio, ...extraArgs], timeout: 30000 });
  const pid = adopt('browser-chromium', await chromiumPid(browser));
  return {
    kind,
    pid,
    version: `chromium/${browser.version()}`,
    async newPage() {
      const context = await browser.newContext({ ignoreHTTPSErrors: acceptInsecureCerts });
      const page = await context.newPage();
      if (testTones) await page.addInitScript(toneMicScript, { tones: testTones, amplitude: TEST_TONE_AMPLITUDE });
      return { context, page, waitForFunction: (fn, arg, timeout) => page.waitForFunction(fn, arg, { timeout }) };
    },
    close: () => browser.close(),
  };
}

// getUserMedia constraints that leave a test signal as it is (no echo canceller, noise suppressor or AGC).
export const RAW_AUDIO = Object.freeze({ echoCancellation: false, noiseSuppression: false, autoGainControl: false });

// Opens the web client in a new page; `name` names the console log file. rawAudio: capture with
// RAW_AUDIO (for the audio check) instead of the browser's voice processing.
export async function openClient(browser, { name = 'browser', url = `${gatewayUrl()}/`, rawAudio = false } = {}) {
  const { context, page, waitForFunction } = await browser.newPage();
  const logFile = path.join(logDir(), `${name}-console.log`);
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  const line = (kind, text) => log.write(`${new Date().toISOString()} ${kind} ${text}\n`);
  page.on('console', (m) => line(m.type(), m.text()));
  page.on('pageerror', (e) => line('pageerror', e.message));
  page.on('requestfailed', (r) => line('requestfailed', `${r.url()} ${r.failure()?.errorText ?? ''}`));
  // every Content-Security-Policy violation of the page (the gateway's policy, docs/security.md), kept in the
  // page from before its first script runs: cspViolations() below
  await (page.addInitScript ?? page.evaluateOnNewDocument).call(page, () => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.effectiveDirective || e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile || '?'}:${e.lineNumber}`);
    });
  });
  try {
    const res = await page.goto(url, { waitUntil: 'load', timeout: 15000 });
    if (!res || !res.ok()) throw new Error(`HTTP ${res?.status() ?? 'no response'}`);
    await waitForFunction(() => window.labClient !== undefined, null, 10000);
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
    kind: browser.kind,
    logFile,
    login: (user, password, ims) => invoke('login', user, password, ims),
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
    // An MO call up to its answer in one page call: { callId, sdp } of `answered`. No harness round trip (a CDP or
    // BiDi evaluate, run on the page's main thread) falls between the offer and the answer, where it would delay the
    // page's handling of the answer and count in the page's own set-up figure (docs/benchmarks.md). A failure
    // carries the call's id once the gateway gave one (err.callId), for the hang-up.
    callAnswered: (to, opts = {}, timeoutMs = 15000) => page.evaluate(async ([t, o, ms]) => {
      window.__harnessCallId = null;
      const id = await window.labClient.call(t, o);
      window.__harnessCallId = id;
      const answered = await window.labClient.waitFor('answered', id, ms);
      return { callId: id, sdp: answered.sdp };
    }, [to, opts, timeoutMs]).catch(async (e) => {
      const err = new Error(cleanError(e.message));
      err.callId = await page.evaluate(() => window.__harnessCallId ?? null).catch(() => null);
      throw err;
    }),
    mark: () => invoke('mark'),
    stats: (callId = null) => invoke('stats', callId),
    samples: (callId) => invoke('samples', callId),
    timing: (callId) => invoke('timing', callId),
    sdp: (callId) => invoke('sdp', callId),
    gathering: (callId) => invoke('gathering', callId),
    addDataChannels: (callId, channels = true) => invoke('addDataChannels', callId, channels),
    removeDataChannels: (callId) => invoke('removeDataChannels', callId),
    sendData: (callId, text, label) => invoke('sendData', callId, text, label),
    dataChannels: (callId) => invoke('dataChannels', callId),
    sendText: (callId, text) => invoke('sendText', callId, text),
    realTimeText: (callId) => invoke('realTimeText', callId),
    dataLog: (callId) => invoke('dataLog', callId),
    // The audio check: record the call's remote audio in the page (public/audio-probe.js), fetch it later.
    recordAudio: (callId, opts = {}) => page.evaluate(async ([id, o]) => (await import('/audio-probe.js')).startRecording(id, o), [callId, opts])
      .catch((e) => { throw new Error(cleanError(e.message)); }),
    audioRecording: (callId) => page.evaluate(async (id) => (await import('/audio-probe.js')).audioRecording(id), callId)
      .catch((e) => { throw new Error(cleanError(e.message)); }),
    calls: () => invoke('calls'),
    sendRaw: (text) => invoke('sendRaw', text),
    events: () => page.evaluate(() => window.labClient.events),
    // the session's access token the page holds (null before login): for REST asked from the test's own side
    token: () => page.evaluate(() => window.labClient.token),
    // a GET from the page itself (the browser's namespace and address): { status, body }
    fetchJson: (p) => page.evaluate(async (u) => {
      const r = await fetch(u);
      return { status: r.status, body: await r.json().catch(() => null) };
    }, p),
    // the page's CSP violations since it was loaded (strings: directive, what was blocked, where)
    cspViolations: () => page.evaluate(() => window.__cspViolations ?? ['no CSP recorder in the page']),
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
