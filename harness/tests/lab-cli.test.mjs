// Unit test (no lab needed): `./lab` only dispatches. Its help lives apart in harness/lib/help.txt; `./lab help`
// prints that file, `./lab help CMD` and `./lab CMD --help` print CMD's part of it and run nothing, and every
// subcommand the dispatcher knows has its part there (and the reverse). A command's namespace phase runs in
// harness/lib/in-netns.sh (netns.sh netns_run), never in `./lab` again (root or user namespaces needed).
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

// netns_run as the commands use it, with a probe for a phase: in-netns.sh runs any *_in_netns function it knows,
// and a bash function exported by the caller is one (the real phases start the lab; this one only looks around).
const probeRun = (fn, args, env = process.env) => spawnSync('bash', ['-c', `set -u
ROOT=${JSON.stringify(root)}; source "$ROOT/harness/lib/log.sh"; source "$ROOT/harness/lib/netns.sh"
probe_in_netns() {
  printf 'pid=%s net=%s in_netns=%s up=%s\\n' "$$" "$(readlink /proc/self/ns/net)" "$LAB_IN_NETNS" "$(ip -o link show up | awk -F': ' '{printf "%s ", $2}')"
  printf 'arg=[%s]\\n' "$@"
  printf 'cmdline=%s\\n' "$(tr '\\0' ' ' </proc/$$/cmdline)"
  lab_supervisor_alive $$ && echo supervisor=alive || echo supervisor=gone
}
export -f probe_in_netns
printf 'host pid=%s net=%s\\n' "$$" "$(readlink /proc/self/ns/net)"
netns_run "$@"`, 'probe', fn, ...args], { cwd: root, encoding: 'utf8', timeout: 20000, env });

test("a command's namespace phase: in-netns.sh FUNC ARGS in new namespaces, same pid, ARGS intact, ./lab not run again", () => {
  const r = probeRun('probe_in_netns', ['one', 'two words', '']);
  const shown = `netns_run exited ${r.status}; stdout: ${r.stdout.slice(0, 600)}; stderr: ${r.stderr.trim().slice(0, 300)}`;
  assert.equal(r.status, 0, shown);
  const host = /^host pid=(\d+) net=(\S+)$/m.exec(r.stdout);
  const inside = /^pid=(\d+) net=(\S+) in_netns=(\S*) up=(.*)$/m.exec(r.stdout);
  assert.ok(host && inside, `the probe printed no host or namespace line: ${shown}`);
  assert.equal(inside[1], host[1], `the namespace phase runs as pid ${inside[1]}, ./lab was ${host[1]}: signals sent to ./lab would miss it`);
  assert.notEqual(inside[2], host[2], `the namespace phase is still in the host's network namespace (${host[2]})`);
  assert.equal(inside[3], '1', 'LAB_IN_NETNS is not 1 in the namespace phase');
  assert.equal(inside[4].trim(), 'lo', `the new namespace should have only loopback up (netns_setup), has: ${inside[4]}`);
  assert.deepEqual([...r.stdout.matchAll(/^arg=\[(.*)\]$/gm)].map((m) => m[1]), ['one', 'two words', ''], `the phase's arguments were not passed intact: ${shown}`);
  const cmdline = /^cmdline=(.*)$/m.exec(r.stdout)?.[1] ?? '';
  assert.match(cmdline, /^bash \S*\/harness\/lib\/in-netns\.sh probe_in_netns one two words/, `the namespace phase is not in-netns.sh: ${cmdline}`);
  assert.doesNotMatch(cmdline, /(^|\/)lab( |$)/, `the namespace phase runs ./lab again: ${cmdline}`);
  // out/RUN/supervisor holds this pid: a second run in the same out/RUN must see it alive and leave its components be
  assert.match(r.stdout, /^supervisor=alive$/m, `lab_supervisor_alive does not know the namespace phase (${cmdline}): a second run would stop its components`);
});

