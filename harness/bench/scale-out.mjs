// ./lab bench scale-out (issue #14, docs/scale-out.md): the same MO load (loadgen's gateway mode, two users, so
// that HAProxy spreads the sessions) on one gateway + one rtpengine and on two of each, in the same run.
//   node scale-out.mjs phase --config 1x1|2x2 --out DIR --gateway URL --gateways URL,... --relays NG,... --users FILE
//        --calls N --cps R --duration S [--kill NAME]     one configuration, under ./lab (LAB_PIDS, LAB_LOGDIR)
//   node scale-out.mjs report --out DIR                   report.json + report.html from DIR/1x1 and DIR/2x2
import fs from 'node:fs';
import path from 'node:path';
import { hostBusyPct, hostCpu, machine } from './analyze.mjs';
import { startCpuSampler } from '../kit/cpu.mjs';
import { listCalls, ng } from '../kit/ng.mjs';
import { esc, htmlHead, writeReport } from '../kit/report.mjs';
import { start, sleep, waitFor } from '../kit/procs.mjs';
import { restart } from '../kit/restart.mjs';
import { labRoot, logDir } from '../kit/env.mjs';

const PROCS = ['gateway', 'gateway2', 'rtpengine', 'rtpengine2', 'haproxy', 'redis', 'kamailio', 'ue1'];

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

