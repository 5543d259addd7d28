// ./lab soak --minutes M --cps R [--hold S]: the gateway under a long mixed load (docs/soak.md).
// Well-formed calls both ways for M minutes (MO: loadgen --gateway, the browser API; MT: SIPp ue2 calls
// alice, loadgen --answer answers), mixed with bad input (harness/soak/badinput.mjs) and faults (a browser
// that vanishes mid-call); samples the gateway (heap, threads, fds, calls, dialogs) and rtpengine's
// sessions every 5 s; at the end checks that nothing leaked and that heap/threads/fds stayed flat.
// Writes OUT/report.json + report.html; exit 0 = every criterion met, 1 = not, 2 = bad usage.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ADDRESSES } from '../kit/addresses.mjs';
import { writeReport } from '../kit/report.mjs';
import { lastLine, sleep, start, stop, stopAll, waitFor } from '../kit/procs.mjs';
import { javaPid } from '../bench/jfr.mjs';
import { bin } from '../bench/step.mjs';
import { readStat } from '../bench/setup-rate.mjs';
import { CORPUS, badLogin, loginFlood, openSocket, sipCase, wsBad, wsFlood, WS_KINDS } from './badinput.mjs';
import { renderHtml } from './html.mjs';

const ROOT = process.env.LAB_ROOT || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SAMPLE_S = 5;
const BAD_EVERY_S = 3;          // one bad input every 3 s, kinds in rotation
const VANISH_EVERY_S = 120;     // a browser vanishes mid-call every 2 minutes (the first at 60 s; 30 s in a 1-minute run)
const SETTLE_S = 25;            // after the traffic: BYEs, deletes, one reconciler round (10 s) and JAIN-SIP's dialog cleanup
// "flat" (docs/soak.md): heap after a full GC at the end within 20 % (at least 16 MiB) of the one after the
// first minute; the last minute's highest thread and fd counts at most 10 / 20 above the first minute's.
export const FLAT = { heap_pct: 20, heap_min_mib: 16, threads: 10, fds: 20 };

export function parseArgs(argv) {
  const o = { minutes: 10, cps: 5, hold: 3, out: null, gateway: ADDRESSES.gatewayHttp, check: false };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const val = () => { if (i + 1 >= argv.length) throw new Error(`${a} needs a value`); return argv[++i]; };
    const num = (name, v, lo, hi) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < lo || n > hi) throw new Error(`${name} wants a whole number in ${lo}..${hi}, not '${v}'`);
      return n;
    };
    if (a === '--minutes') o.minutes = num('--minutes', val(), 1, 120);
    else if (a === '--cps') o.cps = num('--cps', val(), 1, 20);
    else if (a === '--hold') o.hold = num('--hold', val(), 1, 60);
    else if (a === '--out') o.out = val();
    else if (a === '--gateway') o.gateway = val();
    else if (a === '--check') o.check = true;
    else throw new Error(`unknown option for soak: ${a}`);
  }
  return o;
}

const log = (s) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

// Prometheus text -> {name: sum over its series} for the names we want (labels matched by `filter`).
function scrapeValue(text, name, filter = null) {
  let sum = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = line.match(/^([a-z_]+)(\{[^}]*\})?\s+(\S+)/);
    if (!m || m[1] !== name || (filter && !filter.test(m[2] ?? ''))) continue;
    sum = (sum ?? 0) + Number(m[3]);
  }
  return sum;
}

async function getText(url, ms = 5000) {
  const r = await fetch(url, { signal: AbortSignal.timeout(ms) });
  return { status: r.status, text: await r.text() };
}

function usersOf(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
    const i = l.indexOf(':');
    return { user: l.slice(0, i), password: l.slice(i + 1).trim() };
  });
}

