// ./lab bench sipp --cps R --calls N --users U [--volte] [--hold S] (issue #14): SIPp as the load source
// toward many browser users. U provisioned subscribers (u00001 ..., harness/lib/bench.sh provision_users)
// are logged in by one loadgen --answer (U WebSocket sessions through the gateway, each registered with
// IMS); SIPp (sipp-scenarios/run-ue.sh load-calls: load-uac.xml, or load-volte-mo.xml with preconditions)
// places N calls at R calls/s through Kamailio, callee of call i = user i mod U (SIPp injection file);
// every call is answered by a browser user (ICE + DTLS-SRTP, SRTP for the hold) and SIPp echoes the RTP
// (-rtp_echo), so media crosses rtpengine both ways for the whole hold. Measured: SIPp's own statistics
// (-trace_stat, -trace_counts, -trace_rtt, -trace_err), loadgen's per-call results, the gateway's
// Prometheus metrics, CPU per process, loss and per-packet relay delay per direction from the capture
// (delaymeter). The criterion (docs/benchmarks.md "SIPp load"): SIPp 0 failed and N successful calls,
// every call answered by a browser user with media both ways, loss < 0.1 % in both directions.
import fs from 'node:fs';
import path from 'node:path';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { sleep, start } from '../kit/procs.mjs';
import { measureStep } from './step.mjs';
import { pidOf, scrape, sumOf, sumWhere, usersFrom } from './registrations.mjs';
import { javaPid, jfrStart, jfrStop, summarizeJfr } from './jfr.mjs';

// bench.sh starts rtpengine with RTPENGINE_PORT_MAX=32767 for this bench: ~690 calls at 4 ports each, and below
// the kernel's ephemeral range (32768-60999), where loadgen's own sockets are (delaymeter takes every packet
// to or from a relay port for rtpengine's)
export const SIPP_RELAY_PORTS = '30000-32767';
const MAX_UP = 600;
const LOSS_MAX_PCT = 0.1;
const MEDIA_TAIL_S = 2; // loadgen stops sending this long before SIPp's BYE (step.mjs MT_CALLER_EXTRA_MS)

// The gateway's load configuration on top of bench.sh's lifted quotas (which already lift the session cap):
// U logins from one address. (A property given twice reaches Spring as "a,b": each one only once.)
export function sippGatewayArgs(users) {
  return [`--lab.api.login-attempts-per-address=${users * 2 + 100}`];
}

export function sippPlan(cps, calls, users, holdS) {
  // loadgen logs the users in one after the other (~30/s here), then the calls, then delaymeter on the capture
  return { expected_s: Math.ceil(users / 30 + (calls - 1) / cps + holdS + 20 + (calls * holdS * 200) / 100000) };
}

