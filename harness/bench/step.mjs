// One measured step: N calls of a profile through the running rtpengine, captured on lo,
// CPU sampled every second, then matched packet by packet with delaymeter.
//   capture (tcpdump) -> traffic (loadgen: DTLS-SRTP, plain RTP or transcoded, per profile) -> CPU sampler
//   -> stop capture -> delaymeter --json --csv [--call-ports, transcoded] -> analysis
import fs from 'node:fs';
import path from 'node:path';
import { startCpuSampler } from '../kit/cpu.mjs';
import { cpuAverage, cpuSeries, delayCdf, DIRS, fullLoadWindow, hostBusyPct, hostCpu, readDelayCsv, throughput } from './analyze.mjs';
import { lastLine, sleep, start, stop, waitFor } from '../kit/procs.mjs';
import { LAB } from '../kit/addresses.mjs';

export const RELAY_PORTS = '30000-30999';
export const FAR_PORT_BASE = Number(LAB.LAB_BENCH_FAR_PORT_BASE); // far end of call i: base + 2i, what delaymeter calls IMS
export const IMS_PORTS = LAB.LAB_BENCH_IMS_PORTS;
// MT: the caller holds each call this much longer than loadgen sends (loadgen --hangup-wait is 5 s)
export const MT_CALLER_EXTRA_MS = 2000;

// How the traffic of a step is paced: all calls are up within `ramp` seconds and then overlap
// for the full `duration`, so the full-load window is about `duration` long.
export function pacing(calls, durationS) {
  const cps = Math.min(50, Math.max(10, calls / 5));
  const ramp = (calls - 1) / cps;
  return { cps, ramp_s: ramp, media_s: durationS + ramp, expected_s: Math.ceil(2 * ramp + durationS + 12) };
}

// Pacing whose calls do not tick together: loadgen starts each call's packet clock one frame after its DTLS
// is done, and on --raw that setup takes the same ~21 ms for every call, so calls started a whole number of
// packet periods apart (pacing(): 100 ms at 10 calls/s) send in the same instant every period: one burst
// that rtpengine reads in a few wakeups. Calls through the gateway (or real browsers) start at scattered
// phases. This spacing is pacing()'s rounded to whole periods plus period / calls, so the N calls' clocks sit
// period / N apart (docs/benchmarks.md "Product path": what the aligned raw run did to the ratio).
export function spreadPacing(calls, durationS, pps) {
  const periodMs = 1000 / pps;
  const gapMs = Math.max(1, Math.round(1000 / pacing(calls, durationS).cps / periodMs)) * periodMs + periodMs / calls;
  const ramp = ((calls - 1) * gapMs) / 1000;
  return { cps: 1000 / gapMs, gap_ms: gapMs, phase_step_ms: periodMs / calls, ramp_s: ramp, media_s: durationS + ramp,
    expected_s: Math.ceil(2 * ramp + durationS + 12) };
}

// rtpengine's threads together: run time (ns, exact: the scheduler's sum_exec_runtime) and how often they were
// put on a CPU (wakeups), from /proc/<pid>/task/*/schedstat; null once it is gone.
export function schedOf(pid) {
  let tids;
  try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { return null; }
  let ns = 0, slices = 0;
  for (const t of tids) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').trim().split(/\s+/);
      ns += Number(f[0]); slices += Number(f[2]);
    } catch { /* thread gone */ }
  }
  return { ns, slices };
}

// Over the full-load window: rtpengine's wakeups per second, CPU per wakeup and packets it received per wakeup.
export function wakeupsIn(sched, window, pktsPerS) {
  const inside = window ? sched.filter(([t]) => t / 1000 >= window.from_epoch_s - 0.5 && t / 1000 <= window.to_epoch_s + 0.5) : sched;
  if (inside.length < 2) return null;
  const [ta, a] = inside[0], [tb, b] = inside[inside.length - 1];
  const dt = (tb - ta) / 1000;
  if (!(dt > 0)) return null;
  const perS = (b.slices - a.slices) / dt;
  return { per_s: Math.round(perS), cpu_us_per_wakeup: perS > 0 ? Math.round(((b.ns - a.ns) / 1000 / dt / perS) * 10) / 10 : null,
    packets_in_per_wakeup: perS > 0 ? Math.round((pktsPerS / perS) * 100) / 100 : null,
    basis: '/proc/<rtpengine>/task/*/schedstat over the full-load window (times a thread was put on a CPU)' };
}

