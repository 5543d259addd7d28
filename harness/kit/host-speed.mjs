// How fast this host was while a run ran, so runs from a slow hour can be told apart (issue #26: on this shared
// 2-core virtual machine the same code gave both set-up targets in 15 of 22 runs one hour and in 0 of 13 the next,
// while the hypervisor's steal grew). Two readings, both host-wide:
//   - steal: the jiffies the hypervisor took from this guest's cores (/proc/stat's `cpu` line, 8th field, proc(5)),
//     as a % of all the cores' jiffies between two readings;
//   - calibration: the milliseconds one fixed piece of CPU work takes before and after the run, the best of 3
//     tries: SHA-256 over the same 4 MiB 8 times (OpenSSL through node:crypto: arithmetic) and a JSON round trip
//     of 200 SDP-sized call records 150 times (V8: allocation, branches, garbage collection, like the gateway's and
//     the page's own work). The same host gives the same figure on a quiet hour; a larger one means less CPU for
//     the run.
import crypto from 'node:crypto';
import fs from 'node:fs';

const BYTES = Buffer.alloc(4 << 20, 0x5a);
const RECORDS = { calls: Array.from({ length: 200 }, (_, i) => ({ id: `call-${i}`, n: i, ok: i % 3 === 0,
  sdp: 'v=0\r\no=- 1 2 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nm=audio 30000 UDP/TLS/RTP/SAVPF 111\r\n'.repeat(4) })) };

function work() {
  for (let i = 0; i < 8; i++) crypto.createHash('sha256').update(BYTES).digest();
  let n = 0;
  for (let i = 0; i < 150; i++) n += JSON.parse(JSON.stringify(RECORDS)).calls.length;
  return n;
}

// The host-wide `cpu` line of /proc/stat: { steal, total } in jiffies, or null where there is none (not Linux).
export function cpuTimes(text = readStat()) {
  const line = text?.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return null;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  if (f.length < 8 || f.some((v) => !Number.isFinite(v))) return null;
  // user nice system idle iowait irq softirq steal [guest guest_nice: already counted in user and nice]
  return { steal: f[7], total: f.slice(0, 8).reduce((a, b) => a + b, 0) };
}

function readStat() {
  try { return fs.readFileSync('/proc/stat', 'utf8'); } catch { return null; }
}

// ms of the fixed work, the best of `tries`
export function calibrate(tries = 3) {
  let best = Infinity;
  for (let t = 0; t < tries; t++) {
    const t0 = process.hrtime.bigint();
    work();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return Math.round(best * 10) / 10;
}

// The steal between two cpuTimes() readings: { jiffies, pct } (pct of all cores' time), or null.
export function stealBetween(a, b) {
  if (!a || !b || b.total <= a.total) return null;
  const jiffies = b.steal - a.steal;
  return { jiffies, pct: Math.round((jiffies / (b.total - a.total)) * 1000) / 10 };
}

// Start a reading; .stop() returns the run's { calibration_ms: { before, after }, steal: { jiffies, pct } }.
export function hostSpeed() {
  const before = calibrate();
  const t0 = cpuTimes();
  return {
    stop() {
      const steal = stealBetween(t0, cpuTimes());
      return { calibration_ms: { before, after: calibrate() }, steal };
    },
  };
}

// The reading in words, for the run's last lines ("host: " before it) and its report.html:
// "calibration 151.2 ms before, 149.5 ms after (...), hypervisor steal during the run 0 % of the cores' time (1 jiffies)"
export function hostSpeedText(h) {
  if (!h) return 'not measured';
  const s = h.steal ? `${h.steal.pct} % of the cores' time (${h.steal.jiffies} jiffies)` : 'n/a';
  return `calibration ${h.calibration_ms.before} ms before, ${h.calibration_ms.after} ms after (a fixed piece of CPU work; larger = a slower host), hypervisor steal during the run ${s}`;
}
