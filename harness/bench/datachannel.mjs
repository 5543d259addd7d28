// ./lab bench datachannel [--calls N] [--channels C] [--rate R] [--size B] [--duration S] [--text [--cps N]] (issue #25): the
// data-channel endpoint (media-relay/datachannel) under load, measured like the media relay. The load is
// harness/bench/dc-load.py: N calls, each between two real WebRTC stacks (aiortc) on the endpoint's two legs,
// C SDP-negotiated application channels per call (a=dcmap 1000.., TS 24.186), R binary messages a second of
// B bytes on each channel in each direction for S seconds. Measured: the one-way delay of every message (one
// clock: the driver holds both peers), messages lost, duplicated or out of order, the endpoint's own relay
// time (its `delete` reply), the endpoint's CPU over the load window (1 s samples) per call and per channel,
// the calls one core would carry at this load, and the driver's CPU. --text: each call also carries real-time text
// (a T.140 channel bridged to RFC 4103 toward the lab's RFC 4103 UE), typed both ways at --cps characters a second:
// characters typed and shown, text intact per call, key-to-screen delay. docs/benchmarks.md "Data channels".
import fs from 'node:fs';
import path from 'node:path';
import { LAB } from '../kit/addresses.mjs';
import { startCpuSampler } from '../kit/cpu.mjs';
import { sleep, start } from '../kit/procs.mjs';

const DIRS = ['browser_to_ims', 'ims_to_browser'];

export function datachannelParse(rest, { int, usage, take, opts }) {
  const text = rest.includes('--text');
  if (text) rest.splice(rest.indexOf('--text'), 1);
  take(['--calls', '--channels', '--rate', '--size', '--duration', '--cps']);
  if (opts['--cps'] != null && !text) usage('bench datachannel: --cps is the typing rate of --text');
  const cps = int('--cps', opts['--cps'] ?? 5, 1, 30); // RFC 4103 §6: cps=30 is what the endpoint offers
  const calls = int('--calls', opts['--calls'] ?? 10, 1, 90); // the endpoint's sessions (--max-calls 100) and ports
  const channels = int('--channels', opts['--channels'] ?? 2, 1, 16);
  const rate = int('--rate', opts['--rate'] ?? 10, 1, 1000);
  const size = int('--size', opts['--size'] ?? 200, 18, 65536);
  const durationS = int('--duration', opts['--duration'] ?? 20, 2, 600);
  if (calls * channels * rate * 2 > 20000) usage(`bench datachannel: ${calls * channels * rate * 2} messages/s is more than the aiortc driver sends on this host (20000 at most: fewer --calls, --channels or --rate)`);
  return { mode: 'datachannel', name: text ? 'datachannel-text' : 'datachannel', calls, channels, rate, size, durationS, text, cps,
    expected_s: datachannelPlan(calls, durationS).expected_s };
}

// set-up ~0.1-0.3 s per call (aiortc's ICE and DTLS on both peers), the load, 3 s drain, 10 s start and stop
export function datachannelPlan(calls, durationS) {
  return { expected_s: Math.ceil(calls * 0.5 + durationS + 15) };
}

// CPU seconds of `name` between two epoch-ms instants, from the sampler's cumulative series.
export function cpuPctBetween(series, name, fromMs, toMs) {
  const at = (t) => {
    let best = null;
    for (const s of series) if (best == null || Math.abs(s.t - t) < Math.abs(best.t - t)) best = s;
    return best;
  };
  const a = at(fromMs);
  const b = at(toMs);
  if (!a || !b || b.t <= a.t || a.secs[name] == null || b.secs[name] == null) return null;
  return Math.round(((b.secs[name] - a.secs[name]) / ((b.t - a.t) / 1000)) * 10000) / 100;
}

