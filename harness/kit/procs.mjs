// The Node side's client of the lab's one supervisor (harness/lib/procs.sh): child processes of a bench run,
// a test or the demo, started with their output in a log file (and optionally streamed as lines), always
// reaped, stopped by the caller (stop, stopAll). Under ./lab each child is also written to the supervisor's
// ledger, `children` beside $LAB_PIDS ("NAME PID STARTTIME"), so that ./lab's cleanup stops whatever a test,
// bench or demo left running, even when the Node process itself was killed; the start time (from
// /proc/PID/stat) keeps a recycled pid from being signalled. What Node starts any other way is written there by
// adopt(): the browsers (their driver library launches them: runner/browser.mjs), a child that talks over its own
// pipes (the data-channel UE, runner/dc-ue.mjs; the aiortc peers of datachannel/rtt tests).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const live = new Set();

// ledgerFile() -> the supervisor's ledger of this run's Node-started children, or null outside ./lab.
export const ledgerFile = () => (process.env.LAB_PIDS ? path.join(path.dirname(process.env.LAB_PIDS), 'children') : null);

// startTime(pid) -> field 22 of /proc/PID/stat (clock ticks since boot), or null when the process is gone.
export function startTime(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch { return null; }
}

function record(name, pid) {
  const file = ledgerFile();
  const since = pid && startTime(pid);
  if (!file || !since) return;
  try { fs.appendFileSync(file, `${name.replace(/\s+/g, '_')} ${pid} ${since}\n`); } catch { /* the run's directory is gone: nothing to clean up then */ }
}

// adopt(name, pid) -> pid: write a process this runner started other than by start() to the ledger, so that ./lab's
// cleanup stops it too if it is still running then (its process group when it leads one). Outside ./lab: nothing.
export function adopt(name, pid) {
  record(name, pid);
  return pid;
}

// signal(proc, sig): send sig to the child, or to its whole process group when started with group.
export function signal(proc, sig = 'SIGTERM') {
  try {
    if (proc.group) process.kill(-proc.pid, sig); else proc.child.kill(sig);
  } catch { /* already gone */ }
}

// Stop every child we started (SIGTERM; loadgen then still deletes its calls in rtpengine).
export function stopAll(sig = 'SIGTERM') {
  for (const p of live) signal(p, sig);
}

// start(name, cmd, args, {log, onLine, stdoutFile, env, group}) -> {child, pid, done: Promise<{code, signal}>, tail()}
// onLine gets every stderr/stdout line (for progress); the log keeps all of it. group: the child leads
// a process group of its own, so signal()/stop() also reach what it forks (run-ue.sh's sipp).
export function start(name, cmd, args, { log, onLine = null, stdoutFile = null, env = process.env, group = false } = {}) {
  const logFd = fs.openSync(log, 'a');
  const outFd = stdoutFile ? fs.openSync(stdoutFile, 'w') : null;
  const child = spawn(cmd, args, { stdio: ['ignore', outFd ?? 'pipe', 'pipe'], env, detached: group });
  const proc = { name, child, pid: child.pid, group };
  live.add(proc);
  record(name, child.pid);
  let errText = '';
  let closed = false;
  const feed = (buf, toLog) => {
    const text = buf.toString();
    if (toLog && !closed) fs.writeSync(logFd, text);
    errText = (errText + text).slice(-4000);
    if (onLine) for (const l of text.split('\n')) if (l.trim()) onLine(l);
  };
  child.stderr.on('data', (b) => feed(b, true));
  if (!outFd) child.stdout.on('data', (b) => feed(b, true));
  const done = new Promise((resolve) => {
    child.on('error', (e) => { live.delete(proc); fs.writeSync(logFd, `${name}: ${e.message}\n`); resolve({ code: 127, signal: null, error: e.message }); });
    child.on('close', (code, signal) => {
      live.delete(proc);
      closed = true;
      fs.closeSync(logFd);
      if (outFd != null) fs.closeSync(outFd);
      resolve({ code, signal });
    });
  });
  return Object.assign(proc, { done, tail: () => errText, note: (text) => feed(Buffer.from(text), true) });
}

// waitFor(proc, ms) -> exit status, or null when it is still running after ms.
export async function waitFor(proc, ms) {
  let timer;
  const t = new Promise((r) => { timer = setTimeout(() => r(null), ms); });
  const res = await Promise.race([proc.done, t]);
  clearTimeout(timer);
  return res;
}

// stop(proc, signal, graceMs): signal, then SIGKILL after graceMs; returns the exit status.
export async function stop(proc, sig = 'SIGTERM', graceMs = 5000) {
  signal(proc, sig);
  const res = await waitFor(proc, graceMs);
  if (res) return res;
  signal(proc, 'SIGKILL');
  return proc.done;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// lastLine(text): the most telling line of a tool's output, for one-line errors.
export function lastLine(text) {
  const lines = String(text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.reverse().find((l) => /error|fail|cannot|not |invalid|refused|timeout/i.test(l)) ?? lines[0] ?? '';
}
