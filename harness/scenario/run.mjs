// `./lab scenario NAME --browsers N --duration S [--netem SPEC | --netem-up SPEC --netem-down SPEC |
// --impairment NAME]` (docs/scenarios.md): N browser pages at once, each one call (MO to a SIPp UE that
// echoes, or MT from a SIPp UE), for S seconds, on the browser's link impaired as asked (kit/link.mjs).
// Collects getStats every second per call, setup time, failures, CPU of every process and rtpengine's
// per-packet delay per direction from one capture of the run (delaymeter); writes report.json and
// report.html in $LAB_OUT. Exit 0 iff every call is ok; 2 on bad options (--check: only check them).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { relayDelay, startCapture } from '../kit/capture.mjs';
import { iceDtlsEvents, signallingEvents, startSignallingCapture, wireTimeline } from '../kit/setup-wire.mjs';
import { startCpuSampler } from '../kit/cpu.mjs';
import { hostSpeed, hostSpeedText } from '../kit/host-speed.mjs';
import { gatewayUrl, labRoot, logDir, outDir, passwordOf } from '../kit/env.mjs';
import { signal as signalProc, start } from '../kit/procs.mjs';
import { applyLink, resolveImpairment } from '../kit/link.mjs';
import { writeReport } from '../kit/report.mjs';
import { fetchTimelines, rtpengineMediaUp, summarizeTimelines } from '../kit/setup-timeline.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { judge, moCall, mtCall } from '../runner/scenario.mjs';
import { writeTestSignal } from '../runner/test-signal.mjs';
import { renderHtml } from './html.mjs';
import { PAGE_USERS, SCENARIOS } from './scenarios.mjs';

const RELAY_PORTS = '30000-30999';
const IMS_PORTS = LAB.LAB_UE_RTP_PORTS; // the SIPp UEs' media ports: ue1, ue7 (+2 video), the MT callers
const MT_SIP_PORT = (i) => Number(LAB.LAB_SCENARIO_MT_SIP_BASE) + i;
const MT_MEDIA_PORT = (i) => Number(LAB.LAB_SCENARIO_MT_RTP_BASE) + 10 * i;
// 64 MiB kernel buffer, 200 bytes of each packet (RTP headers: delaymeter needs no payload): with the
// default 2 MiB and whole packets the kernel dropped ~8 % of a 2-call run's copies on the busy host
const CAPTURE_ARGS = ['-B', '65536', '-s', '200'];
const START_GAP_MS = 500;           // between two pages' call starts (ICE + DTLS of N calls at once on 2 cores)
const SETTLE_S = 3;                 // summaries skip each call's first seconds (ICE/DTLS, jitter buffer, BWE start)
const log = (s) => console.log(`[scenario] ${s}`);

export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      name: { type: 'string' }, browsers: { type: 'string' }, duration: { type: 'string' },
      netem: { type: 'string' }, 'netem-up': { type: 'string' }, 'netem-down': { type: 'string' },
      impairment: { type: 'string' }, check: { type: 'boolean' },
    },
  });
  const name = values.name;
  const sc = SCENARIOS[name];
  if (!sc) throw new Error(`unknown scenario '${name ?? ''}' (${Object.keys(SCENARIOS).join(', ')})`);
  const int = (v, what, lo, hi, dflt) => {
    if (v == null) return dflt;
    if (!/^\d+$/.test(v) || +v < lo || +v > hi) throw new Error(`${what} takes a whole number from ${lo} to ${hi}, not '${v}'`);
    return +v;
  };
  const browsers = int(values.browsers, '--browsers', 1, PAGE_USERS.length, sc.browsers);
  const duration = int(values.duration, '--duration', 5, 600, 30);
  const asked = values.netem || values['netem-up'] || values['netem-down'] || values.impairment;
  const impairment = asked
    ? resolveImpairment({ netem: values.netem, up: values['netem-up'], down: values['netem-down'], name: values.impairment })
    : scaled(resolveImpairment({ netem: sc.netem, name: sc.impairment }), sc.capacityScale);
  if (values.netem && (values['netem-up'] || values['netem-down'])) throw new Error('--netem sets both directions: use it or --netem-up/--netem-down');
  return { name, scenario: sc, browsers, duration, impairment, check: values.check ?? false };
}

