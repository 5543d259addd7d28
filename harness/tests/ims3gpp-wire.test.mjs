// Integration (./lab compliance --ims 3gpp, ./lab test --ims 3gpp): the 3GPP core's procedures as seen
// on the wire. One capture (tcpdump on the core's namespace: SIP on the P-CSCF 5060, I-CSCF 4060,
// S-CSCF 6060, the gateway 5070; Diameter Cx on the HSS's 3868) covers dave's IMS-AKA registration,
// an MO call dave -> ue1, an MT call ue2 -> dave, calls to a subscriber that is not registered (ue9)
// and to no subscriber at all, and dave's logout; each test asserts one procedure on that capture,
// decoded by tshark (SIP from the raw UDP payloads, Diameter by tshark's Cx dictionary). The AKA
// values are recomputed here from dave's K/OPc (ims-sim/3gpp/gateway-credentials.txt) with Milenage
// (TS 35.206) on node:crypto, independent of the gateway's and the HSS's code.
// Needs LAB_IMS=3gpp; docs/compliance.md "3GPP core checks".
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { before, test } from 'node:test';
import { LAB, asPattern } from '../kit/addresses.mjs';
import { startCapture } from '../kit/capture.mjs';
import { labRoot, logDir } from '../kit/env.mjs';
import { endedCleanly, moCall, mtCall } from '../runner/scenario.mjs';
import * as gw from '../runner/gateway.mjs';
import { hopsOf, loggedInPage, messageSeenByUe } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const run = promisify(execFile);
const USER = 'dave';
const IMPI = 'dave@ims.lab';
// SARs of dave's de-registration (USER_DEREGISTRATION, 5, or ..._STORE_SERVER_NAME, 6) the HSS logged so far
const deregistrationsAtHss = () => {
  const log = path.join(logDir(), 'ims3gpp', 'hss.log');
  return fs.existsSync(log) ? (fs.readFileSync(log, 'utf8').match(/^.*SAR dave@ims\.lab .*type=[56]\b.*$/gm) ?? []).length : 0;
};
const PORTS = { // from the lab's address table (harness/addresses.env)
  pcscf: Number(LAB.LAB_PCSCF.split(':')[1]), icscf: Number(LAB.LAB_IMS3_ICSCF_PORT), scscf: Number(LAB.LAB_IMS3_SCSCF_PORT),
  gw: Number(LAB.LAB_GW_SIP_PORT), hss: Number(LAB.LAB_IMS3_HSS_DIAMETER_PORT),
};
const SIP_PORTS = [PORTS.pcscf, PORTS.icscf, PORTS.scscf, PORTS.gw];
const CORE = LAB.LAB_LOOPBACK; // the core's and the gateway's SIP address

let sip = [];      // every SIP message of the capture: {frame, src, dst, text, first, headers(name) -> [values]}
let cx = [];       // every Diameter message: {code, request, result, user, impu, sat, server, sipAuthenticate}
let mo; let mt; let unregistered; let unknown;
let contact;      // dave's registered Contact user part (random per registration, docs/security.md "SIP sources")
let identities;   // dave's registered set (P-Associated-URI) while logged in: the tests run after his logout

