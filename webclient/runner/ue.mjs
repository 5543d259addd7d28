// Spawns one SIPp UE call through sipp-scenarios/run-ue.sh (it exits 0 when its one call succeeded):
//   uac <user> [hold_ms]          the UE (ue2) calls <user> and hangs up after hold_ms
//   uac-wait <user> [timeout_ms]  the UE calls <user> and waits for the other side's BYE
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { labRoot, logDir } from './env.mjs';

const TAIL_LINES = 30;
let seq = 0;

// Returns {pid, done: Promise<{code, output}>, kill()}; `output` is the tail of stdout+stderr.
// env: extra environment for run-ue.sh (e.g. UE_CODEC=PCMA).
export function startUe(mode, user, arg, { timeoutMs = 60000, env = {} } = {}) {
  const script = path.join(labRoot(), 'sipp-scenarios', 'run-ue.sh');
  if (!fs.existsSync(script)) throw new Error(`${script} not found`);
  const args = [script, mode, user, ...(arg != null ? [String(arg)] : [])];
  const logFile = path.join(logDir(), `ue-${mode}-${user}-${process.pid}-${++seq}.log`);
  const log = fs.createWriteStream(logFile);
  // own process group so kill() also ends sipp started by the script
  const child = spawn('bash', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...env } });
  let tail = [];
  const keep = (chunk) => {
    log.write(chunk);
    tail = tail.concat(String(chunk).split('\n')).slice(-TAIL_LINES - 1);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const kill = () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ } };
  const timer = setTimeout(() => { keep(`\n[ue.mjs] timeout after ${timeoutMs} ms, killing\n`); kill(); }, timeoutMs);
  const done = new Promise((resolve) => {
    child.on('error', (e) => { keep(`[ue.mjs] ${e.message}\n`); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      log.end();
      resolve({ code: code ?? (signal ? 128 : 1), output: tail.join('\n').trim(), logFile });
    });
  });
  return { pid: child.pid, done, kill };
}