// A scenario's own capacity schedule scaled (capacityScale, scenarios.mjs).
function scaled(imp, k) {
  if (!imp?.schedule_kbit || !k) return imp;
  const steps = imp.schedule_kbit.map((r) => Math.round(r * k));
  const dir = (d) => d && { ...d, rate_kbit: steps[0] };
  return { ...imp, up: dir(imp.up), down: dir(imp.down), schedule_kbit: steps, scale: k,
    text: `${imp.name} x ${k}: rate ${steps[0]}kbit queue ${imp.up?.queue_ms}ms` };
}

let browser = null;
let echo = null;
let link = null;
let cpu = null;
let cap = null;
let sigCap = null;

async function main(opts) {
  const { name, scenario: sc, browsers: n, duration, impairment } = opts;
  const started = new Date().toISOString();
  // the host's speed before and after, and the hypervisor's steal between (kit/host-speed.mjs): the set-up figures
  // of a slow hour are not the code's
  const speed = hostSpeed();
  log(`${name}: ${sc.about}`);
  log(`${n} page(s), ${duration} s per call, link: ${impairment ? impairment.text : 'not impaired'}${impairment?.schedule_kbit ? `, capacity steps ${impairment.schedule_kbit.join(', ')} kbit/s` : ''}`);
  const health = await gw.waitHealthy(15000);
  log(`gateway ${gatewayUrl()} healthy (sip ${health.sip}, rtpengine ${health.rtpengine})`);

  // the set-up on the wire (kit/setup-wire.mjs): WebSocket, ng and SIP of every call, from before the pages
  // open their WebSockets (tshark knows a WebSocket by its HTTP upgrade)
  sigCap = await startSignallingCapture('scenario-signalling');
  const signal = writeTestSignal(outDir());
  browser = await launchBrowser({ fakeAudioFile: signal });
  const pages = [];
  for (let i = 0; i < n; i++) {
    const user = PAGE_USERS[i];
    const client = await openClient(browser, { name: `scenario-${user}` });
    const { token } = await client.login(user, passwordOf(user));
    pages.push({ i, user, client, token, scenario: name, direction: sc.directions[i % sc.directions.length] });
  }
  log(`${n} page(s) logged in (${pages.map((p) => `${p.user} ${p.direction.toUpperCase()}`).join(', ')}) in headless ${browser.version}`);

  link = await applyLink(impairment, { log });
  cap = await startCapture(null, 'scenario-rtp', { filter: `udp portrange ${RELAY_PORTS}`, args: CAPTURE_ARGS });
  cpu = startCpuSampler({ pidsFile: pidsWithRunner() });

  if (sc.rtcpEcho) echo = await startRtcpEcho(pages);
  const t0 = Date.now();
  const schedule = startSchedule(impairment, duration, t0);
  const progress = setInterval(() => log(`t=${Math.round((Date.now() - t0) / 1000)} s of ~${duration} s: ${pages.filter((p) => p.state === 'up').length} call(s) up`
    + `${link?.rates.up ? `, capacity ${link.rates.up} kbit/s` : ''}`), 5000);
  const results = await Promise.all(pages.map(async (p) => {
    await new Promise((r) => setTimeout(r, p.i * START_GAP_MS));
    p.state = 'up';
    const r = await runCall(p, sc, duration);
    p.state = 'done';
    log(`${p.user} ${p.direction.toUpperCase()} ${r.error ? `failed: ${r.error}` : 'ended'}`);
    return r;
  }));
  clearInterval(progress);
  schedule.stop();
  if (echo) {
    signalProc(echo, 'SIGTERM');
    await echo.done;
    echo = null;
  }
  const cpuOut = cpu.stop();
  cpu = null;
  await new Promise((r) => setTimeout(r, 300));
  const file = await cap.stop();
  cap = null;
  const sigFile = await sigCap.stop();
  sigCap = null;
  let sigEvents = null;
  let sigError = null;
  try {
    sigEvents = await signallingEvents(sigFile);
  } catch (e) {
    sigError = `the signalling capture could not be read: ${e.message}`;
  }
  // ICE checks and DTLS on the relay's ports (the RTP capture): the MO calls' steps after the answer
  let mediaEvents = null;
  try {
    mediaEvents = await iceDtlsEvents(file);
  } catch (e) {
    sigError = `${sigError ? `${sigError}; ` : ''}the ICE/DTLS packets of the RTP capture could not be read: ${e.message}`;
  }
  const linkCounters = link ? await link.stop() : null;
  const rateChanges = link?.changes ?? [];
  link = null;

  let dm = null;
  let dmError = null;
  try {
    dm = await relayDelay(file, { aliases: [ADDRESSES.pub], relayPorts: RELAY_PORTS, imsPorts: IMS_PORTS });
  } catch (e) {
    dmError = e.message;
  }
  const left = await gw.waitNoSessions(5000);
  for (const p of pages) await p.client.logout().catch(() => {});
  const browserInfo = { kind: browser.kind, version: browser.version, netns: process.env.LAB_BROWSER_NS ?? null };
  await browser.close();
  browser = null;

  const calls = results.map((r, i) => callEntry(r, pages[i], dm, t0, sigEvents, mediaEvents));
  const host = speed.stop();
  const report = {
    tool: 'lab scenario',
    scenario: name,
    about: sc.about,
    started,
    browsers: n,
    duration_s: duration,
    browser: browserInfo,
    link: {
      where: `${process.env.LAB_BROWSER_NS ?? 'lab-browser'}/vb (the browser's end of its veth link)`,
      impairment: impairment ? { name: impairment.name, text: impairment.text, up: impairment.up, down: impairment.down, schedule_kbit: impairment.schedule_kbit,
        scale: impairment.scale ?? null } : null,
      rtcp_echo: Boolean(sc.rtcpEcho),
      rate_changes: rateChanges.map((c) => ({ t_s: round((c.t - t0) / 1000, 1), rate_kbit: c.rate_kbit })),
      counters: linkCounters,
    },
    relay: relayEntry(dm, dmError, file),
    signalling_capture: { file: path.relative(outDir(), sigFile), error: sigError },
    calls,
    summary: null,
    cpu: cpuOut,
    host,
    rtpengine_sessions_left: left.count,
    gateway: gatewayUrl(),
    media_up_at_rtpengine: await mediaUpAtRtpengine(Date.parse(started)),
  };
  report.summary = summarize(report);
  report.ok = calls.every((c) => c.ok) && left.count === 0 && !dmError;
  const { jsonFile, htmlFile } = writeReport(outDir(), report, renderHtml);
  printSummary(report);
  log(`report: ${jsonFile}, ${htmlFile}`);
  if (!report.ok) {
    const why = calls.filter((c) => !c.ok).map((c) => `${c.user} ${c.direction}: ${c.error}`);
    if (left.count) why.push(`${left.count} rtpengine session(s) left`);
    if (dmError) why.push(`relay delay: ${dmError}`);
    throw new Error(`scenario ${name} failed: ${why.join('; ')}`);
  }
  log(`scenario ${name} OK`);
}

