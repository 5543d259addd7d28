// rtpengine's ng protocol from the harness (bencode over UDP): to ask a relay itself (list, statistics, ping)
// in the scale-out test and bench, independent of the gateway's view.
import dgram from 'node:dgram';

export function bencode(v) {
  if (typeof v === 'number') return Buffer.from(`i${v}e`);
  if (typeof v === 'string' || Buffer.isBuffer(v)) { const b = Buffer.from(v); return Buffer.concat([Buffer.from(`${b.length}:`), b]); }
  if (Array.isArray(v)) return Buffer.concat([Buffer.from('l'), ...v.map(bencode), Buffer.from('e')]);
  const keys = Object.keys(v).sort();
  return Buffer.concat([Buffer.from('d'), ...keys.flatMap((k) => [bencode(k), bencode(v[k])]), Buffer.from('e')]);
}

// bdecode(buf, at) -> [value, next]; strings come back as JS strings.
export function bdecode(b, i = 0) {
  const c = String.fromCharCode(b[i]);
  if (c === 'i') { const e = b.indexOf(0x65, i); return [Number(b.subarray(i + 1, e).toString()), e + 1]; }
  if (c === 'l' || c === 'd') {
    const list = []; i += 1;
    while (b[i] !== 0x65) { const [x, n] = bdecode(b, i); list.push(x); i = n; }
    if (c === 'l') return [list, i + 1];
    const o = {};
    for (let k = 0; k < list.length; k += 2) o[list[k]] = list[k + 1];
    return [o, i + 1];
  }
  const colon = b.indexOf(0x3a, i);
  const len = Number(b.subarray(i, colon).toString());
  return [b.subarray(colon + 1, colon + 1 + len).toString(), colon + 1 + len];
}

// ng('host:port', {command: ...}) -> the reply dictionary; rejects after timeoutMs without one.
export function ng(addr, cmd, timeoutMs = 1000) {
  const host = addr.slice(0, addr.lastIndexOf(':'));
  const port = Number(addr.slice(addr.lastIndexOf(':') + 1));
  const cookie = `h${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const sock = dgram.createSocket('udp4');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { sock.close(); reject(new Error(`no ng reply from ${addr}`)); }, timeoutMs);
    sock.on('error', (e) => { clearTimeout(timer); sock.close(); reject(e); });
    sock.on('message', (msg) => {
      const sp = msg.indexOf(0x20);
      if (msg.subarray(0, sp).toString() !== cookie) return;
      clearTimeout(timer); sock.close();
      resolve(bdecode(msg, sp + 1)[0]);
    });
    sock.send(Buffer.concat([Buffer.from(`${cookie} `), bencode(cmd)]), port, host);
  });
}

// Every call-id the relay holds now (all prefixes).
export async function listCalls(addr) {
  const r = await ng(addr, { command: 'list', limit: 1000 });
  if (r.result !== 'ok') throw new Error(`${addr} list: ${JSON.stringify(r)}`);
  return r.calls ?? [];
}
