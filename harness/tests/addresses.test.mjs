// Unit test (no lab needed): the lab's addresses and ports are written once, in harness/addresses.env, and
// every reader (bash, Node, Python, CMake/C++, the 3GPP core's env.sh, the gateway's defaults) sees the same
// values; no reader keeps a literal copy of a value of the table.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ADDRESSES, LAB, TABLE_FILE, parseTable } from '../kit/addresses.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (rel) => fs.readFileSync(path.join(root, rel), 'utf8');
const names = Object.keys(LAB);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { cwd: root, encoding: 'utf8', ...opts });
// NAME=value lines -> { NAME: value }
const lines = (text) => Object.fromEntries(text.trim().split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
// the first NAME=value the table and a reader disagree on, for the failure message
const firstDiff = (want, got) => names.find((n) => want[n] !== got[n]);
const disagree = (reader, got) => {
  const n = firstDiff(LAB, got);
  return `${reader} disagrees with ${path.relative(root, TABLE_FILE)}${n ? ` on ${n}: table '${LAB[n]}', ${reader} '${got[n]}'` : ''}`;
};

test('the table parses: names, ${NAME} references resolved, bad lines named with their number', () => {
  assert.ok(names.length >= 30, `only ${names.length} names in ${TABLE_FILE}`);
  assert.equal(LAB.LAB_RTPENGINE_NG, `${LAB.LAB_LOOPBACK}:2223`, 'LAB_RTPENGINE_NG is not ${LAB_LOOPBACK}:2223 resolved');
  assert.equal(LAB.LAB_STUN, `${LAB.LAB_NAT_CORE_ADDR}:3478`, 'LAB_STUN is not ${LAB_NAT_CORE_ADDR}:3478 resolved');
  for (const n of names) assert.doesNotMatch(LAB[n], /[$\s"']/, `${n}='${LAB[n]}' keeps a reference, space or quote`);
  assert.deepEqual(parseTable('A=1 # c\n# x\nB=${A}:2\n', 't'), { A: '1', B: '1:2' }, 'comments and a reference');
  assert.throws(() => parseTable('A=1\nB=two words\n', 't'), /t:2: not NAME=value/, 'a value with a space is refused');
  assert.throws(() => parseTable('B=${A}\n', 't'), /t:1: \$\{A\} is not an earlier name/, 'a forward reference is refused');
});

test('bash: harness/lib/addresses.sh gives every name of the table its value', () => {
  const out = run('bash', ['-c', `set -u; source harness/lib/addresses.sh; for n in ${names.join(' ')}; do printf '%s=%s\\n' "$n" "\${!n}"; done; printf 'IFACES=%s\\n' "\${LAB_RTPENGINE_IFACES[*]}"`]);
  const got = lines(out);
  assert.deepEqual(Object.fromEntries(names.map((n) => [n, got[n]])), LAB, disagree('bash (addresses.sh)', got));
  assert.equal(got.IFACES, `pub/${LAB.LAB_PUB_ADDR} ims/${LAB.LAB_LOOPBACK}`, `rtpengine's interfaces from bash: ${got.IFACES}`);
});

test('Python: lab_addresses.py and ng-ping.py read the table', () => {
  const got = lines(run('python3', ['harness/lib/lab_addresses.py']));
  assert.deepEqual(got, LAB, disagree('Python (lab_addresses.py)', got));
  const ng = run('python3', ['-c', 'import runpy; print(runpy.run_path("media-relay/ng-ping.py")["DEFAULT_NG"])']).trim();
  assert.equal(ng, LAB.LAB_RTPENGINE_NG, `ng-ping.py's default ng address ${ng}, the table's ${LAB.LAB_RTPENGINE_NG}`);
});

test('the 3GPP core: ims-sim/3gpp/env.sh defaults to the table, and leaves the caller\'s LAB_* alone', () => {
  const out = run('bash', ['-c', 'set -u; LAB_GW_PORT=kept; . ims-sim/3gpp/env.sh; set | grep -E "^(IMS3_[A-Z_]*PORT|IMS3_ADDR|IMS3_DOMAIN|IMS3_TRUSTED_NODES)="; echo "LAB_GW_PORT=$LAB_GW_PORT"'], {
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IMS3_'))),
  });
  const got = lines(out);
  const want = {
    IMS3_ADDR: LAB.LAB_LOOPBACK, IMS3_DOMAIN: LAB.LAB_IMS_DOMAIN, IMS3_PCSCF_PORT: LAB.LAB_PCSCF.split(':')[1],
    IMS3_ICSCF_PORT: LAB.LAB_IMS3_ICSCF_PORT, IMS3_SCSCF_PORT: LAB.LAB_IMS3_SCSCF_PORT, IMS3_DB_PORT: LAB.LAB_IMS3_DB_PORT,
    IMS3_HSS_DIAMETER_PORT: LAB.LAB_IMS3_HSS_DIAMETER_PORT, IMS3_ICSCF_DIAMETER_PORT: LAB.LAB_IMS3_ICSCF_DIAMETER_PORT,
    IMS3_SCSCF_DIAMETER_PORT: LAB.LAB_IMS3_SCSCF_DIAMETER_PORT, IMS3_TRUSTED_NODES: `${LAB.LAB_LOOPBACK}:${LAB.LAB_GW_SIP_PORT}`,
  };
  for (const [k, v] of Object.entries(want)) assert.equal(got[k], v, `ims-sim/3gpp/env.sh: ${k}=${got[k]}, the table gives ${v}`);
  assert.equal(got.LAB_GW_PORT, 'kept', 'sourcing ims-sim/3gpp/env.sh overwrote the caller\'s LAB_GW_PORT');
});

test('C++: cmake/lab_addresses.cmake generates lab_addresses.h with every name of the table', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-addresses-'));
  try {
    run('cmake', ['-P', path.join(root, 'media-relay/loadgen/cmake/lab_addresses.cmake')], { cwd: dir });
    const header = fs.readFileSync(path.join(dir, 'generated/lab_addresses.h'), 'utf8');
    const got = Object.fromEntries([...header.matchAll(/^#define (\w+) "([^"]*)"$/gm)].map((m) => [m[1], m[2]]));
    assert.deepEqual(got, LAB, disagree('C++ (lab_addresses.h)', got));
    // loadgen's default ng address is the table's, by name (src/config.h); its CTest scripts take the same
    assert.match(read('media-relay/loadgen/src/config.h'), /^#define LOADGEN_DEFAULT_NG LAB_RTPENGINE_NG$/m, 'config.h: LOADGEN_DEFAULT_NG is not LAB_RTPENGINE_NG');
    assert.match(read('media-relay/loadgen/tests/CMakeLists.txt'), /set\(LOADGEN_DEFAULT_NG "\$\{LAB_RTPENGINE_NG\}"\)/, 'the CTest scripts\' ng address is not LAB_RTPENGINE_NG');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('Node: ADDRESSES is built from the table', () => {
  const at = (port) => `${LAB.LAB_LOOPBACK}:${port}`;
  const want = {
    gatewayHttp: `http://${at(LAB.LAB_GW_PORT)}`, gatewaySip: at(LAB.LAB_GW_SIP_PORT), pcscf: LAB.LAB_PCSCF,
    scscf: at(LAB.LAB_SCSCF_PORT), pcscfTls: at(LAB.LAB_PCSCF_TLS_PORT), rtpengineNg: LAB.LAB_RTPENGINE_NG,
    pub: LAB.LAB_PUB_ADDR, browser: LAB.LAB_BROWSER_ADDR, natOutside: LAB.LAB_NAT_OUT_ADDR,
    browserBehindNat: LAB.LAB_BROWSER_NAT_ADDR, stun: LAB.LAB_STUN, snatOutside: LAB.LAB_SNAT_OUT_ADDR,
    browserBehindSnat: LAB.LAB_BROWSER_SNAT_ADDR,
  };
  for (const [k, v] of Object.entries(want)) assert.equal(ADDRESSES[k], v, `ADDRESSES.${k} is ${ADDRESSES[k]}, the table gives ${v}`);
});

test("the gateway's built-in defaults agree with the table (application.properties, the lab.* property classes)", () => {
  const props = read('signaling-gw/src/main/resources/application.properties');
  const prop = (k) => props.match(new RegExp(`^${k.replace('.', '\\.')}=(.*)$`, 'm'))?.[1];
  assert.equal(prop('server.port'), LAB.LAB_GW_PORT, `application.properties server.port=${prop('server.port')}, LAB_GW_PORT=${LAB.LAB_GW_PORT}`);
  assert.equal(prop('server.address'), LAB.LAB_LOOPBACK, `application.properties server.address=${prop('server.address')}, LAB_LOOPBACK=${LAB.LAB_LOOPBACK}`);
  // each default lives in the class of its prefix: lab.sip.* GatewayProperties, lab.ims.* ImsProperties, lab.rtpengine.* RtpengineProperties
  for (const [cls, decl, want] of [['GatewayProperties', 'port', LAB.LAB_GW_SIP_PORT], ['ImsProperties', 'proxy', LAB.LAB_PCSCF],
    ['ImsProperties', 'domain', LAB.LAB_IMS_DOMAIN], ['RtpengineProperties', 'ng', LAB.LAB_RTPENGINE_NG], ['RtpengineProperties', 'dtmfLog', LAB.LAB_RTPENGINE_DTMF_LOG]]) {
    const java = read(`signaling-gw/src/main/java/org/webrtcims/gw/config/${cls}.java`);
    const got = java.match(new RegExp(`private (?:String|int) ${decl} = "?([^";]*)"?;`))?.[1];
    assert.equal(got, want, `${cls}.java: ${decl} = ${got}, the table's value is ${want}`);
  }
});

// Values worth looking for: addresses and ports (the loopback address and the domain are everywhere in
// other roles, e.g. a SIPp UE's own address, so only their defining readers are checked by the tests above).
const SCANNED = names.filter((n) => !['LAB_LOOPBACK', 'LAB_IMS_DOMAIN'].includes(n) && /\d/.test(LAB[n]) && LAB[n].length >= 4);
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A bare number (a port: 6000) is also a plausible duration in ms: a match counts unless the text just before it
// on its line names a time (timeoutMs: 6000, setInterval(f, 6000), sleep 6000) or "ms" follows it.
const TIME_BEFORE = /([Tt]ime|TIME|[Ii]nterval|[Dd]elay|[Ss]leep|[Hh]old|[Ww]ait|[Aa]fter|[Uu]ntil|[Ee]xpires|\bms\b|Ms\b|MS\b|Date\.now\(\)\s*[-+])[^\n]{0,24}$/;
const isDuration = (code, m) => /^\d+$/.test(m[1]) && (TIME_BEFORE.test(code.slice(Math.max(0, m.index - 40), m.index).split('\n').pop())
  || /^\s*ms\b/.test(code.slice(m.index + m[0].length)));
// Comments are not code: # and // to the line's end (after a space or at its start), /* */ in C, <!-- --> in XML.
const uncommented = (text, file = '') => {
  let t = text;
  if (/\.(c|cpp|h)$/.test(file)) t = t.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  if (/\.xml$/.test(file)) t = t.replace(/<!--[\s\S]*?-->/g, (c) => c.replace(/[^\n]/g, ' '));
  return t.split('\n').map((l) => l.replace(/(^|\s)(#|\/\/).*$/, '')).join('\n');
};
// literalCopies(text, file) -> the "NAME=value" of each table value a reader's code (comments stripped) spells out
function literalCopies(text, file = '') {
  const code = uncommented(text, file);
  return SCANNED.filter((n) => [...code.matchAll(new RegExp(`(?<![\\w.])(${esc(LAB[n])})(?![\\w.])`, 'g'))].some((m) => !isDuration(code, m)))
    .map((n) => `${n}=${LAB[n]}`);
}

const READERS = ['harness/lib/addresses.sh', 'harness/kit/addresses.mjs', 'harness/lib/lab_addresses.py', 'harness/lib/sip-options.py',
  'harness/lib/ims3gpp.sh', 'media-relay/ng-ping.py', 'ims-sim/3gpp/env.sh', 'ims-sim/3gpp/sipp/aka-ue.py', 'ims-sim/start-kamailio.sh',
  'sipp-scenarios/run-ue.sh', 'media-relay/loadgen/src/config.h', 'media-relay/loadgen/src/main.cpp',
  'media-relay/loadgen/cmake/lab_addresses.cmake', 'media-relay/loadgen/tests/CMakeLists.txt',
  'media-relay/loadgen/tests/integration_gateway.sh', 'media-relay/loadgen/tests/integration_gateway_mt.sh'];

test('no reader keeps its own copy of a value of the table (and the scan finds one when it does)', () => {
  assert.deepEqual(literalCopies('DEFAULT_NG = "127.0.0.1:2223"  # ng'), [`LAB_RTPENGINE_NG=${LAB.LAB_RTPENGINE_NG}`], 'the scan misses a planted ng address');
  assert.deepEqual(literalCopies('# rtpengine on 127.0.0.1:2223\n// LAB_GW_PORT 8088'), [], 'the scan counts comments');
  // a UE's port and a test's own gateway port, spelled out the way they used to be, are found (a value two rows share is
  // named by both)
  const finds = (text, want, what) => assert.deepEqual(want.filter((n) => !literalCopies(text).includes(`${n}=${LAB[n]}`)), [], `the scan misses ${what} in: ${text}`);
  finds("const UE1 = { user: 'ue1', mediaPort: 6000 };", ['LAB_UE1_RTP_PORT'], "a UE's RTP port");
  finds('const HTTP_PORT = 8092;\nconst SIP_PORT = 5077;', ['LAB_FAULTS_TEST_GW_PORT', 'LAB_FAULTS_TEST_GW_SIP_PORT'], "a test's own gateway ports");
  finds('serve uas ue1 5080 6000 uas.xml -aa', ['LAB_UE1_SIP_PORT', 'LAB_UE1_RTP_PORT'], "run-ue.sh's old ports");
  // ... but not the same number as a duration, nor in an XML or C comment
  assert.deepEqual(literalCopies('{ timeoutMs: 6000 }; setInterval(cadence, 6000); sleep(7000); x = 6000 ms'), [], 'the scan counts durations');
  assert.deepEqual(literalCopies('<!-- ue5 at 5094 -->\n<send/>', 'a.xml'), [], 'the scan counts an XML comment');
  assert.deepEqual(literalCopies('/* the S-CSCF\n * at 6060 */ int x;', 'a.c'), [], 'the scan counts a C block comment');
  for (const f of READERS) assert.deepEqual(literalCopies(read(f), f), [], `${f} spells out values of harness/addresses.env instead of reading them`);
});

// Every other file of code the lab runs or tests with: the same scan. A file listed here may spell out the named
// values, for the reason given; any other value there, or a value in any other file, fails the test.
const CODE_ROOTS = ['lab', 'harness', 'ims-sim', 'sipp-scenarios', 'media-relay', 'webclient', 'docker'];
const CODE_FILE = /(\.(sh|mjs|js|py|c|cpp|h|cmake|cfg|tmpl|xml|ya?ml|conf)|\/CMakeLists\.txt|^lab)$/;
const SKIP_DIR = new Set(['node_modules', 'build', 'vendor', 'fixtures', 'out', '.git']);
const SPELLED_OUT = {
  'harness/tests/addresses.test.mjs': { names: ['LAB_RTPENGINE_NG', 'LAB_GW_PORT', 'LAB_UE1_SIP_PORT', 'LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE',
    'LAB_FAULTS_TEST_GW_PORT', 'LAB_FAULTS_TEST_GW_SIP_PORT', 'LAB_UE5_SIP_PORT', 'LAB_AKA_TEST_GUESS_PORT', 'LAB_IMS3_SCSCF_PORT'], why: 'the values planted to show the scan works' },
  'harness/lib/docker.sh': { names: ['LAB_UE5_SECOND_RTP_PORT', 'LAB_SCENARIO_MT_RTP_BASE'], why: "run-ue.sh load-uac's hold_ms argument (7000 ms), not a port" },
  // the 3GPP core's own self-test (ims-sim/3gpp/selftest.sh, docs/ims-sim.md) runs its own UEs against that core alone, on
  // source ports 5081-5086 and media ports of its own; equal numbers to some lab UEs' rows, not those UEs
  'ims-sim/3gpp/selftest.sh': { names: ['LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE', 'LAB_UE2_RTP_PORT', 'LAB_UE3_SIP_PORT', 'LAB_UE4_SIP_PORT', 'LAB_UE6_SIP_PORT'],
    why: "its own UEs' ports against the 3GPP core alone" },
  'harness/compliance/checks.mjs': { names: ['LAB_SCSCF_PORT'], why: "a check's not-applicable reason names the light S-CSCF hop in words" },
  'harness/tests/ims-hardening.test.mjs': { names: ['LAB_SIP_TEST_PEER_ADDR'], why: 'a raw UE toward the P-CSCF from a loopback source the test gets banned, which happens to be that address; not the gateway\'s trusted peer' },
  // loadgen's unit tests feed its parsers and SIP dialog hand-written messages and URLs; nothing of the lab runs there
  'media-relay/loadgen/tests/test_http.cpp': { names: ['LAB_GW_PORT', 'LAB_PUB_ADDR', 'LAB_TLS_TEST_GW_PORT', 'LAB_SCALE_TEST_GW1_PORT'], why: 'URL parser examples' },
  'media-relay/loadgen/tests/test_sdp.cpp': { names: ['LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE'], why: 'SDP fixtures' },
  'media-relay/datachannel/tests/test_text_sdp.cpp': { names: ['LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE', 'LAB_UE5_SECOND_RTP_PORT', 'LAB_SCENARIO_MT_RTP_BASE'], why: 'SDP fixtures' },
  'media-relay/delaymeter/src/main.cpp': { names: ['LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE'], why: "delaymeter's own default --ims-ports (6000-6299), a standalone tool's; ./lab always passes --ims-ports from the table" },
  'media-relay/delaymeter/tests/cli_test.cmake': { names: ['LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE'], why: "delaymeter's CLI test passes its default --ims-ports" },
  // delaymeter's unit tests: hand-made captures and their expected per-call ports
  'media-relay/delaymeter/tests/pcap_fixture.cpp': { names: ['LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE', 'LAB_UE5_SECOND_RTP_PORT', 'LAB_SCENARIO_MT_RTP_BASE'], why: 'capture fixtures' },
  'media-relay/delaymeter/tests/test_pcap_reader.cpp': { names: ['LAB_UE5_SECOND_RTP_PORT', 'LAB_SCENARIO_MT_RTP_BASE'], why: 'capture fixtures' },
  'media-relay/delaymeter/tests/test_roundtrip.cpp': { names: ['LAB_UE1_RTP_PORT', 'LAB_BENCH_FAR_PORT_BASE'], why: 'capture fixtures' },
  'media-relay/loadgen/tests/test_gateway_msg.cpp': { names: ['LAB_GW_PORT'], why: 'a gateway login reply as fixture' },
  'media-relay/loadgen/tests/test_sip_message.cpp': { names: ['LAB_SCSCF_PORT', 'LAB_PCSCF_WS_PORT'], why: 'SIP header fixtures' },
  'media-relay/loadgen/tests/test_sip_dialog.cpp': { names: ['LAB_SCSCF_PORT', 'LAB_UE1_SIP_PORT', 'LAB_PCSCF_WS_PORT', 'LAB_GW_SIP_PORT'], why: 'SIP dialog fixtures' },
  'media-relay/loadgen/tests/test_sip_ws.cpp': { names: ['LAB_SCSCF_PORT', 'LAB_UE1_SIP_PORT', 'LAB_PCSCF_WS_PORT', 'LAB_GW_SIP_PORT'], why: 'SIP over WebSocket fixtures' },
  'media-relay/loadgen/tests/test_wic_token.cpp': { names: ['LAB_PCSCF_WS_PORT'], why: 'a WIC token fixture' },
};
function codeFiles(rel) {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) return [];
  if (!fs.statSync(abs).isDirectory()) return CODE_FILE.test(rel) ? [rel] : [];
  return fs.readdirSync(abs).filter((e) => !SKIP_DIR.has(e)).flatMap((e) => codeFiles(`${rel}/${e}`));
}

test('no other file of the lab spells out a value of the table, except the few listed with their reason', () => {
  const files = CODE_ROOTS.flatMap(codeFiles);
  assert.ok(files.length > 200 && files.includes('harness/runner/dc-ue.py') && files.includes('media-relay/loadgen/tests/test_http.cpp'),
    `the walk found only ${files.length} files of code under ${CODE_ROOTS}`);
  const found = Object.fromEntries(files.map((f) => [f, literalCopies(read(f), f).map((c) => c.split('=')[0])]).filter(([, c]) => c.length));
  const unlisted = Object.entries(found).flatMap(([f, ns]) => ns.filter((n) => !SPELLED_OUT[f]?.names.includes(n)).map((n) => `${f}: ${n}=${LAB[n]}`));
  assert.deepEqual(unlisted, [], `these files spell out values of harness/addresses.env instead of reading it (kit/addresses.mjs, lib/addresses.sh, lib/lab_addresses.py, lab_addresses.h): ${unlisted.join('; ')}`);
  const stale = Object.entries(SPELLED_OUT).flatMap(([f, { names: ns }]) => ns.filter((n) => !found[f]?.includes(n)).map((n) => `${f}: ${n}`));
  assert.deepEqual(stale, [], `listed as spelling out a value but no longer does (take it off SPELLED_OUT): ${stale.join('; ')}`);
});

// LAB.<NAME> reads in a file's text whose name is no row of the table
const unknownReads = (text) => [...new Set([...text.matchAll(/\bLAB\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]).filter((n) => !(n in LAB)))];

test('every LAB.<NAME> the Node side reads is a row of the table (a misspelt name would read undefined)', () => {
  assert.deepEqual(unknownReads('const p = Number(LAB.LAB_UE1_SIP_PROT); const q = LAB.LAB_UE1_SIP_PORT;'), ['LAB_UE1_SIP_PROT'], 'the check misses a misspelt name');
  const files = ['harness', 'webclient'].flatMap(codeFiles).filter((f) => f.endsWith('.mjs') && f !== 'harness/tests/addresses.test.mjs');
  assert.ok(files.length > 100, `only ${files.length} .mjs files found`);
  const unknown = files.flatMap((f) => unknownReads(read(f)).map((n) => `${f}: LAB.${n}`));
  assert.deepEqual(unknown, [], `these name no row of harness/addresses.env: ${unknown.join('; ')}`);
});

// What a row takes: a port range (N-M, or the pair X_MIN/X_MAX), a port (a number, or LAB_LOOPBACK:PORT: every bare port
// of the table is on the core's loopback), or its value as it is (an address, ADDR:PORT elsewhere, a namespace name).
// Two rows clash when they take the same port or value, or one's port or range lies in the other's range, unless one
// of them says `may share with NAME` of the other in its comment (never in use at the same time), or a range row says
// `a filter: binds nothing` (a range that captures match on, which holds other rows' ports by design).
function clashes(text) {
  const table = parseTable(text, 'the table');
  const note = Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]*)=\S*\s+#(.*)$/gm)].map((m) => [m[1], m[2]]));
  const says = (a, what) => (note[a] ?? '').includes(what);
  const shares = (a, b) => new RegExp(`may share with [^()]*\\b${b}\\b`).test(note[a] ?? '');
  const rows = [];
  for (const [n, v] of Object.entries(table)) {
    const pair = n.replace(/_(MIN|MAX)$/, '');
    if (pair !== n && `${pair}_MIN` in table && `${pair}_MAX` in table) {
      if (n.endsWith('_MIN')) rows.push({ n, lo: +v, hi: +table[`${pair}_MAX`], shown: `${v}-${table[`${pair}_MAX`]}`, range: true });
      continue;
    }
    const range = /^(\d+)-(\d+)$/.exec(v);
    const port = /^(\d+)$/.exec(v) ?? (v.startsWith(`${table.LAB_LOOPBACK}:`) ? /:(\d+)$/.exec(v) : null);
    if (range) rows.push({ n, lo: +range[1], hi: +range[2], shown: v, range: true });
    else if (port) rows.push({ n, lo: +port[1], hi: +port[1], shown: v });
    else rows.push({ n, value: v, shown: v });
  }
  const found = [];
  for (const [i, a] of rows.entries()) {
    for (const b of rows.slice(i + 1)) {
      const same = a.value != null || b.value != null ? a.value === b.value : a.lo <= b.hi && b.lo <= a.hi;
      if (!same || shares(a.n, b.n) || shares(b.n, a.n)) continue;
      if ((a.range && says(a.n, 'a filter: binds nothing')) || (b.range && says(b.n, 'a filter: binds nothing'))) continue;
      found.push(`${a.n}=${a.shown} and ${b.n}=${b.shown}`);
    }
  }
  return found;
}

test('no two rows of the table take the same port, range or address unless the table says they may (and the check finds one)', () => {
  const t = (rows) => `LAB_LOOPBACK=10.1.2.3\n${rows}\n`;
  assert.deepEqual(clashes(t('LAB_A_PORT=4711\nLAB_B=${LAB_LOOPBACK}:4711')), ['LAB_A_PORT=4711 and LAB_B=10.1.2.3:4711'], 'a port given twice (bare and as loopback:port) is not found');
  assert.deepEqual(clashes(t('LAB_A_PORTS=4700-4799\nLAB_B_PORT=4711\nLAB_C_MIN=4790\nLAB_C_MAX=4810')),
    ['LAB_A_PORTS=4700-4799 and LAB_B_PORT=4711', 'LAB_A_PORTS=4700-4799 and LAB_C_MIN=4790-4810'], 'a port in a range, or overlapping ranges, are not found');
  assert.deepEqual(clashes(t('LAB_A_ADDR=10.9.9.9\nLAB_NS_X=labx\nLAB_B_ADDR=10.9.9.9\nLAB_NS_Y=labx')),
    ['LAB_A_ADDR=10.9.9.9 and LAB_B_ADDR=10.9.9.9', 'LAB_NS_X=labx and LAB_NS_Y=labx'], 'an address or a name given twice is not found');
  assert.deepEqual(clashes(t('LAB_A_PORT=4711 # x (may share with LAB_B_PORT: never at once)\nLAB_B_PORT=4711\nLAB_F_PORTS=4700-4799 # a filter: binds nothing')), [],
    'rows that say they may share (or a filter range) are counted as clashes');
  assert.deepEqual(clashes(t('LAB_A_PORT=4711 # (may share with LAB_C_PORT)\nLAB_B_PORT=4711')), ['LAB_A_PORT=4711 and LAB_B_PORT=4711'], 'a may-share naming a third row excuses this pair');
  const found = clashes(fs.readFileSync(TABLE_FILE, 'utf8'));
  assert.deepEqual(found, [], `these rows of ${path.relative(root, TABLE_FILE)} take the same port, range or address; give one another value, or, when they are never in use at the same time, say "may share with NAME" in one's comment: ${found.join('; ')}`);
});