// parse(rest, {int, usage}) -> run
export function sippParse(rest, { int, usage }) {
  const opts = {};
  for (let i = 0; i < rest.length; i += 1) {
    const a = rest[i];
    if (a === '--volte') { opts.volte = true; continue; }
    if (a === '--jfr') { opts.jfr = true; continue; }
    const [k, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (!['--cps', '--calls', '--users', '--hold'].includes(k)) usage(`unknown option for bench sipp: ${a} (--cps R --calls N --users U [--volte] [--hold S] [--jfr])`);
    const v = inline ?? rest[++i];
    if (v == null) usage(`${k} needs a value`);
    opts[k] = v;
  }
  const cps = int('--cps', opts['--cps'] ?? 5, 1, 100);
  const calls = int('--calls', opts['--calls'] ?? 20, 1, 10000);
  const users = int('--users', opts['--users'] ?? 10, 1, 2000);
  const holdS = int('--hold', opts['--hold'] ?? 10, 3, 300);
  // rtpengine's 30000-39999 and Kamailio/loadgen: bound what is up at once
  if (cps * (holdS + 2) > MAX_UP) usage(`--cps ${cps} x --hold ${holdS} s keeps ~${cps * (holdS + 2)} calls up at once; the bench holds at most ${MAX_UP} (rtpengine ports ${SIPP_RELAY_PORTS})`);
  const volte = Boolean(opts.volte);
  // --jfr: a Java Flight Recording of the gateway over the calls (opt-in: it costs the gateway CPU)
  return { mode: 'sipp', name: volte ? 'sipp-volte' : 'sipp', cps, calls, users, holdS, volte, jfr: Boolean(opts.jfr), expected_s: sippPlan(cps, calls, users, holdS).expected_s };
}

// ---- SIPp's files ----------------------------------------------------------------------------------

const num = (v) => (v === '' || v == null ? null : Number(v));
// "00:00:00:005000" (h:m:s:microseconds) -> ms
const hmsus = (v) => {
  const p = String(v ?? '').split(':').map(Number);
  return p.length === 4 && p.every(Number.isFinite) ? Math.round(((p[0] * 3600 + p[1] * 60 + p[2]) * 1000 + p[3] / 1000) * 10) / 10 : null;
};
const epochOf = (v) => Number(String(v ?? '').split('\t')[2]);

function readCsv(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
  const head = lines[0].split(';');
  return { head, rows: lines.slice(1).map((l) => { const c = l.split(';'); return Object.fromEntries(head.map((h, i) => [h, c[i]])); }) };
}

// -trace_stat: cumulative (C) counters of the last line, and a per-second series of the periodic (P) ones
export function sippStatistics(file) {
  const { rows } = readCsv(file);
  const last = rows.at(-1);
  const c = (k) => num(last[`${k}(C)`]);
  const failedBy = {};
  for (const k of Object.keys(last)) {
    const m = /^Failed(\w+)\(C\)$/.exec(k);
    if (m && num(last[k]) > 0) failedBy[m[1]] = num(last[k]);
  }
  const t0 = epochOf(rows[0].StartTime);
  const series = rows.map((r) => ({ t: Math.round((epochOf(r.CurrentTime) - t0) * 10) / 10, call_rate: num(r['CallRate(P)']), created: num(r['OutgoingCall(P)']),
    successful: num(r['SuccessfulCall(P)']), failed: num(r['FailedCall(P)']), current: num(r.CurrentCall), retransmissions: num(r['Retransmissions(P)']),
    response_time_ms: hmsus(r['ResponseTime1(P)']) }));
  const repartition = Object.fromEntries(Object.keys(last).filter((k) => k.startsWith('ResponseTimeRepartition1_')).map((k) => [k.slice('ResponseTimeRepartition1_'.length), num(last[k])]));
  return {
    calls_created: num(last.TotalCallCreated), successful: c('SuccessfulCall'), failed: c('FailedCall'), failed_by: failedBy,
    retransmissions: c('Retransmissions'), out_of_call_msgs: c('OutOfCallMsgs'), dead_call_msgs: c('DeadCallMsgs'),
    fatal_errors: c('FatalErrors'), warnings: c('Warnings'), watchdog_major: c('WatchdogMajor'),
    call_rate_mean: num(last['CallRate(C)']), response_time_mean_ms: hmsus(last['ResponseTime1(C)']), response_time_stdev_ms: hmsus(last['ResponseTime1StDev(C)']),
    call_length_mean_ms: hmsus(last['CallLength(C)']), response_time_repartition_ms: repartition, elapsed_s: Math.round((epochOf(last.CurrentTime) - t0) * 10) / 10,
    series, start_epoch_s: t0,
  };
}

// -trace_counts: the final line per message: sent/recv, retransmissions, timeouts, unexpected
export function sippMessageCounts(file) {
  const { head, rows } = readCsv(file);
  const last = rows.at(-1);
  const msgs = [];
  for (const h of head) {
    const m = /^(\d+)_(.+)_(Sent|Recv)$/.exec(h);
    if (!m) continue;
    const k = `${m[1]}_${m[2]}`;
    msgs.push({ index: Number(m[1]), message: m[2], [m[3].toLowerCase()]: num(last[h]), retransmissions: num(last[`${k}_Retrans`]),
      timeouts: num(last[`${k}_Timeout`]), unexpected: num(last[`${k}_Unexp`]) });
  }
  return msgs;
}

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null);
const r1 = (v) => (v == null || Number.isNaN(v) ? null : Math.round(v * 10) / 10);

