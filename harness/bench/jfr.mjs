// Java Flight Recorder of the gateway during a setup-rate step: `jcmd PID JFR.start` (settings=profile,
// execution samples every 10-20 ms) at the step's start, `JFR.stop filename=` at its end, then
// `jfr print --events jdk.ExecutionSample` summarised to where the CPU samples fall: top frames (self),
// methods on the stack (total), the first gateway frame of each sample and the sampled threads.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

const GATEWAY_PACKAGE = 'org.webrtcims.';

function childrenOf(pid) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d));
    } catch { /* exited */ }
  }
  return out;
}

// javaPid(pid): pid itself when it is the JVM, else the first `java` among its descendants.
export function javaPid(pid) {
  const stack = [pid];
  while (stack.length) {
    const p = stack.shift();
    try { if (fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'java') return p; } catch { /* gone */ }
    stack.push(...childrenOf(p));
  }
  return null;
}

function jcmd(pid, args) {
  const r = spawnSync('jcmd', [String(pid), ...args], { encoding: 'utf8', timeout: 30000 });
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.error) return { ok: false, text: r.error.message };
  return { ok: r.status === 0 && !/Exception|error|Could not/i.test(text), text };
}

export function jfrStart(pid, name) {
  return jcmd(pid, ['JFR.start', `name=${name}`, 'settings=profile']);
}

export function jfrStop(pid, name, file) {
  return jcmd(pid, ['JFR.stop', `name=${name}`, `filename=${file}`]);
}

const top = (map, n, total) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n)
  .map(([k, v]) => ({ frame: k, samples: v, pct: Math.round((1000 * v) / total) / 10 }));

// summarizeJfr(file, {depth, n}) -> {samples, self[], total[], gateway_frame[], threads[]} (or {error})
export async function summarizeJfr(file, { depth = 64, n = 15 } = {}) {
  const p = spawn('jfr', ['print', '--events', 'jdk.ExecutionSample', '--stack-depth', String(depth), file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr.on('data', (b) => { err = (err + b).slice(-2000); });
  const self = new Map(), total = new Map(), gw = new Map(), threads = new Map();
  const bump = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
  let samples = 0, frames = null, thread = null;
  const rl = readline.createInterface({ input: p.stdout, crlfDelay: Infinity });
  for await (const raw of rl) {
    const l = raw.trim();
    if (l.startsWith('jdk.ExecutionSample')) { frames = null; thread = null; continue; }
    if (l.startsWith('sampledThread =')) { thread = (l.match(/"(.*)"/) ?? [])[1] ?? '?'; continue; }
    if (l.startsWith('stackTrace = [')) { frames = []; continue; }
    if (frames && l === ']') {
      samples += 1;
      // pool threads differ only by their number: group them
      bump(threads, (thread ?? '?').replace(/[-#]?\d+$/, '-N'));
      if (frames.length) bump(self, frames[0]);
      for (const f of new Set(frames)) bump(total, f);
      const g = frames.find((f) => f.startsWith(GATEWAY_PACKAGE));
      bump(gw, g ?? '(no gateway frame: JDK, Spring, Tomcat, JAIN-SIP or GC/JIT work)');
      frames = null;
      continue;
    }
    if (frames && l !== '...') frames.push(l.replace(/\s+line:\s*\d+.*$/, '').replace(/\(.*\)$/, ''));
  }
  const code = await new Promise((r) => p.on('close', r));
  if (code !== 0 || samples === 0) return { file, error: `jfr print exited ${code}${samples === 0 ? ', no execution samples' : ''}: ${err.trim().split('\n')[0] ?? ''}` };
  return { file, samples, self: top(self, n, samples), total: top(total, n, samples), gateway_frame: top(gw, n, samples), threads: top(threads, 10, samples) };
}
