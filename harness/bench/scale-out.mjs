// ./lab bench scale-out (issues #14, #28, docs/scale-out.md): the same MO load (loadgen's gateway mode, one user per
// gateway, so that HAProxy spreads the sessions) on one gateway + one rtpengine and on G + R of them (default 3x3),
// every gateway and relay a host of its own on the lab bridge (harness/lib/scaleout.sh), in the same run; before
// it, on each, a capacity sweep (setup-rate --sustained's steps and criterion: scale-capacity.mjs).
//   node scale-out.mjs sweep --config GxR --out DIR --gateway URL --gateways URL,... --gateway-hosts NS,... --relays NG,...
//        --local-ip ADDR --cps-steps R1,R2,... --step-seconds S --hold S    constant-rate steps up to the first failing one
//   node scale-out.mjs phase --config GxR --out DIR --gateway URL --gateways URL,... --gateway-hosts NS,... --relays NG,...
//        --local-ip ADDR --users FILE --calls N --cps R --duration S [--kill NAME --kill-vrrp NAME --kill-host NS --ims-host NS]
//        [--kill-gateway NAME --kill-gateway-host NS --kill-gateway-index I --ue-log FILE]
//        one configuration, under ./lab; --kill: relay NAME's host (NAME and its keepalived, namespace NS) dies mid-run;
//        --kill-gateway: then gateway I's host (its JVM NAME, namespace NS) dies: each of its calls must be ended toward
//        IMS by a live gateway (a BYE at ue1, FILE: its SIPp message log) and its relay session deleted
//   node scale-out.mjs report --out DIR --scaled GxR      report.json + report.html from DIR/1x1 and DIR/GxR
// --gateway-hosts: each gateway's network namespace, where its metrics are read (they answer their own host only);
// --local-ip: loadgen's address (its sockets and ICE candidates), the client host's on the lab bridge.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { hostBusyPct, hostCpu, machine } from './analyze.mjs';
import { startCpuSampler } from '../kit/cpu.mjs';
import { listCalls, ng } from '../kit/ng.mjs';
import { esc, htmlHead, writeReport } from '../kit/report.mjs';
import { charts } from './html.mjs';
import { start, sleep, waitFor } from '../kit/procs.mjs';
import { gatewayKill, mediaOf, relayKill } from '../kit/failover.mjs';
import { labRoot, logDir } from '../kit/env.mjs';
import { capacityOf, compareCapacity, cpuByKind, failuresByReason, judgeStep, kindOf, SUSTAINED_P95_MS, sweepProcs } from './scale-capacity.mjs';
import { SETUP_USERS, setupStep } from './setup-rate.mjs';

// the processes whose CPU a phase reports, for G gateways and R relays
const phaseProcs = (g, r) => sweepProcs(g, r).filter((n) => n !== 'sipp' && n !== 'loadgen').concat('ue1');

function args(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) { out[argv[i].slice(2)] = argv[i + 1]; i++; } else out._.push(argv[i]);
  }
  return out;
}

const pct = (v, q) => {
  if (!v.length) return null;
  const s = [...v].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((q / 100) * s.length) - 1)] * 10) / 10;
};

// A gateway's Prometheus text, read on its own host (ns: its network namespace; the endpoint answers its host only).
function scrape(url, ns) {
  if (!ns) return fetch(`${url}/actuator/prometheus`, { signal: AbortSignal.timeout(3000) }).then((r) => r.text());
  return new Promise((resolve, reject) => execFile('ip', ['netns', 'exec', ns, 'curl', '-sf', '-m', '3', `${url}/actuator/prometheus`],
    { maxBuffer: 16 << 20 }, (err, out) => (err ? reject(new Error(`metrics of ${url} on host ${ns}: ${err.message}`)) : resolve(out))));
}

