// Test results -> check results. A check passes only if every test it names ran and passed; a test
// that failed, was skipped, or is missing from the results (renamed, file crashed, not run) fails it.
import fs from 'node:fs';
import path from 'node:path';
import { notOnReason } from './checks.mjs';

// Parses the reporter's JSON lines into a Map "<file>\t<name>" -> result (file = base name without
// .test.mjs, name without a trailing " [chromium]"/" [firefox]"). A failed file-level entry (the file itself crashed: its name is its path) is kept under
// "<file>\t*" so the checks naming that file can say so.
export function parseResults(text) {
  const results = new Map();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let r;
    try { r = JSON.parse(line); } catch { continue; } // a line cut short by a killed run
    if (!r.file || !r.name) continue;
    const file = path.basename(r.file).replace(/\.test\.mjs$/, '');
    // Media tests end their titles in the browser they ran in (testkit.titled); a check names the test
    // without it (./lab compliance runs one browser, LAB_BROWSER, default chromium).
    const name = r.name.replace(/ \[(chromium|firefox)\]$/, '');
    const key = r.name === r.file ? `${file}\t*` : `${file}\t${name}`;
    results.set(key, r);
  }
  return results;
}

export function readResults(file) {
  return parseResults(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
}

// One report entry per check: {id, clause, requirement, cores, status, evidence, duration_ms, error?, reason?}.
// `core` (light, 3gpp, external): a check that does not run on it is not-applicable with the reason.
export function evaluate(checks, results, core = 'light') {
  return checks.map((c) => {
    const base = { id: c.id, clause: c.clause, requirement: c.requirement, cores: c.cores ?? ['light'] };
    const reason = notOnReason(c, core);
    if (reason !== null) {
      const onCore = c.notApplicable || !(c.cores ?? ['light']).includes(core);
      return { ...base, status: 'not-applicable', evidence: [], duration_ms: 0, reason: onCore && !c.notApplicable ? `not on the ${core} core: ${reason}` : reason };
    }
    if (!c.tests?.length) return { ...base, status: 'fail', evidence: [], duration_ms: 0, error: 'the check names no test' };
    const problems = [];
    let duration = 0;
    const evidence = c.tests.map((t) => {
      const r = results.get(`${t.file}\t${t.name}`);
      const where = `${t.file}.test.mjs: ${t.name}`;
      let status;
      if (!r) {
        status = 'missing';
        const crash = results.get(`${t.file}\t*`);
        problems.push(`${where}: not run${crash?.error ? ` (${crash.error})` : ''}`);
      } else if (r.skipped) {
        status = 'skipped';
        problems.push(`${where}: skipped`);
      } else if (!r.passed) {
        status = 'fail';
        problems.push(`${where}: ${r.error ?? 'failed'}`);
      } else {
        status = 'pass';
      }
      duration += r?.duration_ms ?? 0;
      return { file: `harness/tests/${t.file}.test.mjs`, test: t.name, status };
    });
    const entry = { ...base, status: problems.length ? 'fail' : 'pass', evidence, duration_ms: Math.round(duration) };
    if (problems.length) entry.error = problems.join('; ');
    return entry;
  });
}

// "14 pass, 0 fail, 1 not-applicable"
export function summary(entries) {
  const n = (s) => entries.filter((e) => e.status === s).length;
  return `${n('pass')} pass, ${n('fail')} fail, ${n('not-applicable')} not-applicable`;
}
