// Unit test (no lab needed): `./lab compliance` maps test results onto its catalogue so that a check
// passes only when every test it names ran and passed — never on a failed, skipped or missing test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CHECKS, testFiles } from '../compliance/checks.mjs';
import { evaluate, parseResults, summary } from '../compliance/mapping.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const line = (file, name, passed, extra = {}) =>
  JSON.stringify({ file: `/lab/harness/tests/${file}.test.mjs`, name, nesting: 0, passed, skipped: false, duration_ms: 1000, error: passed ? null : 'boom', ...extra });

const CATALOGUE = [
  { id: 'two-tests', clause: 'RFC 1', requirement: 'r', tests: [{ file: 'calls', name: 'A' }, { file: 'volte', name: 'B' }] },
  { id: 'na', clause: 'RFC 2', requirement: 'r', notApplicable: 'no such leg' },
];

test('all named tests passed -> pass, with their durations and evidence; not-applicable stays so', () => {
  const res = parseResults([line('calls', 'A', true), line('volte', 'B', true)].join('\n'));
  const [c, na] = evaluate(CATALOGUE, res);
  assert.equal(c.status, 'pass');
  assert.equal(c.duration_ms, 2000);
  assert.deepEqual(c.evidence.map((e) => [e.file, e.test, e.status]),
    [['harness/tests/calls.test.mjs', 'A', 'pass'], ['harness/tests/volte.test.mjs', 'B', 'pass']]);
  assert.equal(na.status, 'not-applicable');
  assert.equal(na.reason, 'no such leg');
  assert.equal(summary([c, na]), '1 pass, 0 fail, 1 not-applicable');
});

test('one failed test -> fail, with its error', () => {
  const [c] = evaluate(CATALOGUE, parseResults([line('calls', 'A', true), line('volte', 'B', false)].join('\n')));
  assert.equal(c.status, 'fail');
  assert.match(c.error, /volte\.test\.mjs: B: boom/);
});

test('a missing test (renamed, not run) -> fail, never pass', () => {
  const [c] = evaluate(CATALOGUE, parseResults(line('calls', 'A', true)));
  assert.equal(c.status, 'fail');
  assert.match(c.error, /volte\.test\.mjs: B: not run/);
  assert.equal(c.evidence[1].status, 'missing');
});

test('the same name in another file does not count', () => {
  const [c] = evaluate(CATALOGUE, parseResults([line('calls', 'A', true), line('calls', 'B', true)].join('\n')));
  assert.equal(c.status, 'fail');
});

test('a skipped test (reported as passed by node) -> fail', () => {
  const [c] = evaluate(CATALOGUE, parseResults([line('calls', 'A', true), line('volte', 'B', true, { skipped: true })].join('\n')));
  assert.equal(c.status, 'fail');
  assert.match(c.error, /B: skipped/);
});

test('a crashed test file -> its checks fail and say why; a cut-off last line is ignored', () => {
  const crash = JSON.stringify({ file: '/lab/harness/tests/volte.test.mjs', name: '/lab/harness/tests/volte.test.mjs', passed: false, error: 'test failed' });
  const [c] = evaluate(CATALOGUE, parseResults([line('calls', 'A', true), crash, '{"file":"/lab/webclient/te'].join('\n')));
  assert.equal(c.status, 'fail');
  assert.match(c.error, /B: not run \(test failed\)/);
});

test('no results at all -> every check that names tests fails', () => {
  const entries = evaluate(CHECKS, parseResults(''));
  for (const e of entries) assert.ok(e.status === 'fail' || e.status === 'not-applicable', `${e.id}: ${e.status}`);
  assert.ok(entries.some((e) => e.status === 'fail'));
});

test('the catalogue: unique ids, a clause and requirement each, tests or a reason, files that exist, names in them', () => {
  assert.equal(new Set(CHECKS.map((c) => c.id)).size, CHECKS.length);
  for (const c of CHECKS) {
    assert.ok(c.clause && c.requirement, c.id);
    assert.ok(Boolean(c.notApplicable) !== Boolean(c.tests?.length), `${c.id}: either tests or notApplicable`);
  }
  for (const f of testFiles()) assert.ok(fs.existsSync(path.join(here, `${f}.test.mjs`)), `${f}.test.mjs`);
  // each name appears literally in its file, or starts with the fixed start of a templated test name
  // (the full rendered name is checked by the run itself: a name no test has is "not run" and fails)
  for (const c of CHECKS) {
    for (const t of c.tests ?? []) {
      const src = fs.readFileSync(path.join(here, `${t.file}.test.mjs`), 'utf8');
      const literal = src.includes(`'${t.name}'`) || src.includes(`"${t.name}"`);
      const templated = [...src.matchAll(/test\(\s*(?:titled\(\s*)?`([^`$]+)\$\{/g)].some((m) => t.name.startsWith(m[1]));
      assert.ok(literal || templated, `${c.id}: no test '${t.name}' in ${t.file}.test.mjs`);
    }
  }
});

test('a media test titled with its browser ([chromium]/[firefox]) counts under its plain name', () => {
  const results = parseResults(`${line('calls', 'A [chromium]', true)}\n${line('volte', 'B', true)}\n`);
  const [e] = evaluate([{ id: 'x', clause: 'c', requirement: 'r', tests: [{ file: 'calls', name: 'A' }, { file: 'volte', name: 'B' }] }], results);
  assert.equal(e.status, 'pass', JSON.stringify(e));
});
