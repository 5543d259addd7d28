// ./lab docker's verdict (harness/lib/docker.sh): out/docker/report.json from loadgen's reports of the MO call
// (alice -> ue1) and the MT call (ue2 -> carol) through the containers. Exit 1 unless both calls were set up, carried
// media both ways (packets sent and received back) and ended normally.
//   node docker/report.mjs RUN_DIR "name: status;name: status;..."
import fs from 'node:fs';
import path from 'node:path';

const [dir, states = ''] = process.argv.slice(2);
const read = (f) => { try { return JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')); } catch (e) { return { error: `${f}: ${e.message}` }; } };
const call = (name, r) => {
  const c = r.calls?.[0];
  if (!c) return { name, ok: false, why: r.error ?? 'loadgen reported no call' };
  const ok = Boolean(c.setup_ms != null && c.sent > 0 && c.recv > 0 && !c.ended_early && !c.failed);
  return { name, ok, setup_ms: c.setup_ms ?? null, packets_sent: c.sent ?? 0, packets_received: c.recv ?? 0,
    ended_early: Boolean(c.ended_early), end_reason: c.end_reason ?? null, why: ok ? null : (c.error ?? c.fail_reason ?? 'no media both ways or ended early') };
};
const report = {
  what: 'docker/compose.yaml under podman-compose: an MO and an MT call through the containers',
  containers: states.split(';').filter(Boolean).map((l) => ({ name: l.slice(0, l.indexOf(':')), status: l.slice(l.indexOf(':') + 1).trim() })),
  calls: [call('MO alice -> ue1', read('mo.json')), call('MT ue2 -> carol', read('mt.json'))],
};
report.ok = report.calls.every((c) => c.ok);
fs.writeFileSync(path.join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const c of report.calls) console.log(`${c.name}: ${c.ok ? 'ok' : 'FAILED'}, setup ${c.setup_ms} ms, ${c.packets_received}/${c.packets_sent} packets back${c.why ? ` (${c.why})` : ''}`);
process.exit(report.ok ? 0 : 1);
