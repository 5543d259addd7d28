// setup-rate --sustained's knees (harness/bench/sustained.mjs): the highest passing rate of each side, whether it is
// only a lower bound, and the gateway / SIP-only ratio with the bound that follows (docs/benchmarks.md).

// the knee: the highest passing rate (the sweep stops at the first failing step)
export const kneeOf = (steps) => steps.filter((s) => s.pass).reduce((m, s) => Math.max(m, s.cps), 0);

// Both knees and their ratio. A side whose last step passed never failed within the steps: its knee is a lower bound
// (at least that rate). The ratio gateway / SIP only is then a bound too: at least (the gateway's knee is the lower
// bound), at most (SIP only's is), or unknown (both are: two lower bounds say nothing of their ratio).
export function kneeSummary(steps, sipOnly) {
  const lowerBound = (list) => Boolean(list.length && list[list.length - 1].pass);
  const out = {
    knee_cps: kneeOf(steps), knee_is_lower_bound: lowerBound(steps),
    sip_only_knee_cps: kneeOf(sipOnly), sip_only_knee_is_lower_bound: lowerBound(sipOnly),
  };
  const both = out.knee_cps > 0 && out.sip_only_knee_cps > 0;
  const bound = !both ? null : out.knee_is_lower_bound && out.sip_only_knee_is_lower_bound ? null
    : out.knee_is_lower_bound ? 'at least' : out.sip_only_knee_is_lower_bound ? 'at most' : 'exact';
  out.gateway_vs_sip_only = bound ? Math.round((out.knee_cps / out.sip_only_knee_cps) * 100) / 100 : null;
  out.gateway_vs_sip_only_bound = bound;
  return out;
}

// The knee line of the summary: each knee with ">=" when no step of its side failed, and the ratio with its bound.
export function kneeLine(k) {
  const knee = (cps, lower) => `${lower ? '>= ' : ''}${cps} calls/s`;
  const ratio = k.gateway_vs_sip_only_bound === 'at least' ? `>= ${k.gateway_vs_sip_only}`
    : k.gateway_vs_sip_only_bound === 'at most' ? `<= ${k.gateway_vs_sip_only}`
      : k.gateway_vs_sip_only_bound === 'exact' ? String(k.gateway_vs_sip_only)
        : k.knee_is_lower_bound && k.sip_only_knee_is_lower_bound ? 'unknown (neither side failed within the steps: add higher --cps-steps)'
          : 'n/a (a side passed no step)';
  return `knee: gateway ${knee(k.knee_cps, k.knee_is_lower_bound)}, SIP only ${knee(k.sip_only_knee_cps, k.sip_only_knee_is_lower_bound)} -> gateway / SIP only = ${ratio}`;
}