// One page's call: MO to the echoing UE, or MT from a SIPp UE of its own (port, log dir), for `duration` s.
async function runCall(p, sc, duration) {
  const video = sc.media === 'video';
  const mediaMs = duration * 1000;
  const maxMs = mediaMs + 30000;
  const quiet = (s) => {
    const m = /^\s+t=(\d+)s/.exec(s);
    if (!m || +m[1] % 10 === 0) log(`${p.user}: ${s.trim()}`);
  };
  if (p.direction === 'mo') {
    return moCall(p.client, { token: p.token, from: p.user, to: video ? 'ue7' : 'ue1', hangup: 'browser', mediaMs, maxMs, log: quiet,
      callOptions: video ? { video: true } : {} });
  }
  const dir = path.join(logDir(), `ue-mt-${p.i}`);
  fs.mkdirSync(dir, { recursive: true });
  const env = { ME: 'ue2', ME_PORT: String(MT_SIP_PORT(p.i)), ME_MPORT: String(MT_MEDIA_PORT(p.i)), LAB_LOGDIR: dir };
  return mtCall(p.client, { token: p.token, user: p.user, ue: { mode: video ? 'video-uac' : 'uac', arg: mediaMs, env, from: 'ue2' },
    hangup: 'ue', mediaMs, maxMs, log: quiet, answerOptions: video ? { video: true } : {} });
}

