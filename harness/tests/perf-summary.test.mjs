// Unit test (no lab needed): the setup-rate bench's perf summary (harness/bench/perf.mjs) reads
// `perf report --stdio` output into processes and top symbols, and records a real process with perf.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parseCommReport, parsePerfReport, perfStart, perfStop, summarizePerf, withDescendants } from '../bench/perf.mjs';

const BY_SYM = `# To display the perf.data header info, please use --header/--header-only options.
#
# Total Lost Samples: 0
#
# Samples: 2K of event 'cpu-clock:ppp'
# Event count (approx.): 10050251256
#
# Overhead  Command   Shared Object      Symbol
# ........  ........  .................  ..........................
#
     9.14%  poller    [kernel.kallsyms]  [k] finish_task_switch.isra.0
     5.04%  loadgen   libsoftokn3.so     [.] 0x0000000000012e1c
     2.70%  kamailio  kamailio           [.] qm_malloc
     1.52%  loadgen   libsoftokn3.so     [.] 0x00000000000263dc
`;

const BY_COMM = `# Samples: 2K of event 'cpu-clock:ppp'
#
# Overhead  Command
# ........  ........
#
    43.02%  loadgen
    40.80%  poller
    16.18%  kamailio
`;

test('perf report text -> samples, per-process shares and top symbols, largest first', () => {
  const r = parsePerfReport(BY_SYM);
  assert.equal(r.samples, 2000);
  assert.deepEqual(r.top[0], { comm: 'poller', dso: '[kernel.kallsyms]', sym: 'finish_task_switch.isra.0', pct: 9.14 });
  assert.equal(r.top.length, 4);
  assert.deepEqual(r.processes.map((p) => p.comm), ['poller', 'loadgen', 'kamailio']);
  assert.equal(r.processes[1].pct, 6.56);
  assert.deepEqual(parseCommReport(BY_COMM), [{ comm: 'loadgen', pct: 43.02 }, { comm: 'poller', pct: 40.8 }, { comm: 'kamailio', pct: 16.18 }]);
  assert.deepEqual(parsePerfReport('no perf output').top, []);
});

test('withDescendants finds a process tree', async () => {
  const tree = spawn('bash', ['-c', 'sleep 5 & sleep 5 & wait'], { stdio: 'ignore' });
  let pids = [];
  for (let i = 0; i < 50 && pids.length < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    pids = withDescendants(tree.pid);
  }
  tree.kill('SIGKILL');
  assert.equal(pids[0], tree.pid);
  assert.equal(pids.length, 3, `bash and its two sleeps: ${pids}`);
});

test('perf records a busy process; the summary names it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perf-summary-'));
  const busy = spawn('python3', ['-c', 'import time\nt=time.time()\nwhile time.time()-t<8: pass'], { stdio: 'ignore' });
  const closed = new Promise((r) => busy.on('close', r));
  await new Promise((r) => setTimeout(r, 300));
  const rec = perfStart([busy.pid], path.join(dir, 'p.data'));
  assert.equal(rec.error, null);
  await new Promise((r) => setTimeout(r, 3000)); // perf itself may take a while to attach on a busy host
  const stopped = await perfStop(rec);
  busy.kill('SIGKILL');
  await closed;
  assert.ok(stopped.ok, stopped.text);
  const s = summarizePerf(path.join(dir, 'p.data'));
  assert.ok(!s.error, s.error);
  assert.ok(s.samples >= 5, `samples ${s.samples}`); // 199 Hz; the busy loop shares a busy host
  assert.equal(s.processes[0].comm, 'python3');
  assert.ok(s.processes[0].pct > 80, JSON.stringify(s.processes));
  fs.rmSync(dir, { recursive: true, force: true });
});
