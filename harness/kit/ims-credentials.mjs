// The gateway's IMS credentials file (--lab.ims.credentials; the grammar of the gateway's
// sip/aka/ImsCredentials.java, docs/ims-sim.md "External IMS"), read by `./lab up|compliance --ims external`
// before anything starts, so that a bad line is a clear error, not a gateway that does not come up:
//   LOGIN  WEB-PASSWORD  digest  [IMPI  IMPU[,IMPU...]  SIP-PASSWORD]
//   LOGIN  WEB-PASSWORD  aka  IMPI  IMPU[,IMPU...]  K  OPc  AMF  [SQN]
// IMPU[,IMPU...]: the first (sip:/sips:) is registered, the others (sip:, sips:, tel:) are further identities.
// CLI: node ims-credentials.mjs check FILE   exit 0 and "N users (logins)" or exit 2 and one line per problem
//      node ims-credentials.mjs first FILE   prints the first user's "LOGIN WEB-PASSWORD IMPU"
//      node ims-credentials.mjs peer FILE    prints "LOGIN IMPU-USER-PART KIND" of the second user when a SIPp UE can play
//                                            it (peerUser), else the reason on stderr and exit 1
//      node ims-credentials.mjs digest FILE  prints the LOGIN of the first digest user with IMPI, IMPU and SIP password
//                                            (digestUser), else the reason on stderr and exit 1
import fs from 'node:fs';

const hex = (s, bytes) => new RegExp(`^[0-9a-fA-F]{${2 * bytes}}$`).test(s);
const IMPI = /^[^@\s]+@[^@\s]+$/;
const IMPU = /^sips?:[^@\s,]+@[^@\s,]+$/;
const TEL = /^tel:\+?[0-9A-Fa-f*#.()-]+(;[^\s,]*)?$/;

// IMPU[,IMPU...] → [impus] or a problem (the gateway's ImsCredentials.impus)
function impus(field) {
  const [first, ...rest] = field.split(',');
  if (!IMPU.test(first)) return `IMPU must be a sip: URI, not '${first}'`;
  const out = [first];
  for (const p of rest) {
    if (!IMPU.test(p) && !TEL.test(p)) return `a further IMPU must be a sip: or tel: URI, not '${p}'`;
    if (out.includes(p)) return `IMPU ${p} is listed twice`;
    out.push(p);
  }
  return out;
}

// {users: [{login, password, kind, impi, impu, impus}], problems: ["FILE:LINE: what"]} (impu: the first of impus)
export function parseCredentials(text, name = 'credentials') {
  const users = [];
  const problems = [];
  const seen = new Set();
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const where = `${name}:${i + 1}: `;
    const f = line.split(/\s+/);
    const bad = (m) => problems.push(where + m);
    if (f.length < 3) return bad('expected LOGIN WEB-PASSWORD digest|aka ...');
    if (!/^[A-Za-z0-9._+-]{1,64}$/.test(f[0])) return bad(`bad login '${f[0]}'`);
    if (seen.has(f[0])) return bad(`user ${f[0]} is listed twice`);
    const user = { login: f[0], password: f[1], kind: f[2], impi: null, impu: null, impus: [] };
    if (f[2] === 'digest') {
      if (f.length !== 3 && f.length !== 6) return bad('a digest user has LOGIN WEB-PASSWORD digest [IMPI IMPU SIP-PASSWORD]');
      if (f.length === 6) {
        if (!IMPI.test(f[3])) return bad(`IMPI must be user@realm, not '${f[3]}'`);
        const list = impus(f[4]);
        if (typeof list === 'string') return bad(list);
        Object.assign(user, { impi: f[3], impu: list[0], impus: list });
      }
    } else if (f[2] === 'aka') {
      if (f.length !== 8 && f.length !== 9) return bad('an aka user has LOGIN WEB-PASSWORD aka IMPI IMPU K OPc AMF [SQN]');
      if (!IMPI.test(f[3])) return bad(`IMPI must be user@realm, not '${f[3]}'`);
      const list = impus(f[4]);
      if (typeof list === 'string') return bad(list);
      for (const [v, bytes, what] of [[f[5], 16, 'K'], [f[6], 16, 'OPc'], [f[7], 2, 'AMF'], ...(f[8] ? [[f[8], 6, 'SQN']] : [])]) {
        if (!hex(v, bytes)) return bad(`${what} must be ${2 * bytes} hex digits, not '${v}'`);
      }
      Object.assign(user, { impi: f[3], impu: list[0], impus: list });
    } else {
      return bad(`the third field is digest or aka, not '${f[2]}'`);
    }
    seen.add(f[0]);
    users.push(user);
  });
  if (!users.length && !problems.length) problems.push(`${name}: no users`);
  return { users, problems };
}

// The second user of the file, whom the lab's SIPp UEs play toward an outside IMS (the far end of the compliance
// run's calls: sipp-scenarios/run-ue.sh UE_CREDENTIALS/UE_LOGIN): {user, userPart} or {reason} when there is none.
export function peerUser(users) {
  const u = users[1];
  if (!u) return { reason: 'the credentials file has one user: a second one (aka, or digest with IMPI, IMPU and SIP password) is the far-end UE the lab runs' };
  if (!u.impi || !/^sips?:/.test(u.impu ?? '')) return { reason: `the second user ${u.login} has no IMPI and sip: IMPU (digest with the web password is the light core's): a SIPp UE cannot register it` };
  return { user: u, userPart: u.impu.replace(/^sips?:/, '').replace(/@.*/, '') };
}

// The first user who registers by SIP digest with its own IMPI, IMPU and SIP password (the digest registration check
// toward an outside IMS): {user} or {reason}.
export function digestUser(users) {
  const u = users.find((x) => x.kind === 'digest' && x.impi);
  return u ? { user: u } : { reason: 'the credentials file has no digest user (LOGIN WEB-PASSWORD digest IMPI IMPU SIP-PASSWORD): the core\'s SIP digest registration is not checked' };
}

export function readCredentials(file) {
  return parseCredentials(fs.readFileSync(file, 'utf8'), file);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [cmd, file] = process.argv.slice(2);
  let parsed;
  try {
    parsed = readCredentials(file);
  } catch (e) {
    console.error(`cannot read the credentials file ${file}: ${e.message}`);
    process.exit(2);
  }
  if (parsed.problems.length) {
    for (const p of parsed.problems) console.error(p);
    process.exit(2);
  }
  if (cmd === 'check') {
    console.log(`${parsed.users.length} users (${parsed.users.map((u) => `${u.login}: ${u.kind}`).join(', ')})`);
  } else if (cmd === 'first') {
    const u = parsed.users[0];
    console.log(`${u.login} ${u.password} ${u.impu ?? ''}`);
  } else if (cmd === 'peer') {
    const p = peerUser(parsed.users);
    if (!p.user) {
      console.error(p.reason);
      process.exit(1);
    }
    console.log(`${p.user.login} ${p.userPart} ${p.user.kind}`);
  } else if (cmd === 'digest') {
    const d = digestUser(parsed.users);
    if (!d.user) {
      console.error(d.reason);
      process.exit(1);
    }
    console.log(d.user.login);
  } else {
    console.error('usage: node ims-credentials.mjs check|first|peer|digest FILE');
    process.exit(2);
  }
}