// LAB_MEDIA_RELAY_BUILD: another CMake build directory of media-relay (e.g. while the shared one is mid-rebuild).
export function bin(root, name) {
  return path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(root, 'media-relay', 'build'), name, name);
}

// The capture's kernel buffer (KiB) and immediate mode; BENCH_TCPDUMP_BUFFER_KB / BENCH_TCPDUMP_IMMEDIATE=0 change
// them for a measurement of the capture itself (docs/benchmarks.md "The to-IMS p99 tail").
const CAPTURE_BUFFER_KB = String(Number(process.env.BENCH_TCPDUMP_BUFFER_KB) || 16384);
const CAPTURE_IMMEDIATE = process.env.BENCH_TCPDUMP_IMMEDIATE !== '0';

async function startCapture(file, log, relayPorts = RELAY_PORTS) {
  const td = start('tcpdump', 'tcpdump', ['-i', 'lo', '-B', CAPTURE_BUFFER_KB, '--time-stamp-precision=nano', ...(CAPTURE_IMMEDIATE ? ['--immediate-mode'] : []),
    '-s', '128', '-w', file, `udp portrange ${relayPorts}`], { log });
  for (let i = 0; i < 50; i += 1) {
    if (/listening on/.test(td.tail())) return td;
    if (await waitFor(td, 100)) break;
  }
  await stop(td, 'SIGKILL', 1000);
  throw new Error(`tcpdump did not start: ${lastLine(td.tail()) || 'no output'}`);
}

// loadgen takes the browser leg from the profile: A-RTP plain RTP/AVP, the others DTLS-SRTP;
// A-SRTP-transcode sends real Opus and rtpengine transcodes to `imsCodec` (PCMA or AMR-WB) toward IMS.
// gateway = {url, usersFile, to} (usersFile: setup-rate.mjs credentialsFile): the calls go through the gateway's browser API instead of ng
// (MO: the far end is the SIPp UE `to`, which echoes); else raw ng with loadgen's own echoing far end.
// gateway.access = 'sip-ws': the same calls as a WIC using Gm (loadgen --access sip-ws, docs/loadgen.md).
// gateway = {url, usersFile, answer: true}: MT, loadgen answers the `calls` calls a SIPp UAC places
// to `user` (see mtCaller), sends for mediaS, then waits for the caller's BYE (the caller holds 2 s
// longer: as on MO, the side that ends the call has stopped sending, so no packet meets a deleted call).
function loadgenArgs({ calls, cps, mediaS, profile, imsCodec, rtpenginePid, json, gateway, farPortBase, farAddr }) {
  const prof = ['--profile', profile.name, '--profiles', profile.file, '--relay-pid', String(rtpenginePid), '--json', json];
  const common = ['--calls', String(calls), '--cps', String(cps), '--duration', String(mediaS), ...prof];
  // the login from a users file (mode 0600): a password on the command line would show in ps
  // gateway.access 'sip-ws': SIP over WebSocket to the eP-CSCF, the gateway only issuing the access token
  const login = gateway ? ['--gateway', gateway.url, '--users', gateway.usersFile, ...(gateway.access === 'sip-ws' ? ['--access', 'sip-ws'] : [])] : [];
  if (gateway?.answer) {
    const ramp = (calls - 1) / cps;
    // gateway.hangupWaitS: how long a call waits for the caller's BYE after its media (loadgen's default 5 s)
    return [...login, '--answer', '--expect-calls', String(calls), '--duration', String(mediaS),
      ...(gateway.hangupWaitS ? ['--hangup-wait', String(gateway.hangupWaitS)] : []),
      '--timeout', String(Math.ceil(ramp + mediaS + 90)), ...prof];
  }
  if (gateway) return [...login, '--to', gateway.to, ...common];
  // farAddr: an external far end (a SIPp UE's -rtp_echo) instead of loadgen's own
  const far = farAddr ? ['--far-addr', farAddr] : ['--far', 'echo', '--far-port-base', String(farPortBase)];
  return ['--raw', ...common, ...(imsCodec ? ['--ims-codec', imsCodec] : []), ...far];
}

// rtpengine's two ports of each call, "BROWSER IMS" a line: delaymeter maps a re-encoded stream's new
// SSRC back to its source with them (docs/delaymeter.md "Transcoded streams").
function writeCallPorts(file, lg) {
  const lines = (lg?.calls ?? []).filter((c) => c.relay_browser_port && c.relay_ims_port).map((c) => `${c.relay_browser_port} ${c.relay_ims_port}`);
  fs.writeFileSync(file, `# rtpengine browser-side port, IMS-side port (loadgen.json calls[])\n${lines.join('\n')}\n`);
  return lines.length;
}

