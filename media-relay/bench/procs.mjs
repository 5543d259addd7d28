// Child processes of one bench run: started with their output in a log file (and optionally
// streamed as progress lines), always reaped, killed when the bench itself is stopped.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const live = new Set();

// Stop every child we started (SIGTERM; loadgen then still deletes its calls in rtpengine).
export function stopAll(signal = 'SIGTERM') {
  for (const c of live) { try { c.kill(signal); } catch { /* gone */ } }
}

// start(name, cmd, args, {log, onLine}) -> {child, pid, done: Promise<{code, signal}>, stderr()}
// onLine gets every stderr/stdout line (for progress); the log keeps all of it.
export function start(name, cmd, args, { log, onLine = null, stdoutFile = null } = {}) {
  const logFd = fs.openSync(log, 'a');
  const outFd = stdoutFile ? fs.openSync(stdoutFile, 'w') : null;
  const child = spawn(cmd, args, { stdio: ['ignore', outFd ?? 'pipe', 'pipe'] });
  live.add(child);
  let errText = '';
  const feed = (buf, toLog) => {
    const text = buf.toString();
    if (toLog) fs.writeSync(logFd, text);
    errText = (errText + text).slice(-4000);
    if (onLine) for (const l of text.split('\n')) if (l.trim()) onLine(l);
  };
  child.stderr.on('data', (b) => feed(b, true));
  if (!outFd) child.stdout.on('data', (b) => feed(b, true));
  const done = new Promise((resolve) => {
    child.on('error', (e) => { live.delete(child); fs.writeSync(logFd, `${name}: ${e.message}\n`); resolve({ code: 127, signal: null, error: e.message }); });
    child.on('close', (code, signal) => {
      live.delete(child);
      fs.closeSync(logFd);
      if (outFd != null) fs.closeSync(outFd);
      resolve({ code, signal });
    });
  });
  return { name, child, pid: child.pid, done, tail: () => errText };
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
export async function stop(proc, signal = 'SIGTERM', graceMs = 5000) {
  try { proc.child.kill(signal); } catch { /* already gone */ }
  const res = await waitFor(proc, graceMs);
  if (res) return res;
  try { proc.child.kill('SIGKILL'); } catch { /* gone */ }
  return proc.done;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// lastLine(text): the most telling line of a tool's output, for one-line errors.
export function lastLine(text) {
  const lines = String(text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.reverse().find((l) => /error|fail|cannot|not |invalid|refused|timeout/i.test(l)) ?? lines[0] ?? '';
}
