// ./lab docker's verdict (harness/lib/docker.sh): out/docker/report.json from loadgen's reports of the MO call
// (alice -> ue1) and the MT call (ue2 -> carol) through the containers, and each gateway container's JVM command
// line (RUN_DIR/jvm-gw<i>.txt, one argument a line). Exit 1 unless both calls were set up, carried media both ways
// (packets sent and received back) and ended normally, and every gateway container's JVM has ./lab's JIT options
// (JIT_OPTIONS, space-separated: harness/lib/build.sh gateway_jit, C1 only by default) and runs with the gateway's
// class-data sharing archive (gateway_java's -XX:SharedArchiveFile, and that file mapped into the JVM: RUN_DIR/
// jsa-gw<i>.txt, the .jsa files of its /proc/PID/maps; an archive the JVM cannot use is silently not mapped).
//   node docker/report.mjs RUN_DIR "name: status;name: status;..." "JIT_OPTIONS"
import fs from 'node:fs';
import path from 'node:path';

const [dir, states = '', jitArg = ''] = process.argv.slice(2);
const jit = jitArg.split(/\s+/).filter(Boolean);
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
// the gateway containers start the JVM as ./lab does on the machine (the same start_gateway, harness/lib/components.sh)
report.gateways = [1, 2].map((i) => {
  let args = [];
  try { args = fs.readFileSync(path.join(dir, `jvm-gw${i}.txt`), 'utf8').split('\n').filter(Boolean); } catch { /* none: reported below */ }
  const jvm = args.slice(0, Math.max(0, args.indexOf('-jar'))).filter((a) => a.startsWith('-'));
  let mapped = [];
  try { mapped = fs.readFileSync(path.join(dir, `jsa-gw${i}.txt`), 'utf8').split('\n').filter(Boolean); } catch { /* none: reported below */ }
  const missing = jit.filter((o) => !args.includes(o));
  const archive = jvm.find((a) => a.startsWith('-XX:SharedArchiveFile='))?.slice('-XX:SharedArchiveFile='.length) ?? null;
  const why = args.length === 0 ? `no JVM command line read from container gw${i}`
    : missing.length ? `the JVM lacks ./lab's JIT option(s) ${missing.join(' ')}`
      : !archive ? 'the JVM runs without the class-data sharing archive (no -XX:SharedArchiveFile: gateway_java found no current archive for the container; see gateway-cds-container.log)'
        : !mapped.includes(archive) ? `the JVM did not map its class-data sharing archive ${archive} (mapped: ${mapped.join(' ') || 'none'}): made for another JVM or class path?`
          : null;
  return { name: `gw${i}`, ok: why == null, jvm_options: jvm, jit_wanted: jit, cds_archive: archive, cds_mapped: archive != null && mapped.includes(archive), why };
});
report.ok = report.calls.every((c) => c.ok) && report.gateways.every((g) => g.ok);
fs.writeFileSync(path.join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const c of report.calls) console.log(`${c.name}: ${c.ok ? 'ok' : 'FAILED'}, setup ${c.setup_ms} ms, ${c.packets_received}/${c.packets_sent} packets back${c.why ? ` (${c.why})` : ''}`);
for (const g of report.gateways) console.log(`${g.name} JVM: ${g.ok ? 'ok' : 'FAILED'}, ${g.jvm_options.join(' ') || '(no options)'}${g.cds_mapped ? ', archive mapped' : ''}${g.why ? ` (${g.why})` : ''}`);
process.exit(report.ok ? 0 : 1);
