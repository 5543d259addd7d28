// One step of the setup-rate sweep: N calls at R calls/s from loadgen through the gateway's browser
// API (login, WebSocket `call`, Kamailio, SIPp ue1 answering, rtpengine, ICE + DTLS per call), each
// call held `holdS` seconds of media; and its SIP-only twin (a SIPp UAC -> Kamailio -> SIPp ue1, no
// media), the upper bound of what the IMS side alone sets up at that rate.
import fs from 'node:fs';
import path from 'node:path';
import { ADDRESSES } from '../kit/addresses.mjs';
import { startCpuSampler } from '../kit/cpu.mjs';
import { lastLine, start, stop, waitFor } from '../kit/procs.mjs';
import { hostBusyPct, hostCpu } from './analyze.mjs';
import { perfStart, perfStop, withDescendants } from './perf.mjs';
import { bin } from './step.mjs';

export const SETUP_MEDIA_S = 2; // media per call: enough to see the call carry packets, short for load
// The processes whose CPU a setup step samples (names in the step's pids file; ue1 is the SIPp UAS).
export const SETUP_PROCS = ['gateway', 'kamailio', 'rtpengine', 'sipp', 'loadgen', 'sipp_uac'];

export function setupStepSeconds(calls, cps, holdS = SETUP_MEDIA_S) {
  return Math.ceil(calls / cps + holdS + 15);
}

// The password of `user`: from $LAB_USERS_FILE when the run provisioned users (./lab ... --users N: the lab's
// users plus the generated ones), else ims-sim/users.txt.
export function credentials(root, user) {
  const file = process.env.LAB_USERS_FILE || path.join(root, 'ims-sim/users.txt');
  const line = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`no user ${user} in ${file}`);
  return line.slice(user.length + 1).trim();
}

// The pids of these lab processes, from $LAB_PIDS ("name pid" lines).
function labPids(names) {
  try {
    return fs.readFileSync(process.env.LAB_PIDS, 'utf8').split('\n').map((l) => l.trim().split(/\s+/))
      .filter(([n, p]) => names.includes(n) && Number(p) > 0).map(([, p]) => Number(p));
  } catch { return []; }
}

