#!/usr/bin/env node
// ./lab bench orchestrator (runs inside the lab's network namespace, rtpengine already up):
//   <profile> [--calls N] [--duration S]              one measured run
//   capacity <profile> [--max N] [--duration S]       sweep N up to the last passing step
//   setup-rate [--cps-steps 1,5,10,20] [--calls-per-step N]   through the gateway
//   setup-rate --sustained [--cps-steps ...] [--hold S] [--step-seconds S] [--quick] [--perf|--no-perf]
//                                                     constant rate per step, knee, SIP-only beside it, JFR
//   gateway <profile> [--calls N] [--duration S] [--warmup W] [--access gateway|sip-ws|both]
//                                                     the product path (MO and MT) beside --raw, in one run; with
//                                                     --access sip-ws (= both) also SIP over WebSocket to the eP-CSCF
//   registrations [--users N] [--minutes M] [--expires S] [--concurrency C]
//                                                     N users logged in and registered, refreshes running
//   sipp [--cps R] [--calls N] [--users U] [--volte] [--hold S]
//                                                     SIPp calls U browser users (loadgen --answer) at R/s (sipp.mjs)
//   datachannel [--calls N] [--channels C] [--rate R] [--size B] [--duration S]
//                                                     messages through the data-channel endpoint (datachannel.mjs)
// `--check ARGS` only validates and prints `name= mode= expected_s= cap_s=` (registrations also `users=
// expires= load_args=`) for harness/lib/bench.sh.
// Writes <out>/report.json + report.html and prints a summary table. Exit 0 ok, 1 failed, 2 usage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { machine, referenceRatios } from './analyze.mjs';
import { renderBenchHtml } from './html.mjs';
import { sleep, start, stopAll } from '../kit/procs.mjs';
import { writeReport } from '../kit/report.mjs';
import { credentialsFile, pct, readRtt, setupStep, setupStepSeconds } from './setup-rate.mjs';
import { SUSTAINED_PERF_DEFAULT, runSustained, sustainedPlan } from './sustained.mjs';
import { gatewayLoadArgs, registrationsPlan, runRegistrations } from './registrations.mjs';
import { measureStep, pacing, spreadPacing } from './step.mjs';
import { datachannelParse, runDatachannel } from './datachannel.mjs';
import { fetchTimelines, rtpengineMediaUp, summarizeTimelines, timelineLines } from '../kit/setup-timeline.mjs';
import { runSipp, sippGatewayArgs, sippParse } from './sipp.mjs';
import { accessComparison, accessLines } from './access.mjs';

const ROOT = process.env.LAB_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// The shared input next to the repo, else the copy kept in media-relay/bench/ (a clone placed elsewhere).
const SHARED_PROFILES = path.resolve(ROOT, '..', 'shared', 'bench', 'profiles.json');
const PROFILES = process.env.BENCH_PROFILES
  ?? (fs.existsSync(SHARED_PROFILES) ? SHARED_PROFILES : path.join(ROOT, 'media-relay', 'bench', 'profiles.json'));
const CAPACITY_STEPS = [10, 25, 50, 100, 150, 200, 250, 300];
// video profiles carry 6-10x the packets of audio: finer steps where their capacity lies
const CAPACITY_STEPS_VIDEO = [5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100];
const CRITERION = { loss_pct: 0.1, p99_ms: 5 };
// Transcoding (rtpengine 10.5): the re-encoded stream leaves on rtpengine's own 20 ms media clock, one
// frame behind (resampler + packetiser) plus the send timer's phase, so even one call has p50 30-40 ms.
// The 5 ms budget then applies on top of three frame times (docs/benchmarks.md "Capacity criterion").
const CRITERION_TRANSCODE = { loss_pct: 0.1, p99_ms: 65 };
const IMS_CODECS = ['PCMA', 'AMR-WB']; // what loadgen --ims-codec can force (docs/loadgen.md)
const criterionFor = (profile) => (profile.ims_codec ? CRITERION_TRANSCODE : CRITERION);
const MAX_CALLS = 300; // rtpengine's 30000-30999 holds ~300 calls (docs/architecture.md)
// bench gateway's warm-up (issue #26): before each measured leg (MO, MT) W calls through the same path, WARMUP_CPS
// a second, each held WARMUP_HOLD_S (so about WARMUP_CPS calls at once, whatever W), their set-up timeline reported
// apart as the fresh gateway's cold calls. A fresh JVM runs its
// first calls' code interpreted (docs/benchmarks.md "Cold and warm"): without it the ten measured calls would
// measure the JIT's start, not what the gateway adds to a call.
const WARMUP_CALLS = 300;
const WARMUP_HOLD_S = 1;
const WARMUP_CPS = 20;
const warmupPace = (calls) => ({ cps: WARMUP_CPS, ramp_s: (calls - 1) / WARMUP_CPS, media_s: WARMUP_HOLD_S });

class UsageError extends Error {}
const usage = (m) => { throw new UsageError(m); };
const progress = (m) => console.log(`[bench ${new Date().toTimeString().slice(0, 8)}] ${m}`);

function int(opt, v, lo, hi) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < lo || n > hi) usage(`${opt} wants a whole number in ${lo}..${hi}, not '${v ?? ''}'`);
  return n;
}

function loadProfiles() {
  try { return JSON.parse(fs.readFileSync(PROFILES, 'utf8')).profiles; } catch (e) { usage(`cannot read the traffic profiles ${PROFILES}: ${e.message}`); }
  return null;
}