// -trace_rtt: INVITE -> 200 of every call, at its time since SIPp's start
export function sippRtt(file) {
  const pts = readCsv(file).rows.map((r) => [num(r.Date_ms) / 1000, num(r.response_time_ms)]).filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v));
  const v = pts.map(([, x]) => x).sort((a, b) => a - b);
  return { points: pts.map(([t, x]) => [r1(t), x]),
    ms: v.length ? { n: v.length, p50: pct(v, 50), p95: pct(v, 95), p99: pct(v, 99), max: v.at(-1), mean: r1(v.reduce((a, b) => a + b, 0) / v.length) } : null };
}

function sippFiles(dir, kind) {
  const files = fs.readdirSync(dir);
  const scen = kind === 'volte' ? 'load-volte-mo' : 'load-uac';
  const find = (re) => { const f = files.find((n) => re.test(n)); return f ? path.join(dir, f) : null; };
  return { stat: find(new RegExp(`^load-${kind}-stat\\.csv$`)), counts: find(new RegExp(`^${scen}_\\d+_counts\\.csv$`)), rtt: find(new RegExp(`^${scen}_\\d+_rtt\\.csv$`)),
    errors: find(new RegExp(`^load-${kind}-errors\\.log$`)) };
}

// The echo's start: loadgen sends as soon as its DTLS is done, which can be before the gateway has given
// rtpengine the browser's answer (ng answer after the WebSocket `answer`); SIPp echoes those first packets
// at once, and rtpengine cannot forward them toward the browser yet (seen in rtpengine's log: ICE and DTLS
// done, `answer` 220 ms later on a busy host, the first echo forwarded right after it). A real IMS UE sends
// nothing before the 200, so these are an artefact of echoing. Per stream (SSRC: the echo keeps it and the
// sequence numbers): start_gap = first to_browser seq paired - first to_ims seq paired; the stream's
// to_browser losses up to start_gap are "at the start", the rest "later" (delaymeter CSV + JSON).
export function echoStartLoss(csvFile, dm) {
  const first = { to_ims: new Map(), to_browser: new Map() };
  const text = fs.readFileSync(csvFile, 'latin1');
  for (const line of text.split('\n').slice(1)) {
    const c = line.split(',');
    if (c.length < 5) continue;
    const m = first[c[1]];
    if (!m) continue;
    const t = Number(c[0]);
    const cur = m.get(c[2]);
    if (!cur || t < cur.t) m.set(c[2], { t, seq: Number(c[3]) });
  }
  let atStart = 0, later = 0, matched = 0, streamsWithStartLoss = 0, maxGap = 0;
  for (const x of dm?.directions?.to_browser?.ssrcs ?? []) {
    matched += x.matched;
    const a = first.to_ims.get(x.ssrc), b = first.to_browser.get(x.ssrc);
    const gap = a && b ? (b.seq - a.seq + 65536) % 65536 : 0;
    const start = Math.min(gap, x.lost);
    atStart += start; later += x.lost - start;
    if (start > 0) streamsWithStartLoss += 1;
    maxGap = Math.max(maxGap, start);
  }
  const pctOf = (n) => (matched + n > 0 ? Math.round((n / (matched + atStart + later)) * 100000) / 1000 : null);
  return { lost_at_start: atStart, lost_later: later, streams_with_start_loss: streamsWithStartLoss, max_start_loss_per_stream: maxGap,
    loss_pct_at_start: pctOf(atStart), loss_pct_later: pctOf(later),
    basis: 'to_browser losses per stream before the first packet rtpengine forwarded toward the browser (echoes of the browser\'s first packets, sent before rtpengine had the answer) vs after it' };
}

// ---- the gateway's metrics --------------------------------------------------------------------------

