// Integration (3GPP core, `./lab test --ims 3gpp` and the full run's 3GPP pass): the core's edge
// (docs/ims-sim.md "Hardening, GRUU and PUBLISH in 3GPP mode"): no software version in Server, a presence
// PUBLISH refused 489 at the S-CSCF, and the P-CSCF's failed-authentication ban per IMPI and per source.
// UEs: aka-ue.py (ims-sim/3gpp/sipp/), IMS-AKA over UDP from 127.0.0.1 ports 5093-5096; henry is a subscriber
// no other test registers (his ban lasts IMS3_AUTHBAN_SECONDS after this file).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { labRoot } from '../kit/env.mjs';
import { sipSocket } from '../kit/sip.mjs';

const run = promisify(execFile);
const PORTS = { // from the lab's address table (harness/addresses.env)
  pcscf: Number(LAB.LAB_PCSCF.split(':')[1]), icscf: Number(LAB.LAB_IMS3_ICSCF_PORT), scscf: Number(LAB.LAB_IMS3_SCSCF_PORT),
};
// ims-sim/3gpp/env.sh's default IMS3_AUTHBAN_FAILS (./lab passes none); the ban lasts IMS3_AUTHBAN_SECONDS (60).
const BAN_FAILS = 10;

const keysOf = (impi) => fs.readFileSync(path.join(labRoot(), 'ims-sim/3gpp/sipp/ue-keys.txt'), 'utf8').split('\n')
  .map((l) => l.trim().split(/\s+/)).find((f) => f[0] === impi);

// aka-ue.py MODE for user@ims.lab from 127.0.0.1:port: {code (exit), out (its SIP ladder)}.
async function aka(user, mode, port) {
  const keys = keysOf(`${user}@ims.lab`);
  assert.ok(keys, `${user}@ims.lab in ue-keys.txt`);
  return run('python3', [path.join(labRoot(), 'ims-sim/3gpp/sipp/aka-ue.py'), '--impi', `${user}@ims.lab`, '--user', user,
    '--k', keys[1], '--op', keys[2], '--addr', '127.0.0.1', '--port', String(port), '--pcscf', `127.0.0.1:${PORTS.pcscf}`, mode], { timeout: 20000 })
    .then((r) => ({ code: 0, out: r.stdout }), (e) => ({ code: e.code, out: `${e.stdout}${e.stderr}` }));
}

test('no software name or version in the Server header of the P-, I- and S-CSCF', { timeout: 15000 }, async () => {
  for (const [role, port] of Object.entries(PORTS)) {
    const s = await sipSocket('127.0.0.1', { target: `127.0.0.1:${port}` });
    try {
      const sent = s.send('OPTIONS sip:127.0.0.1:${PORTNR} SIP/2.0\nVia: SIP/2.0/UDP 127.0.0.1:${PORT};branch=${BRANCH};rport\nMax-Forwards: 70\n'
        + 'From: <sip:probe@ims.lab>;tag=${FROMTAG}\nTo: <sip:127.0.0.1:${PORTNR}>\nCall-ID: ${CALLID}\nCSeq: 1 OPTIONS\nContent-Length: 0\n\n', { PORTNR: port });
      const res = await s.waitFor(/^SIP\/2\.0 /, sent.BRANCH);
      assert.ok(res, `the ${role} did not answer OPTIONS`);
      const servers = res.split('\r\n').filter((l) => /^server:/i.test(l));
      assert.equal(servers.length, 1, `${role}: ${res}`);
      assert.doesNotMatch(servers[0], /kamailio|\d+\.\d+/i, `${role}: ${servers[0]}`);
    } finally {
      s.close();
    }
  }
});

test(`digest guessing at the P-CSCF: ${BAN_FAILS} wrong AKA responses ban the IMPI (even the right one) and the source; another user registers and its PUBLISH gets 489`, { timeout: 120000 }, async () => {
  for (let i = 1; i <= BAN_FAILS; i++) {
    const r = await aka('henry', 'wrong-res', Number(LAB.LAB_AKA_TEST_GUESS_PORT));
    assert.equal(r.code, 0, `wrong RES ${i} for henry: ${r.out}`);
  }
  const right = await aka('henry', 'ok', Number(LAB.LAB_AKA_TEST_OTHER_PORT)); // the right key, from another source
  assert.notEqual(right.code, 0, `henry registered during his ban: ${right.out}`);
  assert.match(right.out, /recv SIP\/2\.0 403 Forbidden - too many failed authentications for this user/, right.out);
  const fromBanned = await aka('ue9', 'ok', Number(LAB.LAB_AKA_TEST_GUESS_PORT)); // another IMPI from the guessing source
  assert.notEqual(fromBanned.code, 0, `ue9 registered from the banned source: ${fromBanned.out}`);
  assert.match(fromBanned.out, /recv SIP\/2\.0 403 Forbidden - too many failed authentications from this address/, fromBanned.out);
  // another IMPI from another source: registered; its presence PUBLISH is refused 489, then it de-registers
  const other = await aka('ue9', 'publish', Number(LAB.LAB_AKA_TEST_PUBLISH_PORT));
  assert.equal(other.code, 0, other.out);
  assert.match(other.out, /recv SIP\/2\.0 489 Bad Event - no presence server/, other.out);
});