// The UEs' RTCP ports (media port + 1, + 3 for video) echo what arrives (rtcp-echo.py): ue1 6001, ue7
// 6601/6603, the MT callers 7001+10i/7003+10i.
async function startRtcpEcho(pages) {
  const ports = new Set();
  for (const p of pages) {
    const base = p.direction === 'mo' ? (SCENARIOS[p.scenario]?.media === 'video' ? Number(LAB.LAB_UE7_RTP_PORT) : Number(LAB.LAB_UE1_RTP_PORT)) : MT_MEDIA_PORT(p.i);
    ports.add(base + 1);
    ports.add(base + 3);
  }
  const file = path.join(logDir(), 'rtcp-echo.log');
  const proc = start('rtcp-echo', 'python3', [path.join(labRoot(), 'harness', 'scenario', 'rtcp-echo.py'), ...[...ports].map(String)], { log: file });
  for (let i = 0; i < 40 && !fs.readFileSync(file, 'utf8').includes('listening'); i++) await new Promise((r) => setTimeout(r, 50));
  log(`RTCP echo on the UEs' RTCP ports ${[...ports].join(', ')}`);
  return proc;
}

// The capacity schedule (rmcat-w2): each rate for an equal share of the run, changed on the link's tbf.
function startSchedule(imp, duration, t0) {
  const steps = imp?.schedule_kbit;
  if (!steps?.length || !link) return { stop() {} };
  const every = (duration * 1000) / steps.length;
  link.changes.push({ t: t0, rate_kbit: steps[0] });
  const timers = steps.slice(1).map((kbit, i) => setTimeout(() => {
    link?.setRate(kbit).then(() => log(`capacity now ${kbit} kbit/s each way`)).catch((e) => log(`capacity change failed: ${e.message}`));
  }, every * (i + 1)));
  return { stop() { timers.forEach(clearTimeout); } };
}

// $LAB_PIDS plus the browser and the link's delay lines (children of this process) for the CPU sampler.
function pidsWithRunner() {
  const base = process.env.LAB_PIDS && fs.existsSync(process.env.LAB_PIDS) ? fs.readFileSync(process.env.LAB_PIDS, 'utf8') : '';
  const lines = [base.trim()];
  for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = st.lastIndexOf(')');
      const comm = st.slice(st.indexOf('(') + 1, close);
      const ppid = Number(st.slice(close + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (/chrom|firefox|python/.test(comm)) lines.push(`browser ${d}`);
      else if (comm === 'linkdelay') lines.push(`linkdelay ${d}`);
      else if (comm === 'tcpdump') lines.push(`tcpdump ${d}`);
    } catch { /* gone */ }
  }
  const file = path.join(logDir(), 'scenario-pids');
  fs.writeFileSync(file, `${lines.filter(Boolean).join('\n')}\n`);
  return file;
}