const MT = 'direction="mt"';
function gatewayFigures(m) {
  if (!m) return null;
  const buckets = {};
  for (const [k, v] of m) {
    const b = /^gw_call_setup_seconds_bucket\{(.*)\}$/.exec(k);
    if (b && b[1].includes(MT)) buckets[(/le="([^"]+)"/.exec(b[1]) ?? [])[1]] = v;
  }
  const failures = {};
  for (const [k, v] of m) {
    if (k.startsWith('gw_call_failures_total{') && k.includes(MT)) failures[(/reason="([^"]+)"/.exec(k) ?? [])[1]] = v;
  }
  return { attempts: sumWhere(m, 'gw_call_attempts_total', MT), answers: sumWhere(m, 'gw_call_answers_total', MT), ended: sumWhere(m, 'gw_calls_ended_total', MT),
    failures, active: sumWhere(m, 'gw_calls_active', MT), registrations: sumOf(m, 'gw_registrations'), websockets: sumOf(m, 'gw_websocket_sessions'),
    setup_count: sumWhere(m, 'gw_call_setup_seconds_count', MT), setup_sum_s: sumWhere(m, 'gw_call_setup_seconds_sum', MT), setup_buckets: buckets,
    ng_errors: sumOf(m, 'gw_ng_errors_total'), heap_mb: r1(sumWhere(m, 'jvm_memory_used_bytes', 'area="heap"') / 1048576) };
}

function gatewayDelta(a, b) {
  if (!a || !b) return null;
  const d = (k) => (b[k] ?? 0) - (a[k] ?? 0);
  const failures = {};
  for (const k of new Set([...Object.keys(a.failures), ...Object.keys(b.failures)])) {
    const v = (b.failures[k] ?? 0) - (a.failures[k] ?? 0);
    if (v) failures[k] = v;
  }
  const n = d('setup_count');
  const le = Object.keys(b.setup_buckets).sort((x, y) => Number(x) - Number(y));
  const cum = le.map((k) => [k, (b.setup_buckets[k] ?? 0) - (a.setup_buckets[k] ?? 0)]);
  const top = le.filter((k) => k !== '+Inf').at(-1);
  const upTo = (q) => {
    const hit = cum.find(([, c]) => c >= q * n);
    if (!hit) return null;
    return hit[0] === '+Inf' ? `> ${Number(top) * 1000} ms` : `<= ${Number(hit[0]) * 1000} ms`;
  };
  return { mt_attempts: d('attempts'), mt_answers: d('answers'), mt_ended: d('ended'), mt_failures_by_reason: failures, ng_errors: d('ng_errors'),
    mt_setup_ms: n > 0 ? { n, mean: r1((d('setup_sum_s') / n) * 1000), p50_bucket: upTo(0.5), p95_bucket: upTo(0.95), p99_bucket: upTo(0.99),
      buckets_ms: Object.fromEntries(cum.map(([k, c]) => [k === '+Inf' ? '+Inf' : String(Number(k) * 1000), c])), basis: 'gw_call_setup_seconds{direction="mt"}: the gateway\'s INVITE -> its 200' } : null };
}

// The gateway's metrics every 5 s while the run goes (active MT calls, registrations, heap). Not every second:
// in a --jfr run at 20 calls/s the /actuator path (MetricsAccess frames) was 9 % of the gateway's execution
// samples with a 1 s scrape; SIPp's own CurrentCall gives concurrency per second.
const SCRAPE_MS = 5000;
function gatewaySampler(base, clock) {
  const series = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = Date.now();
      const g = gatewayFigures(await scrape(base));
      if (g) series.push({ t: r1((t0 - clock) / 1000), active: g.active, registrations: g.registrations, websockets: g.websockets, answers: g.answers, heap_mb: g.heap_mb });
      for (let waited = Date.now() - t0; !stopped && waited < SCRAPE_MS; waited = Date.now() - t0) await sleep(Math.min(250, SCRAPE_MS - waited));
    }
  })();
  return { series, stop: async () => { stopped = true; await loop; } };
}

// ---- the run ----------------------------------------------------------------------------------------

