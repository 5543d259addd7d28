// `./lab compliance` helper. Two commands:
//   node run.mjs plan FILE          writes what to run: line 1 the name pattern (node --test-name-pattern,
//                                   only the catalogue's tests), then one test file per line
//   node run.mjs report RESULTS OUTDIR STARTED
//                                   maps the reporter's JSON lines (jsonl-reporter.mjs) onto checks.mjs, writes
//                                   OUTDIR/report.json + report.html, prints one line per check and the summary;
//                                   exit 1 when a check failed
import fs from 'node:fs';
import { writeReport } from '../kit/report.mjs';
import { CHECKS, testFiles, testNames } from './checks.mjs';
import { evaluate, readResults, summary } from './mapping.mjs';
import { renderComplianceHtml } from './report-html.mjs';

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

// The checks of the core this run is on: entries with `core: '3gpp'` need the 3GPP core (LAB_IMS=3gpp),
// the others (no `core`) the light one.
const core = process.env.LAB_IMS === '3gpp' ? '3gpp' : 'light';
const ACTIVE = CHECKS.filter((c) => (c.core ?? 'light') === core);

function plan(file) {
  // media tests end their titles in the browser they ran in (testkit.titled): " [chromium]" and the like
  const pattern = `^(?:${testNames(ACTIVE).map(escapeRegex).join('|')})(?: \\[(?:chromium|firefox)\\])?$`;
  fs.writeFileSync(file, `${[pattern, ...testFiles(ACTIVE).map((f) => `harness/tests/${f}.test.mjs`)].join('\n')}\n`);
}

function report(resultsFile, outDir, started) {
  const checks = evaluate(ACTIVE, readResults(resultsFile));
  const ok = checks.every((c) => c.status !== 'fail');
  const doc = { tool: 'lab compliance', started, ok, summary: summary(checks), checks };
  writeReport(outDir, doc, renderComplianceHtml);
  const width = Math.max(...checks.map((c) => c.id.length));
  for (const c of checks) {
    const why = c.status === 'fail' ? `  ${c.error}` : c.status === 'not-applicable' ? `  (${c.reason})` : '';
    console.log(`${c.status.toUpperCase().padEnd(14)} ${c.id.padEnd(width)}  ${c.clause}${why}`);
  }
  return ok;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'plan' && args.length === 1) {
  plan(args[0]);
} else if (cmd === 'report' && args.length === 3) {
  process.exitCode = report(...args) ? 0 : 1;
} else {
  console.error('usage: node run.mjs plan FILE | report RESULTS OUTDIR STARTED');
  process.exitCode = 2;
}
