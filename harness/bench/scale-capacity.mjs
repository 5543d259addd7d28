// bench scale-out's capacity sweep (docs/scale-out.md "Capacity"): the pure part, unit-tested in
// harness/tests/scale-capacity.test.mjs. A step passes by setup-rate --sustained's criterion (sustained.mjs
// `judge`: every call set up, loadgen clean — every call with media back and its end confirmed — and setup
// p95 <= SUSTAINED_P95_MS); the capacity of a topology is its knee (knee.mjs `kneeOf`: the highest passing
// rate; the sweep stops at the first failing step).
import { kneeOf } from './knee.mjs';
import { judge, SUSTAINED_P95_MS } from './sustained.mjs';

export { SUSTAINED_P95_MS };

// The processes whose CPU a sweep step reports, each instance on its own, for G gateways and R relays (the lab's
// names: gateway, gateway2, ...; rtpengine, rtpengine2, ...; HAProxy with G > 1, Redis with R > 1).
export function sweepProcs(g = 2, r = 2) {
  const n = (base, k) => Array.from({ length: k }, (_, i) => (i ? `${base}${i + 1}` : base));
  return [...n('gateway', g), ...n('rtpengine', r), 'haproxy', 'redis', 'kamailio', 'sipp', 'loadgen'];
}
export const SWEEP_PROCS = sweepProcs(2, 2);
// The kind of a process instance (the instances of a kind summed): gateway3 -> gateways, rtpengine2 -> rtpengines.
export const KINDS = ['gateways', 'rtpengines', 'haproxy', 'redis', 'kamailio', 'sipp', 'loadgen'];
export function kindOf(name) {
  if (/^gateway\d*$/.test(name)) return 'gateways';
  if (/^rtpengine\d*$/.test(name)) return 'rtpengines';
  return KINDS.includes(name) ? name : null;
}
const instances = (cpu) => Object.keys(cpu ?? {}).filter((k) => k.endsWith('_pct') && cpu[k] != null).map((k) => k.slice(0, -4)).filter((n) => kindOf(n));

const r2 = (v) => Math.round(v * 100) / 100;

// loadgen's calls (loadgen.json `calls`) that did not make it, counted by why: the first of setup failed
// (phase, SIP code), ended early (end reason), no media back, end not confirmed by `ended`.
export function failuresByReason(calls) {
  const out = {};
  for (const c of calls ?? []) {
    let why = null;
    if (!c.setup_ok) why = `setup failed: ${c.fail_phase ?? 'unknown phase'}${c.sip_code ? ` (SIP ${c.sip_code})` : ''}`;
    else if (c.ended_early) why = `ended early: ${c.end_reason ?? 'no reason'}`;
    else if (!c.recv) why = 'no media back';
    else if (c.hung_up === false) why = 'end not confirmed by `ended`';
    if (why) out[why] = (out[why] ?? 0) + 1;
  }
  return out;
}

// A step's CPU per kind of process (% of one core, instances summed) and the lab's total.
export function cpuByKind(cpu) {
  const out = {};
  let total = 0;
  for (const kind of KINDS) {
    const vals = instances(cpu).filter((n) => kindOf(n) === kind).map((n) => cpu[`${n}_pct`]);
    out[kind] = vals.length ? r2(vals.reduce((a, b) => a + b, 0)) : null;
    total += out[kind] ?? 0;
  }
  out.lab_total = r2(total);
  return out;
}

// The busiest process instance of a step, and whether the host ran out of cores (busy > 85 % of all of them).
export function busiestOf(cpu, cores) {
  let best = null;
  for (const n of instances(cpu)) if (!best || cpu[`${n}_pct`] > best.pct) best = { process: n, pct: cpu[`${n}_pct`] };
  const hostSaturated = cpu?.host_busy_pct != null && cores ? cpu.host_busy_pct > 85 * cores : null;
  return { ...best, host_busy_pct: cpu?.host_busy_pct ?? null, other_pct: cpu?.other_pct ?? null, host_saturated: hostSaturated };
}

