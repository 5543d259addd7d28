// Issue #17 prototype: one MO (alice -> ue1, the echo UE) or MT (SIPp ue2 -> alice, echo) call from a
// browser in its own namespace, media checked both ways with a known tone: the browser sends an
// oscillator (WebAudio) and must hear it back (ue1/ue2 echo RTP) at the same frequency, while its
// getStats counters move both ways. Prints one JSON line with the evidence; exit 0 = media both ways.
//   node drive.mjs --browser firefox|chromium --mode mo|mt [--origin http://198.18.0.1:8088]
//                  [--user alice] [--hold 6000] [--ice-restart] [--freq 1000] [--no-media-permission] [--callee ue1]
// --ice-restart: MO only, with --callee ue8 (the lab's UE that answers re-INVITEs): rtpengine adds a=ptime:20
// to its second IMS-side offer, so even an ICE restart goes out as a re-INVITE, which ue1 never answers.
// MT needs root: SIPp ue2 is started in s17-core with `ip netns exec` (topology.sh).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launch, useOscillatorMic, remotePeak } from './browsers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: o } = parseArgs({ options: {
  browser: { type: 'string', default: 'firefox' }, mode: { type: 'string', default: 'mo' },
  origin: { type: 'string', default: 'http://198.18.0.1:8088' }, user: { type: 'string', default: 'alice' },
  hold: { type: 'string', default: '6000' }, 'ice-restart': { type: 'boolean', default: false },
  freq: { type: 'string', default: '1000' }, 'no-media-permission': { type: 'boolean', default: false },
  callee: { type: 'string', default: 'ue1' }, 'core-out': { type: 'string', default: '' } } });
const FREQ = Number(o.freq);
const UE_LOGDIR = '/tmp/spike17';

