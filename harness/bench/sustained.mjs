// ./lab bench setup-rate --sustained: call-setup capacity. Each step offers a constant rate for
// step-seconds (calls = cps x step-seconds, each held `hold` s, so about cps x hold calls are up at
// once) through the gateway (loadgen --gateway, ICE + DTLS per call), with a JFR recording of the
// gateway per step; beside it, the same step SIP only (SIPp UAC -> Kamailio -> SIPp ue1, no media).
// Each side steps up to its first failing step: any failed call, or setup p95 > 300 ms.
import fs from 'node:fs';
import path from 'node:path';
import { sleep } from '../kit/procs.mjs';
import { javaPid, jfrStart, jfrStop, summarizeJfr } from './jfr.mjs';
import { summarizePerf } from './perf.mjs';
import { kneeLine, kneeSummary } from './knee.mjs';
import { SETUP_PROCS, setupStep, sipOnlyStep } from './setup-rate.mjs';

export const SUSTAINED_P95_MS = 300;
// perf record per gateway step: opt-in (--perf), it costs the profiled processes CPU (likely the per-task perf
// events on every context switch): docs/benchmarks.md, "setup-rate --sustained with the OpenSSL loadgen"
export const SUSTAINED_PERF_DEFAULT = false;
const PAUSE_S = 3; // between steps: let BYEs, deletes and timewaits settle

export function sustainedPlan(steps, stepS, holdS) {
  // worst case: both sides run every step (a side that failed skips the rest)
  const perStep = 2 * (stepS + holdS + 8 + PAUSE_S) + 10; // + JFR dump and summary
  return { expected_s: steps.length * perStep + 30 };
}

// a step's failing reasons ([] = pass); also bench scale-out's capacity sweep (scale-capacity.mjs)
export function judge(s) {
  const why = [];
  if (s.failures == null) why.push('no result');
  else if (s.failures > 0) why.push(`${s.failures} failed call(s)`);
  if (s.setup_ms?.p95 == null) why.push('no setup times');
  else if (!(s.setup_ms.p95 <= SUSTAINED_P95_MS)) why.push(`setup p95 ${s.setup_ms?.p95 ?? 'n/a'} ms > ${SUSTAINED_P95_MS}`);
  why.push(...(s.errors ?? []));
  return why;
}


// CPU-ms per call set up, per process: the process's CPU over the whole step (cpu.<n>_pct of one core averaged
// over cpu.wall_s: the calls' set-up, their hold and their teardown) / the calls set up in it. On the gateway side
// each call also carries `hold` s of SRTP, which rtpengine and loadgen pay; the gateway and Kamailio pay signalling.
export function cpuMsPerSetup(s, procs = SETUP_PROCS) {
  const wall = s?.cpu?.wall_s;
  if (!(wall > 0) || !(s.setup_ok > 0)) return null;
  const out = {};
  for (const n of procs) {
    const p = s.cpu[`${n}_pct`];
    if (p != null) out[n] = Math.round(((p / 100) * wall * 1000 / s.setup_ok) * 1000) / 1000;
  }
  return out;
}

// The gateway's signalling cost against Kamailio's SIP-only cost at the same rate, per call set up: the
// gateway alone, and the gateway path's signalling (gateway + Kamailio) against the SIP-only path's (Kamailio).
export function costRatios(gw, sip) {
  if (!gw || !sip || !(sip.kamailio > 0)) return null;
  const r = (a) => (a == null ? null : Math.round((a / sip.kamailio) * 100) / 100);
  return { gateway_vs_sip_only_kamailio: r(gw.gateway), signalling_vs_sip_only: r(gw.gateway == null ? null : gw.gateway + (gw.kamailio ?? 0)) };
}

// the process that used the most CPU in a step
function busiest(cpu) {
  let best = null;
  for (const n of SETUP_PROCS) if (cpu?.[`${n}_pct`] != null && (!best || cpu[`${n}_pct`] > best.pct)) best = { process: n, pct: cpu[`${n}_pct`] };
  return best;
}