async function metrics(url, ns, dead = false) {
  if (dead) return { attempts: null, answers: null, media_lost: null }; // its host is gone (the gateway kill)
  const text = await scrape(url, ns);
  const sum = (name, filter = () => true) => text.split('\n').filter((l) => l.startsWith(name) && filter(l))
    .reduce((t, l) => t + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return { attempts: sum('gw_call_attempts_total'), answers: sum('gw_call_answers_total'),
    media_lost: sum('gw_calls_ended_total', (l) => l.includes('reason="media-lost"')) };
}

async function phase(o) {
  const out = o.out;
  fs.mkdirSync(out, { recursive: true });
  const relays = o.relays.split(',');
  const gateways = o.gateways.split(',');
  const hosts = (o['gateway-hosts'] ?? '').split(',');
  const PROCS = phaseProcs(gateways.length, relays.length);
  const calls = Number(o.calls);
  const durationS = Number(o.duration);
  const progress = (m) => console.log(`[scale-out ${o.config}] ${m}`);
  const started = new Date();
  const before = await Promise.all(gateways.map((g, i) => metrics(g, hosts[i])));
  const sampler = startCpuSampler();
  const host0 = hostCpu();
  const lgJson = path.join(out, 'loadgen.json');
  const lg = start('loadgen', path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(labRoot(), 'media-relay', 'build'), 'loadgen', 'loadgen'),
    ['--gateway', o.gateway, '--users', o.users, '--to', 'ue1', '--calls', String(calls), '--cps', o.cps, '--duration', String(durationS),
      '--profiles', path.join(labRoot(), 'media-relay', 'bench', 'profiles.json'), '--json', lgJson, '--quiet', ...(o['local-ip'] ? ['--local-ip', o['local-ip']] : [])],
    { log: path.join(logDir(), `loadgen-${o.config}.log`) });
  progress(`loadgen: ${calls} calls at ${o.cps}/s, ${durationS} s media each, through ${o.gateway}`);

  // the peak: every call in a relay (each relay asked itself; a relay also lists its standby copies of another
  // relay's calls, so the calls are counted once and each is the relay's whose address its sockets are bound to)
  let peak = null;
  const relayObjs = relays.map((r) => ({ addr: r.slice(0, r.lastIndexOf(':')), ng: r }));
  const ngPort = relays[0].slice(relays[0].lastIndexOf(':') + 1);
  const end = Date.now() + (calls / Number(o.cps) + 30) * 1000;
  while (Date.now() < end) {
    const ids = new Set((await Promise.all(relays.map((r) => listCalls(r).catch(() => [])))).flat());
    if (ids.size >= calls) { peak = [...ids]; break; }
    if (await waitFor(lg, 500)) break;
  }
  const where = new Map();
  for (const id of peak ?? []) where.set(id, await mediaOf(relayObjs, ngPort, id).catch(() => null));
  const perRelay = Object.fromEntries(relays.map((r) => [r, peak ? [...where.values()].filter((m) => m?.relay.ng === r).length : null]));
  progress(`calls per relay at the peak: ${JSON.stringify(perRelay)}`);

  let kill = null;
  if (o.kill && peak) {
    // at once (after the captures' 1.2 s): the last calls are then 1-2 s old, inside the window where rtpengine's
    // default endpoint learning ("delayed") had not yet written their DTLS-SRTP keys to Redis (the hosts layout's
    // relays confirm, and write, at the first SRTP packet: docs/scale-out.md); each call's age at the kill is reported
    const i = relays.length - 1; // the last relay's host dies (rtpengine3 with --relays 3)
    const k = await relayKill({ pidsFile: process.env.LAB_PIDS, relays, index: i, names: [o.kill, o['kill-vrrp']], ns: o['kill-host'],
      where, imsHost: o['ims-host'], label: `scale-out-kill-${o.config}` });
    const standbyMs = k.standby_answering_ms;
    progress(`killed ${o.kill}'s host ${o['kill-host']} (${relays[i]}, ${k.held.length} calls: pids ${Object.values(k.pids).join(', ')} SIGKILLed, namespace deleted)`);
    kill = { relay: relays[i], process: o.kill, host: o['kill-host'], calls_held: k.held.length, standby_answering_ms: standbyMs,
      held: k.held, others: k.others };
    progress(`${relays[i]} answered ng again (the standby) ${standbyMs} ms after the kill`);
  }

  let gwKill = null;
  if (o['kill-gateway'] && peak) {
    gwKill = await killGateway(o, peak, relays, kill ? 0 : 3000);
  }

  const res = await waitFor(lg, (calls / Number(o.cps) + durationS + 60) * 1000);
  const cpu = sampler.stop();
  const hostPct = hostBusyPct(host0, hostCpu());
  if (!res) throw new Error('loadgen did not finish');
  const report = JSON.parse(fs.readFileSync(lgJson, 'utf8'));
  const deadGw = gwKill ? gwKill.index - 1 : -1;
  const after = await Promise.all(gateways.map((g, i) => metrics(g, hosts[i], i === deadGw)));
  const delta = (a, b) => (a == null ? null : a - b);
  const perGateway = Object.fromEntries(gateways.map((g, i) => [g, { attempts: delta(after[i].attempts, before[i].attempts),
    answers: delta(after[i].answers, before[i].answers), media_lost: delta(after[i].media_lost, before[i].media_lost) }]));
  // the killed gateway's calls and how many it took (from the relays' sessions: its metrics died with it)
  if (gwKill) perGateway[gateways[deadGw]] = { attempts: gwKill.calls_held, answers: gwKill.calls_held, media_lost: null, killed: true };
  const setup = report.calls.filter((c) => c.setup_ms != null).map((c) => c.setup_ms);
  const sent = report.calls.reduce((t, c) => t + (c.sent ?? 0), 0);
  const recv = report.calls.reduce((t, c) => t + (c.recv ?? 0), 0);
  const ours = PROCS.reduce((t, n) => t + (cpu[`${n}_pct`] ?? 0), 0) + (cpu.loadgen_pct ?? 0);

  if (kill) {
    // per call of the killed relay: ended (loadgen got `ended` with a reason before its media time was up), kept with
    // media (packets again both ways after the kill — the capture's gap — and the call's own count afterwards: at
    // most the gap + 3 s of its packets missing), or lost (neither)
    const byId = new Map(report.calls.map((c) => [c.gateway_call_id, c]));
    const prefixLess = (id) => id.replace(/^gw\d+-/, '');
    const ratio = (c) => (c?.sent ? c.recv / c.sent : 0);
    const killedGw = new Set(gwKill ? gwKill.calls.map((c) => c.id) : []);
    const judge = (h) => {
      const c = byId.get(prefixLess(h.id));
      const gapMs = Math.max(h.to_browser.gapMs, h.to_ims.gapMs);
      // a call of the gateway killed after this measurement: its media across the relay kill is judged from the
      // captures alone (loadgen's end and count are the gateway kill's)
      if (killedGw.has(h.id)) {
        return { id: h.id, outcome: h.to_browser.after > 0 && h.to_ims.after > 0 ? 'kept' : 'lost', gap_ms: gapMs,
          gap_to_browser_ms: h.to_browser.gapMs, gap_to_ims_ms: h.to_ims.gapMs, then_gateway_killed: true };
      }
      if (c?.ended_early) return { id: h.id, outcome: 'ended', reason: c.end_reason ?? 'unknown', gap_to_browser_ms: h.to_browser.gapMs, gap_to_ims_ms: h.to_ims.gapMs };
      const media = h.to_browser.after > 0 && h.to_ims.after > 0 && ratio(c) >= 1 - (gapMs / 1000 + 3) / durationS;
      return { id: h.id, outcome: media ? 'kept' : 'lost', gap_ms: gapMs, gap_to_browser_ms: h.to_browser.gapMs, gap_to_ims_ms: h.to_ims.gapMs,
        packets_back_pct: c?.sent ? Math.round(ratio(c) * 1000) / 10 : null };
    };
    const judged = (h) => ({ ...judge(h), age_at_kill_ms: h.age_at_kill_ms });
    kill.calls = kill.held.map(judged);
    const others = kill.others.map(judged);
    const ages = kill.calls.map((c) => c.age_at_kill_ms).filter((a) => a != null);
    kill.age_at_kill_ms = ages.length ? { min: Math.min(...ages), max: Math.max(...ages) } : null;
    kill.kept_with_media = kill.calls.filter((c) => c.outcome === 'kept').length;
    kill.ended_cleanly = kill.calls.filter((c) => c.outcome === 'ended').length;
    kill.ended_reasons = Object.fromEntries([...new Set(kill.calls.filter((c) => c.reason).map((c) => c.reason))].map((r) => [r, kill.calls.filter((c) => c.reason === r).length]));
    kill.lost = kill.calls.filter((c) => c.outcome === 'lost').length;
    const gaps = kill.calls.filter((c) => c.outcome === 'kept').map((c) => c.gap_ms);
    kill.gap_ms = gaps.length ? { max: Math.max(...gaps), p50: pct(gaps, 50), all: gaps } : null;
    kill.gap_limit_ms = 3000;
    kill.other_relay_calls = others.length;
    kill.other_relay_calls_untouched = others.filter((c) => c.outcome === 'kept' && c.gap_ms < 1000).length;
    kill.other_relay_calls_gap_max_ms = others.length ? Math.max(...others.map((c) => c.gap_ms ?? c.gap_to_ims_ms ?? 0)) : null;
    kill.other_relay_calls_outcomes = Object.fromEntries(['kept', 'ended', 'lost'].map((o) => [o, others.filter((c) => c.outcome === o).length]));
    kill.outcome = `${kill.kept_with_media} kept with media (gap max ${kill.gap_ms?.max ?? '—'} ms), ${kill.ended_cleanly} ended cleanly, ${kill.lost} lost`;
    kill.sessions_left = Object.fromEntries(await Promise.all(relays.map(async (r) => [r, (await listCalls(r)).length])));
    delete kill.held;
    delete kill.others;
    progress(`kill outcome: ${kill.outcome}; per call (age at the kill → outcome): ${kill.calls.map((c) => `${c.age_at_kill_ms ?? '?'} ms → ${c.outcome}${c.gap_ms != null ? ` ${c.gap_ms} ms` : ''}${c.reason ? ` ${c.reason}` : ''}`).join(', ')}; other relays' calls untouched ${kill.other_relay_calls_untouched}/${kill.other_relay_calls}`);
  }
  const result = {
    config: o.config, started: started.toISOString(), gateways: gateways.length, relays: relays.length, calls, cps: Number(o.cps), media_s: durationS,
    setup_ok: report.totals?.setup_ok ?? null, failed: report.totals?.failed ?? null, ended_early: report.totals?.ended_early ?? null,
    setup_ms: { p50: pct(setup, 50), p95: pct(setup, 95), max: pct(setup, 100) },
    loss_pct: sent ? Math.round(((sent - recv) / sent) * 100000) / 1000 : null,
    per_relay_calls: perRelay, per_gateway: perGateway, gateway_kill: gwKill,
    cpu: Object.fromEntries([...PROCS, 'loadgen'].map((n) => [`${n}_pct`, cpu[`${n}_pct`] ?? null]).concat([['wall_s', cpu.wall_s]])),
    cpu_lab_total_pct: Math.round(ours * 100) / 100,
    cpu_per_call_pct: Math.round((ours / calls) * 1000) / 1000,
    other_jobs_pct: hostPct == null ? null : Math.max(0, Math.round((hostPct - ours) * 100) / 100),
    kill,
  };
  if (gwKill) {
    // the other gateways' calls: loadgen's own end of each (not ended early) and its packets back
    const byId = new Map(report.calls.map((c) => [c.gateway_call_id, c]));
    const killed = new Set(gwKill.calls.map((c) => c.id.replace(/^gw\d+-/, '')));
    const others = report.calls.filter((c) => c.gateway_call_id && !killed.has(c.gateway_call_id));
    gwKill.other_gateway_calls = others.length;
    gwKill.other_gateway_calls_ended_early = others.filter((c) => c.ended_early).map((c) => ({ id: c.gateway_call_id, reason: c.end_reason ?? null }));
    gwKill.killed_calls_loadgen_end = [...killed].map((id) => byId.get(id)?.end_reason ?? null);
  }
  fs.writeFileSync(path.join(out, 'phase.json'), `${JSON.stringify(result, null, 2)}\n`);
  progress(`setup ok ${result.setup_ok}/${calls}, failed ${result.failed}, setup p50 ${result.setup_ms.p50} ms, loss ${result.loss_pct} %, lab CPU ${result.cpu_lab_total_pct} % of one core, other jobs ${result.other_jobs_pct} %`);
}

