// `./lab demo`: one browser-originated call (alice -> ue1, browser hangs up) and one IMS-originated
// call (SIPp ue2 -> alice, the UE hangs up), media through rtpengine both ways; summary table,
// report.json + report.html in $LAB_OUT. Exit 0 iff every call is ok and no rtpengine session is left.
// LAB_IMS=volte (./lab demo --ims volte): the VoLTE UEs instead (alice -> ue4, ue5 -> alice), whose
// calls must run with preconditions (100rel/PRACK/UPDATE).
// LAB_IMS=3gpp (./lab demo --ims 3gpp): the same UEs as plain on the 3GPP core (ims-sim/3gpp), the gateway
// registered with IMS-AKA: report.registration.sip_flow must show the 401 AKAv1-MD5 challenge and the 200.
// LAB_CODEC=PCMA|PCMU|G722|AMR-WB|AMR (./lab demo --codec C): the MO call forces C on the IMS leg
// (rtpengine transcodes the browser's Opus); the MT UE offers only C (G.711/G.722 only: run-ue.sh
// UE_CODEC). Each call must then show C on the IMS leg and Opus on the browser leg.
// LAB_IPV6=1 (./lab demo --ipv6): the IMS side is IPv6 only (harness/lib/ipv6.sh): each call must also show
// c=IN IP6 (and nothing IPv4) in the SDP its UE saw, and only IPv4 in the browser's (report: calls[].ip_families).
// LAB_CLIENT=sip-ws (./lab demo --client sip-ws): the page is a WIC using Gm instead (SIP over WebSocket to the light
// core's eP-CSCF with the gateway's access token, docs/ims-sim.md "eP-CSCF for WICs using Gm"), as user ivan; the
// calls' media counters come from rtpengine itself (relay-info.mjs), the gateway knowing nothing of them. With
// LAB_IMS=3gpp the eP-CSCF is the 3GPP core's P-CSCF and the page registers itself by IMS-AKA over the WebSocket
// (its K/OPc given as login input): report.registration.sip_flow is the page's own REGISTER flow (401 AKAv1-MD5,
// the answer, 200), report.registration.bearer what it sent: every request must carry the access token.
// Audio check (docs/media.md): the browser's fake microphone plays a known multi-tone, the UE echoes
// it, and every call must give the tones back (media.audio in report.json; the recording as a WAV).
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, openClient } from './browser.mjs';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { oneCallPorts, relayDelay, startCapture } from '../kit/capture.mjs';
import { startCpuSampler } from '../kit/cpu.mjs';
import { hostSpeed, hostSpeedText } from '../kit/host-speed.mjs';
import { gatewayUrl, labRoot, logDir, outDir, passwordOf } from '../kit/env.mjs';
import * as gw from './gateway.mjs';
import { callEntry, writeDemoReport } from './report.mjs';
import { relayCallInfo, relayCalls } from './relay-info.mjs';
import { moCall, mtCall } from './scenario.mjs';
import { inviteSdpSeenByUe, responseSdpSeenByUe } from './testkit.mjs';
import { TEST_TONES_HZ, wavBytes, writeTestSignal } from './test-signal.mjs';
import { bearerOnEveryRequest, recordWicWire, registerFlow, simSettings, wicWire } from './wic-wire.mjs';

const SIP_WS = process.env.LAB_CLIENT === 'sip-ws';
const USER = SIP_WS ? 'ivan' : 'alice';
const MEDIA_MS = 5000;
const RELAY_PORTS = '30000-30999';   // rtpengine's media ports (media-relay/start-rtpengine.sh)
// Who plays the IMS UE per call model (sipp-scenarios/run-ue.sh modes).
const IMS_MODELS = {
  plain: { callee: 'ue1', calleeMode: 'uas', caller: { mode: 'uac', from: 'ue2' }, preconditions: false },
  volte: { callee: 'ue4', calleeMode: 'volte-uas', caller: { mode: 'volte-uac', from: 'ue5' }, preconditions: true },
  '3gpp': { callee: 'ue1', caller: { mode: 'uac', from: 'ue2' }, preconditions: false, aka: true },
};
// --volte with --ims 3gpp: the VoLTE UEs (HSS subscribers, AKA) through the 3GPP core
const ims = process.env.LAB_IMS === '3gpp' && process.env.LAB_DEMO_VOLTE === '1'
  ? { ...IMS_MODELS.volte, aka: true } : IMS_MODELS[process.env.LAB_IMS || 'plain'];
