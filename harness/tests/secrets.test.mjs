// Integration: secrets (docs/security.md "Secrets"). No subscriber password on a command line of the lab's
// processes (ps shows every process's argv to every user), in the run's logs, or in a file under the run's
// out/ directory that others can read. The passwords are those of ims-sim/users.txt (and of the generated
// users when the run provisioned some: LAB_USERS_FILE).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { labRoot, logDir, outDir } from '../kit/env.mjs';
import { startUe } from '../runner/ue.mjs';

function passwords() {
  const files = [path.join(labRoot(), 'ims-sim', 'users.txt'), process.env.LAB_USERS_FILE].filter(Boolean);
  const out = new Set();
  for (const f of files) {
    for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
      const i = line.indexOf(':');
      if (line.startsWith('#') || i <= 0) continue;
      const p = line.slice(i + 1).trim();
      if (p.length >= 6) out.add(p);
    }
  }
  return [...out];
}

const PASSWORDS = passwords();
const found = (text) => PASSWORDS.filter((p) => text.includes(p));

// Every process of the lab: the components' sessions (each is started with setsid, so its pid in LAB_PIDS
// is its session id and its children share it).
function labProcesses() {
  const sids = new Set(fs.readFileSync(process.env.LAB_PIDS, 'utf8').split('\n').map((l) => Number(l.split(/\s+/)[1])).filter(Boolean));
  const procs = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const sid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
      if (!sids.has(sid)) continue;
      procs.push({ pid: Number(d), argv: fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') });
    } catch { /* gone */ }
  }
  return procs;
}

function walk(dir, out = []) {
  let entries = [];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return out; }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

// the first 16 MiB of a file, as latin1 (logs and captures alike)
function head(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(fs.fstatSync(fd).size, 16 * 1048576));
    fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.toString('latin1');
  } finally {
    fs.closeSync(fd);
  }
}

test('the passwords to look for are known', () => {
  assert.ok(PASSWORDS.length >= 10, `only ${PASSWORDS.length} passwords read`);
});

test('a SIPp UE registers without its password on sipp\'s command line (injection file), and its call works', { timeout: 60000 }, async () => {
  // a `sipp` first on PATH that records each command line, then runs the real one
  const real = fs.readFileSync('/proc/self/environ', 'utf8').split('\0').find((e) => e.startsWith('PATH='))?.slice(5)
    .split(':').map((d) => path.join(d, 'sipp')).find((f) => fs.existsSync(f));
  assert.ok(real, 'sipp is on PATH');
  const shim = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-secrets-'));
  const argvLog = path.join(shim, 'argv.log');
  fs.writeFileSync(path.join(shim, 'sipp'), `#!/bin/sh\nprintf '%s\\n' "$*" >>"${argvLog}"\nexec "${real}" "$@"\n`, { mode: 0o755 });
  try {
    const ue = startUe('uac', 'ue1', 500, { env: { PATH: `${shim}:${process.env.PATH}` } });
    const r = await ue.done;
    assert.equal(r.code, 0, `ue2 -> ue1 failed: ${r.output}`);
    const lines = fs.readFileSync(argvLog, 'utf8').trim().split('\n');
    assert.ok(lines.length >= 2 && lines.some((l) => l.includes('register.xml')), `sipp runs seen: ${lines.length}`);
    // (the count, not the passwords: a failing test must not print them into its own log)
    for (const l of lines) assert.equal(found(l).length, 0, `a password on sipp's command line: ${PASSWORDS.reduce((t, p) => t.split(p).join('<password>'), l)}`);
    assert.ok(!lines.some((l) => /(^| )-ap /.test(l)), 'sipp -ap is not used');
    // the injection file is gone after the REGISTER
    assert.deepEqual(fs.readdirSync(logDir()).filter((f) => f.startsWith('.sipp-auth-')), [], 'credentials files left in the log directory');
  } finally {
    fs.rmSync(shim, { recursive: true, force: true });
  }
});

test('no process of the lab has a password on its command line', () => {
  const procs = labProcesses();
  assert.ok(procs.length >= 5, `only ${procs.length} lab processes found`);
  const bad = procs.filter((p) => found(p.argv).length);
  assert.deepEqual(bad.map((p) => `pid ${p.pid}: ${p.argv.split(' ')[0]}`), [], 'processes with a password in argv');
});

test('no password in the run\'s logs', () => {
  const files = walk(logDir());
  assert.ok(files.length >= 5, `only ${files.length} log files`);
  const bad = files.filter((f) => found(head(f)).length);
  assert.deepEqual(bad.map((f) => path.relative(outDir(), f)), [], 'log files that contain a password');
});

test('every file of the run that holds a password is readable by its owner only (0600)', () => {
  const bad = [];
  let holders = 0;
  for (const f of walk(outDir())) {
    if (!found(head(f)).length) continue;
    holders += 1;
    const mode = fs.statSync(f).mode & 0o777;
    if (mode & 0o077) bad.push(`${path.relative(outDir(), f)} (mode ${mode.toString(8)})`);
  }
  assert.ok(holders >= 1, 'no file holds a password (Kamailio\'s subscriber table should)');
  assert.deepEqual(bad, [], 'files with a password that others can read');
});
