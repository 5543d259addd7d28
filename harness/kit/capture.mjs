// Packets actually seen on a UDP port in the lab's core namespace (every interface: loopback for the
// IMS side, the browser links for the browser side, docs/media.md "Topology"), for tests that assert on the wire:
// tcpdump captures, tshark decodes (RTP headers with raw payloads, so a test decodes RFC 4733 events or
// G.711 itself; STUN message types). Needs CAP_NET_RAW (./lab test runs as root).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { labRoot, logDir } from './env.mjs';
import { start, stop } from './procs.mjs';
import { LAB } from './addresses.mjs';

const run = promisify(execFile);
let seq = 0;

// Starts `tcpdump -i any` on UDP `port` (or on the pcap filter `filter`, e.g. 'udp and host 198.18.1.2');
// resolves once it listens. stop() ends it and returns the file. bufferKiB: tcpdump's -B (a bigger kernel
// buffer, for captures that must not drop a packet while the host is busy); args: more tcpdump options
// (e.g. ['-s', '200'] for a long multi-call capture: headers only).
export async function startCapture(port, name = `udp-${port}`, { filter = null, bufferKiB = null, args = [] } = {}) {
  const file = path.join(logDir(), `${name}-${process.pid}-${++seq}.pcap`);
  // --immediate-mode: without it packets of the last second are lost when tcpdump is stopped quickly
  let listening;
  const ready = new Promise((resolve) => { listening = resolve; });
  const proc = start('tcpdump', 'tcpdump', ['-i', 'any', '--immediate-mode', '-U', '-n', ...(bufferKiB ? ['-B', String(bufferKiB)] : []), ...args, '-w', file, ...(filter ? filter.split(/\s+/) : ['udp', 'port', String(port)])],
    { log: `${file}.log`, onLine: (l) => { if (/listening on/.test(l)) listening(); } });
  let timer;
  const state = await Promise.race([
    ready.then(() => 'listening'),
    proc.done.then(({ code }) => `exited ${code}`),
    new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), 5000); }),
  ]).finally(() => clearTimeout(timer));
  if (state.startsWith('exited')) throw new Error(`tcpdump ${state}: ${proc.tail().trim()}`);
  if (state === 'timeout') {
    await stop(proc, 'SIGTERM', 1000);
    throw new Error(`tcpdump on port ${port} did not start: ${proc.tail().trim()}`);
  }
  return {
    file,
    async stop() {
      await stop(proc, 'SIGINT');
      return file;
    },
  };
}