// Judge one step (mutates and returns it): pass, fail_reason.
export function judgeStep(s) {
  const why = judge(s);
  return Object.assign(s, { pass: why.length === 0, fail_reason: why.join('; ') || null });
}

// One topology's capacity from its judged steps (in the order run).
//   capacity_cps: the highest passing rate (0: the first step failed);
//   bound: '=' (a higher step failed), '>=' (no step failed: the capacity is at least that), '<' (no step passed:
//   below the lowest step);
//   first_failing_cps, and the bottleneck at the first failing step (else the last step).
export function capacityOf(steps, cores) {
  const failing = steps.find((s) => !s.pass) ?? null;
  const capacity = kneeOf(steps);
  const bound = !steps.length ? null : !failing ? '>=' : capacity === 0 ? '<' : '=';
  const at = failing ?? steps[steps.length - 1] ?? null;
  return {
    capacity_cps: steps.length ? capacity : null,
    bound,
    lowest_cps: steps[0]?.cps ?? null,
    first_failing_cps: failing?.cps ?? null,
    first_failing_reason: failing?.fail_reason ?? null,
    bottleneck: at ? { at_cps: at.cps, step: failing ? 'first failing step' : 'highest step (none failed)', ...busiestOf(at.cpu, cores) } : null,
  };
}

// The scaled configuration (label: 2x2, 3x3, ...) against 1x1: the capacity ratio, with what the bounds allow to say about it, and the steps both passed
// side by side (setup p95, the lab's CPU, CPU per call/s).
export function compareCapacity(one, two, label = two.config ?? '2x2') {
  const a = one.capacity, b = two.capacity;
  let ratio = null, ratioBound = null;
  if (a?.bound === '<' || b?.bound === '<' || !a?.capacity_cps || !b?.capacity_cps) {
    ratioBound = 'unknown';
    if (a?.bound === '<' && b?.bound && b.bound !== '<') ratioBound = '>'; // 1x1 failed even the lowest step, 2x2 did not
    if (b?.bound === '<' && a?.bound && a.bound !== '<') ratioBound = '<';
  } else {
    ratio = r2(b.capacity_cps / a.capacity_cps);
    ratioBound = a.bound === '=' && b.bound === '=' ? '=' : a.bound === '=' && b.bound === '>=' ? '>=' : a.bound === '>=' && b.bound === '=' ? '<=' : 'unknown';
  }
  const byCps = new Map(two.steps.map((s) => [s.cps, s]));
  const common = one.steps.filter((s) => byCps.has(s.cps)).map((s) => {
    const t = byCps.get(s.cps);
    const ca = cpuByKind(s.cpu).lab_total, cb = cpuByKind(t.cpu).lab_total;
    return { cps: s.cps, pass_1x1: s.pass, pass_scaled: t.pass, setup_p95_1x1: s.setup_ms?.p95 ?? null, setup_p95_scaled: t.setup_ms?.p95 ?? null,
      lab_cpu_1x1: ca, lab_cpu_scaled: cb, lab_cpu_per_cps_1x1: r2(ca / s.cps), lab_cpu_per_cps_scaled: r2(cb / t.cps) };
  });
  const text = ratio == null
    ? `capacity ratio ${label} / 1x1 not measurable (${a?.bound === '<' ? '1x1 failed its lowest step' : ''}${b?.bound === '<' ? `${a?.bound === '<' ? ', ' : ''}${label} failed its lowest step` : ''})`
    : `capacity 1x1 ${a.bound === '>=' ? '>= ' : ''}${a.capacity_cps} calls/s, ${label} ${b.bound === '>=' ? '>= ' : ''}${b.capacity_cps} calls/s: ${label} / 1x1 = ${ratio}${ratioBound === '=' ? '' : ` (${ratioBound === 'unknown' ? 'bounds only: neither failed a step' : `ratio ${ratioBound} ${ratio}`})`}`;
  return { scaled: label, ratio_scaled_over_1x1: ratio, ratio_bound: ratioBound, text, common_steps: common };
}
