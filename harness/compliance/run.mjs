// `./lab compliance` helper. Two commands:
//   node run.mjs plan FILE [CORE]   writes what to run on CORE (light, the default, 3gpp or external: the
//                                   checks whose `cores` list it): line 1 the name pattern (node
//                                   --test-name-pattern, only those checks' tests), then one test file per line
//   node run.mjs report RESULTS OUTDIR STARTED [CORE]
//                                   maps the reporter's JSON lines (jsonl-reporter.mjs) onto checks.mjs, writes
//                                   OUTDIR/report.json + report.html + junit.xml (junit.mjs), prints one line per check and the summary
//                                   (checks not for CORE are not-applicable, with the reason); exit 1 when a
//                                   check failed
import fs from 'node:fs';
import path from 'node:path';
import { writeReport } from '../kit/report.mjs';
import { CHECKS, CORES, checksFor, testFiles, testNames } from './checks.mjs';
import { evaluate, readResults, summary } from './mapping.mjs';
import { renderJunit } from './junit.mjs';
import { renderComplianceHtml } from './report-html.mjs';

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function plan(file, core) {
  const checks = checksFor(core);
  // media tests end their titles in the browser they ran in (testkit.titled): " [chromium]" and the like
  const pattern = `^(?:${testNames(checks).map(escapeRegex).join('|')})(?: \\[(?:chromium|firefox)\\])?$`;
  fs.writeFileSync(file, `${[pattern, ...testFiles(checks).map((f) => `harness/tests/${f}.test.mjs`)].join('\n')}\n`);
}

function report(resultsFile, outDir, started, core, extra) {
  const checks = evaluate(CHECKS, readResults(resultsFile), core);
  const ok = checks.every((c) => c.status !== 'fail');
  const skipped = checks.filter((c) => c.status === 'not-applicable').map((c) => ({ id: c.id, reason: c.reason }));
  const doc = { tool: 'lab compliance', started, ims: core, ...extra, ok, summary: summary(checks), checks, not_applicable: skipped };
  writeReport(outDir, doc, renderComplianceHtml);
  fs.writeFileSync(path.join(outDir, 'junit.xml'), renderJunit(doc));
  const width = Math.max(...checks.map((c) => c.id.length));
  for (const c of checks) {
    const why = c.status === 'fail' ? `  ${c.error}` : c.status === 'not-applicable' ? `  (${c.reason})` : '';
    console.log(`${c.status.toUpperCase().padEnd(14)} ${c.id.padEnd(width)}  ${c.clause}${why}`);
  }
  return ok;
}

const [cmd, ...args] = process.argv.slice(2);
const core = (cmd === 'plan' ? args[1] : args[3]) ?? 'light';
// external mode: what the run was pointed at (./lab compliance --ims external), recorded in report.json
const extra = core === 'external' && process.env.LAB_EXT_PCSCF
  ? {
    external: {
      pcscf: process.env.LAB_EXT_PCSCF, domain: process.env.LAB_EXT_DOMAIN, transport: process.env.LAB_EXT_TRANSPORT,
      family: process.env.LAB_EXT_IPV6 === '1' ? 'ipv6' : 'ipv4', // the address family on Gm (--ipv6)
      pcscfAddress: process.env.LAB_EXT_PCSCF_ADDR || null, // its first target, as the lab reached it
    },
  } : {};
if (!CORES.includes(core)) {
  console.error(`run.mjs: unknown core '${core}' (${CORES.join(', ')})`);
  process.exitCode = 2;
} else if (cmd === 'plan' && (args.length === 1 || args.length === 2)) {
  plan(args[0], core);
} else if (cmd === 'report' && (args.length === 3 || args.length === 4)) {
  process.exitCode = report(args[0], args[1], args[2], core, extra) ? 0 : 1;
} else {
  console.error('usage: node run.mjs plan FILE [CORE] | report RESULTS OUTDIR STARTED [CORE]');
  process.exitCode = 2;
}