// tshark's `fields` for each packet of `file` that matches `filter`, as arrays of strings.
async function fields(file, args, names) {
  if (!fs.existsSync(file)) throw new Error(`no capture ${file}`);
  const { stdout } = await run('tshark', ['-r', file, '-n', ...args, '-T', 'fields', '-E', 'separator=;',
    ...names.flatMap((n) => ['-e', n])], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim().split('\n').filter(Boolean).map((line) => line.split(';'));
}

// Every RTP packet of the capture on `port`: {src, dst (UDP ports), pt, ssrc, seq, ts, marker, payload (Buffer)}.
export async function rtpPackets(file, port) {
  const rows = await fields(file, ['-d', `udp.port==${port},rtp`, '--disable-protocol', 'rtpevent', '-Y', 'rtp'],
    ['udp.srcport', 'udp.dstport', 'rtp.p_type', 'rtp.ssrc', 'rtp.seq', 'rtp.timestamp', 'rtp.marker', 'rtp.payload']);
  return rows.map(([src, dst, pt, ssrc, sq, ts, marker, payload]) => ({
    src: Number(src), dst: Number(dst), pt: Number(pt), ssrc, seq: Number(sq), ts: Number(ts),
    marker: marker === '1' || marker === 'True', payload: Buffer.from((payload ?? '').replace(/:/g, ''), 'hex'),
  }));
}

// Every UDP datagram of the capture: {src, dst} as "address:port" strings (IPv4).
export async function udpDatagrams(file) {
  const rows = await fields(file, ['-Y', 'udp && ip'], ['ip.src', 'udp.srcport', 'ip.dst', 'udp.dstport']);
  return rows.map(([sa, sp, da, dp]) => ({ src: `${sa}:${sp}`, dst: `${da}:${dp}` }));
}

// Every STUN message of the capture: {type (e.g. 0x0001 binding request, 0x0101 success), src, dst (UDP ports)}.
// Runs `run` under a tcpdump of `filter` and returns {r: what run returned, datagrams: udpDatagrams of the
// capture}; the capture file is removed (browser-nat.test.mjs, turn.test.mjs).
export async function datagramsDuring(name, filter, run) {
  const cap = await startCapture(0, name, { filter });
  let r;
  try {
    r = await run();
  } finally {
    await cap.stop();
  }
  const datagrams = await udpDatagrams(cap.file);
  fs.rmSync(cap.file, { force: true });
  return { r, datagrams };
}

export async function stunMessages(file) {
  const rows = await fields(file, ['-Y', 'stun'], ['stun.type', 'udp.srcport', 'udp.dstport']);
  return rows.map(([type, src, dst]) => ({ type: Number(type), src: Number(src), dst: Number(dst) }));
}

const KEYS = '0123456789*#ABCD';

// RFC 4733 §2.3 events in packets of payload type `pt`, one entry per event (packets sharing an RTP
// timestamp), in order: {digit, ts, endSeen, duration (final, in timestamp units), packets}.
export function rfc4733Events(packets, pt) {
  const events = [];
  for (const p of packets.filter((x) => x.pt === pt && x.payload.length >= 4)) {
    const event = p.payload[0];
    const end = (p.payload[1] & 0x80) !== 0;
    const duration = p.payload.readUInt16BE(2);
    let e = events.at(-1);
    if (!e || e.ts !== p.ts || e.event !== event) {
      e = { event, digit: KEYS[event] ?? `event${event}`, ts: p.ts, endSeen: false, duration: 0, packets: 0 };
      events.push(e);
    }
    e.packets += 1;
    e.endSeen ||= end;
    e.duration = Math.max(e.duration, duration);
  }
  return events;
}

// ---- per-packet relay delay of the calls in a capture (delaymeter, docs/delaymeter.md) ----

// Offset of the IPv4 header in a frame of pcap link type `linktype`, or -1 (not IPv4 / unknown link).
function ipv4Offset(linktype, frame) {
  switch (linktype) {
    case 276: return frame.length >= 20 && frame.readUInt16BE(0) === 0x0800 ? 20 : -1;   // LINUX_SLL2 (tcpdump -i any)
    case 113: return frame.length >= 16 && frame.readUInt16BE(14) === 0x0800 ? 16 : -1;   // LINUX_SLL
    case 1: return frame.length >= 14 && frame.readUInt16BE(12) === 0x0800 ? 14 : -1;     // EN10MB
    case 101: case 228: return 0;                                                         // RAW, IPV4
    default: return -1;
  }
}

// Offset of the link header's protocol field and of the IP header in a frame of pcap link type `linktype`, or
// null (unknown link): where an IPv6 frame is turned into an IPv4 one.
function linkLayout(linktype) {
  switch (linktype) {
    case 276: return { proto: 0, ip: 20 };   // LINUX_SLL2 (tcpdump -i any)
    case 113: return { proto: 14, ip: 16 };  // LINUX_SLL
    case 1: return { proto: 12, ip: 14 };    // EN10MB
    default: return null;
  }
}

// The frame of an IPv6/UDP packet (no extension header) whose source and destination are both in `v6aliases`,
// rewritten as the same UDP datagram over IPv4 between `to` and `to` (a 20-byte header, hop limit as TTL), or
// null for any other frame.
function ipv6FrameAsIpv4(linktype, frame, v6aliases, to) {
  const l = linkLayout(linktype);
  if (!l || frame.length < l.ip + 48 || frame.readUInt16BE(l.proto) !== 0x86dd || (frame[l.ip] >> 4) !== 6 || frame[l.ip + 6] !== 17) return null;
  const src = frame.subarray(l.ip + 8, l.ip + 24);
  const dst = frame.subarray(l.ip + 24, l.ip + 40);
  if (!v6aliases.some((a) => a.equals(src)) || !v6aliases.some((a) => a.equals(dst))) return null;
  const udp = frame.subarray(l.ip + 40);
  const v4 = Buffer.alloc(20);
  v4[0] = 0x45;
  v4.writeUInt16BE(20 + frame.readUInt16BE(l.ip + 4), 2);
  v4.writeUInt16BE(0x4000, 6);
  v4[8] = frame[l.ip + 7];
  v4[9] = 17;
  to.copy(v4, 12);
  to.copy(v4, 16);
  const link = Buffer.from(frame.subarray(0, l.ip));
  link.writeUInt16BE(0x0800, l.proto);
  return Buffer.concat([link, v4, udp]);
}

// The 16 bytes of an IPv6 address in text form (RFC 4291 §2.2, "::" allowed; no embedded IPv4).
function ipv6Bytes(text) {
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) throw new Error(`not an IPv6 address: ${text}`);
  const b = Buffer.alloc(16);
  groups.forEach((g, i) => b.writeUInt16BE(parseInt(g, 16), 2 * i));
  return b;
}