// --- Milenage (TS 35.206 §4.1), to recompute what dave's USIM computes ---
function aes(k, block) {
  const c = crypto.createCipheriv('aes-128-ecb', k, null);
  c.setAutoPadding(false);
  return Buffer.concat([c.update(block), c.final()]);
}
const xor = (a, b) => Buffer.from(a.map((x, i) => x ^ b[i]));
function rot(b, bytes) { return Buffer.concat([b.subarray(bytes), b.subarray(0, bytes)]); }
function milenage(k, opc, rand, sqn, amf) {
  const temp = aes(k, xor(rand, opc));
  const c = (n) => { const b = Buffer.alloc(16); b[15] = n; return b; };
  const in1 = Buffer.concat([sqn, amf, sqn, amf]);
  const out1 = xor(aes(k, xor(temp, rot(xor(in1, opc), 8))), opc);
  const out2 = xor(aes(k, xor(rot(xor(temp, opc), 0), c(1))), opc);
  return { macA: out1.subarray(0, 8), res: out2.subarray(8, 16), ak: out2.subarray(0, 6) };
}
function usimOf(login) {
  const line = fs.readFileSync(path.join(labRoot(), 'ims-sim/3gpp/gateway-credentials.txt'), 'utf8')
    .split('\n').map((l) => l.replace(/#.*/, '').trim().split(/\s+/)).find((f) => f[0] === login && f[2] === 'aka');
  assert.ok(line, `${login} has no aka line in gateway-credentials.txt`);
  return { k: Buffer.from(line[5], 'hex'), opc: Buffer.from(line[6], 'hex'), amf: Buffer.from(line[7], 'hex') };
}

// --- the capture, decoded ---
function parseSip(frame, src, dst, hex) {
  const text = Buffer.from(hex.replace(/:/g, ''), 'hex').toString('latin1');
  const head = text.split('\r\n\r\n')[0];
  const lines = head.split('\r\n');
  const headers = (name) => lines.slice(1).filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    .map((l) => l.slice(l.indexOf(':') + 1).trim());
  return { frame, src, dst, text, head, first: lines[0], headers };
}
async function decode(file) {
  const decodeAs = SIP_PORTS.flatMap((p) => ['-d', `udp.port==${p},sip`]);
  const { stdout: u } = await run('tshark', ['-r', file, '-n', ...decodeAs, '-Y', 'sip && udp', '-T', 'fields', '-E', 'separator=;',
    '-e', 'frame.number', '-e', 'udp.srcport', '-e', 'udp.dstport', '-e', 'udp.payload'], { maxBuffer: 256 * 1024 * 1024 });
  sip = u.trim().split('\n').filter(Boolean).map((l) => l.split(';')).map(([f, s, d, p]) => parseSip(Number(f), Number(s), Number(d), p));
  const names = ['diameter.cmd.code', 'diameter.flags.request', 'diameter.Result-Code', 'diameter.Experimental-Result-Code',
    'diameter.User-Name', 'diameter.Public-Identity', 'diameter.Server-Assignment-Type', 'diameter.Server-Name', 'diameter.3GPP-SIP-Authenticate',
    'diameter.Confidentiality-Key', 'diameter.Integrity-Key'];
  const { stdout: d } = await run('tshark', ['-r', file, '-n', '-d', `tcp.port==${PORTS.hss},diameter`, '-Y', 'diameter', '-T', 'fields',
    '-E', 'separator=;', '-E', 'aggregator=,', ...names.flatMap((n) => ['-e', n])], { maxBuffer: 64 * 1024 * 1024 });
  cx = d.trim().split('\n').filter(Boolean).map((l) => l.split(';')).flatMap((f) => {
    // several Diameter messages in one TCP segment: tshark aggregates their fields with ','
    const codes = f[0].split(',');
    return codes.map((code, i) => ({
      code: Number(code), request: ['1', 'True', 'Set'].includes(f[1].split(',')[i]),
      result: f[2].split(',')[i] || f[3].split(',')[i] || '', user: f[4], impu: f[5], sat: f[6], server: f[7],
      sipAuthenticate: f[8], ck: f[9], ik: f[10],
    }));
  });
}
const isReq = (m, method) => m.first.startsWith(`${method} `);
const isResp = (m, code, method) => m.first.startsWith(`SIP/2.0 ${code} `) && (m.headers('CSeq')[0] ?? '').endsWith(` ${method}`);
const callIdOf = (m) => m.headers('Call-ID')[0] ?? m.headers('i')[0];
function params(header) {
  const p = {};
  for (const m of header.matchAll(/([a-zA-Z-]+)=("([^"]*)"|[^,\s]+)/g)) p[m[1].toLowerCase()] = m[3] ?? m[2];
  return p;
}
const md5 = (x) => crypto.createHash('md5').update(x).digest('hex');
// dave's REGISTERs from the gateway to the P-CSCF, in order, with what came back
const gwRegisters = () => sip.filter((m) => m.src === PORTS.gw && m.dst === PORTS.pcscf && isReq(m, 'REGISTER') && m.head.includes(`sip:${USER}@`));
const answerTo = (req, code) => sip.find((m) => m.frame > req.frame && callIdOf(m) === callIdOf(req) &&
  (m.headers('CSeq')[0] ?? '') === req.headers('CSeq')[0] && m.first.startsWith(`SIP/2.0 ${code}`) && m.dst === PORTS.gw);

before(async () => {
  assert.equal(process.env.LAB_IMS, '3gpp', 'run with ./lab compliance --ims 3gpp or ./lab test --ims 3gpp');
  const filter = [...SIP_PORTS.map((p) => `udp port ${p}`), `tcp port ${PORTS.hss}`].join(' or ');
  // a big buffer: a busy host must not make tcpdump drop a message the tests look for
  const cap = await startCapture(0, 'ims3gpp-wire', { filter, bufferKiB: 65536 });
  let page;
  try {
    page = await loggedInPage(USER, 'test-ims3gpp-wire-dave');
    contact = await gw.contactUser(page.token); // dave's registered Contact user part (random per registration)
    identities = (await gw.currentSession(page.token)).registration?.identities;
    mo = await moCall(page.client, { token: page.token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 1500 });
    mt = await mtCall(page.client, { token: page.token, user: USER, ue: { mode: 'uac', arg: 1500 }, hangup: 'ue', maxMs: 15000 });
    for (const [to, set] of [['ue9', (r) => { unregistered = r; }], ['nobody', (r) => { unknown = r; }]]) {
      const callId = await page.client.call(to);
      set({ callId, ended: await page.client.waitFor('ended', callId, 15000) });
    }
  } finally {
    const deregs = deregistrationsAtHss();
    await page?.close(); // logout: de-REGISTER (after the logout's answer: it may be challenged, then SAR, then 200)
    if (page) {
      for (const end = Date.now() + 10000; deregistrationsAtHss() === deregs && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500)); // the SAA and the REGISTER's 200 after the HSS logged the SAR
    }
    await cap.stop();
  }
  await decode(cap.file);
  const dropped = Number(/(\d+) packets dropped by kernel/.exec(fs.readFileSync(`${cap.file}.log`, 'utf8'))?.[1] ?? 0);
  assert.equal(dropped, 0, `tcpdump dropped ${dropped} packets (busy host?): the wire evidence is incomplete`);
  fs.writeFileSync(path.join(logDir(), 'ims3gpp-wire-ladder.txt'),
    `${sip.map((m) => `${m.frame} ${m.src} -> ${m.dst} ${m.first}`).join('\n')}\n${cx.map((c) => `Cx ${c.code}${c.request ? ' request' : ` answer ${c.result}`} ${c.user} ${c.impu} ${c.sat}`).join('\n')}\n`);
});

test('IMS-AKA challenge on the wire: the 401 to the REGISTER carries AKAv1-MD5 with nonce = RAND || AUTN, and AUTN verifies with the USIM key (MAC-A, SQN > 0)', () => {
  const [first] = gwRegisters();
  assert.ok(first, 'no REGISTER from the gateway for dave on the wire');
  assert.equal(first.headers('Authorization').length === 0 || /response=""/.test(first.headers('Authorization')[0]), true, 'the first REGISTER answers no challenge');
  const r401 = answerTo(first, 401);
  assert.ok(r401, 'no 401 to the first REGISTER');
  const www = r401.headers('WWW-Authenticate')[0] ?? '';
  const p = params(www);
  assert.equal(p.algorithm, 'AKAv1-MD5', www);
  const nonce = Buffer.from(p.nonce, 'base64');
  assert.equal(nonce.length, 32, `nonce is RAND(16) || AUTN(16): ${nonce.length} bytes`);
  const rand = nonce.subarray(0, 16); const autn = nonce.subarray(16);
  const u = usimOf(USER);
  const { ak } = milenage(u.k, u.opc, rand, Buffer.alloc(6), u.amf);
  const sqn = xor(autn.subarray(0, 6), ak);
  assert.deepEqual(autn.subarray(6, 8), u.amf, 'AMF');
  assert.deepEqual(autn.subarray(8), milenage(u.k, u.opc, rand, sqn, u.amf).macA, 'MAC-A of AUTN does not verify with dave\'s K/OPc');
  assert.ok(sqn.readUIntBE(0, 6) > 0, `SQN ${sqn.toString('hex')}`);
});

test('IMS-AKA response on the wire: the second REGISTER answers with the RFC 3310 digest of RES (Milenage f2) and gets 200', () => {
  const regs = gwRegisters();
  const r401 = answerTo(regs[0], 401);
  const p401 = params(r401.headers('WWW-Authenticate')[0]);
  const second = regs.find((m) => m.frame > r401.frame && (m.headers('Authorization')[0] ?? '').includes(p401.nonce));
  assert.ok(second, 'no REGISTER answering the challenge');
  const a = params(second.headers('Authorization')[0]);
  assert.equal(a.username, IMPI);
  assert.equal(a.algorithm, 'AKAv1-MD5');
  const u = usimOf(USER);
  const { res } = milenage(u.k, u.opc, Buffer.from(p401.nonce, 'base64').subarray(0, 16), Buffer.alloc(6), u.amf);
  const ha1 = md5(Buffer.concat([Buffer.from(`${a.username}:${a.realm}:`), res]));
  const ha2 = md5(`REGISTER:${a.uri}`);
  const expected = a.qop ? md5(`${ha1}:${a.nonce}:${a.nc}:${a.cnonce}:${a.qop}:${ha2}`) : md5(`${ha1}:${a.nonce}:${ha2}`);
  assert.equal(a.response, expected, 'response is not the digest of RES');
  assert.ok(answerTo(second, 200), 'no 200 to the answered REGISTER');
});

test('Path and Service-Route: the P-CSCF adds its Path to the REGISTER toward the I-CSCF and S-CSCF; the 200 returns the Path and the S-CSCF\'s Service-Route', () => {
  const regs = sip.filter((m) => isReq(m, 'REGISTER') && m.head.includes(IMPI) && /response="[0-9a-f]{32}"/.test(m.head));
  const toI = regs.find((m) => m.src === PORTS.pcscf && m.dst === PORTS.icscf);
  const toS = regs.find((m) => m.src === PORTS.icscf && m.dst === PORTS.scscf);
  assert.ok(toI && toS, 'the REGISTER crossed P-CSCF -> I-CSCF -> S-CSCF');
  for (const m of [toI, toS]) assert.match(m.headers('Path').join(','), new RegExp(`<sip:term@pcscf\\.ims\\.lab:${PORTS.pcscf};lr>`), m.head);
  const ok = sip.find((m) => m.src === PORTS.pcscf && m.dst === PORTS.gw && isResp(m, 200, 'REGISTER') && m.head.includes(`sip:${USER}@`));
  assert.ok(ok, 'no 200 to dave\'s REGISTER');
  assert.match(ok.headers('Service-Route').join(','), new RegExp(`<sip:orig@scscf\\.ims\\.lab:${PORTS.scscf};lr>`), ok.head);
  assert.match(ok.headers('Path').join(','), new RegExp(`<sip:term@pcscf\\.ims\\.lab:${PORTS.pcscf};lr>`), ok.head);
  assert.match(ok.headers('P-Associated-URI').join(','), /sip:dave@ims\.lab/, ok.head);
});

test('Cx UAR/UAA: the I-CSCF asks the HSS for the REGISTER\'s S-CSCF (User-Name, Public-Identity) and gets success', () => {
  const uar = cx.find((c) => c.code === 300 && c.request && c.user === IMPI);
  assert.ok(uar, `no UAR for ${IMPI}: ${JSON.stringify(cx.filter((c) => c.code === 300))}`);
  assert.match(uar.impu, /sip:dave@ims\.lab/);
  const uaa = cx.filter((c) => c.code === 300 && !c.request);
  assert.ok(uaa.some((c) => /^200[12]/.test(c.result)), `UAA results ${uaa.map((c) => c.result)}`);
});

test('Cx MAR/MAA: the S-CSCF gets an AKA vector from the HSS (SIP-Authenticate = the 401\'s RAND || AUTN, CK, IK)', () => {
  const mar = cx.find((c) => c.code === 303 && c.request && c.user === IMPI);
  assert.ok(mar, 'no MAR for dave');
  const nonce = params(answerTo(gwRegisters()[0], 401).headers('WWW-Authenticate')[0]).nonce;
  const hex = Buffer.from(nonce, 'base64').toString('hex');
  const maa = cx.find((c) => c.code === 303 && !c.request && c.sipAuthenticate.replace(/:/g, '').includes(hex));
  assert.ok(maa, 'no MAA carries the 401\'s RAND || AUTN');
  assert.ok(maa.ck && maa.ik, 'the MAA has CK and IK');
});

test('Cx SAR/SAA: the S-CSCF assigns itself at registration (REGISTRATION) and releases at logout (USER_DEREGISTRATION)', () => {
  const sars = cx.filter((c) => c.code === 301 && c.request && c.user === IMPI);
  // REGISTRATION (1); RE_REGISTRATION (2) when the S-CSCF still holds the user from an earlier file of the run
  // (TS 29.229 §6.3.15): `./lab compliance --ims 3gpp` runs other files as dave first
  assert.ok(sars.some((c) => c.sat === '1' || c.sat === '2'), `no SAR REGISTRATION or RE_REGISTRATION: types ${sars.map((c) => c.sat)}`);
  // USER_DEREGISTRATION (5) or USER_DEREGISTRATION_STORE_SERVER_NAME (6), TS 29.229 §6.3.15
  assert.ok(sars.some((c) => c.sat === '5' || c.sat === '6'), `no SAR USER_DEREGISTRATION after logout: types ${sars.map((c) => c.sat)}`);
  assert.ok(sars.every((c) => /scscf\.ims\.lab/.test(c.server)), 'Server-Name is the S-CSCF');
  assert.ok(cx.some((c) => c.code === 301 && !c.request && c.result === '2001'), 'an SAA with 2001');
  // the S-CSCF may challenge the de-REGISTER too: the last one is answered
  const dereg = gwRegisters().filter((m) => /^(Expires: 0|Contact:.*expires=0)/mi.test(m.head)).at(-1);
  assert.ok(dereg && answerTo(dereg, 200), 'the logout\'s REGISTER with expiry 0 got 200');
});

test('Cx LIR/LIA: the I-CSCF locates the terminating S-CSCF for dave\'s MO call to ue1 and for ue2\'s MT call to dave', () => {
  const lirs = cx.filter((c) => c.code === 302 && c.request);
  assert.ok(lirs.some((c) => /sip:ue1@ims\.lab/.test(c.impu)), `LIR for ue1: ${lirs.map((c) => c.impu)}`);
  assert.ok(lirs.some((c) => /sip:dave@ims\.lab/.test(c.impu)), `LIR for dave: ${lirs.map((c) => c.impu)}`);
  assert.ok(cx.some((c) => c.code === 302 && !c.request && c.result === '2001' && /scscf/.test(c.server)), 'an LIA with the S-CSCF');
});

test('P-Asserted-Identity: the gateway\'s INVITE asserts nothing itself, the P-CSCF adds the registered identity and ue1 receives it', async () => {
  assert.equal(mo.error, null, mo.error);
  const sent = sip.find((m) => m.src === PORTS.gw && isReq(m, 'INVITE') && callIdOf(m) === mo.callId);
  assert.ok(sent, 'the gateway\'s INVITE is on the wire');
  assert.deepEqual(sent.headers('P-Asserted-Identity'), [], 'a UE does not assert its identity');
  const out = sip.find((m) => m.src === PORTS.pcscf && m.dst !== PORTS.gw && isReq(m, 'INVITE') && callIdOf(m) === mo.callId);
  assert.match(out?.headers('P-Asserted-Identity').join(',') ?? '', /<sip:dave@ims\.lab>/, out?.head);
  const atUe = messageSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), mo.callId, /^INVITE /);
  assert.match(atUe ?? '', /^P-Asserted-Identity: <sip:dave@ims\.lab>/m, atUe ?? 'no INVITE at ue1');
  await assertFarUeAssertedIdentity({ identities, callId: mo.callId, ue: 'ue1' });
});