function labProcs() {
  const gw = pidOf('gateway');
  const kam = pidOf('kamailio');
  return [...(gw ? [{ name: 'gateway', pid: javaPid(gw) ?? gw }] : []), ...(kam ? [{ name: 'kamailio', pid: kam }] : [])];
}

function writeInputs(dir, users) {
  const usersFile = path.join(dir, 'answer-users.txt');
  const callees = path.join(dir, 'callees.csv');
  fs.writeFileSync(usersFile, `# bench sipp: the users loadgen logs in and answers as (mode 0600, passwords)\n${users.map((u) => `${u.user}:${u.password}`).join('\n')}\n`, { mode: 0o600 });
  fs.chmodSync(usersFile, 0o600);
  // SIPp injection file: one callee a line, read in sequence (call i -> line i mod U)
  fs.writeFileSync(callees, `SEQUENTIAL\n${users.map((u) => `${u.user};`).join('\n')}\n`);
  return { usersFile, callees };
}

// Per call from loadgen's report: answered by a browser user, media both ways (sent and received SRTP)
function callsSummary(lg, nUsers) {
  const calls = (lg?.calls ?? []).filter((c) => c.direction === 'mt');
  const answered = calls.filter((c) => c.setup_ok);
  const both = calls.filter((c) => c.setup_ok && c.sent > 0 && c.recv > 0);
  const perUser = {};
  for (const c of calls) perUser[c.user] = (perUser[c.user] ?? 0) + 1;
  const counts = Object.values(perUser);
  const reasons = {};
  for (const c of calls) reasons[c.end_reason ?? 'none'] = (reasons[c.end_reason ?? 'none'] ?? 0) + 1;
  const withPreconditions = calls.filter((c) => c.preconditions).length;
  const failed = calls.filter((c) => c.fail_phase || c.error).slice(0, 20).map((c) => ({ index: c.index, user: c.user, from: c.from, fail_phase: c.fail_phase, error: c.error, end_reason: c.end_reason }));
  return { incoming: calls.length, answered: answered.length, media_both_ways: both.length, with_preconditions: withPreconditions, users_called: counts.length, users_logged_in: nUsers,
    calls_per_user: counts.length ? { min: Math.min(...counts), max: Math.max(...counts) } : null, end_reasons: reasons, failed_examples: failed,
    rejected: lg?.totals?.incoming_rejected ?? null, ended_by_caller: lg?.totals?.mt_ended_by_caller ?? null };
}