// Copies the pcap `src` to `dst` with every IPv4 source/destination address in `aliases` replaced by
// `addr`. delaymeter knows one relay address; rtpengine has two (the browser leg on "pub", the IMS leg on
// loopback, docs/media.md "Topology"), and pairs a packet's in and out copy by SSRC + seq, not address.
// `v6aliases`: an IMS leg over IPv6 (./lab demo --ipv6: rtpengine's "ims" interface and the UEs on one IPv6
// address): its UDP packets between those addresses become IPv4 ones between `addr` (delaymeter reads IPv4 only),
// the datagram unchanged. Returns {frames, rewritten}. Only classic pcap (what tcpdump -w writes); checksums are
// left as they were (delaymeter does not read them).
export function aliasRelayAddresses(src, dst, aliases, addr, v6aliases = []) {
  const buf = fs.readFileSync(src);
  const magic = buf.length >= 24 ? buf.readUInt32LE(0) : 0;
  const le = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const be = [0xd4c3b2a1, 0x4d3cb2a1].includes(magic);
  if (!le && !be) throw new Error(`${src}: not a classic pcap file`);
  const u32 = (o) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const w32 = (b, v, o) => (le ? b.writeUInt32LE(v, o) : b.writeUInt32BE(v, o));
  const linktype = u32(20) & 0x0fffffff;
  const ip = (s) => Buffer.from(s.split('.').map(Number));
  const to = ip(addr);
  const from = aliases.map(ip);
  const from6 = v6aliases.map(ipv6Bytes);
  const out = [buf.subarray(0, 24)];
  let frames = 0;
  let rewritten = 0;
  for (let o = 24; o + 16 <= buf.length;) {
    const incl = u32(o + 8);
    const record = buf.subarray(o, o + 16);
    const frame = buf.subarray(o + 16, o + 16 + incl);
    o += 16 + incl;
    frames += 1;
    const as4 = from6.length ? ipv6FrameAsIpv4(linktype, frame, from6, to) : null;
    if (as4) {
      const header = Buffer.from(record);
      w32(header, as4.length, 8);
      w32(header, u32(o - 16 - incl + 12) - (frame.length - as4.length), 12);
      out.push(header, as4);
      rewritten += 1;
      continue;
    }
    out.push(record, frame);
    const at = ipv4Offset(linktype, frame);
    if (at < 0 || frame.length < at + 20 || (frame[at] >> 4) !== 4) continue;
    for (const field of [at + 12, at + 16]) {
      if (from.some((f) => f.equals(frame.subarray(field, field + 4)))) {
        to.copy(frame, field);
        rewritten += 1;
      }
    }
  }
  fs.writeFileSync(dst, Buffer.concat(out));
  return { frames, rewritten };
}

export const delaymeterBin = () => path.join(labRoot(), 'media-relay', 'build', 'delaymeter', 'delaymeter');

