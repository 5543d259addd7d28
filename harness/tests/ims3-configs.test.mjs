// Unit test (no lab needed): Kamailio takes every configuration the 3GPP core's start-cscf.sh can write, checked
// with `kamailio -c` (IMS3_CHECK_ONLY=1: written and checked, nothing started). The integration passes start the
// core in one shape each; a shape no pass starts (`./lab up --ims 3gpp` without --bind: the eP-CSCF with ws and no
// wss) once failed only on a user's machine, with "parse error ... bad command" from an empty `else { }`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LAB } from '../kit/addresses.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.join(root, 'ims-sim/3gpp/start-cscf.sh');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ims3-configs-'));
const key = path.join(dir, 'wic.key');
fs.writeFileSync(key, Buffer.alloc(32, 7), { mode: 0o600 });
// any PEM pair: `kamailio -c` reads the tls module's file names, not a handshake
const cert = path.join(dir, 'c.pem');
const pkey = path.join(dir, 'k.pem');
const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', pkey,
  '-out', cert, '-days', '1', '-subj', '/CN=ims3-configs'], { encoding: 'utf8' });

// start-cscf.sh (`scriptPath`) in check-only mode in a run directory of its own, in the environment without the
// caller's IMS3_* (env.sh's defaults apply) plus `env`
let runs = 0;
const checkWith = (scriptPath, role, env = {}) => {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IMS3_')));
  const r = spawnSync('bash', [scriptPath, role, path.join(dir, `run-${++runs}-${role}`)], { encoding: 'utf8', env: { ...base, IMS3_CHECK_ONLY: '1', ...env } });
  return { ok: r.status === 0, stderr: r.stderr, why: `start-cscf.sh ${role} exit ${r.status}: ${(r.stderr || r.stdout || '').trim().slice(0, 600)}` };
};
const check = (role, env) => checkWith(script, role, env);
const wic = { IMS3_WIC_KEY_FILE: key, IMS3_WS_PORT: LAB.LAB_PCSCF_WS_PORT, IMS3_WSS_PORT: LAB.LAB_PCSCF_WSS_PORT, IMS3_RTPENGINE_NG: LAB.LAB_RTPENGINE_NG };

test('Kamailio takes the 3GPP core\'s I-CSCF, S-CSCF and plain P-CSCF configurations', () => {
  for (const role of ['icscf', 'scscf', 'pcscf']) {
    const r = check(role);
    assert.ok(r.ok, r.why);
  }
});

test('Kamailio takes the P-CSCF as eP-CSCF for WICs: ws only (./lab up --ims 3gpp on loopback), and ws + wss with two rtpengine interfaces (--bind, the test topology)', () => {
  assert.equal(gen.status, 0, `openssl could not make the test certificate: ${gen.stderr}`);
  const wsOnly = check('pcscf', wic);
  assert.ok(wsOnly.ok, `ws only: ${wsOnly.why}`);
  const withWss = check('pcscf', { ...wic, IMS3_WSS_ADDR: LAB.LAB_LOOPBACK, IMS3_TLS_CERT: cert, IMS3_TLS_KEY: pkey, IMS3_RTPENGINE_IFACES: 'pub ims' });
  assert.ok(withWss.ok, `ws + wss: ${withWss.why}`);
});

test('the check fails on a configuration Kamailio refuses, with its reason: the eP-CSCF\'s empty else of a ws-only core', () => {
  // a copy of the core's scripts whose pcscf-wic.cfg has the wss branch as it was (an else that is empty without wss)
  const copy = path.join(dir, 'tree/ims-sim/3gpp');   // env.sh reads ../../harness/addresses.env
  fs.mkdirSync(copy, { recursive: true });
  fs.mkdirSync(path.join(dir, 'tree/harness'));
  fs.copyFileSync(path.join(root, 'harness/addresses.env'), path.join(dir, 'tree/harness/addresses.env'));
  for (const f of ['start-cscf.sh', 'env.sh']) fs.copyFileSync(path.join(root, 'ims-sim/3gpp', f), path.join(copy, f));
  fs.cpSync(path.join(root, 'ims-sim/3gpp/kamailio'), path.join(copy, 'kamailio'), { recursive: true });
  const cfg = path.join(copy, 'kamailio/pcscf-wic.cfg');
  const text = fs.readFileSync(cfg, 'utf8');
  const broken = text.replace(/\t\t}\n#!ifdef WITH_WSS\n\t\telse {\n(\t\t\t\$fs = "tls:[^\n]*\n)\t\t}\n#!endif\n/, '\t\t} else {\n#!ifdef WITH_WSS\n$1#!endif\n\t\t}\n');
  assert.notEqual(broken, text, 'pcscf-wic.cfg no longer has the wss branch this test breaks on purpose');
  fs.writeFileSync(cfg, broken);
  const r = checkWith(path.join(copy, 'start-cscf.sh'), 'pcscf', wic);
  assert.equal(r.ok, false, 'Kamailio took an empty else block');
  assert.match(r.stderr, /configuration check failed[\s\S]*parse error/, `no reason given: ${r.stderr}`);
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