export async function runSipp(run, ctx, { root, progress, finish, base, profile }) {
  const dir = ctx.out;
  const kind = run.volte ? 'volte' : 'uac';
  const report = { ...base, kind: 'sipp', gateway: ctx.gateway, cps: run.cps, calls: run.calls, users: run.users, hold_s: run.holdS, volte: run.volte,
    profile: profile.name, caller: run.volte ? 'ue5 (SIPp load-volte-mo.xml: 100rel/PRACK/UPDATE preconditions)' : 'ue2 (SIPp load-uac.xml)',
    gateway_quotas_lifted: process.env.BENCH_GATEWAY_LOAD_ARGS || null, gateway_load_args: sippGatewayArgs(run.users).join(' '),
    gateway_args: process.env.BENCH_GATEWAY_ARGS || '(none: the shipped default, as ./lab up starts it)',
    media: `loadgen --answer sends ${profile.name} (DTLS-SRTP, Opus PT as offered, ${profile.pps} pps) for hold - ${MEDIA_TAIL_S} s; SIPp echoes it (-rtp_echo), so RTP crosses rtpengine both ways`,
    criterion: { sipp_failed: 0, sipp_successful: run.calls, answered_with_media_both_ways: run.calls, loss_pct_below: LOSS_MAX_PCT,
      loss_basis: 'to_ims: all packets; to_browser: after each stream\'s start (to_browser_loss_split: the echoes of packets the browser sent before rtpengine had the answer are counted apart)' } };
  const users = usersFrom(process.env.LAB_USERS_FILE ?? '', run.users);
  const { usersFile, callees } = writeInputs(dir, users);
  const clock = Date.now();
  const before = gatewayFigures(await scrape(ctx.gateway));
  const gws = gatewaySampler(ctx.gateway, clock);
  const holdMs = run.holdS * 1000;
  progress(`sipp: ${run.users} browser users log in (loadgen --answer), then SIPp ${report.caller} places ${run.calls} calls at ${run.cps}/s, each held ${run.holdS} s with RTP both ways; expected ~${run.expected_s} s`);
  const caller = () => start('sipp_uac', 'bash', [path.join(root, 'sipp-scenarios', 'run-ue.sh'), 'load-calls', callees, String(run.cps), String(run.calls), String(holdMs)], {
    log: path.join(ctx.logDir, 'sipp-load.log'), group: true,
    env: { ...process.env, UE_VOLTE: run.volte ? '1' : '0', LAB_LOGDIR: dir, KAMAILIO: ADDRESSES.pcscf, IMS_USERS: process.env.LAB_USERS_FILE },
  });
  let sippProgress = null;
  const tick = setInterval(() => {
    const f = sippFiles(dir, kind);
    if (!f.stat) return;
    try {
      const s = sippStatistics(f.stat);
      const line = `  sipp ${Math.round(s.elapsed_s)}s: ${s.calls_created}/${run.calls} calls placed, ${s.series.at(-1)?.current ?? 0} up, ${s.successful} successful, ${s.failed} failed, ${s.retransmissions} retransmissions`;
      if (line !== sippProgress) progress(line);
      sippProgress = line;
    } catch { /* being written */ }
  }, 5000);
  const jvm = run.jfr ? javaPid(pidOf('gateway')) : null;
  let jfrFile = null;
  if (run.jfr) {
    const started = jvm ? jfrStart(jvm, 'sipp') : { ok: false, text: 'the gateway JVM was not found' };
    if (started.ok) jfrFile = path.join(dir, 'gateway.jfr'); else report.jfr = { error: `JFR.start: ${started.text}` };
  }
  let step = null;
  let stepError = null;
  try {
    step = await measureStep({ root, dir, logDir: ctx.logDir, profile, calls: run.calls, durationS: run.holdS - MEDIA_TAIL_S, rtpenginePid: ctx.rtpenginePid, progress, progressEvery: 5,
      procs: labProcs(), imsPorts: LAB.LAB_UE_RTP_PORTS, relayPorts: SIPP_RELAY_PORTS, answerReadyS: 30 + Math.ceil(run.users / 10),
      // loadgen ends on its own: after the N calls, or at its --timeout (ramp + media + 90 s), or 5 s after a failed SIPp
      waitS: (run.calls - 1) / run.cps + run.holdS + 120,
      pace: { cps: run.cps, ramp_s: (run.calls - 1) / run.cps, media_s: run.holdS - MEDIA_TAIL_S },
      // the caller ends every call: loadgen's media clock starts at DTLS, which with preconditions is at the 183,
      // long before the 200 when set-up is slow, so it waits up to hold + 30 s for the BYE instead of 5 s
      gateway: { url: ctx.gateway, usersFile, answer: true, hangupWaitS: run.holdS + 30 }, mtCaller: () => caller() });
  } catch (e) {
    stepError = e.message; // nothing to measure on the relay (e.g. no call came through): SIPp's side is still reported
  } finally {
    clearInterval(tick);
    await gws.stop();
  }
  const after = gatewayFigures(await scrape(ctx.gateway));
  if (jfrFile) {
    const stopped = jfrStop(jvm, 'sipp', jfrFile);
    report.jfr = stopped.ok ? { cps: run.cps, ...(await summarizeJfr(jfrFile)) } : { error: `JFR.stop: ${stopped.text}` };
  }
  const errors = stepError ? [stepError] : [...step.errors];
  if (stepError) {
    const tail = (f) => { try { return fs.readFileSync(path.join(ctx.logDir, f), 'utf8').trim().split('\n').slice(-2).join(' | '); } catch { return null; } };
    const why = tail('sipp-load.log');
    if (why) errors.push(`SIPp caller: ${why}`);
    step = { errors, delay_ms: {}, loss_pct: {}, packets: { matched: {}, lost: {} }, cpu: {}, cpu_series: [], throughput_pps: null, delay_cdf: {}, setup_ms: null, generator: null };
  }

  // SIPp's own statistics
  const f = sippFiles(dir, kind);
  let sipp = null;
  try {
    if (!f.stat) throw new Error(`no SIPp statistics file (load-${kind}-stat.csv) in ${path.relative(root, dir)}`);
    sipp = sippStatistics(f.stat);
    sipp.messages = f.counts ? sippMessageCounts(f.counts) : null;
    sipp.invite_to_200 = f.rtt ? sippRtt(f.rtt) : null;
    const errText = f.errors && fs.existsSync(f.errors) ? fs.readFileSync(f.errors, 'utf8') : '';
    sipp.error_log = { lines: errText.split('\n').filter((l) => l.trim()).length, first: errText.split('\n').find((l) => l.trim())?.slice(0, 300) ?? null };
  } catch (e) {
    errors.push(`SIPp statistics: ${e.message}`);
  }
  let lg = null;
  try { lg = JSON.parse(fs.readFileSync(path.join(dir, 'loadgen.json'), 'utf8')); } catch { /* step.errors says so */ }
  const browser = callsSummary(lg, run.users);
  let echoStart = null;
  try {
    const dm = JSON.parse(fs.readFileSync(path.join(dir, 'delaymeter.json'), 'utf8'));
    echoStart = echoStartLoss(path.join(dir, 'delays.csv'), dm);
  } catch { /* no capture analysis: errors say why */ }
  const gw = gatewayDelta(before, after);
  const { cpu_series: cpuSeries, throughput_pps: tp, ...stepRest } = step;
  Object.assign(report, {
    sipp: sipp && { ...sipp, series: undefined }, browser, gateway_metrics: gw, loadgen_totals: step.generator?.totals ?? null, setup_ms_browser: step.setup_ms,
    delay_ms: step.delay_ms, loss_pct: step.loss_pct, to_browser_loss_split: echoStart, packets: step.packets, cpu: step.cpu,
    series: { sipp: sipp?.series ?? [], gateway: gws.series, cpu: cpuSeries, throughput_pps: tp, setup_points: sipp?.invite_to_200?.points ?? [] },
    delay_cdf: stepRest.delay_cdf,
  });
  if (report.sipp) delete report.sipp.series;
  if (report.sipp?.invite_to_200) report.sipp.invite_to_200 = { ms: sipp.invite_to_200.ms };

  const why = [];
  if (!sipp) why.push('no SIPp statistics');
  else {
    if (sipp.failed !== 0) why.push(`SIPp: ${sipp.failed} failed calls (${JSON.stringify(sipp.failed_by)})`);
    if (sipp.successful !== run.calls) why.push(`SIPp: ${sipp.successful}/${run.calls} successful calls`);
  }
  if (browser.answered !== run.calls) why.push(`${browser.answered}/${run.calls} calls answered by a browser user`);
  if (browser.media_both_ways !== run.calls) why.push(`${browser.media_both_ways}/${run.calls} calls with media both ways at the browser user`);
  // to_browser: the echoes of the browser's first packets that reached rtpengine before the answer do not
  // count (echoStartLoss: a real UE sends nothing before the 200); they are reported beside it
  if (!(step.loss_pct.to_ims < LOSS_MAX_PCT)) why.push(`loss to_ims ${step.loss_pct.to_ims} % (criterion < ${LOSS_MAX_PCT} %)`);
  const brLoss = echoStart ? echoStart.loss_pct_later : step.loss_pct.to_browser;
  if (!(brLoss < LOSS_MAX_PCT)) why.push(`loss to_browser ${brLoss} % after the streams' start (criterion < ${LOSS_MAX_PCT} %; ${step.loss_pct.to_browser} % with the start)`);
  report.criterion.pass = why.length === 0 && errors.length === 0;
  report.criterion.why = [...why, ...errors];
  report.errors = errors;
  report.ok = report.criterion.pass;
  finish(dir, report);

  const col = (v, w) => String(v ?? 'n/a').padStart(w);
  const s = sipp ?? {};
  console.log(`\nbench sipp${run.volte ? ' --volte' : ''}: ${run.calls} calls at ${run.cps}/s to ${run.users} browser users, hold ${run.holdS} s`);
  console.log(`  SIPp: ${s.successful ?? 'n/a'} successful, ${s.failed ?? 'n/a'} failed ${Object.keys(s.failed_by ?? {}).length ? JSON.stringify(s.failed_by) : ''}, ${s.retransmissions ?? 'n/a'} retransmissions, `
    + `INVITE -> 200 p50 ${s.invite_to_200?.ms?.p50 ?? 'n/a'} p95 ${s.invite_to_200?.ms?.p95 ?? 'n/a'} p99 ${s.invite_to_200?.ms?.p99 ?? 'n/a'} max ${s.invite_to_200?.ms?.max ?? 'n/a'} ms`);
  console.log(`  browser users (loadgen): ${browser.incoming} incoming, ${browser.answered} answered, ${browser.media_both_ways} with media both ways, ${browser.users_called} users called `
    + `(${browser.calls_per_user?.min ?? 'n/a'}-${browser.calls_per_user?.max ?? 'n/a'} calls each); incoming -> DTLS p50 ${step.setup_ms?.p50 ?? 'n/a'} p95 ${step.setup_ms?.p95 ?? 'n/a'} ms`);
  console.log(`  gateway: MT attempts ${gw?.mt_attempts ?? 'n/a'}, answers ${gw?.mt_answers ?? 'n/a'}, failures ${JSON.stringify(gw?.mt_failures_by_reason ?? {})}, setup mean ${gw?.mt_setup_ms?.mean ?? 'n/a'} ms (p95 ${gw?.mt_setup_ms?.p95_bucket ?? 'n/a'})`);
  console.log('  relay            p50 ms   p95 ms   p99 ms   max ms   loss %   matched');
  for (const k of ['to_ims', 'to_browser']) console.log(`  ${k.padEnd(14)}${col(step.delay_ms[k]?.p50, 7)}  ${col(step.delay_ms[k]?.p95, 7)}  ${col(step.delay_ms[k]?.p99, 7)}  ${col(step.delay_ms[k]?.max, 7)}  ${col(step.loss_pct[k], 7)}  ${col(step.packets.matched[k], 8)}`);
  const w = step.cpu.whole_run ?? {};
  if (echoStart) console.log(`  to_browser loss split: ${echoStart.lost_at_start} packets at the streams' start (${echoStart.streams_with_start_loss} streams, max ${echoStart.max_start_loss_per_stream}: echoes of the browser's first packets before rtpengine had the answer), ${echoStart.lost_later} later (${echoStart.loss_pct_later} %)`);
  console.log(`  CPU over the run (% of one core): ${['rtpengine', 'gateway', 'kamailio', 'sipp_uac', 'loadgen', 'tcpdump'].map((n) => `${n} ${w[n] ?? 'n/a'}`).join(', ')}; other jobs ${step.cpu.other_pct} %`);
  if (report.jfr?.threads) console.log(`  gateway JFR (${report.jfr.samples} samples): threads ${report.jfr.threads.slice(0, 5).map((t) => `${t.frame} ${t.pct} %`).join(', ')}; top gateway frame ${report.jfr.gateway_frame[0]?.frame} ${report.jfr.gateway_frame[0]?.pct} %`);
  else if (report.jfr?.error) console.log(`  gateway JFR: ${report.jfr.error}`);
  console.log(`  criterion (SIPp 0 failed, every call answered with media both ways, loss < ${LOSS_MAX_PCT} % (to_browser after the streams' start)): ${report.criterion.pass ? 'met' : `not met: ${report.criterion.why.join('; ')}`}`);
  return report;
}