const codec = process.env.LAB_CODEC || null;
const ipv6 = process.env.LAB_IPV6 === '1';
const UE_CODECS = ['PCMA', 'PCMU', 'G722'];   // what the SIPp UAC can offer alone (run-ue.sh UE_CODEC)
const log = (s) => console.log(`[demo] ${s}`);

let browser = null;
let cpu = null;

async function main() {
  const started = new Date().toISOString();
  const speed = hostSpeed(); // the host's speed before and after, the hypervisor's steal between (kit/host-speed.mjs)
  log(`gateway ${gatewayUrl()}`);
  const health = await gw.waitHealthy(15000);
  log(`gateway healthy (sip ${health.sip}, rtpengine ${health.rtpengine})`);
  cpu = startCpuSampler();

  const signal = writeTestSignal(outDir());
  // the eP-CSCF's wss uses the run's self-signed certificate
  browser = await launchBrowser({ fakeAudioFile: signal, acceptInsecureCerts: SIP_WS });
  const client = await openClient(browser, { name: `demo-${USER}`, rawAudio: true, url: `${gatewayUrl()}/${SIP_WS ? '?client=sip-ws' : ''}` });
  const where = process.env.LAB_BROWSER_NS ? `network namespace ${process.env.LAB_BROWSER_NS}` : 'the runner\'s network namespace';
  log(`web client loaded in headless ${browser.version} (${where})`);
  // the 3GPP core challenges the WIC with IMS-AKA: the page is given the subscriber's SIM settings, as a softphone's
  const sim = SIP_WS && ims.aka ? simSettings(labRoot(), `${USER}@${LAB.LAB_IMS_DOMAIN}`) : null;
  if (SIP_WS) await recordWicWire(client);
  const { token, prewarmed } = await client.login(USER, passwordOf(USER), sim);
  // the page's throw-away connection at login (webclient prewarm.js): its time, and whether it connected
  if (prewarmed) log(`the page's warm-up connection at login: ${prewarmed.ms} ms, ${prewarmed.connected ? 'connected' : "did NOT connect (the first call pays the browser's first connection)"}`);
  log(SIP_WS ? `logged in ${USER}: the page registered itself over SIP over WebSocket with the gateway's access token${sim ? ' and IMS-AKA' : ''}`
    : `logged in ${USER} (registered with IMS)`);
  const reg = SIP_WS ? null : (await gw.currentSession(token).catch(() => null))?.registration ?? null;
  const registration = SIP_WS ? { user: USER, auth: sim ? 'AKAv1-MD5' : 'web (access token, TS 24.371 §6)', impi: sim?.impi ?? null,
    impu: `sip:${USER}@${LAB.LAB_IMS_DOMAIN}`, sip_flow: sim ? registerFlow(await wicWire(client)) : [] }
    : reg && { user: USER, auth: reg.auth, impi: reg.impi ?? null, impu: reg.impu ?? null, sip_flow: reg.sipFlow ?? [] };
  // rtpengine forgets a WIC's call at its delete (the BYE): scenario.mjs then reads it every second while it is up
  const callInfo = SIP_WS ? Object.assign((id) => relayCallInfo(id), { forgetsEnded: true }) : (id) => gw.callInfo(token, id);
  log(`registration (${registration?.auth ?? '?'}): ${(registration?.sip_flow ?? []).join(', ') || 'no SIP flow recorded (the page registered itself over its WebSocket)'}`);

  const results = [];
  if (!ims) throw new Error(`unknown LAB_IMS '${process.env.LAB_IMS}' (plain, volte or 3gpp)`);
  if (SIP_WS && ims.preconditions) throw new Error('--client sip-ws runs with the plain UEs only (no preconditions in the WIC)');
  const ueEnv = codec && UE_CODECS.includes(codec) ? { UE_CODEC: codec } : {};
  const audio = { tones: TEST_TONES_HZ };
  log(browser.kind === 'firefox' ? `browser microphone: WebAudio oscillators at ${TEST_TONES_HZ.join(' + ')} Hz (the same tones as ${path.basename(signal)}), voice processing off`
    : `browser microphone: ${path.basename(signal)} (looped), voice processing off`);
  results.push(await captured('mo', () => moCall(client, { token, from: USER, to: ims.callee, hangup: 'browser', mediaMs: MEDIA_MS, log, imsCodec: codec, audio, callInfo })));
  results.push(await captured('mt', () => mtCall(client, { token, user: USER, ue: { ...ims.caller, arg: MEDIA_MS, env: ueEnv }, hangup: 'ue', mediaMs: MEDIA_MS, log, audio, callInfo })));
  for (const r of results) saveRecording(r);
  for (const r of results) log(`${r.direction} SIP flow: ${(r.info?.sipFlow ?? []).join(', ') || (SIP_WS ? 'n/a (the page is the SIP UA; the gateway has no flow of its calls)' : 'none recorded')}`);

  const left = SIP_WS ? await relayLeft(5000) : await gw.waitNoSessions(5000);
  log(`rtpengine sessions left: ${left.count}`);
  // the WIC's every request carried the access token (RFC 8898), as it went onto the WebSocket
  if (SIP_WS) {
    registration.bearer = bearerOnEveryRequest(await wicWire(client));
    log(`requests the WIC sent: ${registration.bearer.requests} (${registration.bearer.methods.join(', ')}), without a Bearer token: ${registration.bearer.missing.length}`);
  }
  await client.logout().catch((e) => log(`logout: ${e.message}`));
  const browserInfo = { kind: browser.kind, version: browser.version, netns: process.env.LAB_BROWSER_NS ?? null, prewarmed: prewarmed ?? null };
  await browser.close();
  browser = null;

  const calls = results.map(callEntry);
  if (ipv6) {
    calls.forEach((c, i) => checkFamilies(c, results[i]));
    for (const c of calls) log(`${c.direction} address families: UE ${c.ip_families.ue?.join('+') ?? 'no SDP'}, browser ${c.ip_families.browser?.join('+') ?? 'no SDP'}`);
  }
  for (const c of calls) {
    if (ims.preconditions && c.ok && !c.preconditions) {
      c.ok = false;
      c.error = 'the call ran without preconditions';
    }
    const want = codecWanted(c);
    // #11: without a codec to change, rtpengine must relay (no decode/re-encode); with one it transcodes
    const path = want ? 'transcoded' : 'relayed';
    if (c.ok && c.media.relay !== path) {
      c.ok = false;
      c.error = `rtpengine: ${c.media.relay ?? 'no verdict'} (wanted ${path}; codecs ${c.media.codec_browser} / ${c.media.codec_ims})`;
    } else if (want && c.ok && !codecIs(c.media.codec_ims, want.ims)) {
      c.ok = false;
      c.error = `IMS leg codec ${c.media.codec_ims} (wanted ${want.ims})`;
    } else if (want && c.ok && !codecIs(c.media.codec_browser, 'opus')) {
      c.ok = false;
      c.error = `browser leg codec ${c.media.codec_browser} (wanted opus: no transcoding)`;
    }
    // #15: every call carries rtpengine's per-packet delay both ways (capture + delaymeter)
    if (c.ok && !(c.media.delay_ms?.to_ims && c.media.delay_ms?.to_browser)) {
      c.ok = false;
      c.error = `relay delay not measured: ${c.media.relay_delay_error ?? 'a direction had no paired packet'}`;
    }
  }
  // --ims 3gpp: the gateway must have registered by IMS-AKA: challenged (401 AKAv1-MD5), answered, 200
  const akaProblem = (ims.aka ? akaRegistrationProblem(registration) : null) ?? (SIP_WS ? bearerProblem(registration.bearer) : null);
  const ok = calls.every((c) => c.ok) && left.count === 0 && !akaProblem;
  const report = {
    tool: 'lab demo',
    started,
    ims: process.env.LAB_IMS || 'plain',
    ipv6,
    client: SIP_WS ? 'sip-ws' : 'gateway',
    codec: codec ?? 'pass-through',
    browser: browserInfo,
    ok,
    registration,
    calls,
    cpu: cpu.stop(),
    host: speed.stop(),
    rtpengine_sessions_left: left.count,
    gateway: gatewayUrl(),
  };
  cpu = null;
  const { jsonFile, htmlFile } = writeDemoReport(outDir(), report);
  printTable(calls);
  for (const c of calls) log(audioLine(c));
  for (const c of calls) {
    const t = c.setup_timeline_ms;
    log(`set-up ${c.direction}, gateway's clock (ms): ${t ? Object.entries(t).map(([k, v]) => `${k} ${v ?? '-'}`).join(', ') : 'n/a'}`);
    const cpuMs = c.setup_timeline_cpu_ms;
    if (cpuMs && Object.keys(cpuMs).length) log(`set-up ${c.direction}, CPU of the gateway's thread in those steps (ms): ${Object.entries(cpuMs).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    const p = c.page_timing_ms;
    log(`set-up ${c.direction}, page's clock (ms): ${p ? Object.entries(p).filter(([k, v]) => v != null && k !== 'at').map(([k, v]) => `${k} ${v}`).join(', ') : 'n/a'}`);
  }
  for (const c of calls) log(`ICE ${c.direction}: browser ${c.browser?.local_candidate ?? '?'} <-> rtpengine ${c.browser?.remote_candidate ?? '?'}`);
  log(`host: ${hostSpeedText(report.host)}`);
  log(`cpu (avg % of one core): rtpengine ${report.cpu.rtpengine_pct ?? 'n/a'}, gateway ${report.cpu.gateway_pct ?? 'n/a'}, kamailio ${report.cpu.kamailio_pct ?? 'n/a'}`);
  log(`report: ${jsonFile}, ${htmlFile}`);
  if (!ok) {
    const why = calls.filter((c) => !c.ok).map((c) => `${c.direction}: ${c.error}`);
    if (left.count !== 0) why.push(`${left.count} rtpengine session(s) left`);
    if (akaProblem) why.push(`registration: ${akaProblem}`);
    throw new Error(`demo failed: ${why.join('; ')}`);
  }
  log('demo OK');
}

// Runs one call under a capture of rtpengine's media ports on every interface (the browser leg on the
// veth to "pub", the IMS leg on loopback) and measures the relay delay of its packets with delaymeter:
// r.relayDelay = delaymeter's JSON, or r.relayDelayError = why there is none.
async function captured(direction, runCall) {
  let cap = null;
  try {
    cap = await startCapture(null, `demo-${direction}-rtp`, { filter: `udp portrange ${RELAY_PORTS}` });
  } catch (e) {
    log(`${direction}: no capture, no relay delay: ${e.message}`);
  }
  const r = await runCall();
  if (!cap) {
    r.relayDelayError = 'tcpdump could not capture';
    return r;
  }
  await new Promise((res) => setTimeout(res, 300));   // immediate mode: the last packets are written within ms
  const file = await cap.stop();
  try {
    // a transcoded call's re-encoded stream has a new SSRC: delaymeter needs the call's two rtpengine ports
    const transcoded = r.info?.media?.transcoded ?? r.infoDuring?.media?.transcoded ?? false;
    const callPorts = transcoded ? await oneCallPorts(file, { pub: ADDRESSES.pub, relayPorts: RELAY_PORTS }) : null;
    if (transcoded && !callPorts.length) throw new Error('transcoded call: rtpengine\'s two ports not found in the capture');
    // --ipv6: the IMS leg's packets (rtpengine's "ims" interface and the UEs on LAB_IMS6_ADDR) as IPv4 for delaymeter
    r.relayDelay = await relayDelay(file, { aliases: [ADDRESSES.pub], v6aliases: ipv6 ? [LAB.LAB_IMS6_ADDR] : [], relayPorts: RELAY_PORTS, callPorts });
    r.relayDelay.capture = path.relative(outDir(), file);
  } catch (e) {
    r.relayDelayError = e.message;
  }
  log(`${direction} relay delay: ${delayLine(r)}`);
  return r;
}

function delayLine(r) {
  if (!r.relayDelay) return `not measured (${r.relayDelayError})`;
  const d = r.relayDelay.directions ?? {};
  const f = (k) => {
    const x = d[k];
    if (!x?.matched) return `${k} no packet paired`;
    return `${k} p50 ${x.delay_ms.p50} p95 ${x.delay_ms.p95} p99 ${x.delay_ms.p99} max ${x.delay_ms.max} ms, ${x.matched} pkts, loss ${x.loss_pct} %`;
  };
  return `${f('to_ims')}; ${f('to_browser')}`;
}

// --ipv6: the address families each side of the call saw (c= lines and candidates), into c.ip_families; the call
// fails unless the UE's SDP (MO: the INVITE at the callee, MT: the 200 at the caller, their SIPp message logs) is
// IPv6 only and the browser's (MO: the answer, MT: the offer) IPv4 only.
function checkFamilies(c, r) {
  const families = (sdp) => {
    if (!sdp) return null;
    const f = new Set();
    for (const m of sdp.matchAll(/^c=IN (IP[46]) /gm)) f.add(m[1]);
    for (const m of sdp.matchAll(/^a=candidate:\S+ \d+ \S+ \d+ (\S+) /gm)) f.add(m[1].includes(':') ? 'IP6' : 'IP4');
    return [...f].sort();
  };
  const ueLog = r.direction === 'mo' ? path.join(logDir(), `sipp-${ims.calleeMode}-${ims.callee}-messages.log`)
    : path.join(logDir(), `sipp-${ims.caller.mode}-${USER}-messages.log`);
  let ueSdp = null;
  try {
    ueSdp = r.callId ? (r.direction === 'mo' ? inviteSdpSeenByUe(ueLog, r.callId) : responseSdpSeenByUe(ueLog, r.callId)) : null;
  } catch (e) {
    ueSdp = null;
  }
  c.ip_families = { ue: families(ueSdp), browser: families(r.direction === 'mo' ? r.answerSdp : r.incomingSdp) };
  const ue = c.ip_families.ue?.join(',');
  const br = c.ip_families.browser?.join(',');
  if (!c.ok) return;
  if (ue !== 'IP6') {
    c.ok = false;
    c.error = `the UE's SDP (${path.basename(ueLog)}) is ${ue ? `${ue}, not IPv6 only` : 'missing'}`;
  } else if (br !== 'IP4') {
    c.ok = false;
    c.error = `the browser's SDP is ${br ?? 'missing'}, not IPv4 only`;
  }
}

// rtpengine's calls (every driver's), polled until none is left or timeoutMs: {count, callIds}
async function relayLeft(timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const ids = await relayCalls();
    if (ids.length === 0 || Date.now() > end) return { count: ids.length, callIds: ids };
    await new Promise((r) => setTimeout(r, 250));
  }
}