const uniq = (xs) => [...new Set(xs.filter(Boolean))];

// report.json `media`: what each leg carried, as loadgen configured it and as rtpengine's SDPs said.
function mediaSummary(lg, dmJson) {
  if (!lg?.media) return null;
  const calls = lg.calls ?? [];
  const t = lg.totals ?? {};
  return {
    browser_leg: { ...lg.media.browser_leg, sdp_codecs_seen: uniq(calls.map((c) => c.browser_sdp_codec)) },
    ims_leg: { ...lg.media.ims_leg, sdp_codecs_seen: uniq(calls.map((c) => c.ims_sdp_codec)),
      // far end: packets that were not one repeated byte (PCMA silence is 0xD5): rtpengine decoded our Opus
      voiced_pct: t.far_rx ? Math.round((1000 * (t.far_voiced ?? 0)) / t.far_rx) / 10 : null },
    pairing: dmJson?.pairing ?? null,
  };
}

// measureStep(opts) -> step result (see report fields in bench.mjs). Throws only on tool failures
// that leave nothing to measure (capture or delaymeter could not run).
// gateway: see loadgenArgs. procs: more processes whose CPU is sampled ([{name, pid}], e.g. the gateway,
// Kamailio and the SIPp UE of a gateway run). farPortBase/imsPorts: where loadgen's own far end binds
// (raw) and which far-end ports delaymeter counts as IMS (a SIPp UE's echo port must be inside); farAddr:
// raw with an external far end instead (host:port of a SIPp UE that echoes).
// MT (gateway.answer): once loadgen is logged in and answering, mtCaller(cps, holdMs) starts the
// calling UE (a process; its CPU is sampled under its name, its exit code must be 0).
// pace: {cps, ramp_s, media_s} instead of pacing(calls, durationS) (bench sipp: the caller's own rate and
// hold); relayPorts: rtpengine's port range to capture (a wider range for many calls at once);
// answerReadyS: how long loadgen --answer may take to log its users in (many users: longer); waitS: how long
// the traffic may take before it is stopped (default ramp + media + 40 s).
export async function measureStep({ root, dir, logDir, profile, calls, durationS, rtpenginePid, progress, progressEvery = 1, keepCapture = true, imsCodec = null,
  gateway = null, procs = [], farPortBase = FAR_PORT_BASE, farAddr = null, imsPorts = IMS_PORTS, mtCaller = null, pace: paceIn = null, relayPorts = RELAY_PORTS, answerReadyS = 20, waitS = null }) {
  fs.mkdirSync(dir, { recursive: true });
  const log = (n) => path.join(logDir, `${path.basename(dir)}-${n}.log`);
  const pcap = path.join(dir, 'relay.pcap');
  const csvFile = path.join(dir, 'delays.csv');
  const lgJson = path.join(dir, 'loadgen.json');
  const pace = paceIn ?? pacing(calls, durationS);
  const transcoded = Boolean(profile.ims_codec);
  const errors = [];

  const td = await startCapture(pcap, log('tcpdump'), relayPorts);
  // Traffic first, then the sampler: it reads its process list (pids file) once, at start.
  let n = 0;
  let answering = false;
  const traffic = [start('loadgen', bin(root, 'loadgen'), loadgenArgs({ calls, cps: pace.cps, mediaS: pace.media_s, profile, imsCodec, rtpenginePid, json: lgJson, gateway, farPortBase, farAddr }), {
    log: log('loadgen'),
    onLine: (l) => {
      if (/answering incoming calls/.test(l)) answering = true;
      if (!/^\[\s*\d+s\]/.test(l) || (n++ % progressEvery) === 0) progress(`  loadgen ${l}`);
    },
  })];
  if (gateway?.answer) {
    // The caller may only start once the gateway has the user's session (else 480 Temporarily Unavailable).
    // (the tail too: a stderr chunk boundary can split the line onLine sees)
    const ready = () => answering || /answering incoming calls/.test(traffic[0].tail());
    for (let i = 0; i < answerReadyS * 10 && !ready(); i += 1) if (await waitFor(traffic[0], 100)) break;
    answering = ready();
    if (!answering) {
      await stop(traffic[0]);
      await stop(td, 'SIGKILL', 1000);
      throw new Error(`loadgen --answer did not log in: ${lastLine(traffic[0].tail()) || 'no output'}`);
    }
    traffic.push(mtCaller(pace.cps, Math.round(pace.media_s * 1000) + MT_CALLER_EXTRA_MS));
    // A caller that fails (e.g. its REGISTER) leaves loadgen waiting for calls that never come: stop it
    // 20 s later (time to finish on its own when only some calls failed; it still hangs up what it has and
    // writes its report; 30 s grace: with many users it logs out each before it writes the report).
    traffic[1].done.then(({ code }) => { if (code !== 0) setTimeout(() => { void stop(traffic[0], 'SIGTERM', 30000); }, 20000).unref(); });
  }
  const pidsFile = path.join(dir, 'pids');
  fs.writeFileSync(pidsFile, [`rtpengine ${rtpenginePid}`, `tcpdump ${td.pid}`, ...traffic.map((p) => `${p.name} ${p.pid}`), ...procs.map((p) => `${p.name} ${p.pid}`)].join('\n') + '\n');
  const samples = [];
  const sched = [];
  const sampler = startCpuSampler({ pidsFile, onSample: (t, secs) => { samples.push([t, secs]); const w = schedOf(rtpenginePid); if (w) sched.push([t, w]); } });
  const host0 = hostCpu();

  const bound = (waitS ?? pace.ramp_s + pace.media_s + 40) * 1000;
  const exits = [];
  for (const p of traffic) {
    let res = await waitFor(p, bound);
    if (!res) { errors.push(`${p.name} did not finish in ${Math.round(bound / 1000)} s: stopped`); res = await stop(p, 'SIGTERM', 30000); }
    exits.push(res.code ?? 128);
  }
  traffic.slice(1).forEach((p, i) => { if (exits[i + 1] !== 0) errors.push(`${p.name} exited ${exits[i + 1]}: ${lastLine(p.tail())}`); });
  sampler.stop();
  const hostPct = hostBusyPct(host0, hostCpu());
  // immediate mode: the last packets are in the file within a few ms; keep a margin. Without it the kernel
  // ring is read in blocks retired every second (docs/delaymeter.md "Capturing"): wait them out.
  await sleep(CAPTURE_IMMEDIATE ? 500 : 2000);
  await stop(td, 'SIGINT', 5000);
  const dropped = Number((td.tail().match(/(\d+) packets? dropped by kernel/) ?? [])[1] ?? NaN);
  const captured = Number((td.tail().match(/(\d+) packets? captured/) ?? [])[1] ?? NaN);

  // What the generator says (setup, its own loss view).
  let lg = null;
  try { lg = JSON.parse(fs.readFileSync(lgJson, 'utf8')); } catch { lg = null; }
  if (exits[0] !== 0) errors.push(`loadgen exited ${exits[0]}: ${lastLine(traffic[0].tail())}`);
  if (!lg) errors.push('loadgen wrote no JSON report');
  if (dropped > 0) errors.push(`tcpdump dropped ${dropped} packets: loss figures are overstated`);

  const dmArgs = ['--ims-ports', imsPorts, '--relay-ports', relayPorts, '--json', '--csv', csvFile];
  if (transcoded) {
    const portsFile = path.join(dir, 'call-ports.txt');
    if (writeCallPorts(portsFile, lg) < calls) errors.push(`loadgen reported rtpengine's ports for fewer than ${calls} calls: their streams cannot be paired`);
    dmArgs.push('--call-ports', portsFile);
  }
  const dm = start('delaymeter', bin(root, 'delaymeter'), [...dmArgs, pcap],
    { log: log('delaymeter'), stdoutFile: path.join(dir, 'delaymeter.json') });
  const dmExit = (await waitFor(dm, 120000)) ?? (await stop(dm, 'SIGKILL'));
  let dmJson = null;
  try { dmJson = JSON.parse(fs.readFileSync(path.join(dir, 'delaymeter.json'), 'utf8')); } catch { /* below */ }
  if (!dmJson) throw new Error(`delaymeter failed (exit ${dmExit.code}): ${lastLine(dm.tail()) || 'no output'}`);

  const csv = fs.existsSync(csvFile) ? readDelayCsv(csvFile) : { to_ims: { t: [], d: [] }, to_browser: { t: [], d: [] } };
  const tp = throughput(csv);
  const window = fullLoadWindow(tp, calls, profile.pps);
  const names = ['rtpengine', 'loadgen', 'tcpdump', ...traffic.slice(1).map((p) => p.name), ...procs.map((p) => p.name)];
  const full = cpuAverage(samples, names, window);
  const whole = cpuAverage(samples, names, null);
  const t0 = tp.t0_epoch_s ?? (samples[0]?.[0] ?? 0) / 1000;
  const series = cpuSeries(samples, names).map((s) => ({ ...s, t_s: Math.round((s.t_epoch_s - t0) * 10) / 10 }));
  if (!keepCapture) { fs.rmSync(pcap, { force: true }); fs.rmSync(csvFile, { force: true }); }

  const d = dmJson.directions ?? {};
  const delay = {}, loss = {}, matched = {}, lost = {}, reordered = {}, dups = {}, held = {}, inFlight = {}, tsMismatch = {}, seqShift = {};
  for (const k of DIRS) {
    const x = d[k] ?? {};
    delay[k] = x.delay_ms ? { p50: x.delay_ms.p50, p95: x.delay_ms.p95, p99: x.delay_ms.p99, max: x.delay_ms.max, mean: x.delay_ms.mean } : null;
    loss[k] = x.matched || x.lost ? x.loss_pct : null;
    matched[k] = x.matched ?? 0; lost[k] = x.lost ?? 0; reordered[k] = x.reordered ?? 0; dups[k] = x.duplicates ?? 0;
    held[k] = x.held_at_end ?? 0; inFlight[k] = x.in_flight_at_end ?? 0; tsMismatch[k] = x.ts_mismatch ?? 0; seqShift[k] = x.seq_shift ?? 0;
    if (!x.matched) errors.push(`no ${k} packets were matched in the capture`);
    // seq pairing of a re-encoded stream is only right if the pairs carry the same media time
    if (x.ts_mismatch > 0) errors.push(`${x.ts_mismatch} ${k} pairs do not carry the same media time (RTP timestamps): the relay renumbered packets`);
  }
  const rtpPct = full.rtpengine;
  return {
    calls, duration_s: durationS, cps: pace.cps, media_s_per_call: Math.round(pace.media_s * 100) / 100,
    ok: errors.length === 0,
    errors,
    delay_ms: delay, loss_pct: loss,
    packets: { matched, lost, reordered, duplicates: dups, held_at_end: held, in_flight_at_end: inFlight, ts_mismatch: tsMismatch, seq_shift: seqShift, capture: dmJson.packets, tcpdump_captured: captured, tcpdump_dropped: dropped },
    media: mediaSummary(lg, dmJson),
    cpu: {
      rtpengine_pct: rtpPct, loadgen_pct: full.loadgen, tcpdump_pct: full.tcpdump,
      ...Object.fromEntries(names.slice(3).map((nm) => [`${nm}_pct`, full[nm] ?? null])),
      rtpengine_pct_per_call: rtpPct == null ? null : Math.round((rtpPct / calls) * 1000) / 1000,
      loadgen_pct_per_call: full.loadgen == null ? null : Math.round((full.loadgen / calls) * 1000) / 1000,
      // every sampled process, % of one core per call over the full-load window
      per_call: Object.fromEntries(names.map((n) => [n, full[n] == null ? null : Math.round((full[n] / calls) * 1000) / 1000])),
      relay_cores_used: rtpPct == null ? null : Math.round(rtpPct) / 100,
      // how the packets met rtpengine: its CPU follows its wakeups more than its packets (docs/benchmarks.md)
      rtpengine_wakeups: wakeupsIn(sched, window, 2 * calls * profile.pps),
      window: window ? { ...window, seconds: window.to_epoch_s - window.from_epoch_s, basis: 'every call sending (capture)' } : { basis: 'whole run (no full-load second found)' },
      whole_run: whole,
      // everything else on this shared machine during the step (other jobs): explains noisy tails
      host_busy_pct: hostPct,
      other_pct: hostPct == null ? null : Math.max(0, Math.round((hostPct - names.reduce((t, n) => t + (whole[n] ?? 0), 0)) * 100) / 100),
      loadgen_view_relay_pct: lg?.cpu?.relay?.pct_of_one_core ?? null,
    },
    cpu_series: series,
    throughput_pps: tp,
    delay_cdf: Object.fromEntries(DIRS.map((k) => [k, delayCdf(csv[k].d)])),
    setup_ms: lg?.setup_ms ?? null,
    generator: lg && { tool: 'loadgen', exit_code: exits[0], totals: lg.totals, phases_ms: lg.phases_ms, rtt_ms: lg.rtt_ms, cpu: lg.cpu },
  };
}
