// One measured step: N calls of a profile through the running rtpengine, captured on lo,
// CPU sampled every second, then matched packet by packet with delaymeter.
//   capture (tcpdump) -> traffic (loadgen, or relay_probe.py for plain RTP) -> CPU sampler
//   -> stop capture -> delaymeter --json --csv -> analysis
import fs from 'node:fs';
import path from 'node:path';
import { startCpuSampler } from '../../webclient/runner/cpu.mjs';
import { cpuAverage, cpuSeries, delayCdf, DIRS, fullLoadWindow, hostBusyPct, hostCpu, readDelayCsv, throughput } from './analyze.mjs';
import { lastLine, sleep, start, stop, waitFor } from './procs.mjs';

export const RELAY_PORTS = '30000-30999';
export const FAR_PORT_BASE = 6000; // far end of call i: 6000 + 2i, what delaymeter calls IMS
export const IMS_PORTS = '6000-6999';

// How the traffic of a step is paced: all calls are up within `ramp` seconds and then overlap
// for the full `duration`, so the full-load window is about `duration` long.
export function pacing(calls, durationS) {
  const cps = Math.min(50, Math.max(10, calls / 5));
  const ramp = (calls - 1) / cps;
  return { cps, ramp_s: ramp, media_s: durationS + ramp, expected_s: Math.ceil(2 * ramp + durationS + 12) };
}

// LAB_MEDIA_RELAY_BUILD: another CMake build directory of media-relay (e.g. while the shared one is mid-rebuild).
export function bin(root, name) {
  return path.join(process.env.LAB_MEDIA_RELAY_BUILD || path.join(root, 'media-relay', 'build'), name, name);
}

async function startCapture(file, log) {
  const td = start('tcpdump', 'tcpdump', ['-i', 'lo', '-B', '16384', '--time-stamp-precision=nano', '--immediate-mode',
    '-s', '128', '-w', file, `udp portrange ${RELAY_PORTS}`], { log });
  for (let i = 0; i < 50; i += 1) {
    if (/listening on/.test(td.tail())) return td;
    if (await waitFor(td, 100)) break;
  }
  await stop(td, 'SIGKILL', 1000);
  throw new Error(`tcpdump did not start: ${lastLine(td.tail()) || 'no output'}`);
}

// Plain RTP on the browser leg (A-RTP): loadgen only speaks DTLS-SRTP there, so each call is one
// relay_probe.py (ng offer/answer, RTP both ways). Each call gets its own sequence range: the
// probes share SSRCs and delaymeter pairs by (SSRC, seq).
function startProbes({ root, dir, log, calls, pps, mediaS }) {
  const count = Math.round(mediaS * pps);
  const spacing = Math.floor(65536 / calls);
  const probes = [];
  for (let i = 0; i < calls; i += 1) {
    probes.push(start(`probe${i}`, 'python3', [path.join(root, 'media-relay/delaymeter/tools/relay_probe.py'),
      '--count', String(count), '--pps', String(pps), '--a-port', String(7000 + 2 * i), '--b-port', String(FAR_PORT_BASE + 2 * i),
      '--start-seq', String(i * spacing), '--call-id', `bench-rtp-${process.pid}-${i}`], { log, stdoutFile: path.join(dir, `probe${i}.json`) }));
  }
  return probes;
}

export function probeLimit(calls, durationS, pps) {
  const count = Math.round(durationS * pps);
  return count <= Math.floor(65536 / calls) - 1000;
}

function loadgenArgs({ calls, cps, mediaS, profile, rtpenginePid, json }) {
  return ['--raw', '--calls', String(calls), '--cps', String(cps), '--duration', String(mediaS), '--profile', profile.name, '--profiles', profile.file,
    '--far', 'echo', '--far-port-base', String(FAR_PORT_BASE), '--relay-pid', String(rtpenginePid), '--json', json];
}

