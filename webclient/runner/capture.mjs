// Packet capture on the lab namespace's loopback for integration tests: what actually crossed a UDP
// port (tcpdump writes, tshark reads RTP payload types). Needs CAP_NET_RAW (./lab test runs as root).
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { logDir } from './env.mjs';

const run = promisify(execFile);
let seq = 0;

// Starts `tcpdump -i lo udp port <port>`; resolves once tcpdump listens. stop() ends it and returns
// the pcap path.
export async function captureUdpPort(port, name = `udp-${port}`) {
  const file = path.join(logDir(), `${name}-${process.pid}-${++seq}.pcap`);
  const proc = spawn('tcpdump', ['-i', 'lo', '-n', '-U', '-w', file, 'udp', 'port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tcpdump on port ${port} did not start: ${err.trim()}`)), 5000);
    proc.stderr.on('data', (d) => {
      err += d;
      if (/listening on/.test(err)) { clearTimeout(timer); resolve(); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`tcpdump exited ${code}: ${err.trim()}`)); });
  });
  return {
    file,
    async stop() {
      if (proc.exitCode == null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGINT');
        await exited;
      }
      return file;
    },
  };
}

// RTP packets in a pcap, decoded as RTP on `port`: [{src, dst, pt, ssrc}] (src/dst "ip:port").
export async function rtpPackets(file, port) {
  if (!fs.existsSync(file)) throw new Error(`${file} missing`);
  const { stdout } = await run('tshark', ['-r', file, '-n', '-d', `udp.port==${port},rtp`, '-Y', 'rtp',
    '-T', 'fields', '-E', 'separator=,', '-e', 'ip.src', '-e', 'udp.srcport', '-e', 'ip.dst', '-e', 'udp.dstport',
    '-e', 'rtp.p_type', '-e', 'rtp.ssrc'], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.split('\n').filter(Boolean).map((l) => {
    const [sip, sport, dip, dport, pt, ssrc] = l.split(',');
    return { src: `${sip}:${sport}`, dst: `${dip}:${dport}`, pt: Number(pt), ssrc };
  });
}