// Relay delay of the RTP in `file` (a capture of rtpengine's ports on every interface): the addresses in
// `aliases` (rtpengine's other interfaces) become `relayAddr`, then delaymeter --json pairs each packet's
// in and out copy. All copies come from one tcpdump, stamped by one kernel clock, so t_out - t_in is
// comparable across interfaces. Returns delaymeter's JSON (directions.to_ims / to_browser: matched,
// lost, loss_pct, delay_ms {p50, p95, p99, max, mean}, …). Throws with delaymeter's one-line reason.
// callPorts: rtpengine's [browserPort, imsPort] of each call, for transcoded calls (re-encoded streams get a
// new SSRC; delaymeter maps it back by these ports and pairs by RTP timestamp, docs/delaymeter.md).
// imsPorts: the SIPp UEs' media ports (ue1 6000 ... the VoLTE ue4 6300, ue5 6400, the video ue7 6600; MT callers 7000+).
// v6aliases: the IMS leg's IPv6 addresses (./lab demo --ipv6), handed to delaymeter as IPv4 (aliasRelayAddresses).
export async function relayDelay(file, { relayAddr = '127.0.0.1', aliases = [], v6aliases = [], relayPorts = '30000-30999', imsPorts = LAB.LAB_UE_RTP_PORTS, callPorts = null } = {}) {
  const bin = delaymeterBin();
  if (!fs.existsSync(bin)) throw new Error(`${bin} is not built (cmake --build media-relay/build)`);
  const input = aliases.length || v6aliases.length ? file.replace(/\.pcap$/, '') + '-relay.pcap' : file;
  if (aliases.length || v6aliases.length) aliasRelayAddresses(file, input, aliases, relayAddr, v6aliases);
  const extra = [];
  if (callPorts?.length) {
    const portsFile = file.replace(/\.pcap$/, '') + '-call-ports.txt';
    fs.writeFileSync(portsFile, `# rtpengine browser-side port, IMS-side port\n${callPorts.map((p) => p.join(' ')).join('\n')}\n`);
    extra.push('--call-ports', portsFile);
  }
  try {
    const { stdout } = await run(bin, ['--relay-addr', relayAddr, '--relay-ports', relayPorts, '--ims-ports', imsPorts, ...extra, '--json', input],
      { maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout);
  } catch (e) {
    const why = (e.stderr ?? '').trim().split('\n').pop() || e.message;
    throw new Error(`delaymeter: ${why.replace(/^delaymeter:\s*/, '')}`);
  }
}

// rtpengine's two RTP ports of the one call in a capture, [[browserPort, imsPort]] (or [] when a leg is
// missing): the relay port the browser sends to on `pub`, and the one that sends from `ims` to a port in
// `imsPorts`, each the port with the most datagrams on its side. Not "the even one": rtpengine 10.5 gives an
// rtcp-mux leg a single port, odd as often as even, and the IMS leg's RTCP port (its RTP port + 1) carries a
// datagram every few seconds against RTP's 50 a second.
export async function oneCallPorts(file, { pub, ims = '127.0.0.1', relayPorts = '30000-30999', imsPorts = LAB.LAB_UE_RTP_PORTS }) {
  const range = (r) => r.split('-').map(Number);
  const [lo, hi] = range(relayPorts);
  const [ilo, ihi] = range(imsPorts);
  const browser = new Map();
  const imsSide = new Map();
  const count = (m, port) => m.set(port, (m.get(port) ?? 0) + 1);
  for (const { src, dst } of await udpDatagrams(file)) {
    const [sa, sp] = src.split(':');
    const [da, dp] = dst.split(':');
    if (da === pub && +dp >= lo && +dp <= hi) count(browser, +dp);
    if (sa === ims && +sp >= lo && +sp <= hi && +dp >= ilo && +dp <= ihi) count(imsSide, +sp);
  }
  const busiest = (m) => [...m.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return browser.size && imsSide.size ? [[busiest(browser), busiest(imsSide)]] : [];
}