async function metrics(url) {
  const text = await (await fetch(`${url}/actuator/prometheus`, { signal: AbortSignal.timeout(3000) })).text();
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
  const calls = Number(o.calls);
  const durationS = Number(o.duration);
  const progress = (m) => console.log(`[scale-out ${o.config}] ${m}`);
  const before = await Promise.all(gateways.map(metrics));
  const sampler = startCpuSampler();
  const host0 = hostCpu();
  const lgJson = path.join(out, 'loadgen.json');
  const lg = start('loadgen', path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(labRoot(), 'media-relay', 'build'), 'loadgen', 'loadgen'),
    ['--gateway', o.gateway, '--users', o.users, '--to', 'ue1', '--calls', String(calls), '--cps', o.cps, '--duration', String(durationS),
      '--profiles', path.join(labRoot(), 'media-relay', 'bench', 'profiles.json'), '--json', lgJson, '--quiet'],
    { log: path.join(logDir(), `loadgen-${o.config}.log`) });
  progress(`loadgen: ${calls} calls at ${o.cps}/s, ${durationS} s media each, through ${o.gateway}`);

  // the peak: every call in a relay (each relay asked itself)
  let peak = null;
  const end = Date.now() + (calls / Number(o.cps) + 30) * 1000;
  while (Date.now() < end) {
    const lists = await Promise.all(relays.map((r) => listCalls(r).catch(() => [])));
    if (lists.flat().length >= calls) { peak = lists; break; }
    if (await waitFor(lg, 500)) break;
  }
  const perRelay = Object.fromEntries(relays.map((r, i) => [r, peak ? peak[i].length : null]));
  progress(`calls per relay at the peak: ${JSON.stringify(perRelay)}`);

  let kill = null;
  if (o.kill && peak) {
    await sleep(3000);
    const i = relays.length - 1; // the last relay is the one killed (rtpengine2 with --relays 2)
    const t0 = Date.now();
    await restart(o.kill, { pauseMs: 1000, ready: async () => (await ng(relays[i], { command: 'ping' }, 300)).result === 'pong' });
    const restartMs = Date.now() - t0;
    const restored = await listCalls(relays[i]);
    kill = { relay: relays[i], process: o.kill, calls_held: peak[i].length, restart_ms: restartMs, restored_from_redis: restored.length, held_ids: peak[i] };
    progress(`killed ${o.kill} (${relays[i]}, ${peak[i].length} calls) with SIGKILL, answering again after ${restartMs} ms, ${restored.length} calls restored from Redis`);
  }

  const res = await waitFor(lg, (calls / Number(o.cps) + durationS + 60) * 1000);
  const cpu = sampler.stop();
  const hostPct = hostBusyPct(host0, hostCpu());
  if (!res) throw new Error('loadgen did not finish');
  const report = JSON.parse(fs.readFileSync(lgJson, 'utf8'));
  const after = await Promise.all(gateways.map(metrics));
  const perGateway = Object.fromEntries(gateways.map((g, i) => [g, { attempts: after[i].attempts - before[i].attempts,
    answers: after[i].answers - before[i].answers, media_lost: after[i].media_lost - before[i].media_lost }]));
  const setup = report.calls.filter((c) => c.setup_ms != null).map((c) => c.setup_ms);
  const sent = report.calls.reduce((t, c) => t + (c.sent ?? 0), 0);
  const recv = report.calls.reduce((t, c) => t + (c.recv ?? 0), 0);
  const ours = PROCS.reduce((t, n) => t + (cpu[`${n}_pct`] ?? 0), 0) + (cpu.loadgen_pct ?? 0);

  if (kill) {
    const prefixLess = (id) => id.replace(/^gw\d+-/, '');
    const ids = new Set(kill.held_ids.map(prefixLess));
    const mine = report.calls.filter((c) => ids.has(c.gateway_call_id));
    const others = report.calls.filter((c) => !ids.has(c.gateway_call_id));
    const ratio = (c) => (c.sent ? c.recv / c.sent : 0);
    const gapOk = 1 - (kill.restart_ms / 1000 + 3) / durationS;
    kill.kept_with_media = mine.filter((c) => !c.ended_early && ratio(c) >= gapOk).length;
    kill.kept_silent = mine.filter((c) => !c.ended_early && ratio(c) < gapOk).length;
    kill.ended_media_lost = mine.filter((c) => c.ended_early && c.end_reason === 'media-lost').length;
    kill.ended_other = mine.filter((c) => c.ended_early && c.end_reason !== 'media-lost').length;
    kill.other_relay_calls_untouched = others.filter((c) => !c.ended_early && ratio(c) >= 0.98).length;
    kill.other_relay_calls = others.length;
    kill.outcome = kill.kept_with_media === mine.length ? 'kept (restored from Redis, media both ways)'
      : kill.ended_media_lost === mine.length ? 'ended cleanly (media-lost, BYE toward IMS)' : 'mixed';
    kill.sessions_left = Object.fromEntries(await Promise.all(relays.map(async (r) => [r, (await listCalls(r)).length])));
    delete kill.held_ids;
    progress(`kill outcome: ${kill.outcome}; kept with media ${kill.kept_with_media}, silent ${kill.kept_silent}, media-lost ${kill.ended_media_lost}; other relay's calls untouched ${kill.other_relay_calls_untouched}/${kill.other_relay_calls}`);
  }
  const result = {
    config: o.config, gateways: gateways.length, relays: relays.length, calls, cps: Number(o.cps), media_s: durationS,
    setup_ok: report.totals?.setup_ok ?? null, failed: report.totals?.failed ?? null, ended_early: report.totals?.ended_early ?? null,
    setup_ms: { p50: pct(setup, 50), p95: pct(setup, 95), max: pct(setup, 100) },
    loss_pct: sent ? Math.round(((sent - recv) / sent) * 100000) / 1000 : null,
    per_relay_calls: perRelay, per_gateway: perGateway,
    cpu: Object.fromEntries([...PROCS, 'loadgen'].map((n) => [`${n}_pct`, cpu[`${n}_pct`] ?? null]).concat([['wall_s', cpu.wall_s]])),
    cpu_lab_total_pct: Math.round(ours * 100) / 100,
    cpu_per_call_pct: Math.round((ours / calls) * 1000) / 1000,
    other_jobs_pct: hostPct == null ? null : Math.max(0, Math.round((hostPct - ours) * 100) / 100),
    kill,
  };
  fs.writeFileSync(path.join(out, 'phase.json'), `${JSON.stringify(result, null, 2)}\n`);
  progress(`setup ok ${result.setup_ok}/${calls}, failed ${result.failed}, setup p50 ${result.setup_ms.p50} ms, loss ${result.loss_pct} %, lab CPU ${result.cpu_lab_total_pct} % of one core, other jobs ${result.other_jobs_pct} %`);
}

