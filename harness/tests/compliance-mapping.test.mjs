// Unit test (no lab needed): `./lab compliance` maps test results onto its catalogue so that a check
// passes only when every test it names ran and passed — never on a failed, skipped or missing test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CHECKS, CORES, EXTERNAL_NEEDS, checksFor, notOnReason, testFiles } from '../compliance/checks.mjs';
import { renderJunit } from '../compliance/junit.mjs';
import { evaluate, parseResults, summary } from '../compliance/mapping.mjs';
import { digestUser, parseCredentials, peerUser } from '../kit/ims-credentials.mjs';

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
      const literal = src.includes(`'${t.name.replace(/'/g, "\\'")}'`) || src.includes(`"${t.name}"`);
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

test('cores: a check runs only on the cores it lists; elsewhere it is not-applicable with the reason, and its tests are not planned', () => {
  const cat = [
    { id: 'light-only', clause: 'c', requirement: 'r', tests: [{ file: 'calls', name: 'A' }] },
    { id: 'both', clause: 'c', requirement: 'r', cores: ['light', '3gpp'], tests: [{ file: 'calls', name: 'A' }] },
    { id: 'why', clause: 'c', requirement: 'r', cores: ['3gpp'], notOn: { light: 'needs an HSS' }, tests: [{ file: 'volte', name: 'B' }] },
  ];
  const res = parseResults(`${line('calls', 'A', true)}\n${line('volte', 'B', true)}\n`);
  const on3 = evaluate(cat, res, '3gpp');
  assert.deepEqual(on3.map((e) => e.status), ['not-applicable', 'pass', 'pass']);
  assert.match(on3[0].reason, /not on the 3gpp core: .*light core/);
  const onLight = evaluate(cat, res, 'light');
  assert.deepEqual(onLight.map((e) => e.status), ['pass', 'pass', 'not-applicable']);
  assert.equal(onLight[2].reason, 'not on the light core: needs an HSS');
  assert.deepEqual(checksFor('external', cat), []);
  assert.deepEqual(checksFor('3gpp', cat).map((c) => c.id), ['both', 'why']);
  // a not-applicable test is never a pass, whatever its results say
  assert.equal(evaluate(cat, res, 'external').filter((e) => e.status === 'pass').length, 0);
});

test('the catalogue names only known cores, and each core has checks to run', () => {
  for (const c of CHECKS) for (const core of c.cores ?? []) assert.ok(CORES.includes(core), `${c.id}: unknown core ${core}`);
  for (const core of CORES) assert.ok(checksFor(core).length > 0, `no check runs on ${core}`);
});

test('toward an outside IMS each skipped check says what its own tests need, not one sentence for all', () => {
  const cat = [
    { id: 'v', clause: 'c', requirement: 'r', cores: ['light', '3gpp'], tests: [{ file: 'volte', name: 'B' }] },
    { id: 'd', clause: 'c', requirement: 'r', tests: [{ file: 'dtmf', name: 'C' }, { file: 'calls', name: 'A' }] },
    { id: 'u', clause: 'c', requirement: 'r', tests: [{ file: 'not-a-file', name: 'X' }] },
  ];
  const [v, d, u] = evaluate(cat, parseResults(''), 'external');
  assert.equal(v.reason, `not on the external core: its tests (volte.test.mjs) need ${EXTERNAL_NEEDS.volte}`);
  assert.match(d.reason, /its tests \(dtmf\.test\.mjs, calls\.test\.mjs\) need .*ue6.*; and .*ue1, ue2, ue3/);
  assert.match(u.reason, /outside IMS does not have/, 'a file without a known need falls back to the general reason');
  // every check of the real catalogue skipped toward an outside IMS names its files' needs
  const generic = CHECKS.filter((c) => !c.notApplicable && notOnReason(c, 'external') && !/ need |outside IMS|--/.test(notOnReason(c, 'external')));
  assert.deepEqual(generic.map((c) => c.id), []);
  const unnamed = CHECKS.filter((c) => !c.notApplicable && !(c.cores ?? ['light']).includes('external'))
    .flatMap((c) => (c.tests ?? []).map((t) => t.file)).filter((f) => !EXTERNAL_NEEDS[f]);
  assert.deepEqual([...new Set(unnamed)], [], 'test files of the catalogue without an EXTERNAL_NEEDS entry');
});