// measureStep(opts) -> step result (see report fields in bench.mjs). Throws only on tool failures
// that leave nothing to measure (capture or delaymeter could not run).
export async function measureStep({ root, dir, logDir, profile, calls, durationS, rtpenginePid, progress, progressEvery = 1, keepCapture = true }) {
  fs.mkdirSync(dir, { recursive: true });
  const log = (n) => path.join(logDir, `${path.basename(dir)}-${n}.log`);
  const pcap = path.join(dir, 'relay.pcap');
  const csvFile = path.join(dir, 'delays.csv');
  const lgJson = path.join(dir, 'loadgen.json');
  const pace = pacing(calls, durationS);
  const plainRtp = profile.browser_leg === 'RTP/AVP';
  const errors = [];

  const td = await startCapture(pcap, log('tcpdump'));
  // Traffic first, then the sampler: it reads its process list (pids file) once, at start.
  let traffic;
  if (plainRtp) {
    traffic = startProbes({ root, dir, log: log('probes'), calls, pps: profile.pps, mediaS: pace.media_s });
  } else {
    let n = 0;
    traffic = [start('loadgen', bin(root, 'loadgen'), loadgenArgs({ calls, cps: pace.cps, mediaS: pace.media_s, profile, rtpenginePid, json: lgJson }), {
      log: log('loadgen'),
      onLine: (l) => { if (!/^\[\s*\d+s\]/.test(l) || (n++ % progressEvery) === 0) progress(`  loadgen ${l}`); },
    })];
  }
  const pidsFile = path.join(dir, 'pids');
  fs.writeFileSync(pidsFile, [`rtpengine ${rtpenginePid}`, `tcpdump ${td.pid}`, ...traffic.map((p) => `loadgen ${p.pid}`)].join('\n') + '\n');
  const samples = [];
  const sampler = startCpuSampler({ pidsFile, onSample: (t, secs) => samples.push([t, secs]) });
  const host0 = hostCpu();

  const bound = (pace.ramp_s + pace.media_s + 40) * 1000;
  const t0ms = Date.now();
  // relay_probe.py prints nothing while it runs: say something every 5 s
  const ticker = plainRtp ? setInterval(() => progress(`  ${traffic.length} relay_probe call(s) running, ${Math.round((Date.now() - t0ms) / 1000)} s of ~${Math.round(pace.media_s)} s`), 5000) : null;
  const exits = [];
  for (const p of traffic) {
    let res = await waitFor(p, bound);
    if (!res) { errors.push(`${p.name} did not finish in ${Math.round(bound / 1000)} s: stopped`); res = await stop(p); }
    exits.push(res.code ?? 128);
  }
  if (ticker) clearInterval(ticker);
  sampler.stop();
  const hostPct = hostBusyPct(host0, hostCpu());
  await sleep(500); // immediate mode: the last packets are in the file within a few ms; keep a margin
  await stop(td, 'SIGINT', 5000);
  const dropped = Number((td.tail().match(/(\d+) packets? dropped by kernel/) ?? [])[1] ?? NaN);
  const captured = Number((td.tail().match(/(\d+) packets? captured/) ?? [])[1] ?? NaN);

  // What the generator says (setup, its own loss view).
  let lg = null;
  if (plainRtp) {
    const sums = traffic.map((p, i) => { try { return JSON.parse(fs.readFileSync(path.join(dir, `probe${i}.json`), 'utf8')); } catch { return null; } });
    const bad = sums.filter((s) => !s).length;
    if (bad) errors.push(`${bad} of ${calls} relay_probe calls failed (log: ${path.relative(root, log('probes'))}: ${lastLine(traffic.find((p, i) => !sums[i])?.tail())})`);
    lg = { tool: 'relay_probe.py', exit_codes: exits, calls: sums };
  } else {
    try { lg = JSON.parse(fs.readFileSync(lgJson, 'utf8')); } catch { lg = null; }
    if (exits[0] !== 0) errors.push(`loadgen exited ${exits[0]}: ${lastLine(traffic[0].tail())}`);
    if (!lg) errors.push('loadgen wrote no JSON report');
  }
  if (dropped > 0) errors.push(`tcpdump dropped ${dropped} packets: loss figures are overstated`);

  const dm = start('delaymeter', bin(root, 'delaymeter'), ['--ims-ports', IMS_PORTS, '--relay-ports', RELAY_PORTS, '--json', '--csv', csvFile, pcap],
    { log: log('delaymeter'), stdoutFile: path.join(dir, 'delaymeter.json') });
  const dmExit = (await waitFor(dm, 120000)) ?? (await stop(dm, 'SIGKILL'));
  let dmJson = null;
  try { dmJson = JSON.parse(fs.readFileSync(path.join(dir, 'delaymeter.json'), 'utf8')); } catch { /* below */ }
  if (!dmJson) throw new Error(`delaymeter failed (exit ${dmExit.code}): ${lastLine(dm.tail()) || 'no output'}`);

  const csv = fs.existsSync(csvFile) ? readDelayCsv(csvFile) : { to_ims: { t: [], d: [] }, to_browser: { t: [], d: [] } };
  const tp = throughput(csv);
  const window = fullLoadWindow(tp, calls, profile.pps);
  const names = ['rtpengine', 'loadgen', 'tcpdump'];
  const full = cpuAverage(samples, names, window);
  const whole = cpuAverage(samples, names, null);
  const t0 = tp.t0_epoch_s ?? (samples[0]?.[0] ?? 0) / 1000;
  const series = cpuSeries(samples, names).map((s) => ({ ...s, t_s: Math.round((s.t_epoch_s - t0) * 10) / 10 }));
  if (!keepCapture) { fs.rmSync(pcap, { force: true }); fs.rmSync(csvFile, { force: true }); }

  const d = dmJson.directions ?? {};
  const delay = {}, loss = {}, matched = {}, lost = {}, reordered = {}, dups = {};
  for (const k of DIRS) {
    const x = d[k] ?? {};
    delay[k] = x.delay_ms ? { p50: x.delay_ms.p50, p95: x.delay_ms.p95, p99: x.delay_ms.p99, max: x.delay_ms.max, mean: x.delay_ms.mean } : null;
    loss[k] = x.matched || x.lost ? x.loss_pct : null;
    matched[k] = x.matched ?? 0; lost[k] = x.lost ?? 0; reordered[k] = x.reordered ?? 0; dups[k] = x.duplicates ?? 0;
    if (!x.matched) errors.push(`no ${k} packets were matched in the capture`);
  }
  const rtpPct = full.rtpengine;
  return {
    calls, duration_s: durationS, cps: pace.cps, media_s_per_call: Math.round(pace.media_s * 100) / 100,
    ok: errors.length === 0,
    errors,
    delay_ms: delay, loss_pct: loss,
    packets: { matched, lost, reordered, duplicates: dups, capture: dmJson.packets, tcpdump_captured: captured, tcpdump_dropped: dropped },
    cpu: {
      rtpengine_pct: rtpPct, loadgen_pct: full.loadgen, tcpdump_pct: full.tcpdump,
      rtpengine_pct_per_call: rtpPct == null ? null : Math.round((rtpPct / calls) * 1000) / 1000,
      loadgen_pct_per_call: full.loadgen == null ? null : Math.round((full.loadgen / calls) * 1000) / 1000,
      relay_cores_used: rtpPct == null ? null : Math.round(rtpPct) / 100,
      window: window ? { ...window, seconds: window.to_epoch_s - window.from_epoch_s, basis: 'every call sending (capture)' } : { basis: 'whole run (no full-load second found)' },
      whole_run: whole,
      // everything else on this shared machine during the step (other jobs): explains noisy tails
      host_busy_pct: hostPct,
      other_pct: hostPct == null ? null : Math.max(0, Math.round((hostPct - (whole.rtpengine ?? 0) - (whole.loadgen ?? 0) - (whole.tcpdump ?? 0)) * 100) / 100),
      loadgen_view_relay_pct: lg?.cpu?.relay?.pct_of_one_core ?? null,
    },
    cpu_series: series,
    throughput_pps: tp,
    delay_cdf: Object.fromEntries(DIRS.map((k) => [k, delayCdf(csv[k].d)])),
    setup_ms: lg?.setup_ms ?? null,
    generator: plainRtp ? lg : lg && { tool: 'loadgen', exit_code: exits[0], totals: lg.totals, phases_ms: lg.phases_ms, rtt_ms: lg.rtt_ms, cpu: lg.cpu },
  };
}