function html(r) {
  const row = (p) => `<tr><td>${esc(p.config)}</td><td>${p.setup_ok}/${p.calls}</td><td>${p.failed}</td><td>${p.setup_ms.p50} / ${p.setup_ms.p95}</td><td>${p.loss_pct}</td>
<td>${esc(JSON.stringify(p.per_gateway))}</td><td>${esc(JSON.stringify(p.per_relay_calls))}</td><td>${p.cpu_lab_total_pct}</td><td>${p.cpu_per_call_pct}</td><td>${p.other_jobs_pct}</td></tr>`;
  const cpuRows = Object.keys(r.phases[0].cpu).filter((k) => k.endsWith('_pct')).map((k) => `<tr><td>${esc(k.replace(/_pct$/, ''))}</td>${r.phases.map((p) => `<td>${p.cpu[k] ?? '—'}</td>`).join('')}</tr>`).join('');
  const k = r.phases.find((p) => p.kill)?.kill;
  return `${htmlHead('lab bench scale-out', { chart: false })}
<h1>Scale-out: 1 gateway + 1 rtpengine vs 2 + 2</h1>
<p>${esc(r.started)} · ${esc(r.machine?.cpu_model ?? '')} · ${r.machine?.nproc} cores · the same load in both: ${r.phases[0].calls} MO calls at ${r.phases[0].cps}/s, ${r.phases[0].media_s} s media each (loadgen gateway mode, two users, through ${esc(r.entry)})</p>
<p class="${r.ok ? 'ok' : 'bad'}">${r.ok ? 'ok' : 'FAILED'}: ${esc(r.summary)}</p>
<table><tr><th>config</th><th>set up</th><th>failed</th><th>setup p50/p95 ms</th><th>loss %</th><th>per gateway</th><th>per relay (peak)</th><th>lab CPU % of one core</th><th>per call</th><th>other jobs %</th></tr>
${r.phases.map(row).join('')}</table>
<h2>CPU per process (% of one core)</h2><table><tr><th>process</th>${r.phases.map((p) => `<th>${esc(p.config)}</th>`).join('')}</tr>${cpuRows}</table>
${k ? `<h2>Relay kill (2×2)</h2><p>${esc(k.process)} (${esc(k.relay)}, ${k.calls_held} calls) SIGKILLed mid-call, answering again after ${k.restart_ms} ms with ${k.restored_from_redis} calls restored from Redis.
Outcome: <b>${esc(k.outcome)}</b>: kept with media ${k.kept_with_media}, kept silent ${k.kept_silent}, ended media-lost ${k.ended_media_lost}, ended otherwise ${k.ended_other};
the other relay's calls untouched ${k.other_relay_calls_untouched}/${k.other_relay_calls}; sessions left ${esc(JSON.stringify(k.sessions_left))}.
(The restarted relay's CPU is not in the table: the sampler follows the processes it found at the start.)</p>` : ''}
<p>${esc(r.note)}</p></body></html>`;
}

function report(o) {
  const phases = ['1x1', '2x2'].map((c) => JSON.parse(fs.readFileSync(path.join(o.out, c, 'phase.json'), 'utf8')));
  const [one, two] = phases;
  const problems = [];
  for (const p of phases) if (p.failed || p.setup_ok !== p.calls) problems.push(`${p.config}: ${p.failed} failed, ${p.setup_ok}/${p.calls} set up`);
  const g = Object.values(two.per_gateway).map((x) => x.attempts);
  const rl = Object.values(two.per_relay_calls);
  if (g.some((n) => !n)) problems.push(`2x2: a gateway took no call (${g.join('/')})`);
  if (rl.some((n) => !n)) problems.push(`2x2: a relay took no call (${rl.join('/')})`);
  if (two.kill && (two.kill.kept_silent || two.kill.ended_other)) problems.push(`kill: ${two.kill.kept_silent} calls kept without media, ${two.kill.ended_other} ended otherwise`);
  if (two.kill && Object.values(two.kill.sessions_left).some((n) => n)) problems.push('kill: sessions left on a relay');
  const r = {
    tool: 'lab bench scale-out', started: o.started ?? new Date().toISOString(), machine: machine(), entry: 'HAProxy (2x2) / the gateway (1x1)',
    ok: problems.length === 0,
    summary: problems.length ? problems.join('; ') : `same load on both: lab CPU ${one.cpu_lab_total_pct} % (1x1) vs ${two.cpu_lab_total_pct} % (2x2) of one core, setup p50 ${one.setup_ms.p50} vs ${two.setup_ms.p50} ms; 2x2 spread gateways ${g.join('/')}, relays ${rl.join('/')}; relay kill: ${two.kill?.outcome ?? 'not run'}`,
    note: `On ${os_cores()} cores shared with other jobs, two of each cannot double capacity: both gateways and both relays compete for the same cores, and a second JVM and HAProxy add their own CPU. What scale-out buys here is fault isolation (a relay killed mid-call) and the path to more hosts (docker/compose.yaml), not throughput on one machine.`,
    phases,
  };
  const { htmlFile } = writeReport(o.out, r, html);
  console.log(`lab bench scale-out: ${r.ok ? 'ok' : 'FAILED'}: ${r.summary}`);
  console.log(`report: ${htmlFile}`);
  return r.ok ? 0 : 1;
}

function os_cores() { return machine().nproc; }

const o = args(process.argv.slice(2));
try {
  if (o._[0] === 'phase') { await phase(o); process.exit(0); }
  if (o._[0] === 'report') process.exit(report(o));
  console.error('usage: scale-out.mjs phase|report ...');
  process.exit(2);
} catch (e) {
  console.error(`bench scale-out: ${e.message}`);
  process.exit(1);
}