test('in-netns.sh runs only a *_in_netns function, and only inside the namespace (a one-line reason otherwise)', () => {
  const r = probeRun('lab_down', []);
  assert.equal(r.status, 1, `netns_run lab_down exited ${r.status}: ${r.stderr}`);
  assert.match(r.stderr, /^lab: in-netns.sh runs a command's namespace phase \(a \*_in_netns function\) inside \.\/lab's private namespace, not 'lab_down'$/m, `no clear refusal of lab_down: ${r.stderr}`);
  const outside = spawnSync('bash', [path.join(root, 'harness/lib/in-netns.sh'), 'demo_in_netns'], { cwd: root, encoding: 'utf8', timeout: 20000, env: { PATH: process.env.PATH } });
  assert.equal(outside.status, 1, `in-netns.sh run by hand outside the namespace exited ${outside.status}: ${outside.stderr}`);
  assert.match(outside.stderr, /^lab: in-netns.sh runs a command's namespace phase/m, `no clear refusal when run by hand: ${outside.stderr}`);
  assert.equal(outside.stdout, '', `in-netns.sh run by hand printed: ${outside.stdout.slice(0, 200)}`);
});

test('every netns_run in harness/lib names a *_in_netns function that exists, and nothing there runs ./lab', () => {
  const lib = path.join(root, 'harness/lib');
  const text = fs.readdirSync(lib).filter((f) => f.endsWith('.sh')).map((f) => [f, fs.readFileSync(path.join(lib, f), 'utf8')]);
  const defined = new Set(text.flatMap(([, t]) => [...t.matchAll(/^([a-z_][a-z0-9_]*)\(\) \{/gm)].map((m) => m[1])));
  const runs = text.flatMap(([f, t]) => [...t.matchAll(/^\s*netns_run ([a-z_][a-z0-9_]*)/gm)].map((m) => [f, m[1]]));
  assert.ok(runs.length >= 7, `found only ${runs.length} netns_run calls in harness/lib (demo, test, compliance, bench, bench scale-out, soak, scenario, docker)`);
  const bad = runs.filter(([, fn]) => !fn.endsWith('_in_netns') || !defined.has(fn)).map(([f, fn]) => `${f}: netns_run ${fn}`);
  assert.deepEqual(bad, [], `these netns_run calls name no *_in_netns function of harness/lib: ${bad.join('; ')}`);
  const relab = text.filter(([, t]) => /(\$ROOT\/lab|\$LAB_SELF)\b/.test(t.replace(/(^|\s)#.*$/gm, ''))).map(([f]) => f);
  assert.deepEqual(relab, [], `these files of harness/lib run ./lab again: ${relab.join(', ')}`);
});

// the unit tests of the bash libraries themselves source them: that is what they test
const LIB_UNIT_TESTS = ['harness/tests/lab-cli.test.mjs', 'harness/tests/addresses.test.mjs', 'harness/tests/procs.test.mjs'];
test('Node runs the lab\'s bash scripts, never sources its libraries (but in the libraries\' own unit tests)', () => {
  const sources = (text) => [...text.matchAll(/(?:\bsource|(?:^|[;&|`'"]\s*)\.)\s+["']?[^"'\s;]*harness\/lib\/[\w.-]+\.sh/gm)].map((m) => m[0].trim());
  assert.equal(sources('const sh = `source "${root}/harness/lib/scaleout.sh"; haproxy_config x`;').length, 1, 'the check misses a sourced library');
  assert.equal(sources("spawn('bash', [path.join(root, 'harness/lib/haproxy-config.sh'), cfg])").length, 0, 'the check counts a script run with arguments');
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.name === 'node_modules' ? []
    : e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.mjs') ? [path.join(dir, e.name)] : []));
  const files = walk(path.join(root, 'harness')).filter((f) => !LIB_UNIT_TESTS.includes(path.relative(root, f)));
  assert.ok(files.length > 100, `only ${files.length} .mjs files under harness/`);
  const found = files.flatMap((f) => sources(fs.readFileSync(f, 'utf8')).map((m) => `${path.relative(root, f)}: ${m}`));
  assert.deepEqual(found, [], `these Node files source bash libraries of harness/lib instead of running a script with arguments: ${found.join('; ')}`);
});

// ./lab test's split of the integration files between this namespace and the side one (harness/lib/tests.sh
// run_node_tests): each file runs once per browser it is meant for, in one namespace only. run_node_pass is replaced
// by a recorder; the real one starts node --test.
const splitRun = (which, env = {}) => {
  const r = spawnSync('bash', ['-c', `set -u
ROOT=${JSON.stringify(root)}; source "$ROOT/harness/lib/all.sh"
run_node_pass() { local kind=$1 name=$2; shift 2; printf 'pass %s %s:' "$kind" "$name"; printf ' %s' "\${@##*/}"; echo; LAB_T_PASS=$#; LAB_T_FAIL=0; LAB_T_SKIP=0; LAB_T_BROKEN=; }
run_node_tests "$1"; echo "verdict: $LAB_T_INTEG"`, 'split', which], { cwd: root, encoding: 'utf8', timeout: 20000, env: { ...process.env, LAB_TEST_ONLY: '', LAB_IMS: '', ...env } });
  assert.equal(r.status, 0, `run_node_tests ${which} exited ${r.status}: ${r.stderr.slice(0, 400)}`);
  return Object.fromEntries(r.stdout.split('\n').filter((l) => l.startsWith('pass ')).map((l) => {
    const [head, files] = l.split(':');
    return [head.slice(5), files.trim().split(' ').filter(Boolean)];
  }));
};
test('./lab test: every file runs in the first browser once, in this namespace or the side one; media files again in the others', () => {
  const all = splitRun('all')['chromium integration'];
  const first = splitRun('first');
  const others = splitRun('others');
  assert.ok(all.length > 40, `the whole pass has only ${all.length} files: ${all.join(' ')}`);
  const side = others['chromium integration-side-chromium'] ?? [];
  assert.deepEqual(side, ['faults.test.mjs', 'ipv6.test.mjs', 'scale-out.test.mjs'], `the side namespace's Chromium files are not LAB_SIDE_FIRST_TESTS: ${side.join(' ')}`);
  const here = first['chromium integration'];
  assert.deepEqual([...here, ...side].sort(), [...all].sort(), 'the two namespaces together do not run each file of the whole pass exactly once in Chromium');
  assert.ok(side.every((f) => !here.includes(f)), `a side file also runs in this namespace: ${side.filter((f) => here.includes(f))}`);
  assert.deepEqual(Object.keys(first), ['chromium integration'], `the first pass ran other browsers: ${Object.keys(first)}`);
  assert.ok((others['firefox integration-firefox'] ?? []).includes('calls.test.mjs'), `Firefox's media pass is not in the side: ${JSON.stringify(others)}`);
  // --only keeps every named file in its own browser's pass here: no file moves
  const only = splitRun('others', { LAB_TEST_ONLY: 'calls,faults' });
  assert.equal(only['chromium integration-side-chromium'], undefined, `--only moved a file to the side: ${JSON.stringify(only)}`);
});