test('Record-Route through the core: ue1\'s INVITE records P-CSCF, S-CSCF, S-CSCF, P-CSCF and the gateway\'s BYE carries that route set', () => {
  assert.ok(endedCleanly(mo.ended), JSON.stringify(mo.ended));
  const atUe = messageSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), mo.callId, /^INVITE /);
  assert.deepEqual(hopsOf(atUe, 'Record-Route'), [PORTS.pcscf, PORTS.scscf, PORTS.scscf, PORTS.pcscf].map((p) => `${CORE}:${p}`), atUe);
  const bye = sip.find((m) => m.src === PORTS.gw && isReq(m, 'BYE') && callIdOf(m) === mo.callId);
  assert.ok(bye, 'the gateway\'s BYE');
  assert.equal(bye.dst, PORTS.pcscf);
  assert.equal(bye.headers('Route').join(',').split(',').length, 4, bye.head);
  const byeAtUe = messageSeenByUe(path.join(logDir(), 'sipp-uas-ue1-messages.log'), mo.callId, /^BYE /);
  assert.ok(byeAtUe, 'the BYE reached ue1 through the route set');
});

test('MT through the core: ue2\'s INVITE to dave goes P-CSCF -> S-CSCF -> I-CSCF -> S-CSCF, then to the gateway\'s contact through the Path P-CSCF', () => {
  assert.equal(mt.error, null, mt.error);
  const inv = sip.filter((m) => isReq(m, 'INVITE') && callIdOf(m) === mt.callId);
  const hops = inv.map((m) => `${m.src}->${m.dst}`);
  for (const hop of [`${PORTS.pcscf}->${PORTS.scscf}`, `${PORTS.scscf}->${PORTS.icscf}`, `${PORTS.icscf}->${PORTS.scscf}`, `${PORTS.scscf}->${PORTS.pcscf}`, `${PORTS.pcscf}->${PORTS.gw}`]) {
    assert.ok(hops.includes(hop), `hop ${hop} missing: ${hops.join(', ')}`);
  }
  const last = inv.find((m) => m.dst === PORTS.gw);
  // to dave's registered Contact: its user part random per registration, repeated as rinstance (the P-CSCF tells
  // the gateway's registrations apart by it), never the login name
  assert.match(last.first, new RegExp(`^INVITE sip:${contact}@${asPattern(CORE)}:${PORTS.gw};.*rinstance=${contact}`), last.first);
  const reg = gwRegisters()[0];
  assert.match(reg.headers('Contact').join(',') || reg.headers('m').join(','), new RegExp(`<sip:${contact}@${asPattern(CORE)}:${PORTS.gw};`),
    `dave's REGISTER registered the same contact: ${reg.head}`);
  const fromS = inv.find((m) => m.src === PORTS.scscf && m.dst === PORTS.pcscf);
  assert.match(fromS.headers('Route').join(','), new RegExp(`sip:term@pcscf\\.ims\\.lab:${PORTS.pcscf};lr`), `the S-CSCF routes through the Path: ${fromS.head}`);
});