// A loadgen --users file with `user`'s line (mode 0600) in dir: the password never goes on loadgen's command
// line, where ps would show it (docs/security.md "Secrets").
export function credentialsFile(root, user, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `loadgen-user-${user}.txt`);
  fs.writeFileSync(file, `# loadgen --users (mode 0600)\n${user}:${credentials(root, user)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}

// The step's pids file: the lab's processes from $LAB_PIDS (ue1 is named sipp there) plus `extra`.
function writePids(file, extra) {
  let base = '';
  try { base = fs.readFileSync(process.env.LAB_PIDS, 'utf8'); } catch { /* only the extra ones then */ }
  const lines = base.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => l.replace(/^ue1 /, 'sipp '));
  fs.writeFileSync(file, `${[...lines, ...extra].join('\n')}\n`);
}

function cpuOf(sampled, host0, host1, procs = SETUP_PROCS) {
  const cpu = { wall_s: sampled.wall_s };
  let ours = 0;
  for (const n of procs) {
    cpu[`${n}_pct`] = sampled[`${n}_pct`] ?? null;
    ours += cpu[`${n}_pct`] ?? 0;
  }
  cpu.host_busy_pct = hostBusyPct(host0, host1);
  // everything else on this shared machine during the step (other jobs)
  cpu.other_pct = cpu.host_busy_pct == null ? null : Math.max(0, Math.round((cpu.host_busy_pct - ours) * 100) / 100);
  return cpu;
}

// threads: loadgen engine threads; each serves its own user's WebSocket (alice, then bob, carol, dave), so
// the generator can use more than one core. The users' passwords go to loadgen in a 0600 file, not argv.
export const SETUP_USERS = ['alice', 'bob', 'carol', 'dave'];
// perfFile: record loadgen, rtpengine and Kamailio with Linux perf over the step (perf.mjs) into this file.
// userCount: users logged in (at least one per thread; bench scale-out: 2, one per gateway behind HAProxy);
// procs: the processes whose CPU the step reports (bench scale-out adds gateway2, rtpengine2, haproxy, redis);
// extraArgs: more loadgen options (bench scale-out: --local-ip, its client host's address).
export async function setupStep({ root, dir, logDir, gateway, profilesFile, cps, calls, holdS = SETUP_MEDIA_S, threads = 1, to = 'ue1', perfFile = null, progress, progressEvery = 2,
  userCount = threads, procs = SETUP_PROCS, extraArgs = [] }) {
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'loadgen.json');
  const usersFile = path.join(dir, 'users.txt');
  const users = SETUP_USERS.slice(0, Math.max(threads, userCount));
  fs.writeFileSync(usersFile, `# loadgen --users\n${users.map((u) => `${u}:${credentials(root, u)}`).join('\n')}\n`, { mode: 0o600 });
  const args = ['--gateway', gateway, '--users', usersFile, '--threads', String(threads), '--to', to, '--calls', String(calls),
    '--cps', String(cps), '--duration', String(holdS), '--profile', 'A-SRTP', '--profiles', profilesFile, '--json', json, ...extraArgs];
  let n = 0;
  let peak = 0; // most calls in media at once (loadgen's progress line)
  const lg = start('loadgen', bin(root, 'loadgen'), args, {
    log: path.join(logDir, `${path.basename(dir)}-loadgen.log`),
    onLine: (l) => {
      const m = l.match(/(\d+) in media/);
      if (m) peak = Math.max(peak, Number(m[1]));
      if (!/^\[\s*\d+s\]/.test(l) || n++ % progressEvery === 0) progress(`  loadgen ${l}`);
    },
  });
  const pidsFile = path.join(dir, 'pids');
  writePids(pidsFile, [`loadgen ${lg.pid}`]);
  const host0 = hostCpu();
  const sampler = startCpuSampler({ pidsFile });
  const rec = perfFile ? perfStart([lg.pid, ...labPids(['rtpengine', 'kamailio']).flatMap(withDescendants)], perfFile) : null;
  const bound = (setupStepSeconds(calls, cps, holdS) + 30) * 1000;
  let res = await waitFor(lg, bound);
  const exitedAt = Date.now();
  const errors = [];
  if (!res) { errors.push(`loadgen did not finish in ${bound / 1000} s: stopped`); res = await stop(lg); }
  let perf = null, perfError = null, perfCpuPct = null; // a missing profile does not fail the step
  if (rec) {
    const stopped = await perfStop(rec);
    perf = stopped.ok ? perfFile : null;
    if (stopped.cpu_s != null && stopped.wall_s > 0) perfCpuPct = Math.round((stopped.cpu_s / stopped.wall_s) * 10000) / 100;
    if (!stopped.ok) perfError = `perf record: ${stopped.text}`;
  }
  const cpu = cpuOf(sampler.stop(), host0, hostCpu(), procs);
  let out = null;
  try { out = JSON.parse(fs.readFileSync(json, 'utf8')); } catch { /* below */ }
  if (!out) errors.push(`loadgen wrote no report (exit ${res.code}): ${lastLine(lg.tail()) || 'no output'}`);
  // how long loadgen ran on after writing its report (teardown; docs/loadgen.md "SRTP library")
  let exitAfterReportS = null;
  try { if (out) exitAfterReportS = Math.round((exitedAt - fs.statSync(json).mtimeMs) / 10) / 100; } catch { /* no report */ }
  const t = out?.totals ?? {};
  const ok = t.setup_ok ?? null;
  const failed = t.failed ?? (ok == null ? null : calls - ok);
  if (res.code !== 0 && out) {
    errors.push(`loadgen exited ${res.code}: set up ${ok}, failed ${failed}, end confirmed by \`ended\` ${t.hung_up ?? 'n/a'}, ended early ${t.ended_early ?? 'n/a'}, `
      + `packets missing ${t.pkts_missing ?? 'n/a'} of ${t.pkts_sent ?? 'n/a'}`);
  }
  return {
    cps, calls, hold_s: holdS, loadgen_threads: threads, users, perf, perf_error: perfError, perf_cpu_pct: perfCpuPct, ok: errors.length === 0 && failed === 0, errors,
    setup_ok: ok, failures: failed,
    concurrent_nominal: Math.round(cps * holdS), concurrent_peak: peak,
    setup_ms: out?.setup_ms ?? null, phases_ms: out?.phases_ms ?? null,
    failure_reasons: (out?.calls ?? []).filter((c) => c.error || c.fail_phase).slice(0, 10).map((c) => `${c.fail_phase ?? '?'}: ${c.error ?? ''}`),
    loadgen_exit: res.code, loadgen_exit_after_report_s: exitAfterReportS,
    cpu,
  };
}