// report.json's figures from the driver's result and the endpoint's CPU over the load window.
export function datachannelSummary(result, endpointPct) {
  const channels = result.calls_set_up * result.channels;
  const msgsPerS = result.duration_s > 0 ? Math.round((DIRS.reduce((t, d) => t + (result[d]?.sent ?? 0), 0) / result.duration_s) * 10) / 10 : null;
  const perCall = endpointPct != null && result.calls_set_up ? endpointPct / result.calls_set_up : null;
  const relay = Object.fromEntries(DIRS.map((d) => {
    const key = d === 'browser_to_ims' ? 'browser-to-ims' : 'ims-to-browser';
    const legs = (result.endpoint ?? []).map((e) => e[key] ?? {});
    const p50s = legs.map((l) => l['relay-us-p50']).filter((v) => v != null).sort((x, y) => x - y);
    return [d, {
      messages: legs.reduce((t, l) => t + (l.messages ?? 0), 0),
      bytes: legs.reduce((t, l) => t + (l.bytes ?? 0), 0),
      dropped: legs.reduce((t, l) => t + (l.dropped ?? 0), 0),
      relay_us_p50_median_of_calls: p50s.length ? p50s[Math.floor(p50s.length / 2)] : null,
      relay_us_p99_max_of_calls: Math.max(...legs.map((l) => l['relay-us-p99'] ?? -1)) >= 0 ? Math.max(...legs.map((l) => l['relay-us-p99'] ?? -1)) : null,
    }];
  }));
  const errors = [];
  if (!result.ok) errors.push(result.error ?? 'the driver failed');
  for (const d of DIRS) {
    const x = result[d];
    if (!x) continue;
    if (x.lost) errors.push(`${d}: ${x.lost} of ${x.sent} messages lost on reliable, ordered channels`);
    if (x.duplicates) errors.push(`${d}: ${x.duplicates} messages arrived twice`);
    if (x.out_of_order) errors.push(`${d}: ${x.out_of_order} messages out of order on ordered channels`);
    const t = result.text?.[d];
    if (t && (t.calls_intact < t.calls || t.shown !== t.typed)) {
      errors.push(`real-time text ${d}: ${t.shown} characters shown of ${t.typed} typed, ${t.calls_intact} of ${t.calls} calls intact${t.missing_marks ? ` (${t.missing_marks} missing-text marks)` : ''}`);
    }
  }
  return {
    calls: result.calls, calls_set_up: result.calls_set_up, channels_per_call: result.channels, channels,
    rate_per_channel: result.rate_per_channel, size_bytes: result.size, duration_s: result.duration_s,
    messages_per_s: msgsPerS, setup_ms: result.setup_ms,
    delay_ms: Object.fromEntries(DIRS.map((d) => [d, result[d]?.delay_ms ?? null])),
    delay_hist_ms: Object.fromEntries(DIRS.map((d) => [d, result[d]?.delay_hist_ms ?? []])),
    messages: Object.fromEntries(DIRS.map((d) => [d, result[d] ? { sent: result[d].sent, received: result[d].received, lost: result[d].lost,
      duplicates: result[d].duplicates, out_of_order: result[d].out_of_order } : null])),
    endpoint_relay: relay,
    text: result.text ?? null,
    cpu: {
      endpoint_pct: endpointPct,
      endpoint_pct_per_call: perCall == null ? null : Math.round(perCall * 1000) / 1000,
      endpoint_pct_per_channel: endpointPct != null && channels ? Math.round((endpointPct / channels) * 1000) / 1000 : null,
      calls_per_core: perCall ? Math.floor(100 / perCall) : null,
      driver_pct: result.driver_cpu_pct,
    },
    ok: errors.length === 0,
    errors,
  };
}