// The gateway kill (kit/failover.mjs gatewayKill): gateway I's host dies; each of its calls (the relay sessions named
// gw<I>-…) must be ended by a live gateway from the dialog it kept in Redis — a BYE at ue1 and its relay session deleted.
async function killGateway(o, peak, relays, waitMs) {
  await sleep(waitMs);
  const index = Number(o['kill-gateway-index']);
  const held = peak.filter((id) => id.startsWith(`gw${index}-`));
  const progress = (m) => console.log(`[scale-out ${o.config}] ${m}`);
  const r = await gatewayKill({ pidsFile: process.env.LAB_PIDS, name: o['kill-gateway'], ns: o['kill-gateway-host'], index, held, relays,
    ueLogs: [o['ue-log']] });
  progress(`killed gateway ${index}'s host ${o['kill-gateway-host']} (${held.length} calls, SIGKILLed, namespace deleted)`);
  delete r.at_ms;
  progress(`gateway kill outcome: ${r.outcome}`);
  return r;
}

// The capacity sweep of one configuration: at each rate, cps x step-seconds MO calls from loadgen (one thread,
// alice and bob: one session on each gateway behind HAProxy), each held `hold` s, through the configuration's
// entry (the gateway / HAProxy); per step the criterion, setup p50/p95, failures by reason, CPU per process
// instance, calls per gateway (metrics deltas) and per relay (distinct calls in each relay's `list`, asked every
// second). Stops at the first failing step.
async function sweep(o) {
  const root = labRoot();
  const relays = o.relays.split(',');
  const gateways = o.gateways.split(',');
  const hosts = (o['gateway-hosts'] ?? '').split(',');
  const SWEEP_PROCS = sweepProcs(gateways.length, relays.length);
  const r0port = relays[0].slice(relays[0].lastIndexOf(':') + 1);
  const steps = o['cps-steps'].split(',').map(Number);
  const stepS = Number(o['step-seconds']);
  const holdS = Number(o.hold);
  const cores = machine().nproc;
  const progress = (m) => console.log(`[scale-out ${o.config} sweep] ${m}`);
  const result = { config: o.config, started: new Date().toISOString(), gateways: gateways.length, relays: relays.length, entry: o.gateway, cps_steps: steps, step_seconds: stepS, hold_s: holdS,
    criterion: `every call set up with media back and its end confirmed, setup p95 <= ${SUSTAINED_P95_MS} ms (call sent -> DTLS done)`, steps: [] };
  const save = () => fs.writeFileSync(path.join(o.out, 'sweep.json'), `${JSON.stringify(result, null, 2)}\n`);
  fs.mkdirSync(o.out, { recursive: true });
  for (const cps of steps) {
    const calls = cps * stepS;
    const dir = path.join(o.out, `cps-${cps}`);
    progress(`step ${cps} calls/s: ${calls} calls over ${stepS} s, held ${holdS} s (~${cps * holdS} up at once)`);
    const before = await Promise.all(gateways.map((g, i) => metrics(g, hosts[i])));
    const seen = relays.map(() => new Set());
    const placed = new Map(); // call-id -> the relay whose address its sockets are on (a relay lists its standby copies too)
    const relayObjs = relays.map((r) => ({ addr: r.slice(0, r.lastIndexOf(':')), ng: r }));
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const ids = new Set((await Promise.all(relays.map((r) => listCalls(r).catch(() => null)))).flat().filter(Boolean));
        for (const id of ids) {
          if (!placed.has(id)) placed.set(id, (await mediaOf(relayObjs, r0port, id).catch(() => null))?.relay.ng ?? null);
          const i = relays.indexOf(placed.get(id));
          if (i >= 0) seen[i].add(id);
        }
        await sleep(1000);
      }
    })();
    const s = await setupStep({ root, dir, logDir: logDir(), gateway: o.gateway, profilesFile: path.join(root, 'media-relay', 'bench', 'profiles.json'),
      cps, calls, holdS, threads: 1, userCount: Math.min(SETUP_USERS.length, Math.max(2, gateways.length)), procs: SWEEP_PROCS, progress, progressEvery: 10,
      extraArgs: o['local-ip'] ? ['--local-ip', o['local-ip']] : [] });
    polling = false;
    await poller;
    const after = await Promise.all(gateways.map((g, i) => metrics(g, hosts[i]).catch(() => null)));
    let lg = null;
    try { lg = JSON.parse(fs.readFileSync(path.join(dir, 'loadgen.json'), 'utf8')); } catch { /* setupStep reported it */ }
    judgeStep(s);
    Object.assign(s, {
      failures_by_reason: failuresByReason(lg?.calls),
      per_gateway: Object.fromEntries(gateways.map((g, i) => [g, after[i] ? { attempts: after[i].attempts - before[i].attempts, answers: after[i].answers - before[i].answers } : null])),
      per_relay_calls: Object.fromEntries(relays.map((r, i) => [r, seen[i].size])),
      cpu_by_kind: cpuByKind(s.cpu),
    });
    delete s.failure_reasons; // failures_by_reason has them all, counted
    result.steps.push(s);
    save();
    const inst = SWEEP_PROCS.filter((n) => s.cpu[`${n}_pct`] != null).map((n) => `${n} ${s.cpu[`${n}_pct`]}`).join(', ');
    progress(`step ${cps} calls/s: ${s.pass ? 'pass' : `FAIL (${s.fail_reason})`}; ${s.setup_ok ?? 'n/a'}/${calls} set up, p50 ${s.setup_ms?.p50 ?? 'n/a'} p95 ${s.setup_ms?.p95 ?? 'n/a'} ms; `
      + `per gateway ${Object.values(s.per_gateway).map((g) => g?.attempts ?? '?').join('/')}, per relay ${Object.values(s.per_relay_calls).join('/')}; CPU % ${inst}; host ${s.cpu.host_busy_pct} %, other jobs ${s.cpu.other_pct} %`);
    if (!s.pass) break;
    await sleep(3000); // let BYEs, deletes and timewaits settle (as sustained.mjs)
  }
  result.capacity = capacityOf(result.steps, cores);
  save();
  const c = result.capacity;
  progress(`capacity: ${c.bound === '<' ? `below ${c.lowest_cps}` : `${c.bound === '>=' ? '>= ' : ''}${c.capacity_cps}`} calls/s; bottleneck at ${c.bottleneck?.at_cps} calls/s: ${c.bottleneck?.process} ${c.bottleneck?.pct} % of one core, host ${c.bottleneck?.host_busy_pct} % of ${cores * 100} %`);
}

