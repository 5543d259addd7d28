// Packets actually seen on a UE's media port (the IMS leg), for tests that assert on RTP: tcpdump
// captures on lo (the lab's namespace), tshark decodes the RTP headers; payloads stay raw hex so the
// test decodes RFC 4733 events or G.711 itself, whatever payload type the SDP gave them.
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { logDir } from './env.mjs';

const run = promisify(execFile);
let seq = 0;

// Starts `tcpdump -i lo` on UDP `port`; resolves once it listens. stop() ends it and returns the file.
export async function startCapture(port, name = `rtp-${port}`) {
  const file = path.join(logDir(), `${name}-${process.pid}-${++seq}.pcap`);
  const proc = spawn('tcpdump', ['-i', 'lo', '--immediate-mode', '-U', '-n', '-w', file, 'udp', 'port', String(port)],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tcpdump did not start: ${err}`)), 5000);
    proc.stderr.on('data', (d) => {
      err += d;
      if (/listening on/.test(err)) { clearTimeout(timer); resolve(); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`tcpdump exited ${code}: ${err}`)); });
  });
  return {
    file,
    async stop() {
      const done = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGINT');
      await done;
      return file;
    },
  };
}

// Every RTP packet of the capture on `port`: {src, dst, pt, seq, ts, marker, payload (Buffer)}.
export async function rtpPackets(file, port) {
  if (!fs.existsSync(file)) throw new Error(`no capture ${file}`);
  const { stdout } = await run('tshark', ['-r', file, '-d', `udp.port==${port},rtp`, '--disable-protocol', 'rtpevent',
    '-Y', 'rtp', '-T', 'fields', '-E', 'separator=;',
    '-e', 'udp.srcport', '-e', 'udp.dstport', '-e', 'rtp.p_type', '-e', 'rtp.seq', '-e', 'rtp.timestamp',
    '-e', 'rtp.marker', '-e', 'rtp.payload'], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim().split('\n').filter(Boolean).map((line) => {
    const [src, dst, pt, sq, ts, marker, payload] = line.split(';');
    return {
      src: Number(src), dst: Number(dst), pt: Number(pt), seq: Number(sq), ts: Number(ts),
      marker: marker === '1' || marker === 'True', payload: Buffer.from((payload ?? '').replace(/:/g, ''), 'hex'),
    };
  });
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