const col = (v, w) => String(v ?? 'n/a').padStart(w);

function gatewayPid() {
  try {
    const line = fs.readFileSync(process.env.LAB_PIDS, 'utf8').split('\n').find((l) => l.startsWith('gateway '));
    return line ? javaPid(Number(line.split(/\s+/)[1])) : null;
  } catch { return null; }
}

export async function runSustained(run, ctx, { root, profilesFile, progress, finish, base }) {
  const report = { ...base, kind: 'setup-sustained', profile: 'A-SRTP', gateway: ctx.gateway, hold_s: run.holdS, step_seconds: run.stepS, loadgen_threads: run.threads,
    cps_steps: run.steps, perf_record: run.perf, criterion: `every call set up and setup p95 <= ${SUSTAINED_P95_MS} ms (gateway: call sent -> DTLS done, ICE + DTLS included; SIP only: INVITE -> 200)`,
    gateway_args: process.env.BENCH_GATEWAY_ARGS || '(none: the shipped default, as ./lab up starts it)', gateway_quotas_lifted: process.env.BENCH_GATEWAY_LOAD_ARGS || null, steps: [], sip_only: [] };
  const jvm = gatewayPid();
  if (!jvm) report.errors.push('the gateway JVM was not found in $LAB_PIDS: no JFR recording');
  progress(`setup-rate --sustained: ${run.steps.join(', ')} calls/s, ${run.stepS} s per step, calls held ${run.holdS} s (about cps x ${run.holdS} up at once), loadgen ${run.threads} thread(s); `
    + `gateway (MO, ICE + DTLS) then SIP only at each rate; expected <= ~${run.expected_s} s`);
  let gwDone = false, sipDone = false;
  for (const cps of run.steps) {
    if (gwDone && sipDone) break;
    const calls = cps * run.stepS;
    if (!gwDone) {
      const dir = path.join(ctx.out, `gw-cps-${cps}`);
      fs.mkdirSync(dir, { recursive: true });
      const rec = `bench-cps-${cps}`;
      const started = jvm ? jfrStart(jvm, rec) : { ok: false, text: 'no JVM' };
      progress(`gateway step ${cps} calls/s: ${calls} calls over ${run.stepS} s, ~${cps * run.holdS} concurrent${started.ok ? ', JFR recording' : ` (no JFR: ${started.text.split('\n').pop()})`}`);
      const s = await setupStep({ root, dir, logDir: ctx.logDir, gateway: ctx.gateway, profilesFile, cps, calls, holdS: run.holdS, threads: run.threads,
        perfFile: run.perf ? path.join(dir, 'native.perf') : null, progress, progressEvery: 10 });
      if (started.ok) {
        const stopped = jfrStop(jvm, rec, path.join(dir, 'gateway.jfr'));
        s.jfr = stopped.ok ? path.relative(ctx.out, path.join(dir, 'gateway.jfr')) : null;
        if (!stopped.ok) s.errors.push(`JFR.stop: ${stopped.text.split('\n').pop()}`);
      }
      const why = judge(s);
      Object.assign(s, { pass: why.length === 0, fail_reason: why.join('; ') || null, busiest: busiest(s.cpu), cpu_ms_per_setup: cpuMsPerSetup(s) });
      report.steps.push(s);
      progress(`gateway step ${cps} calls/s: ${s.pass ? 'pass' : `FAIL (${s.fail_reason})`}; ${s.setup_ok ?? 'n/a'}/${calls} set up, p50 ${s.setup_ms?.p50 ?? 'n/a'} p95 ${s.setup_ms?.p95 ?? 'n/a'} ms, `
        + `peak ${s.concurrent_peak} in media; CPU gateway ${s.cpu.gateway_pct} kamailio ${s.cpu.kamailio_pct} rtpengine ${s.cpu.rtpengine_pct} sipp ${s.cpu.sipp_pct} loadgen ${s.cpu.loadgen_pct}, other jobs ${s.cpu.other_pct} %; loadgen exited ${s.loadgen_exit_after_report_s ?? 'n/a'} s after its report${s.perf_cpu_pct != null ? `; perf record itself ${s.perf_cpu_pct} %` : ''}`);
      gwDone = !s.pass;
      finish(ctx.out, report);
      await sleep(PAUSE_S * 1000);
    }
    if (!sipDone) {
      progress(`SIP-only step ${cps} calls/s: ${calls} calls (SIPp ue2 -> Kamailio -> ue1), held ${run.holdS} s`);
      const s = await sipOnlyStep({ root, dir: path.join(ctx.out, `sip-cps-${cps}`), cps, calls, holdS: run.holdS, progress });
      const why = judge(s);
      Object.assign(s, { pass: why.length === 0, fail_reason: why.join('; ') || null, busiest: busiest(s.cpu), cpu_ms_per_setup: cpuMsPerSetup(s) });
      const gwAt = report.steps.find((g) => g.cps === cps);
      if (gwAt) gwAt.cost_vs_sip_only = costRatios(gwAt.cpu_ms_per_setup, s.cpu_ms_per_setup);
      report.sip_only.push(s);
      progress(`SIP-only step ${cps} calls/s: ${s.pass ? 'pass' : `FAIL (${s.fail_reason})`}; INVITE->200 p50 ${s.setup_ms.p50 ?? 'n/a'} p95 ${s.setup_ms.p95 ?? 'n/a'} ms; CPU kamailio ${s.cpu.kamailio_pct} sipp(uas) ${s.cpu.sipp_pct} sipp(uac) ${s.cpu.sipp_uac_pct}`);
      sipDone = !s.pass;
      finish(ctx.out, report);
      await sleep(PAUSE_S * 1000);
    }
  }
  Object.assign(report, kneeSummary(report.steps, report.sip_only));
  const failing = report.steps.find((s) => !s.pass) ?? null;
  const knee = report.steps.find((s) => s.cps === report.knee_cps) ?? null;
  // the headline cost: at the knee (else the first step), the gateway's CPU-ms per set-up against SIP only's
  const costAt = knee ?? report.steps[0] ?? null;
  report.cost_per_setup = costAt ? { at_cps: costAt.cps, gateway_side_ms: costAt.cpu_ms_per_setup,
    sip_only_ms: report.sip_only.find((x) => x.cps === costAt.cps)?.cpu_ms_per_setup ?? null, ratios: costAt.cost_vs_sip_only ?? null } : null;
  const at = failing ?? knee;
  report.bottleneck = at ? { at_cps: at.cps, step: failing ? 'first failing step' : 'highest step (none failed)', ...at.busiest,
    host_busy_pct: at.cpu.host_busy_pct, other_pct: at.cpu.other_pct,
    note: at.cpu.host_busy_pct > 170 ? `the host (2 cores) was ${at.cpu.host_busy_pct} % busy: the step ran out of cores; the busiest process is the one that holds the rest back` : null } : null;
  // where the gateway's time goes: at the knee and at the first failing step
  report.profiles = {};
  for (const [label, s] of [['knee', knee], ['first_failing', failing]]) {
    if (!s?.jfr) continue;
    progress(`summarising the gateway's JFR at ${s.cps} calls/s (${label})`);
    report.profiles[label] = { cps: s.cps, ...(await summarizeJfr(path.join(ctx.out, s.jfr))) };
  }
  // where the native processes' time goes (loadgen, rtpengine, Kamailio: perf.mjs), same two steps
  report.native_profiles = {};
  for (const [label, s] of [['knee', knee], ['first_failing', failing]]) {
    if (!s?.perf) continue;
    progress(`summarising perf of loadgen, rtpengine and Kamailio at ${s.cps} calls/s (${label})`);
    report.native_profiles[label] = { cps: s.cps, file: path.relative(ctx.out, s.perf), ...summarizePerf(s.perf) };
  }
  report.ok = report.steps.length > 0 && report.steps.every((s) => s.setup_ok != null) && report.sip_only.every((s) => s.setup_ok != null);
  report.errors.push(...report.steps.flatMap((s) => s.errors.map((e) => `gateway ${s.cps} cps: ${e}`)),
    ...report.sip_only.flatMap((s) => s.errors.map((e) => `SIP only ${s.cps} cps: ${e}`)));
  finish(ctx.out, report);

  console.log(`\nsetup-rate --sustained (${run.stepS} s steps, hold ${run.holdS} s)`);
  console.log('  side      calls/s  calls  set up  failed  p50 ms  p95 ms  peak up  gateway %  kamailio %  rtpengine %  sipp %  loadgen %  other %  result');
  for (const [side, list] of [['gateway', report.steps], ['SIP only', report.sip_only]]) {
    for (const s of list) {
      console.log(`  ${side.padEnd(8)}${col(s.cps, 9)}  ${col(s.calls, 5)}  ${col(s.setup_ok, 6)}  ${col(s.failures, 6)}  ${col(s.setup_ms?.p50, 6)}  ${col(s.setup_ms?.p95, 6)}  ${col(s.concurrent_peak ?? s.concurrent_nominal, 7)}  `
        + `${col(s.cpu.gateway_pct, 9)}  ${col(s.cpu.kamailio_pct, 10)}  ${col(s.cpu.rtpengine_pct, 11)}  ${col(s.cpu.sipp_pct, 6)}  ${col(s.cpu.loadgen_pct ?? s.cpu.sipp_uac_pct, 9)}  ${col(s.cpu.other_pct, 7)}  ${s.pass ? 'pass' : 'FAIL'}`);
    }
  }
  console.log('\n  CPU-ms per call set up (the step\'s CPU / calls set up; gateway side: each call also held ' + run.holdS + ' s of SRTP)');
  console.log('  side      calls/s  gateway  kamailio  rtpengine  sipp uas  loadgen / sipp uac  gateway / SIP-only kamailio  (gateway + kamailio) / SIP-only kamailio');
  for (const [side, list] of [['gateway', report.steps], ['SIP only', report.sip_only]]) {
    for (const s of list) {
      const c = s.cpu_ms_per_setup ?? {};
      console.log(`  ${side.padEnd(8)}${col(s.cps, 9)}  ${col(c.gateway, 7)}  ${col(c.kamailio, 8)}  ${col(c.rtpengine, 9)}  ${col(c.sipp, 8)}  ${col(c.loadgen ?? c.sipp_uac, 18)}  `
        + `${col(s.cost_vs_sip_only?.gateway_vs_sip_only_kamailio, 26)}  ${col(s.cost_vs_sip_only?.signalling_vs_sip_only, 36)}`);
    }
  }
  console.log(`  ${kneeLine(report)}`);
  if (report.bottleneck) console.log(`  bottleneck at ${report.bottleneck.at_cps} calls/s (${report.bottleneck.step}): ${report.bottleneck.process} ${report.bottleneck.pct} % of one core; whole host ${report.bottleneck.host_busy_pct} %`);
  for (const [label, p] of Object.entries(report.profiles)) {
    if (p.error) { console.log(`  JFR ${label}: ${p.error}`); continue; }
    console.log(`  gateway JFR at ${p.cps} calls/s (${label}, ${p.samples} samples), top frames:`);
    for (const f of p.self.slice(0, 8)) console.log(`    ${col(f.pct, 5)} %  ${f.frame}`);
    console.log('    first gateway frame:');
    for (const f of p.gateway_frame.slice(0, 6)) console.log(`    ${col(f.pct, 5)} %  ${f.frame}`);
  }
  for (const [label, p] of Object.entries(report.native_profiles)) {
    if (p.error) { console.log(`  perf ${label}: ${p.error}`); continue; }
    console.log(`  perf at ${p.cps} calls/s (${label}, ${p.samples} samples): ${p.processes.slice(0, 5).map((x) => `${x.comm} ${x.pct} %`).join(', ')}; top symbols:`);
    for (const f of p.top.slice(0, 8)) console.log(`    ${col(f.pct, 5)} %  ${f.comm}  ${f.dso}  ${f.sym}`);
  }
  return report;
}