// The SDP the IMS side got for this call: MO the INVITE at the callee (SIPp's message log in run-core.sh's
// OUTDIR, --core-out), MT the 200 OK at ue2. clean: no mDNS name, no 0.0.0.0, no sendonly.
function imsSdp(callId) {
  const file = o.mode === 'mo' ? (o['core-out'] && path.join(o['core-out'], `sipp-uas-${o.callee}-messages.log`))
    : path.join(UE_LOGDIR, `sipp-uac-${o.user}-messages.log`);
  if (!file || !fs.existsSync(file)) return null;
  const first = o.mode === 'mo' ? /^INVITE sip:/ : /^SIP\/2\.0 200 /;
  for (const msg of fs.readFileSync(file, 'utf8').split(/\n-{20,}[^\n]*\n/)) {
    const text = msg.replace(/^[^\n]*message (?:sent|received)[^\n]*\n+/i, '').trimStart();
    if (!first.test(text) || !text.includes(`Call-ID: ${callId}`) || !text.includes('\nv=0')) continue;
    const sdp = text.slice(text.indexOf('\nv=0') + 1).trim();
    return { sdp: sdp.split(/\r?\n/).filter((l) => /^(o=|c=|m=|a=(rtcp:|send|recv|inactive))/.test(l)),
      clean: !/\.local|0\.0\.0\.0|a=sendonly/.test(sdp) };
  }
  // MO: SIPp may not have flushed its log yet; rtpengine's (--log-level=7) reply to the offer is the same
  // SDP before the gateway's ImsSdpFilter, which touches neither c=, a=rtcp nor the direction.
  const rtpLog = o.mode === 'mo' && o['core-out'] && path.join(o['core-out'], 'rtpengine.log');
  if (rtpLog && fs.existsSync(rtpLog)) {
    const t = fs.readFileSync(rtpLog, 'utf8');
    const at = t.indexOf(`[${callId}]: [control] Response dump for 'offer'`);
    if (at >= 0) {
      const body = t.slice(t.indexOf('"sdp": "', at) + 8, t.indexOf('\n[', at));
      return { from: 'rtpengine.log', sdp: body.split(/\r?\n/).filter((l) => /^(o=|c=|m=|a=(rtcp:|send|recv|inactive))/.test(l)),
        clean: !/\.local|0\.0\.0\.0|a=sendonly/.test(body) };
    }
  }
  return null;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const result = { browser: o.browser, mode: o.mode, origin: o.origin };

const browser = await launch(o.browser, { origin: o.origin, grantMedia: !o['no-media-permission'] });
result.version = await browser.version();
let ue = null;
try {
  const page = await browser.newPage();
  const consoleLines = [];
  page.on('console', (m) => consoleLines.push(m.text()));
  await useOscillatorMic(page, FREQ);
  await page.goto(`${o.origin}/`, { waitUntil: 'load' });
  await page.waitForFunction(() => window.labClient !== undefined, { timeout: 10000 });
  await page.evaluate((u) => window.labClient.login(u, `${u}-secret`), o.user);
  let callId;
  if (o.mode === 'mo') {
    const r = await page.evaluate((c) => window.labClient.call(c), o.callee);
    callId = r?.callId ?? r;
    await page.evaluate((id) => window.labClient.waitFor('answered', id, 15000), callId);
  } else {
    ue = spawn('ip', ['netns', 'exec', 's17-core', 'env', `LAB_LOGDIR=${UE_LOGDIR}`, 'KAMAILIO=127.0.0.1:5060',
      `IMS_USERS=${ROOT}/ims-sim/users.txt`, 'bash', `${ROOT}/sipp-scenarios/run-ue.sh`, 'uac', o.user, String(Number(o.hold) + 8000)],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    let ueOut = ''; ue.stdout.on('data', (d) => { ueOut += d; }); ue.stderr.on('data', (d) => { ueOut += d; });
    ue.on('exit', (c) => { result.ueExit = c; result.ueTail = ueOut.slice(-400); });
    const ev = await page.evaluate(() => window.labClient.waitFor('incoming', null, 20000));
    callId = ev.callId ?? ev.msg?.callId;
    await page.evaluate((id) => window.labClient.answer(id), callId);
  }
  result.callId = callId;
  await sleep(Number(o.hold) / 2);
  const sdp = await page.evaluate((id) => window.labClient.sdp(id), callId);
  const pick = (s) => (s ?? '').split(/\r?\n/).filter((l) => /^(c=|a=candidate|a=rtcp:|a=ice-lite|a=setup|a=(send|recv)(only|recv)|a=inactive)/.test(l));
  result.localSdp = pick(sdp.local);
  result.remoteSdp = pick(sdp.remote);
  const s1 = await page.evaluate((id) => window.labClient.stats(id), callId);
  result.tone = await remotePeak(page, callId);
  if (o['ice-restart']) {
    const ufrags = (x) => [x.local, x.remote].map((d) => (d ?? '').match(/a=ice-ufrag:(\S+)/)?.[1]);
    const before = ufrags(await page.evaluate((id) => window.labClient.sdp(id), callId));
    const mark = await page.evaluate(() => window.labClient.mark());
    await page.evaluate((id) => window.labClient.reoffer(id, { iceRestart: true }), callId);
    const re = await page.evaluate((id, m) => window.labClient.waitFor('reanswer', id, 1000, m), callId, mark);
    const after = ufrags(await page.evaluate((id) => window.labClient.sdp(id), callId));
    result.iceRestart = { sipReoffer: re.sipReoffer, ufragsBefore: before, ufragsAfter: after,
      newCredentials: before[0] !== after[0] && before[1] !== after[1] };
    await sleep(3000);
    result.afterRestart = await remotePeak(page, callId);
  }
  await sleep(Number(o.hold) / 2);
  const s2 = await page.evaluate((id) => window.labClient.stats(id), callId);
  result.stats = { iceState: s2.iceState, dtlsState: s2.dtlsState, localCandidate: s2.localCandidate, remoteCandidate: s2.remoteCandidate,
    sent: [s1.packetsSent, s2.packetsSent], received: [s1.packetsReceived, s2.packetsReceived] };
  if (o.mode === 'mo') await page.evaluate((id) => window.labClient.hangup(id), callId);
  const toneOk = (t) => t && Math.abs(t.peakHz - FREQ) <= 20 && t.peakDb > -70;
  result.ok = s2.packetsSent > s1.packetsSent && s2.packetsReceived > s1.packetsReceived && toneOk(result.tone) &&
    (!o['ice-restart'] || (toneOk(result.afterRestart) && result.iceRestart.newCredentials));
  if (!result.ok) result.console = consoleLines.slice(-15);
} catch (e) {
  result.ok = false;
  result.error = String(e.message).split('\n')[0];
} finally {
  await browser.close().catch(() => {});
  if (ue && ue.exitCode === null) await new Promise((r) => { ue.once('exit', r); setTimeout(r, 15000); });
}
// SIPp writes its message log buffered: give it a few seconds to show up.
for (let i = 0; result.callId && i < 6 && !(result.ims = imsSdp(result.callId)); i++) await sleep(500);
console.log(JSON.stringify(result, null, 1));
process.exit(result.ok ? 0 : 1);