test('needsEnv: a check whose run option is missing is not-applicable with its reason, never pass', () => {
  const cat = [{ id: 'mo', clause: 'c', requirement: 'r', cores: ['external'], needsEnv: { LAB_TEST_NEEDS_X: 'no --x given' }, tests: [{ file: 'calls', name: 'A' }] }];
  const res = parseResults(line('calls', 'A', true));
  delete process.env.LAB_TEST_NEEDS_X;
  assert.deepEqual(checksFor('external', cat), []);
  const [e] = evaluate(cat, res, 'external');
  assert.equal(e.status, 'not-applicable');
  assert.equal(e.reason, 'no --x given');
  process.env.LAB_TEST_NEEDS_X = 'bob';
  try {
    assert.equal(evaluate(cat, res, 'external')[0].status, 'pass');
  } finally {
    delete process.env.LAB_TEST_NEEDS_X;
  }
});

test('junit.xml: one testcase per check, a failure with its error, a skip with its reason, escaped', () => {
  const report = {
    ims: 'external', started: '2026-01-01T00:00:00Z',
    checks: [
      { id: 'ok', clause: 'RFC 1', requirement: 'r', status: 'pass', duration_ms: 1500 },
      { id: 'bad', clause: 'RFC 2', requirement: 'r', status: 'fail', duration_ms: 10, error: 'x.test.mjs: A: expected <200> & "got" 403' },
      { id: 'na', clause: 'RFC 3', requirement: 'r', status: 'not-applicable', duration_ms: 0, reason: "no second user's line" },
    ],
  };
  const x = renderJunit(report);
  assert.match(x, /<testsuites name="lab compliance" tests="3" failures="1" skipped="1"/);
  assert.match(x, /<testcase classname="compliance\.external" name="ok" time="1\.500">/);
  assert.match(x, /<failure message="x\.test\.mjs: A: expected &lt;200&gt; &amp; &quot;got&quot; 403" type="check-failed">/);
  assert.match(x, /<skipped message="no second user&apos;s line"\/>/);
  assert.equal((x.match(/<testcase /g) ?? []).length, 3);
  assert.ok(!/<[^>]*<(?!\/|\?|testsuite|testcase|failure|skipped|system-out)/.test(x), 'no unescaped markup inside an element');
});

test('the far end toward an outside IMS is the credentials file\'s second user, when a SIPp UE can play it', () => {
  const aka = 'carla w aka carol@d sip:carol@d 00112233445566778899aabbccddeeff 00112233445566778899aabbccddeeff 8000';
  const one = parseCredentials(aka);
  assert.match(peerUser(one.users).reason, /one user/);
  const two = parseCredentials(`${aka}\nue2 w digest ue2@d sip:+1555@d,tel:+1555 secret`);
  assert.deepEqual([peerUser(two.users).user.login, peerUser(two.users).userPart], ['ue2', '+1555']);
  const light = parseCredentials(`${aka}\nbob w digest`);
  assert.match(peerUser(light.users).reason, /bob has no IMPI/);
});

test('the digest registration check takes the file\'s first digest user with IMPI, IMPU and SIP password', () => {
  const aka = 'carla w aka carol@d sip:carol@d 00112233445566778899aabbccddeeff 00112233445566778899aabbccddeeff 8000';
  assert.match(digestUser(parseCredentials(`${aka}\nbob w digest`).users).reason, /no digest user/, 'digest with the web password only is not one');
  assert.equal(digestUser(parseCredentials(`${aka}\nbob w digest\ngina w digest gina@d sip:gina@d pw`).users).user.login, 'gina');
});
