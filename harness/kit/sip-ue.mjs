// A raw SIP UE over UDP at the lab's P-CSCF, for the tests of the IMS core itself (ims-hardening.test.mjs,
// gruu.test.mjs): a socket of harness/kit/sip.mjs on another loopback address (127.0.0.2 ... — a UE on
// another host, as far as Kamailio can tell) with request() and a digest REGISTER of a users.txt user; target: the
// P-CSCF's host:port when it is not the lab's loopback one (the hosts layout's, scale-failover.test.mjs).
import { createHash, randomBytes } from 'node:crypto';
import { ADDRESSES } from './addresses.mjs';
import { passwordOf } from './env.mjs';
import { sipSocket } from './sip.mjs';

export const DOMAIN = 'ims.lab';
export const rnd = (n = 6) => randomBytes(n).toString('hex');
const md5 = (s) => createHash('md5').update(s).digest('hex');
export const statusOf = (text) => (text ? Number(text.split(' ')[1]) : null);
export const reasonOf = (text) => (text ? text.split('\r\n')[0].split(' ').slice(2).join(' ') : null);
// every value of header `name` in a message's head (one entry per header line)
export const headers = (text, name) => text.split('\r\n\r\n')[0].split('\r\n')
  .filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`)).map((l) => l.slice(name.length + 1).trim());

// The socket plus request(method, {...}): a request from this socket's address (Content-Length left out with
// contentLength: false, as RFC 3261 allows over UDP); returns {branch, callId}.
export async function rawUe(address, { target = ADDRESSES.pcscf } = {}) {
  const s = await sipSocket(address, { target });
  s.request = (method, { ruri = `sip:${DOMAIN}`, from = 'ue9', to = from, extra = '', body = '', cseq = 1, callId = rnd(8), toPort,
    contact = `<sip:${from}@${address}:${s.port}>`, contentLength = true } = {}) => {
    const branch = `z9hG4bK${rnd()}`;
    s.sendRaw(`${method} ${ruri} SIP/2.0
Via: SIP/2.0/UDP ${address}:${s.port};branch=${branch};rport
Max-Forwards: 70
From: <sip:${from}@${DOMAIN}>;tag=${rnd(4)}
To: <sip:${to}@${DOMAIN}>
Call-ID: ${callId}
CSeq: ${cseq} ${method}
Contact: ${contact}
${extra}${contentLength ? `Content-Length: ${Buffer.byteLength(body, 'latin1')}\n` : ''}
${body}`, toPort);
    return { branch, callId };
  };
  return s;
}

// REGISTER `user` from socket s with digest (realm ims.lab); resolves the final answer's text (null: none in 3 s).
// password: users.txt's unless given; contact / extra: the REGISTER's Contact and further header lines.
export async function register(s, user, { expires = 60, password = null, contact, extra = '' } = {}) {
  const callId = rnd(8);
  const reg = (cseq, auth = '') => s.request('REGISTER', { from: user, callId, cseq, contact, extra: `Expires: ${expires}\n${extra}${auth}` });
  let r = reg(1);
  let res = await s.waitFor(/^SIP\/2\.0 [2-6]/, r.branch);
  if (statusOf(res) !== 401) return res;
  const ch = headers(res, 'WWW-Authenticate')[0];
  const p = (k) => ch.match(new RegExp(`${k}="?([^",]+)"?`))?.[1];
  const uri = `sip:${DOMAIN}`;
  const ha1 = md5(`${user}:${p('realm')}:${password ?? passwordOf(user)}`);
  const ha2 = md5(`REGISTER:${uri}`);
  let auth = `Authorization: Digest username="${user}", realm="${p('realm')}", nonce="${p('nonce')}", uri="${uri}", algorithm=MD5`;
  if (p('qop')) {
    const cnonce = rnd(4);
    auth += `, qop=auth, nc=00000001, cnonce="${cnonce}", response="${md5(`${ha1}:${p('nonce')}:00000001:${cnonce}:auth:${ha2}`)}"`;
  } else {
    auth += `, response="${md5(`${ha1}:${p('nonce')}:${ha2}`)}"`;
  }
  r = reg(2, `${auth}\n`);
  return s.waitFor(/^SIP\/2\.0 [2-6]/, r.branch);
}
