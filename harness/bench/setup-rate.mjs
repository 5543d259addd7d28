// One step of the setup-rate sweep: N calls at R calls/s from loadgen through the gateway's browser
// API (login, WebSocket `call`, Kamailio, SIPp ue1 answering, rtpengine, ICE + DTLS per call).
import fs from 'node:fs';
import path from 'node:path';
import { startCpuSampler } from '../kit/cpu.mjs';
import { lastLine, start, stop, waitFor } from '../kit/procs.mjs';
import { bin } from './step.mjs';

export const SETUP_MEDIA_S = 2; // media per call: enough to see the call carry packets, short for load

export function setupStepSeconds(calls, cps) {
  return Math.ceil(calls / cps + SETUP_MEDIA_S + 15);
}

function credentials(root, user) {
  const line = fs.readFileSync(path.join(root, 'ims-sim/users.txt'), 'utf8').split('\n').find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`no user ${user} in ims-sim/users.txt`);
  return line.slice(user.length + 1).trim();
}

export async function setupStep({ root, dir, logDir, gateway, profilesFile, cps, calls, user = 'alice', to = 'ue1', progress }) {
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'loadgen.json');
  const args = ['--gateway', gateway, '--user', user, '--password', credentials(root, user), '--to', to, '--calls', String(calls),
    '--cps', String(cps), '--duration', String(SETUP_MEDIA_S), '--profile', 'A-SRTP', '--profiles', profilesFile, '--json', json];
  let n = 0;
  const lg = start('loadgen', bin(root, 'loadgen'), args, {
    log: path.join(logDir, `${path.basename(dir)}-loadgen.log`),
    onLine: (l) => { if (!/^\[\s*\d+s\]/.test(l) || n++ % 2 === 0) progress(`  loadgen ${l}`); },
  });
  const pidsFile = path.join(dir, 'pids');
  let base = '';
  try { base = fs.readFileSync(process.env.LAB_PIDS, 'utf8'); } catch { /* only loadgen then */ }
  fs.writeFileSync(pidsFile, `${base.trimEnd()}\nloadgen ${lg.pid}\n`);
  const sampler = startCpuSampler({ pidsFile });
  const bound = (setupStepSeconds(calls, cps) + 30) * 1000;
  let res = await waitFor(lg, bound);
  const errors = [];
  if (!res) { errors.push(`loadgen did not finish in ${bound / 1000} s: stopped`); res = await stop(lg); }
  const cpu = sampler.stop();
  let out = null;
  try { out = JSON.parse(fs.readFileSync(json, 'utf8')); } catch { /* below */ }
  if (!out) errors.push(`loadgen wrote no report (exit ${res.code}): ${lastLine(lg.tail()) || 'no output'}`);
  const t = out?.totals ?? {};
  const ok = t.setup_ok ?? null;
  const failed = t.failed ?? (ok == null ? null : calls - ok);
  if (res.code !== 0 && out) errors.push(`loadgen exited ${res.code}: ${lastLine(lg.tail())}`);
  return {
    cps, calls, ok: errors.length === 0 && failed === 0, errors,
    setup_ok: ok, failures: failed,
    setup_ms: out?.setup_ms ?? null, phases_ms: out?.phases_ms ?? null,
    failure_reasons: (out?.calls ?? []).filter((c) => c.error || c.fail_phase).slice(0, 10).map((c) => `${c.fail_phase ?? '?'}: ${c.error ?? ''}`),
    loadgen_exit: res.code,
    cpu: { rtpengine_pct: cpu.rtpengine_pct, gateway_pct: cpu.gateway_pct, kamailio_pct: cpu.kamailio_pct, loadgen_pct: cpu.loadgen_pct ?? null, wall_s: cpu.wall_s },
  };
}