const round = (v, d = 1) => (v == null || Number.isNaN(Number(v)) ? null : Number(Number(v).toFixed(d)));
const median = (xs) => {
  const v = xs.filter((x) => x != null && !Number.isNaN(x)).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : null;
};
const mean = (xs) => {
  const v = xs.filter((x) => x != null && !Number.isNaN(x));
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
const hex = (ssrc) => (ssrc == null ? null : `0x${(Number(ssrc) >>> 0).toString(16).padStart(8, '0')}`);

function relayEntry(dm, err, file) {
  const dir = (k) => {
    const x = dm?.directions?.[k];
    return x ? { matched: x.matched, lost: x.lost, loss_pct: x.loss_pct, delay_ms: x.matched ? x.delay_ms : null } : null;
  };
  // tcpdump's own count of packets the kernel dropped before it read them (missing copies look like relay loss)
  let dropped = null;
  try { dropped = Number(/(\d+) packets dropped by kernel/.exec(fs.readFileSync(`${file}.log`, 'utf8'))?.[1] ?? NaN); } catch { /* no log */ }
  return { capture: path.relative(outDir(), file), capture_dropped_by_kernel: Number.isNaN(dropped) ? null : dropped, error: err,
    to_ims: dir('to_ims'), to_browser: dir('to_browser') };
}

// delaymeter's per-SSRC entries of one of the browser's sent streams (the UE echoes it: the same SSRC both ways).
function ssrcDelay(dm, ssrc) {
  const out = {};
  for (const k of ['to_ims', 'to_browser']) {
    const s = (dm?.directions?.[k]?.ssrcs ?? []).find((e) => e.ssrc?.toLowerCase() === ssrc);
    out[k] = s ? { matched: s.matched, lost: s.lost, in_flight_at_end: s.in_flight_at_end ?? 0, unmatched_out: s.unmatched_out ?? 0, loss_pct: s.loss_pct, delay_ms: s.matched ? s.delay_ms : null } : null;
  }
  return out;
}

function callEntry(r, page, dm, t0, sigEvents, mediaEvents) {
  const { ok, problems } = judge(r);
  const b = r.browser ?? {};
  const series = r.samples.map((s) => ({
    t_s: round((s.t - t0) / 1000, 2), rtt_ms: round(s.rtt, 1), ice_rtt_ms: round(s.iceRtt, 1), jitter_ms: round(s.jitter, 2), loss_pct: round(s.lossPct, 2),
    kbps_sent: round(s.kbpsSent), kbps_received: round(s.kbpsReceived),
    video_kbps_sent: round(s.videoKbpsSent), video_kbps_received: round(s.videoKbpsReceived),
    concealed_pct: round(s.concealedPct, 2), jitter_buffer_ms: round(s.jitterBufferMs, 1),
    frames_sent_per_s: round(s.sentFramesPerSecond), sent_height: s.sentFrameHeight ?? null, received_height: s.frameHeight ?? null,
    available_outgoing_kbps: s.availableOutgoingBitrate != null ? round(s.availableOutgoingBitrate / 1000) : null,
    quality_limitation: s.qualityLimitation ?? null,
  }));
  const answeredS = r.answeredAt ? (r.answeredAt - t0) / 1000 : null;
  const steady = series.filter((s) => answeredS != null && s.t_s >= answeredS + SETTLE_S);
  const pick = (k) => steady.map((s) => s[k]);
  const audio = ssrcDelay(dm, hex(b.audioSsrc));
  const video = b.videoSsrc != null ? ssrcDelay(dm, hex(b.videoSsrc)) : null;
  // link loss per direction, from both ends of the link: what the browser sent vs what reached the relay
  // (delaymeter's in copies), what the relay sent on vs what the browser received
  const inRelay = audio.to_ims ? audio.to_ims.matched + audio.to_ims.lost + audio.to_ims.in_flight_at_end : null;
  const outRelay = audio.to_browser ? audio.to_browser.matched + audio.to_browser.unmatched_out : null;
  // The browser's counters are its last getStats before the hang-up: the packets it sent after that read reach the
  // relay all the same, so more at the relay than the browser counted is no loss (0), not a negative one.
  const lossPct = (arrived, sent) => round(Math.max(0, 100 * (1 - arrived / sent)), 2);
  const linkLoss = {
    up_pct: inRelay != null && b.packetsSent > 0 ? lossPct(inRelay, b.packetsSent) : null,
    down_pct: outRelay > 0 && b.packetsReceived != null ? lossPct(b.packetsReceived, outRelay) : null,
  };
  return {
    user: page.user,
    direction: r.direction,
    from: r.info?.from ?? r.from,
    to: r.info?.to ?? r.to,
    ok,
    error: ok ? null : problems.join('; '),
    call_id: r.callId,
    setup_ms: round(r.info?.setupMs),
    // the page's clock (lab-client timing()): MO `call` sent -> answer (setupMs), -> DTLS connected; MT from `incoming`
    page_timing_ms: r.pageTiming ?? null,
    // the gateway's clock, step by step (metrics/SetupTimeline via GET /api/v1/calls/{id})
    setup_timeline_ms: (r.info?.setupTimeline ?? r.infoDuring?.setupTimeline)?.stepsMs ?? null,
    // the CPU time the gateway's thread spent in each of those steps (where one thread ran it): wall above CPU here is
    // waiting (a lock, the scheduler, a round trip), not the gateway's work
    setup_timeline_cpu_ms: (r.info?.setupTimeline ?? r.infoDuring?.setupTimeline)?.stepsCpuMs ?? null,
    // the wire's clock, step by step and per party (kit/setup-wire.mjs: gateway, rtpengine, Kamailio, UE, browser)
    wire_timeline: r.callId && sigEvents ? wireTimeline(sigEvents, { callId: r.callId, direction: r.direction, pageSetupMs: r.pageTiming?.setupMs ?? null,
      pageAt: r.pageTiming?.at ?? null, media: mediaEvents, answerSdp: r.answerSdp ?? null }) : null,
    answered_at_s: round(answeredS, 2),
    duration_s: r.answeredAt && r.endedAt ? round((r.endedAt - r.answeredAt) / 1000, 1) : null,
    codec: b.codec ?? null,
    video_codec: b.videoCodec ?? null,
    ice: { local: b.localCandidate ?? null, remote: b.remoteCandidate ?? null },
    totals: {
      packets_sent: b.packetsSent ?? null, packets_received: b.packetsReceived ?? null, packets_lost: b.packetsLost ?? null,
      video_packets_sent: b.videoPacketsSent ?? null, video_packets_received: b.videoPacketsReceived ?? null,
      frames_encoded: b.framesEncoded ?? null, frames_decoded: b.framesDecoded ?? null,
    },
    // medians over the call from SETTLE_S s after the answer on; loss: received stream, both link crossings
    summary: {
      rtt_ms: round(median(pick('rtt_ms'))), ice_rtt_ms: round(median(pick('ice_rtt_ms'))), jitter_ms: round(median(pick('jitter_ms')), 2),
      loss_pct: round(mean(pick('loss_pct')), 2), concealed_pct: round(mean(pick('concealed_pct')), 2),
      jitter_buffer_ms: round(median(pick('jitter_buffer_ms'))),
      kbps_sent: round(median(pick('kbps_sent'))), kbps_received: round(median(pick('kbps_received'))),
      video_kbps_sent: round(median(pick('video_kbps_sent'))), video_kbps_received: round(median(pick('video_kbps_received'))),
      sent_height: median(pick('sent_height')), received_height: median(pick('received_height')),
      frames_sent_per_s: round(median(pick('frames_sent_per_s'))),
    },
    link_loss: linkLoss,
    relay_delay: { audio, video },
    series,
    ue: r.ue ? { exit_code: r.ue.code, log: path.relative(outDir(), r.ue.logFile) } : null,
  };
}

// Media up by rtpengine's log, per MO call (kit/setup-timeline.mjs rtpengineMediaUp): ms from the gateway's receipt of
// rtpengine's ng `answer` reply (its set-up timeline's ng_answer_reply mark) to rtpengine's log lines "ICE negotiated"
// and "DTLS-SRTP successfully negotiated" (the handshake's end
// on the relay; free of the page's event delivery, which lags it by tens of ms on a loaded host: docs/media.md "Which
// role toward an actpass browser"). The gateway's ng call-ids are gw<SIP port>-<Call-ID> (media/RtpEngineClient).
async function mediaUpAtRtpengine(sinceMs) {
  try {
    const t = summarizeTimelines(await fetchTimelines(gatewayUrl(), sinceMs - 1000), 'mo');
    return rtpengineMediaUp(path.join(logDir(), 'rtpengine.log'), t.per_call, `gw${LAB.LAB_GW_SIP_PORT}-`);
  } catch (e) {
    return { error: `no set-up timeline from the gateway: ${e.message}` };
  }
}

function summarize(report) {
  const calls = report.calls;
  const ok = calls.filter((c) => c.ok);
  const med = (f) => round(median(ok.map(f)), 2);
  return {
    calls: calls.length, ok: ok.length, failed: calls.length - ok.length,
    setup_ms_median: med((c) => c.setup_ms), setup_ms_max: round(Math.max(...ok.map((c) => c.setup_ms ?? 0)), 1),
    // issue #26's figures, the page's clock, per direction: MO `call` sent -> answer at the page; offer -> DTLS connected
    page_timing_median_ms: Object.fromEntries(['mo', 'mt'].map((d) => {
      const of = ok.filter((c) => c.direction === d);
      const m = (k) => round(median(of.map((c) => c.page_timing_ms?.[k]).filter((v) => typeof v === 'number')), 1);
      return [d, of.length ? { calls: of.length, setup: m('setupMs'), answer: m('answerMs'),
        incoming_to_answer_call: m('incomingToAnswerCallMs'), answer_prepare: m('answerPrepareMs'), offer_to_ice_connected: m('offerToIceConnectedMs'),
        offer_to_connected: m('offerToConnectedMs'), answer_to_connected: m('answerToConnectedMs'),
        offer_to_pc_connected: m('offerToPcConnectedMs'), answer_to_pc_connected: m('answerToPcConnectedMs') } : null];
    })),
    // the wire's steps (kit/setup-wire.mjs), medians per direction: each step and each party's sum
    wire_timeline_median_ms: Object.fromEntries(['mo', 'mt'].map((d) => {
      const of = ok.map((c) => c.wire_timeline).filter((w) => w?.direction === d);
      if (!of.length) return [d, null];
      const m = (get) => round(median(of.map(get).filter((v) => typeof v === 'number')), 2);
      return [d, { calls: of.length, steps: Object.fromEntries(Object.keys(of[0].steps_ms).map((k) => [k, m((w) => w.steps_ms[k])])),
        by_owner: Object.fromEntries(Object.keys(of[0].by_owner_ms).map((k) => [k, m((w) => w.by_owner_ms[k])])), wire: m((w) => w.wire_ms),
        ...(of[0].ringing_ms ? { ringing: Object.fromEntries(Object.keys(of[0].ringing_ms).map((k) => [k, m((w) => w.ringing_ms?.[k])])) } : {}) }];
    })),
    // after an MO answer, to the page's DTLS connected (kit/setup-wire.mjs media_up_ms): medians of each step
    mo_media_up_median_ms: (() => {
      const of = ok.map((c) => c.wire_timeline?.media_up_ms).filter(Boolean);
      if (!of.length) return null;
      const keys = Object.keys(of[0]).filter((k) => k !== 'first_dtls_from');
      return { calls: of.length, ...Object.fromEntries(keys.map((k) => [k, round(median(of.map((x) => x[k]).filter((v) => typeof v === 'number')), 2)])),
        first_dtls_from: [...new Set(of.map((x) => x.first_dtls_from))].join('/') };
    })(),
    rtt_ms_median: med((c) => c.summary.rtt_ms), ice_rtt_ms_median: med((c) => c.summary.ice_rtt_ms), jitter_ms_median: med((c) => c.summary.jitter_ms),
    loss_pct_received_mean: round(mean(ok.map((c) => c.summary.loss_pct)), 2),
    link_loss_up_pct_mean: round(mean(ok.map((c) => c.link_loss.up_pct)), 2),
    link_loss_down_pct_mean: round(mean(ok.map((c) => c.link_loss.down_pct)), 2),
    concealed_pct_mean: round(mean(ok.map((c) => c.summary.concealed_pct)), 2),
    relay_delay_ms: {
      to_ims: report.relay.to_ims?.delay_ms ?? null,
      to_browser: report.relay.to_browser?.delay_ms ?? null,
    },
    relay_loss_pct: { to_ims: report.relay.to_ims?.loss_pct ?? null, to_browser: report.relay.to_browser?.loss_pct ?? null },
  };
}

function printSummary(report) {
  const head = ['user', 'dir', 'ok', 'setup ms', 'rtt ms', 'jitter ms', 'loss % (recv)', 'link loss up/down %', 'kbps sent/recv', 'video kbps sent', 'relay p50 →IMS/→browser ms'];
  const rows = report.calls.map((c) => [c.user, c.direction, c.ok ? 'yes' : 'NO', c.setup_ms, c.summary.rtt_ms, c.summary.jitter_ms, c.summary.loss_pct,
    `${c.link_loss.up_pct ?? '-'} / ${c.link_loss.down_pct ?? '-'}`, `${c.summary.kbps_sent ?? '-'} / ${c.summary.kbps_received ?? '-'}`, c.summary.video_kbps_sent,
    `${c.relay_delay.audio.to_ims?.delay_ms?.p50 ?? '-'} / ${c.relay_delay.audio.to_browser?.delay_ms?.p50 ?? '-'}`].map((v) => String(v ?? '-')));
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(width[i])).join('  ');
  console.log(line(head));
  console.log(width.map((w) => '-'.repeat(w)).join('  '));
  rows.forEach((r) => console.log(line(r)));
  const s = report.summary;
  const d = (k) => (report.relay[k]?.delay_ms ? `p50 ${report.relay[k].delay_ms.p50} p99 ${report.relay[k].delay_ms.p99} ms` : 'n/a');
  log(`calls ${s.ok}/${s.calls} ok; setup median ${s.setup_ms_median} ms; RTT median ${s.rtt_ms_median} ms; loss received ${s.loss_pct_received_mean} %, link up ${s.link_loss_up_pct_mean} % down ${s.link_loss_down_pct_mean} %`);
  for (const [d, t] of Object.entries(s.page_timing_median_ms ?? {})) {
    if (t) log(`${d} page timing medians (${t.calls} calls): ${d === 'mo' ? `call -> answer ${t.setup ?? '-'} ms, ` : `incoming -> answer sent ${t.answer ?? '-'} ms (answer() called after ${t.incoming_to_answer_call ?? '-'}, `
        + `the page's answer work ${t.answer_prepare ?? '-'}), `}`
      + `offer -> ICE connected ${t.offer_to_ice_connected ?? '-'} ms, offer -> DTLS connected ${t.offer_to_connected ?? '-'} ms (answer -> connected ${t.answer_to_connected ?? '-'} ms)`
      + `; connectionState 'connected': offer -> ${t.offer_to_pc_connected ?? '-'} ms (answer -> ${t.answer_to_pc_connected ?? '-'} ms)`);
  }
  for (const [d, w] of Object.entries(s.wire_timeline_median_ms ?? {})) {
    if (!w) continue;
    log(`${d} set-up on the wire, medians (${w.calls} calls, ms): ${Object.entries(w.steps).map(([k, v]) => `${k} ${v ?? '-'}`).join(', ')}`);
    log(`${d} ... per party: ${Object.entries(w.by_owner).map(([k, v]) => `${k} ${v ?? '-'}`).join(', ')}; wire total ${w.wire ?? '-'}`
      + `${w.ringing ? `; the 180 -> ringing ${w.ringing['180-to-ringing'] ?? '-'}, the 200 waiting behind it ${w.ringing['200-waiting-behind-ringing'] ?? '-'}` : ''}`);
  }
  const mu = s.mo_media_up_median_ms;
  if (mu) log(`mo after the answer, medians (${mu.calls} calls, ms): ${Object.entries(mu).filter(([k]) => k !== 'calls').map(([k, v]) => `${k} ${v ?? '-'}`).join(', ')}`);
  const up = report.media_up_at_rtpengine;
  log(up?.error ? `mo media up at rtpengine: ${up.error}`
    : `mo media up at rtpengine (${up?.calls ?? 0} calls), ng answer reply at the gateway -> ICE negotiated p50 ${up?.ice?.p50 ?? '-'} ms, -> DTLS-SRTP negotiated p50 ${up?.dtls?.p50 ?? '-'} ms (max ${up?.dtls?.max ?? '-'})`);
  log(`host: ${hostSpeedText(report.host)}`);
  log(`relay delay (all calls): to_ims ${d('to_ims')}, to_browser ${d('to_browser')}; cpu % of a core: rtpengine ${report.cpu.rtpengine_pct}, gateway ${report.cpu.gateway_pct}, browser ${report.cpu.browser_pct ?? 'n/a'}`);
}

async function cleanup() {
  cpu?.stop();
  if (echo) signalProc(echo, 'SIGTERM');
  await cap?.stop().catch(() => {});
  await sigCap?.stop().catch(() => {});
  await link?.stop().catch(() => {});
  await browser?.close().catch(() => {});
}

let opts;
try {
  opts = parseOptions(process.argv.slice(2));
} catch (e) {
  console.error(`scenario: ${e.message}`);
  process.exit(2);
}
if (opts.check) {
  console.log(`${opts.name}: ${opts.browsers} page(s), ${opts.duration} s, link: ${opts.impairment?.text ?? 'not impaired'}`);
  process.exit(0);
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    console.error(`scenario: interrupted (${sig})`);
    await cleanup();
    process.exit(130);
  });
}
main(opts).catch(async (e) => {
  console.error(`scenario: ${e.message}`);
  await cleanup();
  process.exit(1);
});