// What is wrong with the gateway's IMS-AKA registration flow (null: challenged with AKAv1-MD5, answered, 200).
function bearerProblem(b) {
  if (!b || b.requests === 0) return 'the WIC sent no request (none recorded)';
  return b.missing.length ? `requests without the access token: ${b.missing.join('; ')}` : null;
}

function akaRegistrationProblem(reg) {
  if (!reg) return 'no registration status from the gateway';
  if (reg.auth !== 'AKAv1-MD5') return `authenticated by ${reg.auth}, not AKAv1-MD5`;
  const f = reg.sip_flow;
  const i401 = f.indexOf('recv 401 (AKAv1-MD5)');
  const iAnswer = f.indexOf('sent REGISTER (AKA response)');
  if (i401 < 0 || iAnswer < i401 || f.indexOf('recv 200', iAnswer) < 0) return `flow ${f.join(', ')} lacks 401 AKAv1-MD5 -> AKA response -> 200`;
  return null;
}

// --codec: which codec each call's IMS leg must show (null: nothing to check).
function codecWanted(c) {
  if (!codec) return null;
  if (c.direction === 'mo') return { ims: codec };
  return UE_CODECS.includes(codec) ? { ims: codec } : null;
}

// "PCMA/8000" is PCMA; "AMR-WB/16000" is AMR-WB but not AMR.
function codecIs(actual, name) {
  return typeof actual === 'string' && actual.split('/')[0].toLowerCase() === name.toLowerCase();
}