// parse(argv) -> {mode, name, profile?, calls?, durationS, steps?, expected_s}
export function parse(argv) {
  const [first, ...rest] = argv;
  if (!first) usage('bench needs a profile, "capacity <profile>", "gateway <profile>", "setup-rate [--sustained]", "registrations", "sipp" or "datachannel"');
  const opts = {};
  const take = (allowed) => {
    for (let i = 0; i < rest.length; i += 1) {
      const a = rest[i];
      const [k, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
      if (!allowed.includes(k)) usage(`unknown option for bench ${first}: ${a}`);
      const v = inline ?? rest[++i];
      if (v == null) usage(`${k} needs a value`);
      opts[k] = v;
    }
  };
  const profiles = loadProfiles();
  const needProfile = (name, forWhat) => {
    if (!name || name.startsWith('--')) usage(`${forWhat} needs a profile: ${Object.keys(profiles).join(', ')}`);
    if (!profiles[name]) usage(`unknown profile '${name}' (profiles: ${Object.keys(profiles).join(', ')})`);
    return { name, file: PROFILES, ...profiles[name] };
  };
  // --ims-codec only for a transcoding profile; default PCMA (stock libavcodec encodes it)
  const imsCodecOf = (profile) => {
    const c = opts['--ims-codec'];
    if (c == null) return profile.ims_codec ? 'PCMA' : null;
    if (!profile.ims_codec) usage(`--ims-codec: profile ${profile.name} does not transcode (A-SRTP-transcode does)`);
    if (!IMS_CODECS.includes(c)) usage(`--ims-codec wants one of ${IMS_CODECS.join(', ')}, not '${c}'`);
    return c;
  };
  if (first === 'setup-rate' && rest.includes('--sustained')) {
    rest.splice(rest.indexOf('--sustained'), 1);
    const quick = rest.includes('--quick');
    if (quick) rest.splice(rest.indexOf('--quick'), 1);
    // --perf / --no-perf: Linux perf record of loadgen, rtpengine and Kamailio per gateway step (perf.mjs)
    const perfFlag = ['--perf', '--no-perf'].filter((f) => rest.includes(f));
    if (perfFlag.length > 1) usage('--perf and --no-perf exclude each other');
    for (const f of perfFlag) rest.splice(rest.indexOf(f), 1);
    const perf = perfFlag.length ? perfFlag[0] === '--perf' : SUSTAINED_PERF_DEFAULT;
    take(['--cps-steps', '--hold', '--step-seconds', '--threads']);
    const d = quick ? { steps: '5,10', hold: 3, secs: 20 } : { steps: '10,25,50,100,150,200', hold: 5, secs: 60 };
    const steps = (opts['--cps-steps'] ?? d.steps).split(',').map((v) => int('--cps-steps', v.trim(), 1, 500));
    const holdS = int('--hold', opts['--hold'] ?? d.hold, 1, 60);
    const stepS = int('--step-seconds', opts['--step-seconds'] ?? d.secs, 5, 600);
    // loadgen engine threads (one user's WebSocket each): by default half the cores (1 on a 2-core machine, at
    // most 4): the generator shares the host with what it measures (on 2 cores, 2 threads took the gateway's
    // and rtpengine's CPU: p95 915 ms at 50 calls/s against 396 ms with 1, docs/benchmarks.md)
    const cores = os.cpus().length;
    const threads = int('--threads', opts['--threads'] ?? Math.max(1, Math.min(4, Math.floor(cores / 2))), 1, Math.min(4, cores));
    return { mode: 'setup-sustained', name: 'setup-rate-sustained', steps, holdS, stepS, threads, quick, perf, expected_s: sustainedPlan(steps, stepS, holdS).expected_s };
  }
  if (first === 'registrations') {
    take(['--users', '--minutes', '--expires', '--concurrency']);
    const users = int('--users', opts['--users'] ?? 100, 1, 20000);
    const minutes = int('--minutes', opts['--minutes'] ?? 1, 1, 60);
    // 60 s: the gateway refreshes every 48 s, so a 5-minute hold sees every binding refreshed about 6 times
    const expires = int('--expires', opts['--expires'] ?? 60, 10, 3600);
    const concurrency = int('--concurrency', opts['--concurrency'] ?? 20, 1, 200);
    return { mode: 'registrations', name: 'registrations', users, minutes, expires, concurrency,
      expected_s: registrationsPlan(users, minutes, concurrency).expected_s };
  }
  if (first === 'datachannel') return datachannelParse(rest, { int, usage, take, opts });
  if (first === 'sipp') return { ...sippParse(rest, { int, usage }), profile: needProfile('A-SRTP', 'bench sipp') };
  if (first === 'gateway') {
    const profile = needProfile(rest.shift(), 'bench gateway');
    if (profile.browser_leg === 'RTP/AVP' || profile.ims_codec) usage(`bench gateway: profile ${profile.name} is not relayed by the gateway as loadgen plays it (DTLS-SRTP, no transcoding: A-SRTP, SD-SRTP, HD-SRTP)`);
    take(['--calls', '--duration', '--access', '--warmup']);
    const calls = int('--calls', opts['--calls'] ?? 10, 1, MAX_CALLS);
    const durationS = int('--duration', opts['--duration'] ?? 20, 1, 600);
    // W calls each way before the measured ones, through the same path, reported apart (0: none)
    const warmup = int('--warmup', opts['--warmup'] ?? WARMUP_CALLS, 0, MAX_CALLS);
    // --access sip-ws: the SIP-over-WebSocket legs (a WIC using Gm: loadgen --access sip-ws -> the eP-CSCF) are
    // measured beside the gateway's, never instead of them: the comparison is the point ("both" says the same)
    const access = opts['--access'] ?? 'gateway';
    if (!['gateway', 'sip-ws', 'both'].includes(access)) usage(`--access wants gateway, sip-ws or both, not '${access}'`);
    const sipWs = access !== 'gateway';
    // the raw run, the gateway MO and MT runs (and the SIP-over-WebSocket MO and MT runs), one after the other
    return { mode: 'gateway', name: `gateway-${profile.name}${sipWs ? '-sip-ws' : ''}`, profile, calls, durationS, sipWs, warmup,
      expected_s: (sipWs ? 5 : 3) * pacing(calls, durationS).expected_s + (sipWs ? 50 : 35)
        + (warmup ? 2 * Math.ceil(warmupPace(warmup).ramp_s + WARMUP_HOLD_S + 15) : 0) };
  }
  if (first === 'setup-rate') {
    take(['--cps-steps', '--calls-per-step']);
    const steps = (opts['--cps-steps'] ?? '1,5,10,20').split(',').map((s) => int('--cps-steps', s.trim(), 1, 200));
    const calls = int('--calls-per-step', opts['--calls-per-step'] ?? 20, 1, 300);
    const expected = steps.reduce((t, c) => t + setupStepSeconds(calls, c) + 3, 0);
    return { mode: 'setup-rate', name: 'setup-rate', steps, callsPerStep: calls, expected_s: expected };
  }
  if (first === 'capacity') {
    const profile = needProfile(rest.shift(), 'bench capacity');
    take(['--max', '--duration', '--ims-codec']);
    const imsCodec = imsCodecOf(profile);
    const durationS = int('--duration', opts['--duration'] ?? 10, 3, 600);
    // video (6-10x the packets) and transcoding (a decode + encode per packet) hold far fewer calls
    const heavy = profile.pps > 50 || Boolean(profile.ims_codec);
    const max = int('--max', opts['--max'] ?? (heavy ? 100 : MAX_CALLS), 1, MAX_CALLS);
    const steps = (heavy ? CAPACITY_STEPS_VIDEO : CAPACITY_STEPS).filter((n) => n < max).concat([max]);
    const expected = steps.reduce((t, n) => t + pacing(n, durationS).expected_s + 3 + Math.ceil((n * durationS * profile.pps) / 20000), 0);
    return { mode: 'capacity', name: `capacity-${profile.name}`, profile, imsCodec, durationS, steps, expected_s: expected };
  }
  const profile = needProfile(first, 'bench');
  take(['--calls', '--duration', '--ims-codec']);
  const imsCodec = imsCodecOf(profile);
  const calls = int('--calls', opts['--calls'] ?? 1, 1, MAX_CALLS);
  const durationS = int('--duration', opts['--duration'] ?? 10, 1, 3600);
  return { mode: 'profile', name: profile.name, profile, imsCodec, calls, durationS, expected_s: pacing(calls, durationS).expected_s + 5 };
}

function baseReport(run) {
  return { tool: 'lab bench', name: run.name, kind: run.mode, started: new Date().toISOString(), ok: false, errors: [], machine: machine() };
}

function finish(dir, report) {
  report.finished = new Date().toISOString();
  writeReport(dir, report, renderBenchHtml);
}

const col = (v, w) => String(v ?? 'n/a').padStart(w);

async function runProfile(run, ctx) {
  const report = { ...baseReport(run), profile: run.profile.name, calls: run.calls, duration_s: run.durationS };
  const gen = run.profile.browser_leg === 'RTP/AVP' ? `loadgen, plain RTP/AVP, ${run.profile.payload_bytes ?? 120} B payload`
    : run.imsCodec ? `loadgen, DTLS-SRTP, real Opus ${run.profile.payload_bytes ?? 120} B frames, rtpengine transcodes to ${run.imsCodec} toward IMS`
      : `loadgen, DTLS-SRTP, ${run.profile.payload_bytes ?? 120} B payload`;
  progress(`${run.profile.name}: ${run.calls} call(s), ${run.durationS} s at full load, ${run.profile.pps} pps each way (${gen}); expected ~${run.expected_s} s`);
  const step = await measureStep({ root: ROOT, dir: ctx.out, logDir: ctx.logDir, profile: run.profile, imsCodec: run.imsCodec, calls: run.calls, durationS: run.durationS, rtpenginePid: ctx.rtpenginePid, progress });
  Object.assign(report, step, { duration_s: run.durationS });
  const perCall = step.cpu.rtpengine_pct_per_call;
  report.capacity_per_core_est = perCall > 0 ? Math.floor(100 / perCall) : null;
  report.capacity_per_core_basis = '100 % of one core / rtpengine % per call over the full-load window (linear extrapolation)';
  report.reference = { thesis: run.profile.reference ?? null,
    ratios: referenceRatios(run.profile.reference, { delay: step.delay_ms, cpuPerCall: perCall, capacityPerCore: report.capacity_per_core_est }) };
  report.ok = step.ok;
  report.errors = step.errors;
  finish(ctx.out, report);
  const d = step.delay_ms;
  console.log(`\n${run.profile.name}, ${run.calls} calls, ${run.durationS} s        p50 ms   p95 ms   p99 ms   max ms   loss %`);
  for (const k of ['to_ims', 'to_browser']) console.log(`  ${k.padEnd(12)}${' '.repeat(28)}${col(d[k]?.p50, 7)}  ${col(d[k]?.p95, 7)}  ${col(d[k]?.p99, 7)}  ${col(d[k]?.max, 7)}  ${col(step.loss_pct[k], 7)}`);
  console.log(`  CPU (% of one core, full load): rtpengine ${step.cpu.rtpengine_pct} (${perCall}/call, ${step.cpu.relay_cores_used} cores), loadgen ${step.cpu.loadgen_pct}; setup p50 ${step.setup_ms?.p50 ?? 'n/a'} ms`);
  console.log(`  tcpdump ${step.cpu.tcpdump_pct} %; other jobs on this host ${step.cpu.other_pct} % of one core (of ${report.machine.nproc * 100} %): tails are sensitive to it`);
  for (const [k, v] of Object.entries(report.reference.ratios ?? {})) console.log(`  vs thesis ${k}: ours ${v.ours} / thesis ${v.thesis} = ${v.ratio} (${v.better} is better)`);
  return report;
}

function judgeStep(s, n, crit) {
  const why = [];
  for (const k of ['to_ims', 'to_browser']) {
    if (!(s.loss_pct[k] < crit.loss_pct)) why.push(`loss ${k} ${s.loss_pct[k]} %`);
    if (!(s.delay_ms[k]?.p99 < crit.p99_ms)) why.push(`p99 ${k} ${s.delay_ms[k]?.p99} ms`);
  }
  if (s.generator?.totals && s.generator.totals.setup_ok !== n) why.push(`${n - s.generator.totals.setup_ok} calls not set up`);
  why.push(...s.errors.filter((e) => !/no .* packets were matched/.test(e)));
  return why;
}

async function capacityStep(run, ctx, n, attempt) {
  progress(`step ${n} calls${attempt > 1 ? ` (attempt ${attempt})` : ''}: ramp ${pacing(n, run.durationS).ramp_s.toFixed(1)} s, then ${run.durationS} s at full load`);
  const s = await measureStep({ root: ROOT, dir: path.join(ctx.out, `step-${n}`), logDir: ctx.logDir, profile: run.profile, imsCodec: run.imsCodec, calls: n, durationS: run.durationS,
    rtpenginePid: ctx.rtpenginePid, progress, progressEvery: 5, keepCapture: false });
  const why = judgeStep(s, n, criterionFor(run.profile));
  return { calls: n, attempt, pass: why.length === 0, fail_reason: why.join('; ') || null,
    delay_ms: s.delay_ms, loss_pct: s.loss_pct, cpu: s.cpu, setup_ms: s.setup_ms, packets: s.packets, media: s.media, generator_totals: s.generator?.totals ?? null };
}

async function runCapacity(run, ctx) {
  const report = { ...baseReport(run), profile: run.profile.name, duration_s: run.durationS, steps: [],
    criterion: `loss < ${criterionFor(run.profile).loss_pct} % and p99 < ${criterionFor(run.profile).p99_ms} ms in both directions, every call set up${run.profile.ims_codec ? ' (transcoding: 5 ms on top of three 20 ms frames)' : ''}` };
  progress(`capacity ${run.profile.name}: steps ${run.steps.join(', ')} calls, ${run.durationS} s each; expected ≤ ~${run.expected_s} s (stops at the first failing step)`);
  let best = null;
  for (const n of run.steps) {
    // The machine is shared: a stall from another job can fail a step on its own, so a failing
    // step is measured once more and counts as failed only if the repeat fails too.
    let entry = null;
    const first = [];
    for (let attempt = 1; attempt <= 2 && !entry?.pass; attempt += 1) {
      if (entry) { first.push(entry); progress(`step ${n} failed (${entry.fail_reason}): measuring it once more`); await sleep(2000); }
      entry = await capacityStep(run, ctx, n, attempt);
    }
    entry.earlier_attempts = first;
    const s = entry;
    report.steps.push(entry);
    progress(`step ${n}: ${entry.pass ? 'pass' : `FAIL (${entry.fail_reason})`}; p99 ${s.delay_ms.to_ims?.p99}/${s.delay_ms.to_browser?.p99} ms, loss ${s.loss_pct.to_ims}/${s.loss_pct.to_browser} %, rtpengine ${s.cpu.rtpengine_pct} %, loadgen ${s.cpu.loadgen_pct} %, other jobs ${s.cpu.other_pct} %`);
    finish(ctx.out, report); // partial report after every step
    if (!entry.pass) break;
    best = entry;
    await sleep(1000);
  }
  const cores = best?.cpu?.relay_cores_used;
  report.capacity_calls = best?.calls ?? 0;
  report.limited_by = !best ? 'the first step failed' : best === report.steps[report.steps.length - 1] ? `the sweep's last step (${best.calls}; rtpengine's port range holds ~${MAX_CALLS} calls)` : 'the criterion at the next step';
  report.relay_cores_used_at_capacity = cores ?? null;
  const failed = report.steps.find((s) => !s.pass);
  // On this shared 2-core machine the step usually fails when the host runs out of cores, not rtpengine
  report.host_busy_pct_at_failure = failed?.cpu?.host_busy_pct ?? null;
  report.capacity_per_core = best && cores > 0 ? Math.floor(best.calls / cores) : null;
  report.capacity_per_core_basis = 'largest passing step / rtpengine cores used there (a linear extrapolation when the sweep did not fail)';
  report.calls = report.capacity_calls;
  report.cpu = best?.cpu ?? null;
  report.delay_ms = best?.delay_ms ?? null;
  report.loss_pct = best?.loss_pct ?? null;
  report.media = (best ?? report.steps[0])?.media ?? null;
  report.reference = { thesis: run.profile.reference ?? null,
    ratios: referenceRatios(run.profile.reference, { delay: best?.delay_ms, cpuPerCall: best?.cpu?.rtpengine_pct_per_call, capacityPerCore: report.capacity_per_core }) };
  // ok = the sweep measured something; a step failing the criterion is a result, a tool failing is not
  report.ok = report.steps.length > 0 && !report.steps.some((s) => /did not finish|exited [23]|wrote no|tcpdump dropped|not matched/.test(s.fail_reason ?? ''));
  finish(ctx.out, report);
  console.log(`\ncapacity ${run.profile.name}   calls  result  p99 ims ms  p99 browser ms  loss ims %  loss br %  rtpengine %  loadgen %`);
  for (const s of report.steps) {
    console.log(`  ${' '.repeat(run.profile.name.length + 8)}${col(s.calls, 5)}  ${(s.pass ? 'pass' : 'FAIL').padEnd(6)}  ${col(s.delay_ms.to_ims?.p99, 10)}  ${col(s.delay_ms.to_browser?.p99, 14)}  ${col(s.loss_pct.to_ims, 10)}  ${col(s.loss_pct.to_browser, 9)}  ${col(s.cpu.rtpengine_pct, 11)}  ${col(s.cpu.loadgen_pct, 9)}`);
  }
  console.log(`  capacity: ${report.capacity_calls} calls (limited by ${report.limited_by}); relay cores there ${cores ?? 'n/a'} -> ${report.capacity_per_core ?? 'n/a'} calls per relay core`);
  return report;
}

// The lab's processes other than rtpengine from $LAB_PIDS, for per-process CPU (ue1 = the SIPp UAS).
function labProcs() {
  let text = '';
  try { text = fs.readFileSync(process.env.LAB_PIDS, 'utf8'); } catch { return []; }
  const names = { gateway: 'gateway', kamailio: 'kamailio', ue1: 'sipp' };
  return text.split('\n').map((l) => l.trim().split(/\s+/)).filter(([n, p]) => names[n] && /^\d+$/.test(p ?? '')).map(([n, p]) => ({ name: names[n], pid: Number(p) }));
}

// ue1's media port (sipp-scenarios/run-ue.sh uas: `-mp $LAB_UE1_RTP_PORT -rtp_echo`): the raw leg's far end too
const UE1_ECHO = `${LAB.LAB_LOOPBACK}:${LAB.LAB_UE1_RTP_PORT}`;

const ratio = (a, b) => (a == null || b == null || !(b > 0) ? null : Math.round((a / b) * 100) / 100);
// What issue #11 asks of the product path (docs/benchmarks.md "Product path").
const PRODUCT_CRITERION = { p50_ms: 0.1, p99_ms: 1, loss_pct: 0, rtpengine_cpu_ratio: 1.3 };

function legSummary(s) {
  const { cpu_series: _series, throughput_pps: _tp, delay_cdf: cdf, ...rest } = s;
  return { ...rest, delay_cdf: cdf };
}

// The MT leg's caller: SIPp ue2 (run-ue.sh load-uac) places `calls` calls to alice at `cps`, each held
// holdMs, and echoes the RTP it gets (UE_RTP_ECHO) as ue1 does for MO. Its files (INVITE -> 200 per
// call: uac_<pid>_rtt.csv) go to dir.
function mtCallerFor(ctx, calls, dir) {
  return (cps, holdMs) => start('sipp_uac', 'bash', [path.join(ROOT, 'sipp-scenarios', 'run-ue.sh'),
    'load-uac', 'alice', String(Math.max(1, Math.round(cps))), String(calls), String(holdMs)],
  { log: path.join(ctx.logDir, 'gateway-mt-sipp-uac.log'), group: true,
    env: { ...process.env, UE_QUIET: '1', UE_RTP_ECHO: '1', LAB_LOGDIR: dir, KAMAILIO: ADDRESSES.pcscf, IMS_USERS: path.join(ROOT, 'ims-sim/users.txt') } });
}

// Issue #11's product-path criterion for one gateway leg; why[] empty = met.
function productWhy(label, leg, raw) {
  const why = [];
  for (const k of ['to_ims', 'to_browser']) {
    if (!(leg.delay_ms[k]?.p50 <= PRODUCT_CRITERION.p50_ms)) why.push(`${label} ${k} p50 ${leg.delay_ms[k]?.p50} ms > ${PRODUCT_CRITERION.p50_ms}`);
    if (!(leg.delay_ms[k]?.p99 <= PRODUCT_CRITERION.p99_ms)) why.push(`${label} ${k} p99 ${leg.delay_ms[k]?.p99} ms > ${PRODUCT_CRITERION.p99_ms}`);
    if (!(leg.loss_pct[k] <= PRODUCT_CRITERION.loss_pct)) why.push(`${label} ${k} loss ${leg.loss_pct[k]} %`);
  }
  const cpu = ratio(leg.cpu.rtpengine_pct_per_call, raw.cpu.rtpengine_pct_per_call);
  if (!(cpu <= PRODUCT_CRITERION.rtpengine_cpu_ratio)) why.push(`${label} rtpengine CPU per call gateway/raw ${cpu} > ${PRODUCT_CRITERION.rtpengine_cpu_ratio}`);
  return why;
}

function vsRaw(leg, raw) {
  const dirs = ['to_ims', 'to_browser'];
  return {
    rtpengine_cpu_per_call: ratio(leg.cpu.rtpengine_pct_per_call, raw.cpu.rtpengine_pct_per_call),
    delay_p50: Object.fromEntries(dirs.map((k) => [k, ratio(leg.delay_ms[k]?.p50, raw.delay_ms[k]?.p50)])),
    delay_p99: Object.fromEntries(dirs.map((k) => [k, ratio(leg.delay_ms[k]?.p99, raw.delay_ms[k]?.p99)])),
    setup_p50: ratio(leg.setup_ms?.p50, raw.setup_ms?.p50),
    setup_p95: ratio(leg.setup_ms?.p95, raw.setup_ms?.p95),
  };
}

// The gateway's set-up timeline of one leg's calls (those started since sinceMs; kit/setup-timeline.mjs).
async function legTimeline(gateway, sinceMs, direction, logDir) {
  try {
    const t = summarizeTimelines(await fetchTimelines(gateway, sinceMs - 1000), direction);
    // rtpengine's log beside it: ng answer -> "ICE negotiated" / "DTLS-SRTP successfully negotiated" per call
    // (the gateway's ng call-ids: gw<SIP port>-<Call-ID>, media/RtpEngineClient's default session prefix)
    t.rtpengine_media_up = rtpengineMediaUp(path.join(logDir ?? '', 'rtpengine.log'), t.per_call, `gw${LAB.LAB_GW_SIP_PORT}-`);
    return t;
  } catch (e) {
    return { direction, calls: 0, complete: 0, steps: [], error: `no timeline: ${e.message}` };
  }
}

// The SIP-over-WebSocket legs of `bench gateway --access sip-ws`: loadgen --access sip-ws (a WIC using Gm: the
// gateway's access token, REGISTER and the calls over a WebSocket to the eP-CSCF, which drives rtpengine) as alice,
// MO to ue1 and MT from ue2, with the same calls, pacing, profile, far ends and capture as the gateway's legs.
async function sipWsLegs(run, ctx, common, report, reencoded) {
  const legs = { mo: null, mt: null };
  await sleep(2000);
  progress(`sip-ws MO: loadgen --access sip-ws (alice, token from ${ctx.gateway}) -> eP-CSCF (Kamailio websocket, rtpengine) -> ue1 (SIPp, echoes on ${LAB.LAB_UE1_RTP_PORT})`);
  try {
    const dir = path.join(ctx.out, 'sip-ws-mo');
    legs.mo = await measureStep({ ...common, dir, gateway: { url: ctx.gateway, usersFile: credentialsFile(ROOT, 'alice', dir), to: 'ue1', access: 'sip-ws' } });
    reencoded(legs.mo);
  } catch (e) {
    report.errors.push(`sip-ws MO: ${e.message}`);
  }
  report.sip_ws_mo = legs.mo && legSummary(legs.mo);
  finish(ctx.out, report);
  await sleep(2000);
  progress(`sip-ws MT: ue2 (SIPp, echoes on ${LAB.LAB_UE2_RTP_PORT}) calls alice ${run.calls}x -> eP-CSCF -> loadgen --access sip-ws --answer (alice)`);
  try {
    const dir = path.join(ctx.out, 'sip-ws-mt');
    legs.mt = await measureStep({ ...common, dir, mtCaller: mtCallerFor(ctx, run.calls, dir),
      gateway: { url: ctx.gateway, usersFile: credentialsFile(ROOT, 'alice', dir), answer: true, access: 'sip-ws' } });
    reencoded(legs.mt);
    const rtt = readRtt(dir).sort((a, b) => a - b);
    legs.mt.sip_invite_to_200_ms = { n: rtt.length, p50: pct(rtt, 50), p95: pct(rtt, 95), max: rtt.length ? rtt[rtt.length - 1] : null, basis: 'ue2 INVITE sent -> 200 received (sipp -trace_rtt)' };
  } catch (e) {
    report.errors.push(`sip-ws MT: ${e.message}`);
  }
  return legs;
}

// The warm-up before one gateway leg (run.warmup calls, MO to ue1 or MT from ue2, held WARMUP_HOLD_S): the same
// loadgen, SIPp and capture as the measured leg; what it reports (`warmup_mo` / `warmup_mt`) is its setup and the
// gateway's timeline of those calls, its errors count as the run's. null when --warmup 0.
async function warmupLeg(run, ctx, common, direction, report) {
  if (!run.warmup) return null;
  const dir = path.join(ctx.out, `warmup-${direction}`);
  const since = Date.now();
  progress(`warm-up ${direction.toUpperCase()}: ${run.warmup} call(s) through the gateway, ${WARMUP_CPS}/s, each held ${WARMUP_HOLD_S} s, reported apart (the fresh gateway's cold calls)`);
  const gateway = { url: ctx.gateway, usersFile: credentialsFile(ROOT, 'alice', dir), ...(direction === 'mt' ? { answer: true } : { to: 'ue1' }) };
  try {
    const leg = await measureStep({ ...common, calls: run.warmup, durationS: WARMUP_HOLD_S, pace: warmupPace(run.warmup), dir, keepCapture: false, gateway,
      ...(direction === 'mt' ? { mtCaller: mtCallerFor(ctx, run.warmup, dir) } : {}) });
    const out = { calls: run.warmup, cps: WARMUP_CPS, hold_s: WARMUP_HOLD_S, ok: leg.ok, setup_ms: leg.setup_ms, errors: leg.errors,
      setup_timeline: await legTimeline(ctx.gateway, since, direction, ctx.logDir) };
    report.errors.push(...leg.errors.map((e) => `warm-up ${direction.toUpperCase()}: ${e}`));
    await sleep(2000); // its calls' timelines start over 1 s before the measured leg's (legTimeline's slack)
    return out;
  } catch (e) {
    report.errors.push(`warm-up ${direction.toUpperCase()}: ${e.message}`);
    return { calls: run.warmup, ok: false, errors: [e.message] };
  }
}

// gateway <profile>: the same N calls through --raw (ng only, loadgen's far end echoes) and through the
// gateway (browser API -> gateway -> Kamailio -> rtpengine -> SIPp ue1 echoing), MO, then MT (SIPp
// ue2 calls alice, loadgen answers as alice; ue2 echoes), in one run.
async function runGateway(run, ctx) {
  const report = { ...baseReport(run), profile: run.profile.name, calls: run.calls, duration_s: run.durationS, gateway: ctx.gateway,
    gateway_args: process.env.BENCH_GATEWAY_ARGS || '(none: the shipped default, as ./lab up starts it)', gateway_quotas_lifted: process.env.BENCH_GATEWAY_LOAD_ARGS || null, directions: ['MO', 'MT'] };
  const procs = labProcs();
  const common = { root: ROOT, logDir: ctx.logDir, profile: run.profile, calls: run.calls, durationS: run.durationS, rtpenginePid: ctx.rtpenginePid,
    progress, progressEvery: 5, procs, imsPorts: LAB.LAB_UE_RTP_PORTS };
  progress(`gateway ${run.profile.name}: ${run.calls} call(s), ${run.durationS} s at full load, first --raw (ng only), then MO through the gateway to ue1, then MT from ue2; expected ~${run.expected_s} s`);
  // The raw leg differs from the gateway legs only in the signalling: the same far end (ue1's SIPp echo, as
  // MO's; MT's ue2 runs the same SIPp echo) and calls whose packet clocks are spread over the period as the
  // gateway's are (spreadPacing). Before, raw's calls ticked together and loadgen echoed them itself: rtpengine
  // then took the packets in bursts, with fewer wakeups, and the ratio measured that (docs/benchmarks.md).
  const rawPace = spreadPacing(run.calls, run.durationS, run.profile.pps);
  report.raw_basis = { far_end: `SIPp ue1 -rtp_echo ${UE1_ECHO} (as the MO leg)`, cps: Math.round(rawPace.cps * 1000) / 1000,
    call_gap_ms: Math.round(rawPace.gap_ms * 1000) / 1000, packet_clock_phase_step_ms: Math.round(rawPace.phase_step_ms * 1000) / 1000 };
  progress(`raw: loadgen -> rtpengine (ng) -> ue1's echo on ${UE1_ECHO}; calls ${report.raw_basis.call_gap_ms} ms apart (packet clocks ${report.raw_basis.packet_clock_phase_step_ms} ms apart)`);
  const raw = await measureStep({ ...common, dir: path.join(ctx.out, 'raw'), farAddr: UE1_ECHO, pace: rawPace });
  await sleep(2000);
  report.warmup_mo = await warmupLeg(run, ctx, common, 'mo', report);
  progress(`gateway: loadgen --gateway ${ctx.gateway} (alice) -> Kamailio -> ue1 (SIPp, echoes on ${LAB.LAB_UE1_RTP_PORT})`);
  const moDir = path.join(ctx.out, 'gateway-mo');
  const moSince = Date.now();
  const gw = await measureStep({ ...common, dir: moDir,
    gateway: { url: ctx.gateway, usersFile: credentialsFile(ROOT, 'alice', moDir), to: 'ue1' } });
  const reencoded = (leg) => {
    const out = leg.packets?.capture?.rtp_out ?? 0;
    if (out > 0 && !leg.packets.matched.to_ims && !leg.packets.matched.to_browser) {
      leg.errors.unshift(`${out} RTP packets left rtpengine on the gateway path but none paired by SSRC + sequence number: rtpengine re-encoded the streams `
        + '(a gateway that injects DTMF makes it decode and re-encode every call; loadgen\'s filler payload is not real Opus)');
    }
  };
  reencoded(gw);
  gw.setup_timeline = await legTimeline(ctx.gateway, moSince, 'mo', ctx.logDir);
  report.raw = legSummary(raw);
  report.gateway_mo = legSummary(gw);
  finish(ctx.out, report); // partial: raw and MO
  await sleep(2000);
  progress(`gateway MT: ue2 (SIPp, echoes on ${LAB.LAB_UE2_RTP_PORT}) calls alice ${run.calls}x -> Kamailio -> gateway -> loadgen --answer (alice)`);
  let mt;
  report.warmup_mt = await warmupLeg(run, ctx, common, 'mt', report);
  try {
    const mtDir = path.join(ctx.out, 'gateway-mt');
    const mtSince = Date.now();
    mt = await measureStep({ ...common, dir: mtDir, mtCaller: mtCallerFor(ctx, run.calls, mtDir),
      gateway: { url: ctx.gateway, usersFile: credentialsFile(ROOT, 'alice', mtDir), answer: true } });
    reencoded(mt);
    mt.setup_timeline = await legTimeline(ctx.gateway, mtSince, 'mt', ctx.logDir);
    // the SIP half of MT setup, which loadgen's setup_ms (from `incoming`) leaves out
    const rtt = readRtt(mtDir).sort((a, b) => a - b);
    mt.sip_invite_to_200_ms = { n: rtt.length, p50: pct(rtt, 50), p95: pct(rtt, 95), max: rtt.length ? rtt[rtt.length - 1] : null, basis: 'ue2 INVITE sent -> 200 received (sipp -trace_rtt)' };
  } catch (e) {
    mt = null;
    report.errors.push(`gateway MT: ${e.message}`);
  }
  report.gateway_mt = mt && legSummary(mt);
  let wsMo = null, wsMt = null;
  if (run.sipWs) {
    finish(ctx.out, report); // partial: raw, MO and MT through the gateway
    ({ mo: wsMo, mt: wsMt } = await sipWsLegs(run, ctx, common, report, reencoded));
  }
  const dirs = ['to_ims', 'to_browser'];
  report.gateway_vs_raw = vsRaw(gw, raw);
  report.gateway_mt_vs_raw = mt && vsRaw(mt, raw);
  const why = [...productWhy('MO', gw, raw), ...(mt ? productWhy('MT', mt, raw) : ['MT not measured'])];
  report.criterion = { ...PRODUCT_CRITERION, pass: why.length === 0, why };
  report.errors = [...report.errors, ...raw.errors.map((e) => `raw: ${e}`), ...gw.errors.map((e) => `gateway: ${e}`), ...(mt?.errors ?? []).map((e) => `gateway MT: ${e}`)];
  report.ok = raw.ok && gw.ok && Boolean(mt?.ok) && [report.warmup_mo, report.warmup_mt].every((w) => !w || w.ok);
  if (run.sipWs) {
    report.sip_ws_mo = wsMo && legSummary(wsMo);
    report.sip_ws_mt = wsMt && legSummary(wsMt);
    report.sip_ws_vs_raw = wsMo && vsRaw(wsMo, raw);
    report.sip_ws_mt_vs_raw = wsMt && vsRaw(wsMt, raw);
    report.access_comparison = accessComparison({ MO: [gw, wsMo], MT: [mt, wsMt] });
    report.errors.push(...(wsMo?.errors ?? []).map((e) => `sip-ws MO: ${e}`), ...(wsMt?.errors ?? []).map((e) => `sip-ws MT: ${e}`));
    report.ok = report.ok && Boolean(wsMo?.ok) && Boolean(wsMt?.ok);
  }
  finish(ctx.out, report);
  const legs = [['raw', raw], ['gateway MO', gw], ['gateway MT', mt], ['sip-ws MO', wsMo], ['sip-ws MT', wsMt]].filter(([, l]) => l);
  console.log(`\n${run.profile.name}, ${run.calls} calls, ${run.durationS} s      p50 ms   p99 ms   max ms   loss %   setup p50/p95 ms`);
  for (const [label, s] of legs) {
    for (const k of dirs) console.log(`  ${label.padEnd(11)}${k.padEnd(12)}${col(s.delay_ms[k]?.p50, 7)}  ${col(s.delay_ms[k]?.p99, 7)}  ${col(s.delay_ms[k]?.max, 7)}  ${col(s.loss_pct[k], 7)}   ${s.setup_ms?.p50 ?? 'n/a'} / ${s.setup_ms?.p95 ?? 'n/a'}`);
  }
  if (mt) console.log(`  MT setup above: \`incoming\` -> DTLS done; before it ue2's INVITE -> 200 p50 ${mt.sip_invite_to_200_ms.p50 ?? 'n/a'} / p95 ${mt.sip_invite_to_200_ms.p95 ?? 'n/a'} ms (n ${mt.sip_invite_to_200_ms.n})`);
  if (wsMo || wsMt) {
    console.log('  sip-ws setup above: MO INVITE sent -> DTLS done, MT INVITE received -> DTLS done'
      + `${wsMt ? `; ue2's INVITE -> 200 p50 ${wsMt.sip_invite_to_200_ms.p50 ?? 'n/a'} / p95 ${wsMt.sip_invite_to_200_ms.p95 ?? 'n/a'} ms (n ${wsMt.sip_invite_to_200_ms.n})` : ''}`);
    for (const line of accessLines(report.access_comparison)) console.log(line);
  }
  for (const [label, w] of [['MO', report.warmup_mo], ['MT', report.warmup_mt]].filter(([, x]) => x)) {
    const t = w.setup_timeline;
    console.log(`  ${label} warm-up: the fresh gateway's first ${w.calls} ${label} calls (cold: interpreted code, shown apart; ${t?.complete ?? 0} complete${t?.error ? `; ${t.error}` : ''}); `
      + `gateway's own steps p50 sum ${t?.gateway_p50_sum_ms ?? 'n/a'} ms, first call's: ${firstCallGatewaySum(t) ?? 'n/a'} ms:`);
    for (const line of timelineLines(t)) console.log(line);
  }
  for (const [label, l] of [['MO', gw], ['MT', mt]].filter(([, x]) => x)) {
    const t = l.setup_timeline;
    console.log(`  ${label} set-up timeline, gateway's clock (${t?.complete ?? 0} of ${t?.calls ?? 0} calls complete${t?.error ? `; ${t.error}` : ''}${run.warmup ? `, after ${run.warmup} warm-up calls` : ', the fresh gateway\'s first calls'}); `
      + `gateway's own steps p50 sum ${t?.gateway_p50_sum_ms ?? 'n/a'} ms, over 1 ms: ${t?.gateway_steps_over_1ms?.join(', ') || 'none'}; loadgen's setup (call/incoming -> DTLS) p50 ${l.setup_ms?.p50 ?? 'n/a'} ms:`);
    for (const line of timelineLines(t)) console.log(line);
    const up = t?.rtpengine_media_up;
    if (up && !up.error) console.log(`    rtpengine's log, after the ng answer reply: ICE negotiated p50 ${up.ice.p50} p95 ${up.ice.p95} ms (n ${up.ice.n}), DTLS-SRTP up p50 ${up.dtls.p50} p95 ${up.dtls.p95} ms (n ${up.dtls.n})`);
  }
  const ws = run.sipWs;
  console.log(`  CPU per call (% of one core, full-load window):      raw   gateway MO   gateway MT${ws ? '    sip-ws MO    sip-ws MT' : ''}`);
  for (const n of ['rtpengine', 'gateway', 'kamailio', 'sipp', 'sipp_uac', 'loadgen', 'tcpdump']) {
    console.log(`    ${n.padEnd(48)}${col(raw.cpu.per_call?.[n], 7)}  ${col(gw.cpu.per_call?.[n], 11)}  ${col(mt?.cpu.per_call?.[n], 11)}`
      + (ws ? `  ${col(wsMo?.cpu.per_call?.[n], 11)}  ${col(wsMt?.cpu.per_call?.[n], 11)}` : ''));
  }
  const wk = (l) => { const w = l?.cpu.rtpengine_wakeups; return w ? `${w.per_s}/s, ${w.packets_in_per_wakeup} pkts and ${w.cpu_us_per_wakeup} µs each` : 'n/a'; };
  console.log(`  rtpengine wakeups (full load): raw ${wk(raw)}; MO ${wk(gw)}; MT ${wk(mt)}${ws ? `; sip-ws MO ${wk(wsMo)}; sip-ws MT ${wk(wsMt)}` : ''}`);
  console.log(`  gateway/raw: rtpengine CPU per call MO ${report.gateway_vs_raw.rtpengine_cpu_per_call}, MT ${report.gateway_mt_vs_raw?.rtpengine_cpu_per_call ?? 'n/a'}; other jobs on this host ${raw.cpu.other_pct} / ${gw.cpu.other_pct} / ${mt?.cpu.other_pct ?? 'n/a'}${ws ? ` / ${wsMo?.cpu.other_pct ?? 'n/a'} / ${wsMt?.cpu.other_pct ?? 'n/a'}` : ''} % of one core`);
  console.log(`  issue #11 criterion (p50 <= 0.1 ms, p99 <= 1 ms, loss 0, rtpengine CPU/call <= 1.3x raw), MO and MT: ${report.criterion.pass ? 'met' : `not met: ${why.join('; ')}`}`);
  return report;
}

// The sum of the gateway's own steps of a timeline's first call (the cold start), ms.
function firstCallGatewaySum(t) {
  const c = t?.per_call?.[0];
  if (!c) return null;
  const own = (t.steps ?? []).filter((s) => s.owner === 'gateway').map((s) => c.steps_ms?.[s.step]);
  return own.every((v) => typeof v === 'number') ? Math.round(own.reduce((a, v) => a + v, 0) * 1000) / 1000 : null;
}

async function runSetupRate(run, ctx) {
  const report = { ...baseReport(run), profile: 'A-SRTP', calls_per_step: run.callsPerStep, steps: [], gateway: ctx.gateway };
  progress(`setup-rate: ${run.steps.join(', ')} calls/s, ${run.callsPerStep} calls each, gateway ${ctx.gateway} -> Kamailio -> ue1; expected ~${run.expected_s} s`);
  for (const cps of run.steps) {
    progress(`step ${cps} calls/s`);
    const s = await setupStep({ root: ROOT, dir: path.join(ctx.out, `cps-${cps}`), logDir: ctx.logDir, gateway: ctx.gateway, profilesFile: PROFILES, cps, calls: run.callsPerStep, progress });
    report.steps.push(s);
    progress(`step ${cps} calls/s: ${s.setup_ok ?? 'n/a'} set up, ${s.failures ?? 'n/a'} failed, setup p50 ${s.setup_ms?.p50 ?? 'n/a'} p95 ${s.setup_ms?.p95 ?? 'n/a'} ms${s.errors.length ? `; ${s.errors.join('; ')}` : ''}`);
    finish(ctx.out, report);
    await sleep(2000); // let deletes and de-REGISTER settle before the next step
  }
  const passing = report.steps.filter((s) => s.failures === 0 && s.setup_ms?.p95 < 500).map((s) => s.cps);
  report.max_cps_passing = passing.length ? Math.max(...passing) : 0;
  report.setup_ms = Object.fromEntries(report.steps.map((s) => [String(s.cps), s.setup_ms]));
  report.ok = report.steps.every((s) => s.setup_ok != null);
  report.errors = report.steps.flatMap((s) => s.errors.map((e) => `${s.cps} cps: ${e}`));
  finish(ctx.out, report);
  console.log('\nsetup-rate   calls/s  calls  set up  failed  p50 ms  p95 ms  max ms');
  for (const s of report.steps) console.log(`             ${col(s.cps, 7)}  ${col(s.calls, 5)}  ${col(s.setup_ok, 6)}  ${col(s.failures, 6)}  ${col(s.setup_ms?.p50, 6)}  ${col(s.setup_ms?.p95, 6)}  ${col(s.setup_ms?.max, 6)}`);
  console.log(`  highest rate with 0 failures and p95 < 500 ms: ${report.max_cps_passing} calls/s`);
  return report;
}

async function main(argv) {
  if (argv[0] === '--check') {
    const run = parse(argv.slice(1));
    const cap = Math.ceil(run.expected_s * 1.5 + 60);
    const extra = run.mode === 'registrations' ? ` users=${run.users} load_args=${gatewayLoadArgs(run.users, run.expires).join(',')}`
      : run.mode === 'sipp' ? ` users=${run.users} load_args=${sippGatewayArgs(run.users).join(',')}` : '';
    console.log(`name=${run.name} mode=${run.mode} expected_s=${run.expected_s} cap_s=${cap}${extra}`);
    return 0;
  }
  const ctx = { out: null, logDir: process.env.LAB_LOGDIR, rtpenginePid: null, gateway: null };
  while (argv[0]?.startsWith('--')) {
    const [k, v] = [argv.shift(), argv.shift()];
    if (k === '--out') ctx.out = v; else if (k === '--rtpengine-pid') ctx.rtpenginePid = Number(v); else if (k === '--gateway') ctx.gateway = v; else usage(`unknown bench.mjs option ${k}`);
  }
  const run = parse(argv);
  if (!ctx.out || (!ctx.rtpenginePid && run.mode !== 'datachannel')) usage('bench.mjs needs --out DIR and --rtpengine-pid PID (run it through ./lab bench)');
  if (['setup-rate', 'setup-sustained', 'gateway', 'registrations', 'sipp'].includes(run.mode) && !ctx.gateway) usage(`${run.mode} needs --gateway URL`);
  ctx.logDir ??= path.join(ctx.out, 'logs');
  fs.mkdirSync(ctx.logDir, { recursive: true });
  const runners = { profile: runProfile, capacity: runCapacity, 'setup-rate': runSetupRate, gateway: runGateway,
    'setup-sustained': (r, c) => runSustained(r, c, { root: ROOT, profilesFile: PROFILES, progress, finish, base: baseReport(r) }),
    registrations: (r, c) => runRegistrations(r, c, { progress, finish, base: baseReport(r) }),
    sipp: (r, c) => runSipp(r, c, { root: ROOT, progress, finish, base: baseReport(r), profile: r.profile }),
    datachannel: (r, c) => runDatachannel(r, c, { root: ROOT, progress, finish, base: baseReport(r) }) };
  const report = await runners[run.mode](run, ctx);
  progress(`report: ${path.relative(ROOT, path.join(ctx.out, 'report.json'))} and report.html`);
  if (!report.ok) console.error(`bench: ${report.errors?.[0] ?? 'the run failed'}`);
  return report.ok ? 0 : 1;
}

// Stopped (Ctrl-C in ./lab, or its hard cap): let loadgen delete its calls, then go.
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => { stopAll('SIGTERM'); setTimeout(() => process.exit(sig === 'SIGINT' ? 130 : 143), 3000).unref(); });
}

main(process.argv.slice(2)).then((rc) => { process.exitCode = rc; }, (e) => {
  console.error(`bench: ${e.message}`);
  process.exitCode = e instanceof UsageError ? 2 : 1;
});