export async function runDatachannel(run, ctx, { root, progress, finish, base }) {
  const report = { ...base, ok: false };
  const python = path.join(root, 'out', 'pyenv', 'bin', 'python');
  if (!fs.existsSync(python)) throw new Error(`${python} is missing (./lab bench datachannel installs aiortc there: harness/lib/build.sh build_pyenv)`);
  const ctl = LAB.LAB_DATACHANNEL_CTL;
  const jsonl = path.join(ctx.out, 'dc-load.jsonl');
  const series = [];
  const sampler = startCpuSampler({ onSample: (t, secs) => series.push({ t, secs }) });
  progress(`datachannel: ${run.calls} calls x ${run.channels} channels, ${run.rate} messages/s of ${run.size} B each way per channel, ${run.durationS} s${run.text ? `, real-time text typed both ways at ${run.cps} characters/s` : ''}; endpoint control ${ctl}`);
  const proc = start('dc-load', python, [path.join(root, 'harness', 'bench', 'dc-load.py'), '--control', ctl, '--calls', String(run.calls),
    '--channels', String(run.channels), '--rate', String(run.rate), '--size', String(run.size), '--duration', String(run.durationS),
    ...(run.text ? ['--text', '--cps', String(run.cps)] : [])],
  { log: path.join(ctx.logDir, 'dc-load.log'), stdoutFile: jsonl });
  let shown = 0;
  const show = () => {
    let lines = [];
    try { lines = fs.readFileSync(jsonl, 'utf8').split('\n').filter((l) => l.endsWith('}')); } catch { return []; }
    for (const l of lines.slice(shown)) {
      let e;
      try { e = JSON.parse(l); } catch { continue; }
      if (e.event === 'setup' && (e.call + 1) % 5 === 0) progress(`  ${e.call + 1} calls set up (last ${e.setup_ms} ms)`);
      if (e.event === 'load') progress(`  load: ${e.calls} calls, ${e.channels} channels`);
      if (e.event === 'progress') progress(`  [${e.s}s] to IMS ${e.received_up}/${e.sent_up}, to browser ${e.received_down}/${e.sent_down} messages`);
    }
    shown = lines.length;
    return lines;
  };
  let exit = null;
  while (!(exit = await Promise.race([proc.done, sleep(1000).then(() => null)]))) show();
  const cpu = sampler.stop();
  const lines = show();
  const last = lines.length ? JSON.parse(lines[lines.length - 1]) : null;
  if (!last || last.event !== 'result') {
    report.errors = [`the driver ended (${JSON.stringify(exit)}) without a result: ${proc.tail().slice(-600)}`];
    finish(ctx.out, report);
    return report;
  }
  const [from, to] = last.window_ms;
  const endpointPct = cpuPctBetween(series, 'datachannel', from, to);
  Object.assign(report, datachannelSummary(last, endpointPct));
  report.cpu.run_average = { endpoint_pct: cpu.datachannel_pct ?? null, wall_s: cpu.wall_s };
  report.cpu_series = series.length > 1 ? series.slice(1).map((s, i) => ({
    t_s: Math.round((s.t - series[0].t) / 100) / 10,
    endpoint_pct: Math.round((((s.secs.datachannel ?? 0) - (series[i].secs.datachannel ?? 0)) / ((s.t - series[i].t) / 1000)) * 1000) / 10,
  })) : [];
  report.load_window_s = [Math.round((from - series[0].t) / 100) / 10, Math.round((to - series[0].t) / 100) / 10];
  finish(ctx.out, report);
  const d = report.delay_ms;
  const r = report.endpoint_relay;
  console.log(`\ndatachannel  ${report.calls_set_up}/${report.calls} calls, ${report.channels} channels, ${report.messages_per_s} messages/s, ${report.size_bytes} B`);
  console.log('  direction        sent   recv  lost  dup  p50 ms  p95 ms  p99 ms  max ms  endpoint relay p50 µs (median of calls) / p99 max');
  for (const k of DIRS) {
    const m = report.messages[k] ?? {};
    console.log(`  ${k.padEnd(15)} ${String(m.sent).padStart(5)}  ${String(m.received).padStart(5)}  ${String(m.lost).padStart(4)}  ${String(m.duplicates).padStart(3)}  ${String(d[k]?.p50).padStart(6)}  ${String(d[k]?.p95).padStart(6)}  ${String(d[k]?.p99).padStart(6)}  ${String(d[k]?.max).padStart(6)}  ${r[k].relay_us_p50_median_of_calls} / ${r[k].relay_us_p99_max_of_calls}`);
  }
  for (const k of DIRS) {
    const t = report.text?.[k];
    if (t) console.log(`  text ${k.padEnd(15)} ${t.shown}/${t.typed} characters shown, ${t.calls_intact}/${t.calls} calls intact, key to screen p50 ${t.delay_ms?.p50} p95 ${t.delay_ms?.p95} max ${t.delay_ms?.max} ms`);
  }
  console.log(`  set-up p50 ${report.setup_ms?.p50} ms; endpoint CPU ${report.cpu.endpoint_pct} % of one core (${report.cpu.endpoint_pct_per_call} per call, ${report.cpu.endpoint_pct_per_channel} per channel): ~${report.cpu.calls_per_core ?? 'n/a'} calls per core at this load; driver ${report.cpu.driver_pct} %`);
  return report;
}
