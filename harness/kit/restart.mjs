// Restarting a lab component mid-test (fault tests, harness/tests/faults.test.mjs): the component is found by
// its "NAME PID" line in the run's pids file (LAB_PIDS, written by harness/lib/procs.sh), killed (its whole
// process group: the lab starts each component in a session of its own), and started again with the very same
// command line, environment and working directory, in a new session, its output appended to its log. The new
// process gets a "NAME PID restarted" line in the pids file, which the lab's cleanup stops too
// (procs.sh procs_cleanup); nothing but the recorded PID is ever signalled.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { logDir } from './env.mjs';
import { sleep } from './procs.mjs';

function pidsFile() {
  const f = process.env.LAB_PIDS;
  if (!f || !fs.existsSync(f)) throw new Error('LAB_PIDS is not set or missing: run this under ./lab test');
  return f;
}

// The PID of the lab's component NAME (its last line in the pids file).
export function pidOf(name) {
  const lines = fs.readFileSync(pidsFile(), 'utf8').split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f[0] === name);
  if (!lines.length) throw new Error(`no '${name}' in ${pidsFile()}`);
  return Number(lines[lines.length - 1][1]);
}

const alive = (pid) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch { return false; }
};

// The name of the network namespace (`ip netns`, /run/netns) PID runs in when it is not ours (a scale-out host,
// harness/lib/scaleout.sh), else null.
function netnsOf(pid) {
  const ino = fs.statSync(`/proc/${pid}/ns/net`).ino;
  if (ino === fs.statSync('/proc/self/ns/net').ino) return null;
  let names = [];
  try { names = fs.readdirSync('/run/netns'); } catch { /* none */ }
  const name = names.find((n) => { try { return fs.statSync(path.join('/run/netns', n)).ino === ino; } catch { return false; } });
  if (!name) throw new Error(`pid ${pid} runs in a network namespace without a name in /run/netns: cannot start it there again`);
  return name;
}

// What is needed to start NAME again as it runs now: {pid, argv, env, cwd, netns}.
export function commandOf(name) {
  const pid = pidOf(name);
  const nul = (f) => fs.readFileSync(`/proc/${pid}/${f}`).toString('utf8').split('\0').filter((s) => s.length);
  const env = Object.fromEntries(nul('environ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  return { pid, argv: nul('cmdline'), env, cwd: fs.readlinkSync(`/proc/${pid}/cwd`), netns: netnsOf(pid) };
}

// Kills NAME's process group (SIGKILL: a crash, nothing cleaned up) and waits until it is gone.
export async function kill(name, { sig = 'SIGKILL', timeoutMs = 5000 } = {}) {
  const spec = commandOf(name);
  try { process.kill(-spec.pid, sig); } catch { /* already gone */ }
  const end = Date.now() + timeoutMs;
  while (alive(spec.pid)) {
    if (Date.now() > end) throw new Error(`${name} (pid ${spec.pid}) still running ${timeoutMs} ms after ${sig}`);
    await sleep(50);
  }
  return spec;
}

// Starts spec (from kill/commandOf) again in a session of its own; returns the new PID.
export function startAgain(name, spec) {
  const log = fs.openSync(path.join(logDir(), `${name}.log`), 'a');
  fs.writeSync(log, `\n--- ${name} restarted by a test (${new Date().toISOString()}) ---\n`);
  // on its own host again (ip netns exec execs the command: the pid stays the component's)
  const argv = spec.netns ? ['ip', 'netns', 'exec', spec.netns, ...spec.argv] : spec.argv;
  const child = spawn(argv[0], argv.slice(1), { env: spec.env, cwd: spec.cwd, detached: true, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  if (!child.pid) throw new Error(`${name} could not be started again: ${spec.argv.join(' ')}`);
  child.unref();
  fs.appendFileSync(pidsFile(), `${name} ${child.pid} restarted\n`);
  return child.pid;
}

// kill, then startAgain after pauseMs; resolves with the new PID once ready() is true (polled).
export async function restart(name, { pauseMs = 0, ready = async () => true, readyTimeoutMs = 20000 } = {}) {
  const spec = await kill(name);
  if (pauseMs) await sleep(pauseMs);
  const pid = startAgain(name, spec);
  const end = Date.now() + readyTimeoutMs;
  while (!(await ready().catch(() => false))) {
    if (!alive(pid)) throw new Error(`${name} exited after its restart (see its log)`);
    if (Date.now() > end) throw new Error(`${name} not ready ${readyTimeoutMs} ms after its restart`);
    await sleep(200);
  }
  return pid;
}