export const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);

// sipp's -trace_rtt file: "Date_ms;response_time_ms;rtd_no" lines, one per call (INVITE -> 200).
export function readRtt(dir) {
  const f = fs.readdirSync(dir).find((n) => /^uac_\d+_rtt\.csv$/.test(n));
  if (!f) return [];
  return fs.readFileSync(path.join(dir, f), 'utf8').split('\n').slice(1).map((l) => Number(l.split(';')[1])).filter((v) => Number.isFinite(v));
}

// sipp's -trace_stat file: the last line's cumulative counters.
export function readStat(file) {
  try {
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    const head = lines[0].split(';');
    const last = lines[lines.length - 1].split(';');
    const get = (k) => { const i = head.indexOf(k); return i < 0 ? null : Number(last[i]); };
    return { successful: get('SuccessfulCall(C)'), failed: get('FailedCall(C)'), created: get('OutgoingCall(C)') };
  } catch { return null; }
}

// SIP only: `calls` calls at `cps` from a SIPp UAC (ue2, run-ue.sh load-uac) to ue1 through Kamailio.
export async function sipOnlyStep({ root, dir, cps, calls, holdS, progress }) {
  fs.mkdirSync(dir, { recursive: true });
  const env = { ...process.env, LAB_LOGDIR: dir, KAMAILIO: ADDRESSES.pcscf, IMS_USERS: path.join(root, 'ims-sim/users.txt') };
  const uac = start('sipp-uac', 'bash', [path.join(root, 'sipp-scenarios/run-ue.sh'), 'load-uac', 'ue1', String(cps), String(calls), String(holdS * 1000)],
    { log: path.join(dir, 'run-ue.log'), env, group: true, onLine: (l) => progress(`  sipp ${l}`) });
  const pidsFile = path.join(dir, 'pids');
  writePids(pidsFile, [`sipp_uac ${uac.pid}`]);
  const host0 = hostCpu();
  const sampler = startCpuSampler({ pidsFile });
  const bound = (setupStepSeconds(calls, cps, holdS) + 30) * 1000;
  let res = await waitFor(uac, bound);
  const errors = [];
  if (!res) { errors.push(`sipp did not finish in ${bound / 1000} s: stopped`); res = await stop(uac); }
  const cpu = cpuOf(sampler.stop(), host0, hostCpu());
  const rtt = readRtt(dir).sort((a, b) => a - b);
  const stat = readStat(path.join(dir, 'sipp-load-uac-ue1-stat.csv'));
  if (!stat) errors.push(`sipp wrote no statistics (exit ${res.code}): ${lastLine(uac.tail()) || 'no output'}`);
  const failed = stat ? stat.failed + Math.max(0, calls - stat.successful - stat.failed) : null;
  const mean = rtt.length ? Math.round((rtt.reduce((a, b) => a + b, 0) / rtt.length) * 100) / 100 : null;
  return {
    cps, calls, hold_s: holdS, setup_ok: stat?.successful ?? null, failures: failed, sipp_exit: res.code, errors,
    concurrent_nominal: Math.round(cps * holdS),
    setup_ms: { n: rtt.length, p50: pct(rtt, 50), p95: pct(rtt, 95), p99: pct(rtt, 99), max: rtt.length ? rtt[rtt.length - 1] : null, mean, basis: 'INVITE sent -> 200 received (sipp -trace_rtt)' },
    cpu,
  };
}
