// Spawns one SIPp UE call through sipp-scenarios/run-ue.sh (it exits 0 when its one call succeeded):
//   uac <user> [hold_ms]          the UE (ue2) calls <user> and hangs up after hold_ms
//   uac-wait <user> [timeout_ms]  the UE calls <user> and waits for the other side's BYE
import fs from 'node:fs';
import path from 'node:path';
import { labRoot, logDir } from '../kit/env.mjs';
import { signal, sleep, start } from '../kit/procs.mjs';

const TAIL_LINES = 30;
let seq = 0;

// Returns {pid, done: Promise<{code, output, logFile}>, kill(), ready(ms)}; `output` is the tail of stdout+stderr.
// env: extra environment for run-ue.sh (e.g. UE_CODEC=PCMA).
export function startUe(mode, user, arg, { timeoutMs = 60000, env = {} } = {}) {
  const script = path.join(labRoot(), 'sipp-scenarios', 'run-ue.sh');
  if (!fs.existsSync(script)) throw new Error(`${script} not found`);
  // user null: a mode that takes no user (uas, uas-reinvite ...), e.g. a UE toward an outside IMS (run-ue.sh UE_LOGIN)
  const args = [script, mode, ...(user != null ? [user] : []), ...(arg != null ? [String(arg)] : [])];
  const logFile = path.join(logDir(), `ue-${mode}-${user ?? 'serve'}-${process.pid}-${++seq}.log`);
  // own process group so kill() also ends sipp started by the script
  const proc = start(`ue-${mode}-${user}`, 'bash', args, { log: logFile, env: { ...process.env, ...env }, group: true });
  const kill = () => signal(proc, 'SIGTERM');
  const timer = setTimeout(() => { proc.note(`\n[ue.mjs] timeout after ${timeoutMs} ms, killing\n`); kill(); }, timeoutMs);
  const done = proc.done.then(({ code, signal: sig }) => {
    clearTimeout(timer);
    const output = proc.tail().split('\n').slice(-TAIL_LINES - 1).join('\n').trim();
    return { code: code ?? (sig ? 128 : 1), output, logFile };
  });
  // Resolves once run-ue.sh has exec'd sipp, which it does only after the UE's REGISTER got its 200. UAS (serve)
  // modes only: a caller mode runs sipp as a child and never execs, so ready() throws for it.
  let exited = false;
  done.then(() => { exited = true; });
  const ready = async (ms = 10000) => {
    for (const end = Date.now() + ms; ;) {
      if (exited) throw new Error(`UE ${mode} ${user} exited before it was ready (${logFile})`);
      let comm = '';
      try { comm = fs.readFileSync(`/proc/${proc.pid}/comm`, 'utf8').trim(); } catch { /* gone: exited says so next round */ }
      if (comm === 'sipp') return;
      if (Date.now() > end) throw new Error(`UE ${mode} ${user} not registered within ${ms} ms (${logFile})`);
      await sleep(100);
    }
  };
  return { pid: proc.pid, done, kill, ready };
}