function html(r) {
  const row = (p) => `<tr><td>${esc(p.config)}</td><td>${p.setup_ok}/${p.calls}</td><td>${p.failed}</td><td>${p.setup_ms.p50} / ${p.setup_ms.p95}</td><td>${p.loss_pct}</td>
<td>${esc(JSON.stringify(p.per_gateway))}</td><td>${esc(JSON.stringify(p.per_relay_calls))}</td><td>${p.cpu_lab_total_pct}</td><td>${p.cpu_per_call_pct}</td><td>${p.other_jobs_pct}</td></tr>`;
  const cpuRows = Object.keys(r.phases[0].cpu).filter((k) => k.endsWith('_pct')).map((k) => `<tr><td>${esc(k.replace(/_pct$/, ''))}</td>${r.phases.map((p) => `<td>${p.cpu[k] ?? '—'}</td>`).join('')}</tr>`).join('');
  const k = r.phases.find((p) => p.kill)?.kill;
  return `${htmlHead('lab bench scale-out', { chart: r.capacity != null })}
<h1>Scale-out: 1 gateway + 1 rtpengine vs ${r.phases[1].gateways} + ${r.phases[1].relays}, each a host of its own</h1>
${r.capacity ? capacityHtml(r) : ''}
<h2>The same load on both${r.capacity ? ' (after the sweeps)' : ''}</h2>
<p>${esc(r.started)} · ${esc(r.machine?.cpu_model ?? '')} · ${r.machine?.nproc} cores · the same load in both: ${r.phases[0].calls} MO calls at ${r.phases[0].cps}/s, ${r.phases[0].media_s} s media each (loadgen gateway mode, one user per gateway, through ${esc(r.entry)})</p>
<p class="${r.ok ? 'ok' : 'bad'}">${r.ok ? 'ok' : 'FAILED'}: ${esc(r.summary)}</p>
<table><tr><th>config</th><th>set up</th><th>failed</th><th>setup p50/p95 ms</th><th>loss %</th><th>per gateway</th><th>per relay (peak)</th><th>lab CPU % of one core</th><th>per call</th><th>other jobs %</th></tr>
${r.phases.map(row).join('')}</table>
<h2>CPU per process (% of one core)</h2><table><tr><th>process</th>${r.phases.map((p) => `<th>${esc(p.config)}</th>`).join('')}</tr>${cpuRows}</table>
${k ? `<h2>Relay host killed (${esc(r.phases[1].config)})</h2><p>${esc(k.process)}'s host ${esc(k.host)} (${esc(k.relay)}, ${k.calls_held} calls) died mid-call (SIGKILL, namespace deleted); its standby answered on its address ${k.standby_answering_ms} ms later.
Outcome: <b>${esc(k.outcome)}</b>; per call (gap in ms, from the captures: to the browser / to IMS): ${esc(k.calls.map((c) => `${c.outcome}${c.gap_ms != null ? ` ${c.gap_to_browser_ms}/${c.gap_to_ims_ms}` : ''}${c.reason ? ` (${c.reason})` : ''}`).join(', '))};
the other relays' calls untouched ${k.other_relay_calls_untouched}/${k.other_relay_calls}; sessions left ${esc(JSON.stringify(k.sessions_left))}.
(The killed relay's CPU counts until its host died.)</p>` : ''}
${r.phases[1].gateway_kill ? ((g) => `<h2>Gateway host killed (${esc(r.phases[1].config)})</h2><p>${esc(g.gateway)}'s host ${esc(g.host)} (${g.calls_held} calls) died mid-call (SIGKILL, namespace deleted). Outcome: <b>${esc(g.outcome)}</b>;
per call (BYE at the UE / relay session gone, ms after the kill): ${esc(g.calls.map((c) => `${c.outcome} ${c.bye_at_ue_ms ?? '—'}/${c.relay_session_gone_ms ?? '—'}`).join(', '))};
the live gateways' calls ended early: ${g.other_gateway_calls_ended_early.length} of ${g.other_gateway_calls}.</p>`)(r.phases[1].gateway_kill) : ''}
<p>${esc(r.note)}</p></body></html>`;
}

// one colour per kind of process in the CPU plots (the second instance dashed)
const KIND_COLORS = { gateways: '#1f77b4', rtpengines: '#d62728', haproxy: '#8c564b', redis: '#e377c2',
  kamailio: '#2ca02c', sipp: '#ff7f0e', loadgen: '#9467bd' };

const cell = (v) => (v == null ? '—' : esc(typeof v === 'object' ? JSON.stringify(v) : String(v)));

function capacityHtml(r) {
  const c = r.capacity;
  const capText = (x) => (x.bound === '<' ? `below ${x.lowest_cps}` : `${x.bound === '>=' ? '≥ ' : ''}${x.capacity_cps}`);
  const rows = c.sweeps.flatMap((w) => w.steps.map((s) => `<tr><td>${esc(w.config)}</td><td>${s.cps}</td><td>${s.setup_ok ?? '—'}/${s.calls}</td><td>${s.failures ?? '—'}</td>
<td>${s.setup_ms?.p50 ?? '—'} / ${s.setup_ms?.p95 ?? '—'}</td><td>${s.concurrent_peak ?? '—'}</td><td>${cell(Object.values(s.per_gateway).map((g) => g?.attempts ?? '?').join(' / '))}</td>
<td>${cell(Object.values(s.per_relay_calls).join(' / '))}</td><td>${cell(s.cpu_by_kind.lab_total)}</td><td>${s.cpu.host_busy_pct ?? '—'} / ${s.cpu.other_pct ?? '—'}</td>
<td class="${s.pass ? 'ok' : 'bad'}">${s.pass ? 'pass' : `FAIL: ${esc(s.fail_reason)}`}</td><td>${cell(Object.keys(s.failures_by_reason).length ? s.failures_by_reason : null)}</td></tr>`)).join('\n');
  const last = c.sweeps[c.sweeps.length - 1];
  const procs = sweepProcs(last.gateways, last.relays).filter((n) => c.sweeps.some((w) => w.steps.some((s) => s.cpu[`${n}_pct`] != null)));
  const cpuRows = c.sweeps.flatMap((w) => w.steps.map((s) => `<tr><td>${esc(w.config)}</td><td>${s.cps}</td>${procs.map((n) => `<td>${s.cpu[`${n}_pct`] ?? '—'}</td>`).join('')}
${['gateways', 'rtpengines'].map((k2) => `<td>${s.cpu_by_kind[k2] ?? '—'}</td>`).join('')}</tr>`)).join('\n');
  const plots = [{ id: 'p95', title: 'Setup p95 per step (call sent → DTLS done)', x: 'calls/s', y: 'setup p95 ms', points: true,
    datasets: c.sweeps.map((w) => ({ label: w.config, points: w.steps.map((s) => [s.cps, s.setup_ms?.p95 ?? null]) }))
      .concat([{ label: `criterion (${SUSTAINED_P95_MS} ms)`, points: c.sweeps.flatMap((w) => w.steps.map((s) => s.cps)).sort((a, b) => a - b).filter((v, i, a) => i === 0 || i === a.length - 1).map((x) => [x, SUSTAINED_P95_MS]) }]) }]
    .concat(c.sweeps.map((w) => ({ id: `cpu-${w.config}`, title: `CPU per process, ${w.config} (% of one core, mean over the step)`, x: 'calls/s', y: '% of one core', points: true,
      datasets: procs.filter((n) => w.steps.some((s) => s.cpu[`${n}_pct`] != null)).map((n) => ({ label: n, points: w.steps.map((s) => [s.cps, s.cpu[`${n}_pct`]]),
        color: KIND_COLORS[kindOf(n)], dash: /\d$/.test(n) ? [6, 3] : [] })) })));
  return `<h2>Capacity (constant-rate steps, up to the first failing one)</h2>
<p>${esc(c.sweeps[0].step_seconds)} s per step, each call held ${esc(c.sweeps[0].hold_s)} s; steps ${esc(c.sweeps[0].cps_steps.join(', '))} calls/s; pass = ${esc(c.sweeps[0].criterion)}.
loadgen gateway mode, one thread, one user per gateway (at least two; one on each gateway behind HAProxy in ${esc(last.config)}).</p>
<table><tr><th>config</th><th>capacity (calls/s)</th><th>first failing step</th><th>bottleneck (at that step)</th></tr>
${c.sweeps.map((w) => `<tr><td>${esc(w.config)}</td><td><b>${capText(w.capacity)}</b></td><td>${w.capacity.first_failing_cps ?? '—'}${w.capacity.first_failing_reason ? `: ${esc(w.capacity.first_failing_reason)}` : ''}</td>
<td>${w.capacity.bottleneck ? `${esc(w.capacity.bottleneck.process)} ${w.capacity.bottleneck.pct} % of one core; host ${w.capacity.bottleneck.host_busy_pct} % of ${r.machine?.nproc * 100} %${w.capacity.bottleneck.host_saturated ? ' (out of cores)' : ''}, other jobs ${w.capacity.bottleneck.other_pct} %` : '—'}</td></tr>`).join('')}</table>
<p><b>${esc(c.comparison.text)}</b></p>
<table><tr><th>config</th><th>calls/s</th><th>set up</th><th>failed</th><th>setup p50 / p95 ms</th><th>peak in media</th><th>calls per gateway</th><th>calls per relay</th><th>lab CPU % of one core</th><th>host busy / other jobs %</th><th>result</th><th>failures by reason</th></tr>
${rows}</table>
<h3>CPU per process instance (% of one core)</h3>
<table><tr><th>config</th><th>calls/s</th>${procs.map((n) => `<th>${esc(n)}</th>`).join('')}<th>gateways</th><th>rtpengines</th></tr>${cpuRows}</table>
${charts(plots)}
<p>${esc(r.capacity_note)}</p>`;
}

function report(o) {
  const S = o.scaled ?? '3x3';
  const phases = ['1x1', S].map((c) => JSON.parse(fs.readFileSync(path.join(o.out, c, 'phase.json'), 'utf8')));
  const sweeps = ['1x1', S].map((c) => { try { return JSON.parse(fs.readFileSync(path.join(o.out, c, 'sweep.json'), 'utf8')); } catch { return null; } });
  const [one, two] = phases;
  const problems = [];
  let capacity = null;
  if (sweeps.every(Boolean)) {
    for (const w of sweeps) if (!w.steps.length || w.steps.some((s) => s.setup_ok == null)) problems.push(`${w.config} sweep: a step gave no result`);
    capacity = { sweeps, comparison: compareCapacity(sweeps[0], sweeps[1]) };
  } else if (sweeps.some(Boolean)) problems.push('the capacity sweep ran on one configuration only');
  for (const p of phases) if (p.failed || p.setup_ok !== p.calls) problems.push(`${p.config}: ${p.failed} failed, ${p.setup_ok}/${p.calls} set up`);
  const g = Object.values(two.per_gateway).map((x) => x.attempts);
  const rl = Object.values(two.per_relay_calls);
  if (g.some((n) => !n)) problems.push(`${S}: a gateway took no call (${g.join('/')})`);
  if (rl.some((n) => !n)) problems.push(`${S}: a relay took no call (${rl.join('/')})`);
  if (two.kill && two.kill.lost) problems.push(`kill: ${two.kill.lost} calls lost (no media after the kill, no end)`);
  if (two.kill && (two.kill.gap_ms?.max ?? 0) >= two.kill.gap_limit_ms) problems.push(`kill: a kept call's gap was ${two.kill.gap_ms.max} ms (limit ${two.kill.gap_limit_ms})`);
  if (two.kill && Object.values(two.kill.sessions_left).some((n) => n)) problems.push('kill: sessions left on a relay');
  const gk = two.gateway_kill;
  if (gk && gk.lost) problems.push(`gateway kill: ${gk.lost} of the killed gateway's calls lost (no BYE at the UE or relay session left within 15 s)`);
  if (gk && !gk.calls_held) problems.push('gateway kill: the killed gateway held no call');
  if (gk && gk.other_gateway_calls_ended_early.length) problems.push(`gateway kill: ${gk.other_gateway_calls_ended_early.length} calls of the live gateways ended early`);
  const r = {
    tool: 'lab bench scale-out', started: [...sweeps, ...phases].map((x) => x?.started).filter(Boolean).sort()[0] ?? null, finished: new Date().toISOString(), machine: machine(), entry: `HAProxy's host (${S}) / the gateway's host (1x1)`,
    ok: problems.length === 0,
    summary: problems.length ? problems.join('; ') : `${capacity ? `${capacity.comparison.text}; ` : ''}same load on both: lab CPU ${one.cpu_lab_total_pct} % (1x1) vs ${two.cpu_lab_total_pct} % (${S}) of one core, setup p50 ${one.setup_ms.p50} vs ${two.setup_ms.p50} ms; ${S} spread gateways ${g.join('/')}, relays ${rl.join('/')}; relay kill: ${two.kill?.outcome ?? 'not run'}; gateway kill: ${gk?.outcome ?? 'not run'}`,
    note: `Every host is a network namespace of the same machine (${os_cores()} cores shared with other jobs): ${S} cannot multiply capacity, its gateways and relays compete for the same cores, and more JVMs and HAProxy add their own CPU. What the layout buys here is fault isolation (a relay killed mid-call) and the same addresses and ports a deployment on separate machines has, not throughput on one machine.`,
    capacity,
    capacity_note: capacity ? capacityNote(capacity, machine().nproc) : null,
    phases,
  };
  const { htmlFile } = writeReport(o.out, r, html);
  if (capacity) {
    console.log('capacity sweep (pass = every call set up with media back, setup p95 <= 300 ms)');
    console.log('  config  calls/s  set up      p50 ms  p95 ms  lab CPU %  host busy / other %  result');
    for (const w of sweeps) {
      for (const s of w.steps) {
        console.log(`  ${w.config.padEnd(6)}  ${String(s.cps).padStart(7)}  ${`${s.setup_ok ?? 'n/a'}/${s.calls}`.padEnd(10)}  ${String(s.setup_ms?.p50 ?? 'n/a').padStart(6)}  ${String(s.setup_ms?.p95 ?? 'n/a').padStart(6)}  `
          + `${String(s.cpu_by_kind.lab_total).padStart(9)}  ${`${s.cpu.host_busy_pct ?? 'n/a'} / ${s.cpu.other_pct ?? 'n/a'}`.padStart(19)}  ${s.pass ? 'pass' : `FAIL (${s.fail_reason})`}`);
      }
    }
    console.log(`  ${capacity.comparison.text}`);
  }
  console.log(`lab bench scale-out: ${r.ok ? 'ok' : 'FAILED'}: ${r.summary}`);
  console.log(`report: ${htmlFile}`);
  return r.ok ? 0 : 1;
}

// What the sweep measured and why (which process saturates, the cores), from the figures.
function capacityNote(c, cores) {
  const say = (w) => {
    const b = w.capacity.bottleneck;
    if (!b) return `${w.config}: no step`;
    const why = b.pct >= 90 ? `: ${b.process} had used up its core`
      : b.host_saturated ? ': no process used a whole core, the host was out of cores'
        : ': no process used a whole core and the host was not out of cores either (busy below 85 % of all cores over the step)';
    return `${w.config}: at ${b.at_cps} calls/s (${b.step}) the busiest process was ${b.process} at ${b.pct} % of one core, the host ${b.host_busy_pct} % busy of ${cores * 100} % (other jobs ${b.other_pct} %)${why}`;
  };
  return `${c.sweeps.map(say).join('; ')}. Every process of both configurations, the load generator included, runs on the same ${cores} cores: `
    + 'more gateways and rtpengines on hosts that are namespaces of one machine add instances, not cores, so the scaled configuration cannot multiply the capacity '
    + 'here; it spreads the same work over more processes (and adds HAProxy\'s hop and more JVMs). What would scale is each host on a machine of its own.';
}

function os_cores() { return machine().nproc; }

const o = args(process.argv.slice(2));
try {
  if (o._[0] === 'phase') { await phase(o); process.exit(0); }
  if (o._[0] === 'sweep') { await sweep(o); process.exit(0); }
  if (o._[0] === 'report') process.exit(report(o));
  console.error('usage: scale-out.mjs phase|report ...');
  process.exit(2);
} catch (e) {
  console.error(`bench scale-out: ${e.message}`);
  process.exit(1);
}
