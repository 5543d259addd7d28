// The lab's environment contract for the runner: LAB_GW, LAB_OUT, LAB_LOGDIR, LAB_PIDS, LAB_ROOT.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADDRESSES } from './addresses.mjs';

export const gatewayUrl = () => (process.env.LAB_GW || ADDRESSES.gatewayHttp).replace(/\/+$/, '');

export const labRoot = () => process.env.LAB_ROOT || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function outDir() {
  const dir = process.env.LAB_OUT || path.join(labRoot(), 'out', 'demo');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export function logDir() {
  const dir = process.env.LAB_LOGDIR || (process.env.LAB_OUT ? path.join(process.env.LAB_OUT, 'logs') : os.tmpdir());
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// Password of an IMS subscriber from ims-sim/users.txt (`user:password` lines).
export function passwordOf(user) {
  const file = path.join(labRoot(), 'ims-sim', 'users.txt');
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch { throw new Error(`cannot read ${file}`); }
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0 && line.slice(0, i).trim() === user) return line.slice(i + 1).trim();
  }
  throw new Error(`user ${user} not in ${file}`);
}