// What came back to the browser, as a WAV beside the report (to listen to or inspect).
function saveRecording(r) {
  if (!r.audio || !r.audioRecording) return;
  const file = `audio-${r.direction}-received.wav`;
  fs.writeFileSync(path.join(outDir(), file), wavBytes(r.audioRecording.samples, r.audioRecording.sampleRate));
  r.audio.recording = file;
}

function audioLine(c) {
  const a = c.media.audio;
  if (!a) return `audio ${c.direction}: not checked`;
  const figures = a.detected_hz ? `sent ${a.tones_hz.join('/')} Hz, detected ${a.detected_hz.join('/')} Hz, SNR ${a.snr_db} dB, `
    + `correlation ${a.correlation}, level ${a.level_dbfs} dBFS` : '';
  return `audio ${c.direction}: ${a.pass ? 'PASS' : 'FAIL'} ${figures}${a.pass ? '' : ` (${a.problems.join('; ')})`}`;
}

function printTable(calls) {
  const head = ['dir', 'from', 'to', 'setup ms', 'SIP', 'codec browser/IMS', 'rtpengine', 'pkts→IMS', 'pkts→browser', 'br sent', 'br recv', 'ok'];
  const rows = calls.map((c) => [c.direction, c.from, c.to, c.setup_ms, c.sip_final,
    `${c.media.codec_browser ?? '?'} / ${c.media.codec_ims ?? '?'}`, c.media.relay, c.media.packets_to_ims,
    c.media.packets_to_browser, c.browser?.packets_sent, c.browser?.packets_received, c.ok ? 'yes' : 'NO'].map((v) => String(v ?? '-')));
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(width[i])).join('  ');
  console.log(line(head));
  console.log(width.map((w) => '-'.repeat(w)).join('  '));
  rows.forEach((r) => console.log(line(r)));
}

async function cleanup() {
  cpu?.stop();
  await browser?.close().catch(() => {});
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    console.error(`demo: interrupted (${sig})`);
    await cleanup();
    process.exit(130);
  });
}

main().catch(async (e) => {
  console.error(`demo: ${e.message}`);
  await cleanup();
  process.exit(1);
});
