// Per-process CPU over a run: every second, utime+stime from /proc/<pid>/stat of each process named
// in $LAB_PIDS (`name pid` lines) plus all its descendants (kamailio forks its workers; for kamailio
// also any process called kamailio in this network namespace). Result: average % of one core.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let clkTck = 100;
try { clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { /* keep 100 */ }

function readPidsFile(file) {
  if (!file) return [];
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return []; }
  return text.split('\n').map((l) => l.trim().split(/\s+/)).filter(([n, p]) => n && /^\d+$/.test(p ?? ''))
    .map(([name, pid]) => ({ name, pid: Number(pid) }));
}

// /proc/<pid>/stat; comm may contain spaces and ')' so split after the last ')'.
function readStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const f = s.slice(close + 2).split(' ');   // f[0] is field 3 (state)
    return { pid, comm, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), start: Number(f[19]) };
  } catch {
    return null;   // exited
  }
}

function netns(pid) {
  try { return fs.readlinkSync(`/proc/${pid}/ns/net`); } catch { return null; }
}

function allProcesses() {
  const procs = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const st = readStat(Number(d));
    if (st) procs.push(st);
  }
  return procs;
}

function uptimeTicks() {
  return Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * clkTck;
}

// onSample(epochMs, {name: cpu_seconds_so_far}) after every sample: for CPU-over-time plots (./lab bench).
export function startCpuSampler({ pidsFile = process.env.LAB_PIDS, intervalMs = 1000, onSample = null } = {}) {
  const roots = readPidsFile(pidsFile);
  const myNs = netns('self');
  const t0 = Date.now();
  const startTicks = uptimeTicks();
  // name -> Map(pid -> {first, last}); first = ticks at run start (0 for processes born during it)
  const seen = new Map(roots.map((r) => [r.name, new Map()]));
  let samples = 0;

  function sample() {
    const procs = allProcesses();
    const children = new Map();
    for (const p of procs) {
      if (!children.has(p.ppid)) children.set(p.ppid, []);
      children.get(p.ppid).push(p);
    }
    const byPid = new Map(procs.map((p) => [p.pid, p]));
    for (const { name, pid } of roots) {
      const members = new Map();
      const stack = byPid.has(pid) ? [byPid.get(pid)] : [];
      while (stack.length) {
        const p = stack.pop();
        members.set(p.pid, p);
        stack.push(...(children.get(p.pid) ?? []));
      }
      if (name === 'kamailio') {
        for (const p of procs) if (p.comm === 'kamailio' && !members.has(p.pid) && netns(p.pid) === myNs) members.set(p.pid, p);
      }
      const acc = seen.get(name);
      for (const p of members.values()) {
        const e = acc.get(p.pid);
        if (e) e.last = p.ticks;
        else acc.set(p.pid, { first: p.start > startTicks ? 0 : p.ticks, last: p.ticks });
      }
    }
    samples += 1;
    if (onSample) {
      const secs = {};
      for (const [name, acc] of seen) secs[name] = [...acc.values()].reduce((t, e) => t + e.last - e.first, 0) / clkTck;
      onSample(Date.now(), secs);
    }
  }

  sample();
  const timer = setInterval(sample, intervalMs);

  return {
    stop() {
      clearInterval(timer);
      sample();
      const wall = (Date.now() - t0) / 1000;
      const out = { interval_s: intervalMs / 1000, samples, wall_s: Number(wall.toFixed(1)), clk_tck: clkTck };
      for (const [name, acc] of seen) {
        let ticks = 0;
        for (const e of acc.values()) ticks += e.last - e.first;
        // null, not 0, when no such process was ever found
        out[`${name}_pct`] = acc.size === 0 || wall <= 0 ? null : Number(((ticks / clkTck / wall) * 100).toFixed(2));
        out[`${name}_processes`] = acc.size;
      }
      // contract fields are always present; null when that process was not listed in $LAB_PIDS
      for (const n of ['rtpengine', 'gateway', 'kamailio']) out[`${n}_pct`] ??= null;
      return out;
    },
  };
}
