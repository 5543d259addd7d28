// Packets actually seen on a UDP port in the lab's core namespace (every interface: loopback for the
// IMS side, the browser links for the browser side, docs/media.md "Topology"), for tests that assert on the wire:
// tcpdump captures, tshark decodes (RTP headers with raw payloads, so a test decodes RFC 4733 events or
// G.711 itself; STUN message types). Needs CAP_NET_RAW (./lab test runs as root).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { logDir } from './env.mjs';
import { start, stop } from './procs.mjs';

const run = promisify(execFile);
let seq = 0;

// Starts `tcpdump -i any` on UDP `port` (or on the pcap filter `filter`, e.g. 'udp and host 198.18.1.2');
// resolves once it listens. stop() ends it and returns the file.
export async function startCapture(port, name = `udp-${port}`, { filter = null } = {}) {
  const file = path.join(logDir(), `${name}-${process.pid}-${++seq}.pcap`);
  // --immediate-mode: without it packets of the last second are lost when tcpdump is stopped quickly
  let listening;
  const ready = new Promise((resolve) => { listening = resolve; });
  const proc = start('tcpdump', 'tcpdump', ['-i', 'any', '--immediate-mode', '-U', '-n', '-w', file, ...(filter ? filter.split(/\s+/) : ['udp', 'port', String(port)])],
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