test('terminating user not registered (ue9) -> 480; no such subscriber -> 604 after the HSS answers LIR with user unknown', () => {
  assert.equal(unregistered.ended.sipCode, 480, JSON.stringify(unregistered.ended));
  assert.equal(unknown.ended.sipCode, 604, JSON.stringify(unknown.ended));
  const lias = cx.filter((c) => c.code === 302 && !c.request).map((c) => c.result);
  assert.ok(lias.includes('5003') && lias.includes('5001'), `LIA results ${lias}: want 5003 (not registered) and 5001 (user unknown)`);
  for (const [r, code] of [[unregistered, 480], [unknown, 604]]) {
    assert.ok(sip.some((m) => m.dst === PORTS.gw && callIdOf(m) === r.callId && m.first.startsWith(`SIP/2.0 ${code}`)), `${code} on the wire to the gateway`);
  }
});

test('a REGISTER with a wrong RES is refused with 403, and an AUTS with a wrong MAC-S gets no new challenge (aka-ue.py against the P-CSCF)', { timeout: 30000 }, async () => {
  const keys = fs.readFileSync(path.join(labRoot(), 'ims-sim/3gpp/sipp/ue-keys.txt'), 'utf8').split('\n').map((l) => l.trim().split(/\s+/))
    .find((f) => f[0] === 'ue9@ims.lab');
  assert.ok(keys, 'ue9 in ue-keys.txt');
  const aka = (mode, port) => run('python3', [path.join(labRoot(), 'ims-sim/3gpp/sipp/aka-ue.py'), '--impi', 'ue9@ims.lab', '--user', 'ue9',
    '--k', keys[1], '--op', keys[2], '--addr', '127.0.0.1', '--port', String(port), '--pcscf', LAB.LAB_PCSCF, mode], { timeout: 20000 })
    .then((r) => ({ code: 0, out: r.stdout }), (e) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }));
  const wrong = await aka('wrong-res', Number(LAB.LAB_AKA_TEST_PORT));
  assert.equal(wrong.code, 0, wrong.out);
  assert.match(wrong.out, /403/, wrong.out);
  const bad = await aka('bad-auts', Number(LAB.LAB_AKA_TEST_PORT));
  assert.equal(bad.code, 0, bad.out);
  assert.match(fs.readFileSync(path.join(logDir(), 'ims3gpp', 'hss.log'), 'utf8'), /MAR ue9@ims\.lab: AUTS does not verify \(MAC-S\)/);
});
