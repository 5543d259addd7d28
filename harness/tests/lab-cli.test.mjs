// Unit test (no lab needed): `./lab` only dispatches. Its help lives apart in harness/lib/help.txt; `./lab help`
// prints that file, `./lab help CMD` and `./lab CMD --help` print CMD's part of it and run nothing, and every
// subcommand the dispatcher knows has its part there (and the reverse).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const helpText = fs.readFileSync(path.join(root, 'harness/lib/help.txt'), 'utf8');
const usageLine = helpText.split('\n')[0];
const lab = (...args) => {
  const r = spawnSync(path.join(root, 'lab'), args, { cwd: root, encoding: 'utf8', timeout: 20000 });
  return { code: r.status, out: r.stdout, err: r.stderr, shown: `./lab ${args.join(' ')} exited ${r.status}; stderr: ${r.stderr.trim().slice(0, 300)}` };
};
// the dispatcher's subcommands: the `  name)` arms of lab's case (help's own arm has aliases)
const dispatched = [...fs.readFileSync(path.join(root, 'lab'), 'utf8').matchAll(/^  ([a-z][a-z-]*)(?: \|[^)]*)?\)/gm)].map((m) => m[1]);
// the help's entries: lines two spaces in, starting with a subcommand's name
const entries = [...new Set([...helpText.matchAll(/^  ([a-z][a-z-]*)\b/gm)].map((m) => m[1]))];

test('./lab help prints harness/lib/help.txt unchanged, and its first line is the usage line', () => {
  const r = lab('help');
  assert.equal(r.code, 0, r.shown);
  assert.equal(r.out, helpText, './lab help differs from harness/lib/help.txt');
  assert.match(usageLine, /^usage: \.\/lab /, `help.txt's first line is not the usage line: ${usageLine}`);
});

test('every subcommand of the dispatcher has help, and every help entry is a subcommand', () => {
  assert.ok(dispatched.length >= 9, `found only ${dispatched.length} subcommands in lab's case: ${dispatched}`);
  assert.deepEqual([...entries].sort(), [...dispatched].sort(), `help.txt's entries (${entries}) and lab's subcommands (${dispatched}) differ`);
});

test('./lab help CMD and ./lab CMD --help print CMD\'s entries of help.txt and run nothing', () => {
  const lines = helpText.split('\n');
  for (const cmd of dispatched) {
    const viaHelp = lab('help', cmd);
    assert.equal(viaHelp.code, 0, viaHelp.shown);
    assert.match(viaHelp.out, new RegExp(`^  ${cmd}\\b`), `./lab help ${cmd} does not start with its entry: ${viaHelp.out.slice(0, 80)}`);
    for (const l of viaHelp.out.trimEnd().split('\n')) assert.ok(lines.includes(l), `./lab help ${cmd} printed a line help.txt does not have: ${l}`);
    // every entry of CMD is there (the entries of `up`, `bench`, `compliance` are several)
    const want = lines.filter((l) => new RegExp(`^  ${cmd}\\b`).test(l));
    for (const l of want) assert.ok(viaHelp.out.includes(`${l}\n`), `./lab help ${cmd} leaves out its entry: ${l}`);
    if (cmd === 'help') continue;
    for (const flag of ['--help', '-h']) {
      const viaFlag = lab(cmd, ...(cmd === 'scenario' ? ['basic'] : []), flag);
      assert.equal(viaFlag.code, 0, viaFlag.shown);
      assert.equal(viaFlag.out, viaHelp.out, `./lab ${cmd} ${flag} and ./lab help ${cmd} print different text`);
      assert.equal(viaFlag.err, '', `./lab ${cmd} ${flag} wrote to stderr (did it start something?): ${viaFlag.err.slice(0, 200)}`);
    }
  }
});

test('an unknown or missing subcommand is a usage error (exit 2, the usage line, no help text on stdout)', () => {
  for (const args of [['nosuch'], ['help', 'nosuch'], ['nosuch', '--help'], []]) {
    const r = lab(...args);
    assert.equal(r.code, 2, r.shown);
    assert.equal(r.out, '', `./lab ${args.join(' ')} printed on stdout: ${r.out.slice(0, 100)}`);
    const want = args.length ? 'lab: unknown subcommand: nosuch' : 'lab: no subcommand given';
    assert.equal(r.err, `${want}\n${usageLine}\n`, `./lab ${args.join(' ')}: stderr is not "${want}" and the usage line`);
  }
});