// A users file for loadgen --users (the password never goes on a command line): mode 0600.
function usersFile(file, users) {
  fs.writeFileSync(file, `# loadgen --users for ./lab soak (mode 0600)\n${users.map((u) => `${u.user}:${u.password}`).join('\n')}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}

function loadgenTotals(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return null; }
}

function failureReasons(lg) {
  const out = {};
  for (const c of lg?.calls ?? []) {
    if (!c.error && !c.fail_phase) continue;
    const k = `${c.fail_phase ?? '?'}: ${String(c.error ?? '').replace(/[0-9a-f]{8,}|\d+/g, 'N').slice(0, 80)}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

async function main() {
  let o;
  try { o = parseArgs(process.argv.slice(2)); } catch (e) { console.error(`soak: ${e.message}`); process.exit(2); }
  const expectedS = o.minutes * 60 + o.hold + SETTLE_S + 60;
  if (o.check) { console.log(`expected_s=${expectedS} cap_s=${expectedS + 300}`); return 0; }
  const out = o.out ?? path.join(ROOT, 'out', 'soak');
  const logDir = process.env.LAB_LOGDIR || path.join(out, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const base = o.gateway.replace(/\/+$/, '');
  const users = usersOf(process.env.LAB_USERS_FILE || path.join(ROOT, 'ims-sim/users.txt'));
  const pw = (u) => users.find((x) => x.user === u)?.password;
  const generated = users.filter((u) => /^u\d{5}$/.test(u.user));
  if (generated.length < 9) { console.error('soak: needs LAB_USERS_FILE with >= 9 generated users (./lab soak provisions them)'); return 2; }
  const moUsers = generated.slice(0, 8);
  const vanishUser = generated[8];
  const durS = o.minutes * 60;
  const calls = o.cps * durS;
  const report = {
    kind: 'soak', started: new Date().toISOString(), minutes: o.minutes, cps_per_direction: o.cps, hold_s: o.hold,
    gateway: base, gateway_args: process.env.SOAK_GATEWAY_ARGS ?? null, flat_definition: FLAT,
    calls: {}, bad_input: { by_kind: {}, mismatches: [] }, faults: [], series: [], leaks: {}, flat: {}, verdict: null, why: [], errors: [],
  };
  const pidsLine = (name) => { try { return fs.readFileSync(process.env.LAB_PIDS, 'utf8').split('\n').find((l) => l.startsWith(`${name} `)); } catch { return null; } };
  const gwJava = (() => { const l = pidsLine('gateway'); return l ? javaPid(Number(l.split(/\s+/)[1])) : null; })();
  if (!gwJava) report.errors.push('the gateway JVM was not found in $LAB_PIDS: no heap-after-GC figures');
  const finish = () => writeReport(out, report, renderHtml);

  log(`soak: ${o.minutes} min, ${o.cps} calls/s each way (MO ${calls} calls via the browser API from ${moUsers.length} users to ue1; `
    + `MT ${calls} calls ue2 -> alice), calls held ${o.hold} s; bad input every ${BAD_EVERY_S} s; a browser vanishes mid-call every ${VANISH_EVERY_S / 60} min`);

  // --- sampler
  const t0 = Date.now();
  let lastSample = null;
  const sample = async () => {
    const s = { t_s: Math.round((Date.now() - t0) / 100) / 10 };
    try {
      const { text } = await getText(`${base}/actuator/prometheus`);
      s.heap_mib = Math.round((scrapeValue(text, 'jvm_memory_used_bytes', /area="heap"/) ?? NaN) / 1048576 * 10) / 10;
      s.threads = scrapeValue(text, 'jvm_threads_live_threads');
      s.fds = scrapeValue(text, 'process_files_open_files');
      s.calls = scrapeValue(text, 'gw_calls_active');
      s.dialogs = scrapeValue(text, 'gw_sip_dialogs');
      s.websockets = scrapeValue(text, 'gw_websocket_sessions');
      s.registrations = scrapeValue(text, 'gw_registrations');
    } catch (e) { s.error = `metrics: ${e.message}`; }
    try {
      const { status, text } = await getText(`${base}/api/v1/rtpengine/sessions`);
      const j = JSON.parse(text);
      // rtpengine `list`, only the call-ids with this gateway's prefix (lab.rtpengine.session-prefix): LabController
      s.rtpengine_sessions = status === 200 ? j.count : null;
    } catch (e) { s.error = `${s.error ?? ''} rtpengine list: ${e.message}`.trim(); }
    report.series.push(s);
    lastSample = s;
    return s;
  };
  const gcHeap = async (label) => {
    if (!gwJava) return null;
    const r = spawnSync('jcmd', [String(gwJava), 'GC.run'], { encoding: 'utf8', timeout: 30000 });
    if (r.status !== 0) { report.errors.push(`jcmd GC.run (${label}): ${(r.stderr || r.stdout || '').trim().split('\n').pop()}`); return null; }
    await sleep(500);
    const s = await sample();
    // what the live heap holds, for a heap that did not stay flat: the classes with the most bytes
    const h = spawnSync('jcmd', [String(gwJava), 'GC.class_histogram'], { encoding: 'utf8', timeout: 30000, maxBuffer: 64 * 1048576 });
    if (h.status === 0) fs.writeFileSync(path.join(out, `heap-histogram-${label.replace(/\W+/g, '-')}.txt`), h.stdout.split('\n').slice(0, 60).join('\n'));
    return s.heap_mib;
  };
  const sampler = setInterval(() => { sample().catch(() => {}); }, SAMPLE_S * 1000);
  await sample();

  // --- well-formed traffic
  const moFile = usersFile(path.join(out, 'mo-users.txt'), moUsers);
  const mtFile = usersFile(path.join(out, 'mt-users.txt'), [{ user: 'alice', password: pw('alice') }]);
  const vanishFile = usersFile(path.join(out, 'vanish-users.txt'), [vanishUser]);
  const prof = ['--profile', 'A-SRTP', '--profiles', process.env.BENCH_PROFILES || path.join(ROOT, 'media-relay/bench/profiles.json')];
  const moJson = path.join(out, 'loadgen-mo.json');
  const mtJson = path.join(out, 'loadgen-mt.json');
  let moLine = '', mtLine = '';
  const mt = start('loadgen-mt', bin(ROOT, 'loadgen'), ['--gateway', base, '--users', mtFile, '--answer', '--expect-calls', String(calls),
    '--duration', String(o.hold), '--timeout', String(durS + o.hold + 120), '--json', mtJson, ...prof],
  { log: path.join(logDir, 'loadgen-mt.log'), onLine: (l) => { if (/^\[/.test(l)) mtLine = l; } });
  for (let i = 0; i < 200 && !/answering incoming calls/.test(mt.tail()); i += 1) if (await waitFor(mt, 100)) break;
  if (!/answering incoming calls/.test(mt.tail())) {
    report.errors.push(`loadgen --answer did not log in: ${lastLine(mt.tail())}`);
    await stop(mt); clearInterval(sampler); report.verdict = 'fail'; report.why.push('MT side did not start'); finish();
    return 1;
  }
  const mo = start('loadgen-mo', bin(ROOT, 'loadgen'), ['--gateway', base, '--users', moFile, '--to', 'ue1', '--calls', String(calls), '--cps', String(o.cps),
    '--duration', String(o.hold), '--json', moJson, ...prof],
  { log: path.join(logDir, 'loadgen-mo.log'), onLine: (l) => { if (/^\[/.test(l)) moLine = l; } });
  const uacDir = path.join(out, 'mt-sipp');
  fs.mkdirSync(uacDir, { recursive: true });
  const uac = start('sipp-mt', 'bash', [path.join(ROOT, 'sipp-scenarios/run-ue.sh'), 'load-uac', 'alice', String(o.cps), String(calls), String(o.hold * 1000 + 2000)],
    { log: path.join(logDir, 'sipp-mt.log'), group: true,
      env: { ...process.env, UE_QUIET: '1', UE_RTP_ECHO: '1', LAB_LOGDIR: uacDir, KAMAILIO: ADDRESSES.pcscf, IMS_USERS: path.join(ROOT, 'ims-sim/users.txt') } });

  // --- bad input and faults, until the traffic's time is over
  const bob = await openSocket(base, 'bob', pw('bob'));
  const dave = await openSocket(base, 'dave', pw('dave'));
  const kinds = [...Object.keys(WS_KINDS), 'ws-flood', 'sip', 'bad-login', 'login-flood', 'sip'];
  let tick = 0, sipIdx = 0, floodN = 0, lastBadLogin = -60, lastFlood = -60, nextVanish = Math.min(60, durS / 2);
  const record = (r) => {
    const k = r.kind.startsWith('sip:') ? 'sip-corpus' : r.kind;
    const b = (report.bad_input.by_kind[k] ??= { sent: 0, answered_as_expected: 0, mismatches: 0 });
    b.sent += 1;
    if (r.ok) b.answered_as_expected += 1; else { b.mismatches += 1; report.bad_input.mismatches.push({ t_s: Math.round((Date.now() - t0) / 1000), ...r }); }
  };
  const vanish = async () => {
    const f = { kind: 'browser-vanishes', at_s: Math.round((Date.now() - t0) / 1000), user: vanishUser.user };
    const ended0 = await getText(`${base}/actuator/prometheus`).then((r) => scrapeValue(r.text, 'gw_calls_ended_total', /reason="websocket-closed"/) ?? 0).catch(() => null);
    const lg = start('loadgen-vanish', bin(ROOT, 'loadgen'), ['--gateway', base, '--users', vanishFile, '--to', 'ue1', '--calls', '1', '--duration', '60', ...prof],
      { log: path.join(logDir, 'loadgen-vanish.log') });
    let up = false;
    for (let i = 0; i < 150 && !up; i += 1) { if (await waitFor(lg, 100)) break; up = / 1 in media/.test(lg.tail()); }
    await stop(lg, 'SIGKILL', 2000);
    f.call_was_up = up;
    let ended = null;
    for (let i = 0; i < 20 && up; i += 1) {
      await sleep(500);
      const v = await getText(`${base}/actuator/prometheus`).then((r) => scrapeValue(r.text, 'gw_calls_ended_total', /reason="websocket-closed"/) ?? 0).catch(() => null);
      if (v != null && ended0 != null && v > ended0) { ended = (i + 1) * 0.5; break; }
    }
    f.ended_websocket_closed_after_s = ended;
    f.ok = up && ended != null;
    f.expected = 'the call is up; the socket dies with the process; the gateway ends the call (websocket-closed: BYE + rtpengine delete) within 10 s';
    report.faults.push(f);
    log(`fault: browser vanished mid-call (${vanishUser.user}): ${f.ok ? `call ended (websocket-closed) ${ended} s later` : up ? 'FAIL: the call was not ended within 10 s' : 'FAIL: the call never came up'}`);
  };
  let lastProgress = 0;
  while ((Date.now() - t0) / 1000 < durS) {
    const el = (Date.now() - t0) / 1000;
    if (el >= nextVanish && el < durS - 20) { nextVanish += VANISH_EVERY_S; await vanish(); continue; }
    const kind = kinds[tick % kinds.length];
    tick += 1;
    try {
      if (WS_KINDS[kind]) record(await wsBad(bob, kind));
      else if (kind === 'ws-flood') record(await wsFlood(dave));
      else if (kind === 'sip') { record(await sipCase(CORPUS[sipIdx % CORPUS.length])); sipIdx += 1; }
      else if (kind === 'bad-login' && el - lastBadLogin >= 60) { lastBadLogin = el; record(await badLogin(base, 'carol', pw('carol'))); }
      else if (kind === 'login-flood' && el - lastFlood >= 60) {
        lastFlood = el; floodN += 1;
        record(await loginFlood(base, `127.0.3.${floodN}`, floodN));
      }
    } catch (e) { report.errors.push(`${kind}: ${e.message}`); }
    if (el - lastProgress >= 10) {
      if (Math.floor(el / 60) > Math.floor(lastProgress / 60)) finish(); // a partial report each minute
      lastProgress = el;
      const s = lastSample ?? {};
      const bad = Object.values(report.bad_input.by_kind).reduce((a, b) => [a[0] + b.sent, a[1] + b.mismatches], [0, 0]);
      log(`${Math.round(el)}/${durS} s | MO ${moLine.replace(/^\[\s*\d+s\]\s*/, '').split('|')[0].trim()} | MT ${mtLine.replace(/^\[\s*\d+s\]\s*/, '').split('|')[0].trim()} | `
        + `bad input ${bad[0]} sent, ${bad[1]} mismatched | gw heap ${s.heap_mib} MiB, ${s.threads} threads, ${s.fds} fds, ${s.calls} calls, ${s.dialogs} dialogs, rtpengine ${s.rtpengine_sessions} sessions`);
    }
    if (report.heap_after_gc_first_minute_mib === undefined && el >= 60) {
      report.heap_after_gc_first_minute_mib = await gcHeap('first minute');
      log(`heap after a full GC at ${Math.round(el)} s: ${report.heap_after_gc_first_minute_mib} MiB`);
    }
    await sleep(BAD_EVERY_S * 1000);
  }
  if (report.heap_after_gc_first_minute_mib === undefined) report.heap_after_gc_first_minute_mib = await gcHeap('first minute');

  // --- the traffic ends on its own; wait for it (bounded)
  log('traffic time over: waiting for the last calls to end');
  // One shared deadline. A loadgen that wrote its report (--json is written after the last call ended and
  // the session logged out) and then lingers is stopped after 30 s without counting as a failure: after
  // 3000-call runs loadgen was seen to keep a core busy for minutes after its report (a loadgen issue, noted
  // in report.errors); its verdict is then read from the report's totals (below).
  const deadline = Date.now() + (o.hold + 120) * 1000;
  const exits = {};
  const jsonOf = { 'loadgen-mo': moJson, 'loadgen-mt': mtJson };
  for (const p of [mo, uac, mt]) {
    let r = null;
    while (!r && Date.now() < deadline) {
      r = await waitFor(p, 1000);
      const j = jsonOf[p.name];
      if (!r && j && fs.existsSync(j) && Date.now() - fs.statSync(j).mtimeMs > 30000) {
        report.errors.push(`${p.name} wrote its report but had not exited 30 s later: stopped (its totals decide)`);
        r = { ...(await stop(p, 'SIGKILL', 2000)), lingered: true };
      }
    }
    if (!r) { report.errors.push(`${p.name} did not finish in time: stopped`); r = await stop(p); }
    exits[p.name] = r.lingered ? 'lingered' : r.code;
  }
  await bob.close(base);
  await dave.close(base);
  const moLg = loadgenTotals(moJson);
  const mtLg = loadgenTotals(mtJson);
  const stat = readStat(path.join(uacDir, 'sipp-load-uac-alice-stat.csv'));
  report.calls.mo = { attempted: calls, completed: moLg?.totals?.setup_ok ?? null, failed: moLg ? (moLg.totals?.failed ?? 0) + (moLg.totals?.ended_early ?? 0) : null,
    ended_early: moLg?.totals?.ended_early ?? null, failed_by_reason: failureReasons(moLg), loadgen_exit: exits['loadgen-mo'],
    setup_ms: moLg?.setup_ms ?? null };
  report.calls.mt = { attempted: calls, placed_by_sipp: stat?.created ?? null, completed: mtLg?.totals?.setup_ok ?? null,
    failed: stat ? stat.failed + Math.max(0, calls - stat.successful - stat.failed) : null, sipp_successful: stat?.successful ?? null,
    failed_by_reason: failureReasons(mtLg), loadgen_exit: exits['loadgen-mt'], sipp_exit: exits['sipp-mt'] };

  log(`settling ${SETTLE_S} s (BYEs, rtpengine deletes, a reconciler round, dialog cleanup)`);
  await sleep(SETTLE_S * 1000);
  const heapEnd = await gcHeap('end');
  const end = await sample();
  clearInterval(sampler);
  report.heap_after_gc_end_mib = heapEnd;
  report.leaks = { rtpengine_sessions_at_end: end.rtpengine_sessions, calls_at_end: end.calls, sip_dialogs_at_end: end.dialogs, websockets_at_end: end.websockets };

  // --- flatness: the first traffic minute vs the last one
  const inWin = (a, b) => report.series.filter((s) => s.t_s >= a && s.t_s < b && s.threads != null);
  const first = inWin(0, 60), last = inWin(Math.max(0, durS - 60), durS);
  const max = (xs, k) => (xs.length ? Math.max(...xs.map((s) => s[k] ?? 0)) : null);
  const h0 = report.heap_after_gc_first_minute_mib, h1 = heapEnd;
  const heapLimit = h0 == null ? null : Math.round(Math.max(h0 * (1 + FLAT.heap_pct / 100), h0 + FLAT.heap_min_mib) * 10) / 10;
  report.flat = {
    heap_after_gc_mib: { first_minute: h0, end: h1, limit: heapLimit, ok: h0 != null && h1 != null && h1 <= heapLimit },
    threads: { first_minute_max: max(first, 'threads'), last_minute_max: max(last, 'threads'), ok: max(last, 'threads') <= max(first, 'threads') + FLAT.threads },
    fds: { first_minute_max: max(first, 'fds'), last_minute_max: max(last, 'fds'), ok: max(last, 'fds') <= max(first, 'fds') + FLAT.fds },
  };

  // --- verdict
  const why = report.why;
  if (report.calls.mo.failed !== 0) why.push(`MO: ${report.calls.mo.failed ?? 'unknown'} failed well-formed calls`);
  if (report.calls.mo.completed !== calls) why.push(`MO: ${report.calls.mo.completed} of ${calls} set up`);
  if (report.calls.mt.failed !== 0) why.push(`MT: ${report.calls.mt.failed ?? 'unknown'} failed well-formed calls`);
  if (report.calls.mt.completed !== calls) why.push(`MT: ${report.calls.mt.completed} of ${calls} answered by loadgen`);
  for (const [n, c] of Object.entries(exits)) if (c !== 0 && c !== 'lingered') why.push(`${n} exited ${c}`);
  // a lingering loadgen's exit status is not known: its report must then show every call ended as expected
  for (const [n, lg] of [['loadgen-mo', moLg], ['loadgen-mt', mtLg]]) {
    const t = lg?.totals ?? {};
    if (exits[n] === 'lingered' && !(t.failed === 0 && t.ended_early === 0 && t.hung_up === calls)) why.push(`${n}: its report shows calls not ended as expected (${JSON.stringify(t).slice(0, 200)})`);
  }
  const mism = report.bad_input.mismatches.length;
  if (mism) why.push(`${mism} bad input(s) not answered with their error`);
  for (const f of report.faults) if (!f.ok) why.push(`fault ${f.kind} at ${f.at_s} s: not handled`);
  if (end.rtpengine_sessions !== 0) why.push(`${end.rtpengine_sessions ?? 'unknown'} rtpengine sessions of the gateway left`);
  if (end.calls !== 0) why.push(`${end.calls ?? 'unknown'} gateway calls left`);
  if (end.dialogs !== 0) why.push(`${end.dialogs ?? 'unknown'} SIP dialogs left`);
  for (const [k, v] of Object.entries(report.flat)) if (!v.ok) why.push(`${k} not flat: ${JSON.stringify(v)}`);
  report.verdict = why.length ? 'fail' : 'pass';
  report.finished = new Date().toISOString();
  finish();

  const b = report.bad_input.by_kind;
  console.log(`\nsoak ${o.minutes} min at ${o.cps} calls/s each way: ${report.verdict.toUpperCase()}`);
  console.log(`  MO calls: ${calls} attempted, ${report.calls.mo.completed} set up, ${report.calls.mo.failed} failed ${JSON.stringify(report.calls.mo.failed_by_reason)}`);
  console.log(`  MT calls: ${calls} attempted, ${report.calls.mt.sipp_successful} completed (SIPp), ${report.calls.mt.failed} failed ${JSON.stringify(report.calls.mt.failed_by_reason)}`);
  console.log(`  bad input: ${Object.entries(b).map(([k, v]) => `${k} ${v.answered_as_expected}/${v.sent}`).join(', ')}`);
  console.log(`  faults: ${report.faults.map((f) => `${f.kind} at ${f.at_s} s ${f.ok ? 'ok' : 'FAIL'}`).join(', ') || 'none'}`);
  console.log(`  at the end: ${end.rtpengine_sessions} rtpengine sessions, ${end.calls} calls, ${end.dialogs} SIP dialogs`);
  console.log(`  heap after GC ${h0} -> ${h1} MiB (limit ${heapLimit}); threads max ${report.flat.threads.first_minute_max} -> ${report.flat.threads.last_minute_max}; fds max ${report.flat.fds.first_minute_max} -> ${report.flat.fds.last_minute_max}`);
  for (const w of why) console.log(`  why: ${w}`);
  for (const e of report.errors) console.log(`  error: ${e}`);
  return report.verdict === 'pass' ? 0 : 1;
}

process.on('SIGTERM', () => { stopAll(); process.exit(143); });
process.on('SIGINT', () => { stopAll(); process.exit(130); });
main().then((rc) => process.exit(rc), (e) => { console.error(`soak: ${e.stack ?? e.message}`); stopAll(); process.exit(1); });
