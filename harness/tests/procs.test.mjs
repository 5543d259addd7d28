// Unit test (no lab needed): the lab has one supervisor, harness/lib/procs.sh; the Node side's kit/procs.mjs is
// its client. Every child Node starts under ./lab is written to the supervisor's ledger (`children` beside
// $LAB_PIDS) with its start time, and ./lab's cleanup (procs_cleanup) stops what of it still runs, but never a
// pid whose start time is not the recorded one (a recycled pid).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ledgerFile, start, startTime, stop, waitFor } from '../kit/procs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// bash with the lab's supervisor loaded, on the run directory DIR (its pids file and ledger)
const supervisor = (dir, script) => execFileSync('bash', ['-c', `set -u; ROOT=${JSON.stringify(root)}; source "$ROOT/harness/lib/log.sh"; `
  + `source "$ROOT/harness/lib/procs.sh"; LAB_PIDS=${JSON.stringify(path.join(dir, 'pids'))}; ${script}`], { encoding: 'utf8', timeout: 30000 });

test('Node children are in the supervisor\'s ledger, and ./lab\'s cleanup stops the ones still running (never a recycled pid)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-procs-'));
  const saved = process.env.LAB_PIDS;
  process.env.LAB_PIDS = path.join(dir, 'pids');
  fs.writeFileSync(process.env.LAB_PIDS, '');
  const procs = [];
  try {
    assert.equal(ledgerFile(), path.join(dir, 'children'), `the ledger is not beside LAB_PIDS: ${ledgerFile()}`);
    const log = path.join(dir, 'child.log');
    procs.push(start('sleeper group', 'sleep', ['30'], { log, group: true }), start('sleeper', 'sleep', ['31'], { log }));
    const done = start('quick', 'true', [], { log });
    await done.done;
    const lines = fs.readFileSync(ledgerFile(), 'utf8').trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), procs.map((p) => `${p.name.replace(' ', '_')} ${p.pid} ${startTime(p.pid)}`),
      `the ledger does not list the two sleepers with their start times: ${lines.join(' | ')}`);
    // a line for a live process with another start time: the same pid, but not what Node started
    fs.appendFileSync(ledgerFile(), `impostor ${process.pid} 1\n`);
    const listed = supervisor(dir, 'procs_children').trim().split('\n');
    assert.deepEqual(listed, ['sleeper 31', 'sleeper_group 30'].map((s, i) => `${s.split(' ')[0]} ${procs[1 - i].pid}`),
      `procs_children lists other than the two live sleepers, newest first: ${listed.join(' | ')}`);
    const out = supervisor(dir, 'procs_cleanup');
    for (const p of procs) {
      const res = await waitFor(p, 8000);
      assert.ok(res, `${p.name} (pid ${p.pid}) still runs after procs_cleanup; it printed: ${out}`);
      assert.equal(res.signal, 'SIGTERM', `${p.name} ended by ${res.signal ?? `exit ${res.code}`}, not the supervisor's SIGTERM`);
    }
    assert.match(out, /sleeper_group \(pid \d+\) was left running by the Node side: stopping it/, `procs_cleanup did not say what it stopped: ${out}`);
  } finally {
    for (const p of procs) await stop(p, 'SIGKILL', 1000);
    if (saved === undefined) delete process.env.LAB_PIDS; else process.env.LAB_PIDS = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('outside ./lab (no LAB_PIDS) nothing is recorded', async () => {
  const saved = process.env.LAB_PIDS;
  delete process.env.LAB_PIDS;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-procs-'));
  try {
    assert.equal(ledgerFile(), null, 'a ledger without LAB_PIDS');
    const p = start('quick', 'true', [], { log: path.join(dir, 'child.log') });
    assert.equal((await p.done).code, 0, 'true did not exit 0');
    assert.deepEqual(fs.readdirSync(dir), ['child.log'], `files written outside ./lab: ${fs.readdirSync(dir)}`);
  } finally {
    if (saved !== undefined) process.env.LAB_PIDS = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// What Node starts other than through start(), each kind in the ledger (kit/procs.mjs adopt) and stopped by ./lab's
// cleanup: a browser its driver launched, a UE with pipes of its own, and a capture's tcpdump.

// a run directory with an empty pids file as LAB_PIDS (and LAB_LOGDIR) for fn(dir); both restored after
async function inRun(fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-procs-'));
  const saved = { LAB_PIDS: process.env.LAB_PIDS, LAB_LOGDIR: process.env.LAB_LOGDIR };
  process.env.LAB_PIDS = path.join(dir, 'pids');
  process.env.LAB_LOGDIR = dir;
  fs.writeFileSync(process.env.LAB_PIDS, '');
  try {
    return await fn(dir);
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
const alive = (pid) => { try { process.kill(pid, 0); return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z'; } catch { return false; } };
async function gone(pid, ms = 8000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (!alive(pid)) return true;
  return false;
}
// the ledger names `name` with pid and its start time, and procs_cleanup stops that process
async function ledgerStops(dir, name, pid) {
  assert.ok(Number.isInteger(pid) && pid > 0, `${name}: no pid to look for (${pid})`);
  const ledger = fs.existsSync(ledgerFile()) ? fs.readFileSync(ledgerFile(), 'utf8') : '';
  assert.ok(ledger.split('\n').includes(`${name} ${pid} ${startTime(pid)}`), `the ledger lacks "${name} ${pid} <start time>": ${ledger.trim() || '(empty)'}`);
  const out = supervisor(dir, 'procs_cleanup');
  assert.ok(await gone(pid), `${name} (pid ${pid}) still runs after procs_cleanup; it printed: ${out}`);
  assert.match(out, new RegExp(`${name} \\(pid ${pid}\\) was left running by the Node side: stopping it`), `procs_cleanup did not say it stopped ${name}: ${out}`);
}

// Chromium here (2 s); Firefox (6 s to launch) is checked where the media tests launch it anyway, in its namespace under
// ./lab: calls.test.mjs's ledger test runs in both browsers.
for (const kind of ['chromium']) {
  test(`a ${kind} its driver launched is in the ledger, and ./lab's cleanup stops it`, { timeout: 60000 }, () => inRun(async (dir) => {
    const { launchBrowser } = await import('../runner/browser.mjs');
    const browser = await launchBrowser({ kind, netns: null });
    try {
      await ledgerStops(dir, `browser-${kind}`, browser.pid);
    } finally {
      await Promise.race([browser.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
    }
  }));
}

test('the data-channel UE (a child with its own pipes) is in the ledger, and ./lab\'s cleanup stops it', { timeout: 30000 }, () => inRun(async (dir) => {
  const { startDcUe } = await import('../runner/dc-ue.mjs');
  // a stand-in for the interpreter: registers at once and then waits, as dc-ue.py does until told to quit
  const fake = path.join(dir, 'fake-python');
  fs.writeFileSync(fake, '#!/bin/sh\necho \'{"event": "registered"}\'\nexec sleep 30\n', { mode: 0o755 });
  const ue = await startDcUe('ue10', { python: fake });
  try {
    await ledgerStops(dir, 'dc-ue-ue10', ue.pid);
  } finally {
    await ue.stop();
  }
}));

test('a capture\'s tcpdump (kit/capture.mjs) is in the ledger, and ./lab\'s cleanup stops it', { timeout: 30000 }, () => inRun(async (dir) => {
  const { startCapture } = await import('../kit/capture.mjs');
  const cap = await startCapture(9, 'procs-test');
  try {
    const line = fs.readFileSync(ledgerFile(), 'utf8').split('\n').find((l) => l.startsWith('tcpdump '));
    assert.ok(line, `no tcpdump in the ledger: ${fs.readFileSync(ledgerFile(), 'utf8')}`);
    await ledgerStops(dir, 'tcpdump', Number(line.split(' ')[1]));
  } finally {
    await cap.stop();
  }
}));

test('a component ./lab leaves running holds none of ./lab\'s descriptors: `flock LOCK ./lab up` does not keep LOCK after ./lab ends', { timeout: 30000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-procs-'));
  const lock = path.join(dir, 'lock');
  let pid = null;
  try {
    // what `flock LOCK ./lab up` does: flock hands ./lab the locked descriptor; ./lab starts a component and exits
    const out = execFileSync('flock', [lock, 'bash', '-c', `set -u; ROOT=${JSON.stringify(root)}; source "$ROOT/harness/lib/log.sh"; source "$ROOT/harness/lib/procs.sh"; `
      + `LAB_LOGDIR=${JSON.stringify(dir)}; LAB_PIDS=${JSON.stringify(path.join(dir, 'pids'))}; proc_start keeper sleep 30 >/dev/null 2>&1; echo "$LAB_LAST_PID"`], { encoding: 'utf8', timeout: 10000 });
    pid = Number(out.trim());
    assert.ok(alive(pid), `the component (pid ${pid}) is not running after ./lab's stand-in ended: ${out}`);
    // proc_spawn's subshell closes the descriptors, then execs the component: look once it is the component
    const isSleep = () => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\0'); } catch { return false; } };
    for (const end = Date.now() + 5000; !isSleep() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
    assert.ok(isSleep(), `pid ${pid} did not become the component (sleep) within 5 s`);
    // sleep's own start-up opens and closes a descriptor of its own (its locale: CI saw fd 3 listed and gone before
    // its readlink), so a descriptor counts only while it stays open: one of ./lab's never closes
    const held = () => fs.readdirSync(`/proc/${pid}/fd`).map(Number).filter((fd) => fd > 2).flatMap((fd) => {
      try { return [`${fd} -> ${fs.readlinkSync(`/proc/${pid}/fd/${fd}`)}`]; } catch { return []; }
    });
    let fds = held();
    for (const end = Date.now() + 2000; fds.length && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 50));
      fds = held();
    }
    assert.deepEqual(fds, [], `the component still holds, 2 s after it started, descriptors it got from ./lab: ${fds.join(', ')}`);
    assert.doesNotThrow(() => execFileSync('flock', ['-n', lock, 'true']), `the lock is still held while the component runs (pid ${pid})`);
  } finally {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('./lab down knows every component ./lab starts: up_cmd_pattern names the command of each proc_start NAME', () => {
  const lib = path.join(root, 'harness', 'lib');
  // the literal names (a "$i" suffix taken as 1); "$name" ones are gateways and UEs, named by their callers
  const names = [...new Set(fs.readdirSync(lib).filter((f) => f.endsWith('.sh')).flatMap((f) => [...fs.readFileSync(path.join(lib, f), 'utf8')
    .matchAll(/proc_start "?([a-z][a-z0-9]*)(\$i)?[" ]/g)].map((m) => `${m[1]}${m[2] ? '1' : ''}`)))].concat(['gateway2', 'ue1', 'rtpengine2']);
  assert.ok(names.length >= 10, `only ${names.length} component names found in harness/lib: ${names}`);
  const unknown = names.filter((n) => {
    try { execFileSync('bash', ['-c', `source "${lib}/updown.sh"; up_cmd_pattern "$1"`, 'x', n]); return false; } catch { return true; }
  });
  assert.deepEqual(unknown, [], `./lab down would leave these running (up_cmd_pattern in harness/lib/updown.sh has no command for them): ${unknown}`);
});

test('procs_forget takes one process out of the cleanup: procs_cleanup stops the others and leaves it running', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-procs-'));
  fs.writeFileSync(path.join(dir, 'pids'), '');
  let kept = null;
  try {
    // two sleepers started as ./lab starts its components; the second is forgotten before the cleanup
    const out = supervisor(dir, `LAB_STARTED=(); LAB_KEEP_RUNNING=0; proc_spawn one ${JSON.stringify(path.join(dir, 'one.log'))} sleep 30; one=$LAB_LAST_PID; `
      + `proc_spawn two ${JSON.stringify(path.join(dir, 'two.log'))} sleep 31; two=$LAB_LAST_PID; procs_forget "two $two"; `
      + 'echo "left: ${LAB_STARTED[*]}"; procs_cleanup >/dev/null 2>&1; '
      + 'kill -0 "$one" 2>/dev/null && echo "one alive" || echo "one stopped"; kill -0 "$two" 2>/dev/null && echo "two alive $two" || echo "two stopped"');
    kept = Number(out.match(/two alive (\d+)/)?.[1]) || null;
    assert.match(out, /^left: one \d+$/m, `procs_forget left other than the first process in LAB_STARTED: ${out}`);
    assert.match(out, /^one stopped$/m, `procs_cleanup did not stop the process it still listed: ${out}`);
    assert.ok(kept, `procs_cleanup stopped the forgotten process too: ${out}`);
  } finally {
    if (kept) try { process.kill(kept, 'SIGKILL'); } catch { /* already gone */ }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an entry of LAB_STARTED may carry its grace: procs_cleanup gives it that long after SIGTERM before SIGKILL (./lab test\'s side namespace stops its own lab first)', { timeout: 30000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-procs-'));
  fs.writeFileSync(path.join(dir, 'pids'), '');
  try {
    // two processes that take 2 s to end after a SIGTERM: one listed with a grace of 1 s (killed), one with 5 s (stopped)
    const slow = `bash -c 'trap "sleep 2; exit 0" TERM; while :; do sleep 0.1; done'`;
    const out = supervisor(dir, `LAB_STARTED=(); LAB_KEEP_RUNNING=0; proc_spawn short ${JSON.stringify(path.join(dir, 'short.log'))} ${slow}; `
      + `short=$LAB_LAST_PID; procs_forget "short $short"; LAB_STARTED+=("short $short 1"); `
      + `proc_spawn long ${JSON.stringify(path.join(dir, 'long.log'))} ${slow}; long=$LAB_LAST_PID; procs_forget "long $long"; LAB_STARTED+=("long $long 5"); `
      + 'sleep 0.3; procs_cleanup 2>&1');
    assert.match(out, /killed short \(pid \d+\): it ignored SIGTERM for 1s/, `the entry with a 1 s grace was not killed after 1 s: ${out}`);
    assert.match(out, /stopped long \(pid \d+\)/, `the entry with a 5 s grace was not left the 2 s it needs to end: ${out}`);
    assert.doesNotMatch(out, /killed long/, `the entry with a 5 s grace was killed: ${out}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
