// Where the native processes' CPU goes during a setup-rate step (Linux perf, the same tool as
// docs/benchmarks.md "Where rtpengine's time goes"): `perf record -F 199 -p PIDS` over the step (no call
// graphs: self time only, a few MB per minute), then `perf report --sort comm,dso,sym` summarised to the
// share of samples per process and the top symbols of each. Used for loadgen, rtpengine and Kamailio
// (the gateway has its JFR: jfr.mjs).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { adopt } from '../kit/procs.mjs';

// The process and its descendants (Kamailio forks its workers).
export function withDescendants(pid) {
  const out = [pid];
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch { /* exited */ }
  }
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]) ?? []));
  return out;
}

// perfStart(pids, file) -> { proc, error }: a recorder attached to these pids until perfStop.
export function perfStart(pids, file) {
  const live = pids.filter((p) => p && fs.existsSync(`/proc/${p}`));
  if (!live.length) return { proc: null, error: 'no process to profile' };
  const probe = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return { proc: null, error: `perf is not usable: ${probe.error?.message ?? probe.stderr.trim()}` };
  const proc = spawn('perf', ['record', '-F', '199', '-o', file, '-p', live.join(',')], { stdio: ['ignore', 'ignore', 'pipe'] });
  adopt('perf', proc.pid); // in the supervisor's ledger: ./lab's cleanup stops a recorder this process left
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  proc.done = new Promise((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
  return { proc, error: null, t0: Date.now() };
}

// CPU seconds (user + system) the process used so far, from /proc/PID/stat; null when gone.
function cpuSeconds(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const v = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(v[11]) + Number(v[12])) / 100; // utime + stime, USER_HZ = 100 on Linux
  } catch { return null; }
}

// perfStop(rec) -> { ok, text, cpu_s, wall_s }: SIGINT makes perf write its file and exit; cpu_s = the
// recorder's own CPU over the step (what recording costs the host), read just before the SIGINT.
export async function perfStop(rec) {
  if (!rec?.proc) return { ok: false, text: rec?.error ?? 'not started' };
  const cpu_s = cpuSeconds(rec.proc.pid);
  const wall_s = (Date.now() - rec.t0) / 1000;
  rec.proc.kill('SIGINT');
  const timer = setTimeout(() => rec.proc.kill('SIGKILL'), 20000);
  const { code, stderr } = await rec.proc.done;
  clearTimeout(timer);
  return { ok: code === 0 || code === null || code === 130, text: stderr.trim().split('\n').pop() ?? '', cpu_s, wall_s };
}

// parsePerfReport(text) -> { samples, processes: [{comm, pct}], top: [{comm, dso, sym, pct}] } from
// `perf report --stdio --no-children --sort comm,dso,sym` (lines "  12.34%  loadgen  libcrypto.so.3  [.] sym").
export function parsePerfReport(text) {
  const samples = Number(text.match(/# Samples: (\d+)([KM]?)/)?.[1] ?? 0)
    * ({ K: 1000, M: 1e6 }[text.match(/# Samples: \d+([KM]?)/)?.[1]] ?? 1);
  const top = [];
  const byComm = new Map();
  for (const line of text.split('\n')) {
    const m = line.match(/^\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+\[[.k]\]\s+(.+?)\s*$/);
    if (!m) continue;
    const row = { comm: m[2], dso: m[3], sym: m[4], pct: Number(m[1]) };
    top.push(row);
    byComm.set(row.comm, (byComm.get(row.comm) ?? 0) + row.pct);
  }
  const round = (v) => Math.round(v * 100) / 100;
  return {
    samples,
    processes: [...byComm].map(([comm, pct]) => ({ comm, pct: round(pct) })).sort((a, b) => b.pct - a.pct),
    top: top.sort((a, b) => b.pct - a.pct).slice(0, 40),
  };
}

// parseCommReport(text) -> [{comm, pct}] from `perf report --sort comm` (lines "  45.67%  loadgen").
export function parseCommReport(text) {
  return text.split('\n').map((l) => l.match(/^\s+([\d.]+)%\s+(\S+)\s*$/)).filter(Boolean)
    .map((m) => ({ comm: m[2], pct: Number(m[1]) })).sort((a, b) => b.pct - a.pct);
}

function perfReport(file, args) {
  const r = spawnSync('perf', ['report', '-i', file, '--stdio', '--no-children', ...args],
    { encoding: 'utf8', timeout: 120000, maxBuffer: 64 << 20 });
  if (r.error || r.status !== 0) return { error: `perf report: ${r.error?.message ?? r.stderr.trim().split('\n').pop()}` };
  return { text: r.stdout };
}

// summarizePerf(file) -> { samples, processes (thread names: rtpengine's are e.g. "poller", "worker"),
// top symbols } or { error }.
export function summarizePerf(file) {
  const bySym = perfReport(file, ['--sort', 'comm,dso,sym', '--percent-limit', '0.3']);
  if (bySym.error) return bySym;
  const out = parsePerfReport(bySym.text);
  if (!out.samples) return { error: 'perf recorded no samples' };
  const byComm = perfReport(file, ['--sort', 'comm']);
  if (!byComm.error) out.processes = parseCommReport(byComm.text);
  return out;
}
