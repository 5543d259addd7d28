import fs from 'node:fs';

// The gateway's per-call set-up timeline (signaling-gw metrics/SetupTimeline, issue #26): where a call's
// set-up time went by the gateway's own clock, step by step (browser message -> ng offer, ng offer round
// trip, ng reply -> INVITE, ... MT the mirror). fetchTimelines reads /api/v1/setup-timelines (answers
// clients on the gateway's host only), summarizeTimelines gives p50/p95 per step over a run's calls.

// Nearest-rank percentile of a sorted list (a measured value, like the rest of the bench).
const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);
const r3 = (v) => (v == null ? null : Math.round(v * 1000) / 1000);

// fetchTimelines(gatewayUrl, sinceMs) -> { owners: {step: owner}, calls: [...] } of the calls whose first mark
// is at or after sinceMs (epoch ms).
export async function fetchTimelines(gatewayUrl, sinceMs = 0) {
  const res = await fetch(`${gatewayUrl.replace(/\/$/, '')}/api/v1/setup-timelines?since=${Math.floor(sinceMs)}`);
  if (!res.ok) throw new Error(`GET /api/v1/setup-timelines: HTTP ${res.status}`);
  return res.json();
}

// summarizeTimelines({owners, calls}, direction) -> { direction, calls, complete, steps: [{step, owner, n, p50,
// p95, max}], gateway_p50_sum_ms, gateway_steps_over_1ms: [...] } over the complete timelines of that direction
// ('mo' | 'mt'); ms with µs resolution. gateway_steps_over_1ms: the gateway's own steps whose p50 > 1 ms (issue
// #26's target).
export function summarizeTimelines(data, direction) {
  const calls = (data?.calls ?? []).filter((c) => c.direction === direction);
  const complete = calls.filter((c) => c.complete);
  const names = [...new Set(complete.flatMap((c) => Object.keys(c.stepsMs ?? {})))];
  const steps = names.map((step) => {
    const v = complete.map((c) => c.stepsMs[step]).filter((x) => typeof x === 'number').sort((a, b) => a - b);
    // the CPU time the step's thread spent in it (steps whose two marks were taken on one thread): wall - CPU waited
    const cpu = complete.map((c) => c.stepsCpuMs?.[step]).filter((x) => typeof x === 'number').sort((a, b) => a - b);
    return { step, owner: data.owners?.[step] ?? '?', n: v.length, p50: r3(pct(v, 50)), p95: r3(pct(v, 95)), max: r3(v.at(-1) ?? null),
      cpu_n: cpu.length, cpu_p50: r3(pct(cpu, 50)) };
  });
  const own = steps.filter((s) => s.owner === 'gateway');
  return {
    direction, calls: calls.length, complete: complete.length, steps,
    per_call: complete.map((c) => ({ callId: c.callId, startedAtMillis: c.startedAtMillis, steps_ms: c.stepsMs, steps_cpu_ms: c.stepsCpuMs ?? {}, marks_ms: c.marksMs })),
    gateway_p50_sum_ms: own.length ? r3(own.reduce((a, s) => a + (s.p50 ?? 0), 0)) : null,
    gateway_steps_over_1ms: own.filter((s) => !(s.p50 <= 1)).map((s) => s.step),
  };
}

// Lines for a terminal summary: one per step, "  step (owner)   p50 / p95 / max ms   n   cpu p50" (the CPU time
// of the step's thread, where both marks were taken on one thread).
export function timelineLines(summary, indent = '    ') {
  if (!summary?.steps?.length) return [`${indent}(no complete ${summary?.direction ?? ''} timeline: ${summary?.calls ?? 0} call(s) seen)`];
  const w = Math.max(...summary.steps.map((s) => s.step.length + s.owner.length + 3));
  return summary.steps.map((s) => `${indent}${`${s.step} (${s.owner})`.padEnd(w)}  p50 ${String(s.p50).padStart(7)}  p95 ${String(s.p95).padStart(7)}  max ${String(s.max).padStart(7)} ms  n ${s.n}${s.cpu_n ? `  (its thread's CPU p50 ${s.cpu_p50} ms)` : ''}`);
}

// rtpengine's view of media up beside the gateway's timeline: per call (its ng call-id is the gateway's prefixed
// with `prefix`, e.g. gw5070-), the first "ICE negotiated" and "DTLS-SRTP successfully negotiated" lines of
// rtpengine's log (epoch seconds, µs), in ms after the call's ng `answer` reply by the gateway's clock (its
// timeline's startedAtMillis + the mark: wall clock, ±1 ms). Negative: before the answer (MT: the browser's ICE
// checks may complete first). -> { calls, ice: {n, p50, p95, max}, dtls: {...}, per_call: [{callId, ice_ms, dtls_ms}] }
export function rtpengineMediaUp(logFile, perCall, prefix) {
  let text = '';
  try { text = fs.readFileSync(logFile, 'utf8'); } catch { return { error: `no rtpengine log at ${logFile}` }; }
  const first = new Map();
  const re = /^\[(\d+\.\d+)\] \w+: \[([^\]\s]+?)(?:@[^\]\s]*)?(?: port \d+)?\]: \[\w+\] (ICE negotiated|DTLS-SRTP successfully negotiated)/;
  for (const line of text.split('\n')) {
    const m = line.match(re);
    if (!m) continue;
    const key = `${m[2]}|${m[3].startsWith('ICE') ? 'ice' : 'dtls'}`;
    if (!first.has(key)) first.set(key, Number(m[1]) * 1000);
  }
  const rows = [];
  for (const c of perCall ?? []) {
    const answered = c.marks_ms?.ng_answer_reply;
    if (answered == null || c.startedAtMillis == null) continue;
    const base = c.startedAtMillis + answered;
    const id = `${prefix}${c.callId.split('@')[0]}`;
    const at = (kind) => (first.has(`${id}|${kind}`) ? r3(first.get(`${id}|${kind}`) - base) : null);
    rows.push({ callId: c.callId, ice_ms: at('ice'), dtls_ms: at('dtls') });
  }
  const stat = (k) => {
    const v = rows.map((r) => r[k]).filter((x) => typeof x === 'number').sort((a, b) => a - b);
    return { n: v.length, p50: r3(pct(v, 50)), p95: r3(pct(v, 95)), max: r3(v.at(-1) ?? null) };
  };
  return { calls: rows.length, basis: 'rtpengine log line time - (timeline startedAtMillis + ng_answer_reply mark)', ice: stat('ice_ms'), dtls: stat('dtls_ms'), per_call: rows };
}
