// ./lab soak --minutes M --cps R [--hold S] [--gateways G --relays R]: the gateway under a long mixed load
// (docs/soak.md). Well-formed calls both ways for M minutes (MO: loadgen --gateway, the browser API; MT: SIPp ue2
// calls alice, loadgen --answer answers), in rounds (each a fresh login, as a browser that comes back), mixed with
// bad input (harness/soak/badinput.mjs) and faults (a browser that vanishes mid-call; with the hosts layout
// (SOAK_HOSTS, written by harness/lib/soak.sh) also a relay host's kill, a Kamailio restart and a gateway host's
// kill, kit/failover.mjs); samples the gateways (heap, threads, fds, calls, dialogs) and the relays' sessions every
// 5 s; at the end checks that every call no fault touched completed, counts the touched ones by outcome, and checks
// that nothing leaked and that heap/threads/fds stayed flat.
// Writes OUT/report.json + report.html; exit 0 = every criterion met, 1 = not, 2 = bad usage.
import fs from 'node:fs';
import path from 'node:path';
import { execFile, spawnSync } from 'node:child_process';
import { ADDRESSES } from '../kit/addresses.mjs';
import { writeReport } from '../kit/report.mjs';
import { lastLine, sleep, start, stop, stopAll, waitFor } from '../kit/procs.mjs';
import { javaPid } from '../bench/jfr.mjs';
import { bin } from '../bench/step.mjs';
import { readStat } from '../bench/setup-rate.mjs';
import { CORPUS, badLogin, loginFlood, openSocket, sipCase, wsBad, wsFlood, WS_KINDS } from './badinput.mjs';
import { renderHtml } from './html.mjs';
import { useAddresses } from './badinput.mjs';
import { gatewayKill, mediaOf, relayKill } from '../kit/failover.mjs';
import { listCalls } from '../kit/ng.mjs';
import { commandOf, kill as killComponent, startAgain } from '../kit/restart.mjs';

const ROOT = process.env.LAB_ROOT || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SAMPLE_S = 5;
const BAD_EVERY_S = 3;          // one bad input every 3 s, kinds in rotation
const VANISH_EVERY_S = 120;     // a browser vanishes mid-call every 2 minutes (the first at 60 s; 30 s in a 1-minute run)
const SETTLE_S = 25;            // after the traffic: BYEs, deletes, one reconciler round (10 s) and JAIN-SIP's dialog cleanup
// "flat" (docs/soak.md): heap after a full GC at the end within 20 % (at least 16 MiB) of the one after the
// first minute; the last minute's highest thread and fd counts at most 10 / 20 above the first minute's.
export const FLAT = { heap_pct: 20, heap_min_mib: 16, threads: 10, fds: 20 };

export function parseArgs(argv) {
  const o = { minutes: 10, cps: 5, hold: 3, out: null, gateway: ADDRESSES.gatewayHttp, check: false, gateways: 1, relays: 1 };
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
    else if (a === '--gateways') o.gateways = num('--gateways', val(), 1, 4);
    else if (a === '--relays') o.relays = num('--relays', val(), 1, 4);
    else throw new Error(`unknown option for soak: ${a}`);
  }
  // the hosts layout's faults are spread over rounds of the traffic (a relay kill, a Kamailio restart, a gateway
  // kill, each in a round of its own): at least three rounds
  if ((o.gateways > 1 || o.relays > 1) && o.minutes < 3) throw new Error('--gateways/--relays want --minutes 3 or more (a round of traffic per fault)');
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

// The rounds of the traffic: one round over the whole run on the one-gateway layout; with the hosts layout rounds
// of 60 s (runs up to 10 min) or 5 min, so that a fault has a round of its own and the next round logs in afresh
// (a browser whose gateway died logs in again: loadgen does not, its sessions end with their gateway).
export function roundsOf(durS, hosts) {
  if (!hosts) return [durS];
  const len = durS <= 600 ? 60 : 300;
  const n = Math.max(1, Math.floor(durS / len));
  return Array.from({ length: n }, (_, i) => (i === n - 1 ? durS - len * (n - 1) : len));
}

// Which round each fault of the hosts layout falls in (n rounds, n >= 3): the relay kill a quarter in, the Kamailio
// restart half way, the gateway kill (after its round's last call is placed) three quarters in.
export function faultRounds(n) {
  const relay = Math.floor(n / 4);
  const kamailio = Math.max(relay + 1, Math.floor(n / 2));
  const gateway = Math.min(n - 1, Math.max(kamailio + 1, Math.floor((3 * n) / 4)));
  return { relay, kamailio, gateway };
}

// A touched call's outcome (docs/soak.md): kept (set up, media to its end, its end confirmed), ended (ended early or
// refused, with a reason), lost (neither: no media after the fault, or no answer at all).
function outcomeOf(c) {
  if (!c) return { outcome: 'lost', reason: 'not in loadgen\'s report' };
  if (c.setup_ok && !c.ended_early && c.hung_up && c.recv > 0) return { outcome: 'kept' };
  if (c.ended_early) return { outcome: 'ended', reason: c.end_reason ?? 'ended early' };
  if (!c.setup_ok && (c.sip_code || c.end_reason)) return { outcome: 'ended', reason: c.sip_code ? `SIP ${c.sip_code}` : c.end_reason };
  return { outcome: 'lost', reason: c.error ?? c.fail_phase ?? 'no end confirmed' };
}

const untouchedOk = (c) => c.setup_ok && !c.ended_early && c.hung_up;

async function main() {
  let o;
  try { o = parseArgs(process.argv.slice(2)); } catch (e) { console.error(`soak: ${e.message}`); process.exit(2); }
  const HOSTS = process.env.SOAK_HOSTS ? JSON.parse(fs.readFileSync(process.env.SOAK_HOSTS, 'utf8')) : null;
  const durS = o.minutes * 60;
  const rounds = roundsOf(durS, o.gateways > 1 || o.relays > 1);
  const expectedS = durS + rounds.length * (o.hold + 10) + SETTLE_S + 60 + (rounds.length > 1 ? 90 : 0);
  if (o.check) { console.log(`expected_s=${expectedS} cap_s=${expectedS + 300} gateways=${o.gateways} relays=${o.relays}`); return 0; }
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
  const calls = o.cps * durS;
  const localIp = HOSTS ? ['--local-ip', HOSTS.client] : [];
  if (HOSTS) useAddresses({ local: HOSTS.client, gatewaySip: HOSTS.gateway_sip });
  // the gateways (one; or each on its host) and the relays: dead ones leave these lists' `live`
  const gws = HOSTS ? HOSTS.gateways.map((g) => ({ ...g, live: true })) : [{ index: 1, name: 'gateway', url: base, ns: null, live: true }];
  const relays = HOSTS ? HOSTS.relays : [];
  const faultPlan = HOSTS ? faultRounds(rounds.length) : {};
  const report = {
    kind: 'soak', started: new Date().toISOString(), minutes: o.minutes, cps_per_direction: o.cps, hold_s: o.hold,
    layout: HOSTS ? { gateways: o.gateways, relays: o.relays, entry: base, hosts: 'each gateway, relay, Kamailio (with the UEs), Redis and HAProxy in a network namespace of its own (docs/scale-out.md)' } : { gateways: 1, relays: 1, hosts: 'one private namespace, loopback' },
    rounds: [], fault_plan: HOSTS ? Object.fromEntries(Object.entries(faultPlan).filter(([k]) => (k === 'relay' ? o.relays > 1 : k === 'gateway' ? o.gateways > 1 : true))) : null,
    gateway: base, gateway_args: process.env.SOAK_GATEWAY_ARGS ?? null, flat_definition: FLAT,
    calls: {}, touched: {}, bad_input: { by_kind: {}, mismatches: [] }, faults: [], series: [], leaks: {}, flat: {}, verdict: null, why: [], errors: [],
  };
  const pidsLine = (name) => { try { return fs.readFileSync(process.env.LAB_PIDS, 'utf8').split('\n').filter((l) => l.startsWith(`${name} `)).pop(); } catch { return null; } };
  for (const g of gws) {
    const l = pidsLine(g.name);
    g.java = l ? javaPid(Number(l.split(/\s+/)[1])) : null;
    if (!g.java) report.errors.push(`the JVM of ${g.name} was not found in $LAB_PIDS: no heap-after-GC figures for it`);
  }
  const finish = () => writeReport(out, report, renderHtml);

  // a gateway's Prometheus text (each gateway's actuator answers its own host only: asked there)
  const promOf = async (g) => {
    if (!g.ns) return (await getText(`${g.url}/actuator/prometheus`)).text;
    return new Promise((resolve, reject) => execFile('ip', ['netns', 'exec', g.ns, 'curl', '-sf', '-m', '4', `${g.url}/actuator/prometheus`],
      { maxBuffer: 16 << 20, timeout: 6000 }, (err, stdout) => (err ? reject(new Error(`metrics of ${g.name} on ${g.ns}: ${err.message.split('\n')[0]}`)) : resolve(stdout))));
  };
  const relaySessions = async () => {
    if (!HOSTS) {
      const { status, text } = await getText(`${base}/api/v1/rtpengine/sessions`);
      return status === 200 ? JSON.parse(text).count : null;
    }
    // every call any relay holds, each once (a relay also lists its standby copies of another's calls)
    const ids = new Set((await Promise.all(relays.map((r) => listCalls(r.ng).catch(() => [])))).flat());
    return ids.size;
  };
  const endedWsClosed = async () => {
    let sum = 0;
    for (const g of gws.filter((x) => x.live)) sum += scrapeValue(await promOf(g), 'gw_calls_ended_total', /reason="websocket-closed"/) ?? 0;
    return sum;
  };

  const faultsTxt = HOSTS ? `; a relay host killed in round ${faultPlan.relay + 1}, Kamailio restarted in round ${faultPlan.kamailio + 1}, a gateway host killed at the end of round ${faultPlan.gateway + 1}` : '';
  log(`soak: ${o.minutes} min, ${o.cps} calls/s each way (MO ${calls} calls via the browser API from ${moUsers.length} users to ue1; `
    + `MT ${calls} calls ue2 -> alice), calls held ${o.hold} s, ${rounds.length} round(s)${HOSTS ? ` on ${o.gateways} gateway + ${o.relays} relay hosts behind ${base}` : ''}; `
    + `bad input every ${BAD_EVERY_S} s; a browser vanishes mid-call every ${VANISH_EVERY_S / 60} min${faultsTxt}`);

  // --- sampler: per gateway, and the top-level figures of the first (it outlives every fault) plus the sums
  const t0 = Date.now();
  const tS = (ms = Date.now()) => Math.round((ms - t0) / 100) / 10;
  let lastSample = null;
  const sample = async () => {
    const s = { t_s: tS(), per_gateway: {} };
    for (const g of gws.filter((x) => x.live)) {
      const p = {};
      try {
        const text = await promOf(g);
        p.heap_mib = Math.round((scrapeValue(text, 'jvm_memory_used_bytes', /area="heap"/) ?? NaN) / 1048576 * 10) / 10;
        p.threads = scrapeValue(text, 'jvm_threads_live_threads');
        p.fds = scrapeValue(text, 'process_files_open_files');
        p.calls = scrapeValue(text, 'gw_calls_active');
        p.dialogs = scrapeValue(text, 'gw_sip_dialogs');
        p.websockets = scrapeValue(text, 'gw_websocket_sessions');
        p.registrations = scrapeValue(text, 'gw_registrations');
      } catch (e) { p.error = `metrics: ${e.message}`; s.error = p.error; }
      s.per_gateway[g.name] = p;
    }
    const first = s.per_gateway[gws[0].name] ?? {};
    Object.assign(s, { heap_mib: first.heap_mib, threads: first.threads, fds: first.fds });
    for (const k of ['calls', 'dialogs', 'websockets', 'registrations']) {
      const v = Object.values(s.per_gateway).map((p) => p[k]).filter((x) => x != null);
      s[k] = v.length ? v.reduce((a, b) => a + b, 0) : null;
    }
    try { s.rtpengine_sessions = await relaySessions(); } catch (e) { s.error = `${s.error ?? ''} rtpengine list: ${e.message}`.trim(); }
    if (!HOSTS) delete s.per_gateway;
    report.series.push(s);
    lastSample = s;
    return s;
  };
  const gcHeap = async (g, label) => {
    if (!g.java) return null;
    const r = spawnSync('jcmd', [String(g.java), 'GC.run'], { encoding: 'utf8', timeout: 30000 });
    if (r.status !== 0) { report.errors.push(`jcmd GC.run on ${g.name} (${label}): ${(r.stderr || r.stdout || '').trim().split('\n').pop()}`); return null; }
    await sleep(500);
    const s = await sample();
    // what the live heap holds, for a heap that did not stay flat: the classes with the most bytes
    const h = spawnSync('jcmd', [String(g.java), 'GC.class_histogram'], { encoding: 'utf8', timeout: 30000, maxBuffer: 64 * 1048576 });
    if (h.status === 0) fs.writeFileSync(path.join(out, `heap-histogram-${HOSTS ? `${g.name}-` : ''}${label.replace(/\W+/g, '-')}.txt`), h.stdout.split('\n').slice(0, 60).join('\n'));
    return HOSTS ? s.per_gateway[g.name]?.heap_mib ?? null : s.heap_mib;
  };
  const sampler = setInterval(() => { sample().catch(() => {}); }, SAMPLE_S * 1000);
  await sample();

  // --- well-formed traffic, round by round
  const moFile = usersFile(path.join(out, 'mo-users.txt'), moUsers);
  const mtFile = usersFile(path.join(out, 'mt-users.txt'), [{ user: 'alice', password: pw('alice') }]);
  const vanishFile = usersFile(path.join(out, 'vanish-users.txt'), [vanishUser]);
  const prof = ['--profile', 'A-SRTP', '--profiles', process.env.BENCH_PROFILES || path.join(ROOT, 'media-relay/bench/profiles.json')];
  let moLine = '', mtLine = '';
  const state = { round: -1, roundT0: 0, roundLen: 0, done: false, windows: [], touchedIds: new Map(), faultRounds: new Map() };
  const faultRound = (n) => state.faultRounds.has(n); // 1-based round numbers that had a relay kill, Kamailio restart or gateway kill
  // a fault's window: calls set up (or in progress) in it are touched by it; ids: the calls it held (relay call-ids)
  const touchWindow = (kind, fromMs, toMs) => state.windows.push({ kind, from: fromMs, to: toMs });
  const touchIds = (kind, ids) => { for (const id of ids) state.touchedIds.set(id.replace(/^gw\d+-/, ''), kind); };

  const runRound = async (ri) => {
    const len = rounds[ri];
    const n = o.cps * len;
    const dir = rounds.length > 1 ? path.join(out, `round-${ri + 1}`) : out;
    fs.mkdirSync(dir, { recursive: true });
    const tag = rounds.length > 1 ? `-r${ri + 1}` : '';
    const moJson = path.join(dir, 'loadgen-mo.json');
    const mtJson = path.join(dir, 'loadgen-mt.json');
    const rr = { round: ri + 1, seconds: len, calls_each_way: n, faults: [] };
    const mt = start(`loadgen-mt${tag}`, bin(ROOT, 'loadgen'), ['--gateway', base, '--users', mtFile, '--answer', '--expect-calls', String(n),
      '--duration', String(o.hold), '--timeout', String(len + o.hold + 120), '--json', mtJson, ...prof, ...localIp],
    { log: path.join(logDir, `loadgen-mt${tag}.log`), onLine: (l) => { if (/^\[/.test(l)) mtLine = l; } });
    for (let i = 0; i < 300 && !/answering incoming calls/.test(mt.tail()); i += 1) if (await waitFor(mt, 100)) break;
    if (!/answering incoming calls/.test(mt.tail())) {
      report.errors.push(`round ${ri + 1}: loadgen --answer did not log in: ${lastLine(mt.tail())}`);
      await stop(mt);
      rr.error = 'MT side did not start';
      report.rounds.push(rr);
      return rr;
    }
    const mo = start(`loadgen-mo${tag}`, bin(ROOT, 'loadgen'), ['--gateway', base, '--users', moFile, '--to', 'ue1', '--calls', String(n), '--cps', String(o.cps),
      '--duration', String(o.hold), '--json', moJson, ...prof, ...localIp],
    { log: path.join(logDir, `loadgen-mo${tag}.log`), onLine: (l) => { if (/^\[/.test(l)) moLine = l; } });
    const moT0 = Date.now();
    const uacDir = path.join(dir, 'mt-sipp');
    fs.mkdirSync(uacDir, { recursive: true });
    const gwKillHere = HOSTS && o.gateways > 1 && ri === faultPlan.gateway;
    // the gateway kill's round keeps ue2's message log: the takeover's BYEs are looked for there
    const ueEnv = { ...process.env, UE_QUIET: gwKillHere ? '0' : '1', UE_RTP_ECHO: '1', LAB_LOGDIR: uacDir,
      KAMAILIO: HOSTS ? HOSTS.pcscf : ADDRESSES.pcscf, IMS_USERS: path.join(ROOT, 'ims-sim/users.txt'), ...(HOSTS ? { UE_IP: HOSTS.ims_addr } : {}) };
    const ueArgs = [path.join(ROOT, 'sipp-scenarios/run-ue.sh'), 'load-uac', 'alice', String(o.cps), String(n), String(o.hold * 1000 + 2000)];
    const uac = HOSTS ? start(`sipp-mt${tag}`, 'ip', ['netns', 'exec', HOSTS.ims_ns, 'bash', ...ueArgs], { log: path.join(logDir, `sipp-mt${tag}.log`), group: true, env: ueEnv })
      : start(`sipp-mt${tag}`, 'bash', ueArgs, { log: path.join(logDir, `sipp-mt${tag}.log`), group: true, env: ueEnv });
    Object.assign(state, { round: ri, roundT0: moT0, roundLen: len });

    if (gwKillHere) {
      // after the round's last call is placed, while its last calls are up: the last gateway's host dies. No login
      // of the bad input from 1 s before it until HAProxy has surely marked it down (2 missed checks of 1 s, + margin):
      // a login in flight to the dying gateway is cut ("socket hang up"), which is the kill's doing, not a bad answer
      const killAt = moT0 + len * 1000 + 800;
      state.noLoginsFrom = killAt - 1000;
      state.noLoginsUntil = killAt + 8000;
      await sleep(Math.max(0, killAt - Date.now()));
      const g = gws[gws.length - 1];
      const ids = (await Promise.all(relays.map((r) => listCalls(r.ng).catch(() => [])))).flat();
      const held = [...new Set(ids.filter((id) => id.startsWith(`gw${g.index}-`)))];
      const atS = tS();
      state.faultRounds.set(ri + 1, 'gateway-kill');
      try {
        g.live = false;
        const k = await gatewayKill({ pidsFile: process.env.LAB_PIDS, name: g.name, ns: g.ns, index: g.index, held, relays: relays.map((r) => r.ng),
          ueLogs: [HOSTS.ue1_log, path.join(uacDir, 'sipp-load-uac-alice-messages.log')] });
        touchIds('gateway-kill', held);
        const f = { kind: 'gateway-kill', at_s: atS, round: ri + 1, gateway: g.name, host: g.ns, calls_held: k.calls_held, ended_cleanly: k.ended_cleanly,
          lost: k.lost, bye_ms: k.bye_ms, calls: k.calls, ok: k.lost === 0,
          expected: 'a live gateway ends each call of the dead one from Redis: a BYE at the UE and its relay session deleted within 15 s; 0 lost' };
        report.faults.push(f);
        rr.faults.push('gateway-kill');
        log(`fault: gateway host ${g.ns} killed (${g.name}): ${k.outcome}`);
      } catch (e) {
        report.faults.push({ kind: 'gateway-kill', at_s: atS, round: ri + 1, ok: false, error: e.message });
        log(`fault: gateway kill FAILED: ${e.message}`);
      }
    }

    // the round's traffic ends on its own; wait for it (bounded). A loadgen that wrote its report (--json is written
    // after the last call ended and the session logged out) and then lingers is stopped after 30 s without counting
    // as a failure: after 3000-call runs loadgen was seen to keep a core busy for minutes after its report (a loadgen
    // issue, noted in report.errors); its verdict is then read from the report's totals.
    const deadline = Date.now() + (len + o.hold + 150) * 1000;
    const exits = {};
    const jsonOf = { [mo.name]: moJson, [mt.name]: mtJson };
    for (const p of [mo, uac, mt]) {
      let r = null;
      // MT: once ue2 (SIPp) has placed and ended every call, loadgen --answer waits for no more than it got; a
      // fault's round may leave it short of --expect-calls (ue2's INVITEs refused after Kamailio's restart): it is
      // stopped (SIGTERM: it hangs up, logs out and writes its report) after the hold + 20 s
      const mtGrace = p === mt ? Date.now() + (o.hold + 20) * 1000 : Infinity;
      while (!r && Date.now() < deadline) {
        if (Date.now() > mtGrace) {
          report.errors.push(`round ${ri + 1}: loadgen --answer still waiting ${o.hold + 20} s after ue2 ended (it got ${(mt.tail().match(/MT calls (\d+)/) ?? [])[1] ?? 'fewer'} calls): stopped`);
          r = await stop(p, 'SIGTERM', 30000);
          break;
        }
        r = await waitFor(p, 1000);
        const j = jsonOf[p.name];
        if (!r && j && fs.existsSync(j) && Date.now() - fs.statSync(j).mtimeMs > 30000) {
          report.errors.push(`${p.name} wrote its report but had not exited 30 s later: stopped (its totals decide)`);
          r = { ...(await stop(p, 'SIGKILL', 2000)), lingered: true };
        }
      }
      if (!r) { report.errors.push(`${p.name} did not finish in time: stopped`); r = await stop(p); }
      exits[p.name.replace(tag, '')] = r.lingered ? 'lingered' : r.code;
    }
    Object.assign(rr, { mo: loadgenTotals(moJson), mt: loadgenTotals(mtJson), sipp: readStat(path.join(uacDir, 'sipp-load-uac-alice-stat.csv')), exits, mo_t0: moT0 });
    report.rounds.push(rr);
    if (gwKillHere) await sleep(4000); // HAProxy marks the dead gateway down (2 missed checks) before the next round's logins
    return rr;
  };
  const traffic = (async () => {
    for (let ri = 0; ri < rounds.length; ri += 1) await runRound(ri);
    state.done = true;
  })();

  // --- the relay kill and the Kamailio restart (hosts layout), half way into their rounds
  const relayKillNow = async () => {
    const ri = state.round;
    state.faultRounds.set(ri + 1, 'relay-kill');
    const i = relays.length - 1; // the last relay's host dies
    const atS = tS();
    try {
      const ids = [...new Set((await Promise.all(relays.map((r) => listCalls(r.ng).catch(() => [])))).flat())];
      const relayObjs = relays.map((r) => ({ addr: r.ng.slice(0, r.ng.lastIndexOf(':')), ng: r.ng }));
      const where = new Map();
      for (const id of ids) where.set(id, await mediaOf(relayObjs, relays[0].ng.slice(relays[0].ng.lastIndexOf(':') + 1), id).catch(() => null));
      const k = await relayKill({ pidsFile: process.env.LAB_PIDS, relays: relays.map((r) => r.ng), index: i, names: [relays[i].name, relays[i].vrrp],
        ns: relays[i].ns, where, imsHost: HOSTS.ims_ns, label: 'soak-relay-kill' });
      // a call without packets in the second before the kill or after it had ended (it was listed a few seconds
      // before, while the captures started): not touched
      const held = k.held.filter((h) => (h.to_browser.lastMs ?? -Infinity) > -1000 || (h.to_ims.lastMs ?? -Infinity) > -1000);
      touchIds('relay-kill', held.map((h) => h.id));
      // calls set up around the kill (an offer the dying relay took, ICE with it in flight: a trial run lost one
      // created 40 ms before the kill) and while the standby takes the address over: touched too
      touchWindow('relay-kill', k.at - 3000, k.at + (k.standby_answering_ms ?? 10000) + 2000);
      const f = { kind: 'relay-kill', at_s: atS, at_ms: k.at, round: ri + 1, relay: relays[i].name, host: relays[i].ns, standby_answering_ms: k.standby_answering_ms,
        calls_held: held.length, calls_ended_before_the_kill: k.held.length - held.length,
        // the gap: the longest silence between two packets of the call (to its end: calls held S s end in the window)
        media: held.map((h) => ({ id: h.id, gap_to_browser_ms: h.to_browser.innerGapMs, gap_to_ims_ms: h.to_ims.innerGapMs,
          last_packet_after_kill_ms: Math.min(h.to_browser.lastMs ?? 0, h.to_ims.lastMs ?? 0),
          media_after_both_ways: h.to_browser.after > 0 && h.to_ims.after > 0 })),
        other_relay_calls: k.others.length, other_relay_calls_gap_max_ms: k.others.length ? Math.max(...k.others.map((h) => Math.max(h.to_browser.innerGapMs ?? 0, h.to_ims.innerGapMs ?? 0))) : null,
        ok: k.standby_answering_ms != null, expected: 'the standby answers the dead relay\'s ng address (VRRP) and carries its calls on; every call is counted by outcome' };
      state.relayKill = f;
      report.faults.push(f);
      log(`fault: relay host ${relays[i].ns} killed (${relays[i].name}, ${held.length} calls): the standby answered its ng address ${k.standby_answering_ms} ms later; `
        + `gaps (ms) ${f.media.map((m) => `${Math.max(m.gap_to_browser_ms ?? 0, m.gap_to_ims_ms ?? 0)}${m.media_after_both_ways ? '' : ' (none after)'}`).join(', ')}`);
    } catch (e) {
      report.faults.push({ kind: 'relay-kill', at_s: atS, round: ri + 1, ok: false, error: e.message });
      log(`fault: relay kill FAILED: ${e.message}`);
    }
  };
  const kamailioAnswers = () => spawnSync('python3', [path.join(ROOT, 'harness/lib/sip-options.py'), HOSTS.pcscf, '0.5'], { timeout: 5000 }).status === 0;
  const kamailioRestartNow = async () => {
    const ri = state.round;
    state.faultRounds.set(ri + 1, 'kamailio-restart');
    const atS = tS();
    const at = Date.now();
    // down longer than the gateways' keepalive interval + its answer deadline (2 s + 2 s): each gateway has at least
    // one OPTIONS unanswered, which is how it learns that the P-CSCF may have lost its registrations (a 2 s restart
    // went unnoticed by one of two gateways in a trial run: its OPTIONS retransmission reached the new Kamailio)
    const f = { kind: 'kamailio-restart', at_s: atS, round: ri + 1, down_ms: 5000 };
    try {
      // Kamailio keeps its registrations in memory: the restart forgets them. The gateways' keepalive (OPTIONS every
      // 2 s, lab.ims.keepalive-ms) registers their users again; ue1 (SIPp, registers once when it starts) is started
      // again; this round's ue2 (SIPp, registered when the round began) gets 403 Not registered until the next round's.
      const kam = await killComponent('kamailio');
      const ue1 = await killComponent('ue1');
      await sleep(f.down_ms);
      startAgain('kamailio', kam);
      for (const end = Date.now() + 20000; !kamailioAnswers();) {
        if (Date.now() > end) throw new Error('Kamailio did not answer OPTIONS within 20 s of its restart');
        await sleep(200);
      }
      f.answering_ms = Date.now() - at;
      // ue1 as ./lab starts it (run-ue.sh uas: REGISTER, then sipp answers): its environment from the killed process
      const ue1Env = { ...ue1.env };
      const pid = startAgain('ue1', { ...ue1, argv: ['bash', path.join(ROOT, 'sipp-scenarios/run-ue.sh'), 'uas'], env: ue1Env });
      for (const end = Date.now() + 30000; ;) {
        let comm = '';
        try { comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim(); } catch { throw new Error('ue1 exited while registering again (see logs/ue1.log)'); }
        if (comm === 'sipp') break;
        if (Date.now() > end) throw new Error('ue1 did not register again within 30 s');
        await sleep(200);
      }
      f.ue1_registered_ms = Date.now() - at;
      f.ok = true;
      log(`fault: Kamailio restarted (down ${f.down_ms} ms): answering ${f.answering_ms} ms after the kill, ue1 registered again after ${f.ue1_registered_ms} ms`);
    } catch (e) {
      f.ok = false;
      f.error = e.message;
      log(`fault: Kamailio restart FAILED: ${e.message}`);
    }
    // touched: MO calls in progress or set up until the gateways' keepalive has registered their users again (2 s
    // keepalive + a REGISTER round, 8 s after ue1 is back); MT calls to the end of the round (ue2's registration is gone)
    const back = at + (f.ue1_registered_ms ?? 30000);
    touchWindow('kamailio-restart-mo', at - (o.hold + 3) * 1000, back + 8000);
    touchWindow('kamailio-restart-mt', at - (o.hold + 3) * 1000, state.roundT0 + state.roundLen * 1000 + 1000);
    f.expected = 'Kamailio answers again, ue1 registers again, the gateways register their users again (keepalive): every call after the window completes';
    report.faults.push(f);
  };

  // --- bad input and faults, until the traffic is over
  let bob = await openSocket(base, 'bob', pw('bob'));
  let dave = await openSocket(base, 'dave', pw('dave'));
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
    const ended0 = await endedWsClosed().catch(() => null);
    const lg = start('loadgen-vanish', bin(ROOT, 'loadgen'), ['--gateway', base, '--users', vanishFile, '--to', 'ue1', '--calls', '1', '--duration', '60', ...prof, ...localIp],
      { log: path.join(logDir, 'loadgen-vanish.log') });
    let up = false;
    for (let i = 0; i < 150 && !up; i += 1) { if (await waitFor(lg, 100)) break; up = / 1 in media/.test(lg.tail()); }
    await stop(lg, 'SIGKILL', 2000);
    f.call_was_up = up;
    let ended = null;
    for (let i = 0; i < 20 && up; i += 1) {
      await sleep(500);
      const v = await endedWsClosed().catch(() => null);
      if (v != null && ended0 != null && v > ended0) { ended = (i + 1) * 0.5; break; }
    }
    f.ended_websocket_closed_after_s = ended;
    f.ok = up && ended != null;
    f.expected = 'the call is up; the socket dies with the process; the gateway ends the call (websocket-closed: BYE + rtpengine delete) within 10 s';
    report.faults.push(f);
    log(`fault: browser vanished mid-call (${vanishUser.user}): ${f.ok ? `call ended (websocket-closed) ${ended} s later` : up ? 'FAIL: the call was not ended within 10 s' : 'FAIL: the call never came up'}`);
  };
  const inRound = (ri) => state.round === ri && Date.now() - state.roundT0 >= (state.roundLen * 1000) / 2;
  // no browser vanishes near another fault (its call would be touched by it)
  const nearFault = () => {
    if (!HOSTS) return false;
    const el = (Date.now() - state.roundT0) / 1000;
    return [faultPlan.relay, faultPlan.kamailio].includes(state.round) ? Math.abs(el - state.roundLen / 2) < 40
      : state.round === faultPlan.gateway && el > state.roundLen - 40;
  };
  let relayDone = !(HOSTS && o.relays > 1), kamDone = !HOSTS;
  let lastProgress = 0;
  const floodAddr = (n) => {
    if (!HOSTS) return `127.0.3.${n}`;
    // a fresh source address on the client host's link to the lab bridge (HAProxy passes it on: X-Forwarded-For)
    const a = `${HOSTS.client.slice(0, HOSTS.client.lastIndexOf('.'))}.${200 + (n % 50)}`;
    spawnSync('ip', ['addr', 'add', `${a}/${HOSTS.prefix_len}`, 'dev', HOSTS.client_dev], { timeout: 5000 });
    return a;
  };
  while (!state.done) {
    const el = (Date.now() - t0) / 1000;
    if (!relayDone && inRound(faultPlan.relay)) { relayDone = true; await relayKillNow(); continue; }
    if (!kamDone && inRound(faultPlan.kamailio)) { kamDone = true; await kamailioRestartNow(); continue; }
    if (el >= nextVanish && state.round >= 0 && Date.now() - state.roundT0 < (state.roundLen - 20) * 1000 && !nearFault()) { nextVanish = el + VANISH_EVERY_S; await vanish(); continue; }
    const kind = kinds[tick % kinds.length];
    tick += 1;
    const loginsPaused = Date.now() >= (state.noLoginsFrom ?? Infinity) && Date.now() < (state.noLoginsUntil ?? 0);
    if (loginsPaused && (kind === 'bad-login' || kind === 'login-flood')) { await sleep(100); continue; }
    try {
      // a socket whose gateway died logs in again, through the entry (as a browser)
      if (!bob.open()) bob = await openSocket(base, 'bob', pw('bob'));
      if (!dave.open()) dave = await openSocket(base, 'dave', pw('dave'));
      if (WS_KINDS[kind]) record(await wsBad(bob, kind));
      else if (kind === 'ws-flood') record(await wsFlood(dave));
      else if (kind === 'sip') { record(await sipCase(CORPUS[sipIdx % CORPUS.length])); sipIdx += 1; }
      else if (kind === 'bad-login' && el - lastBadLogin >= 60) { lastBadLogin = el; record(await badLogin(base, 'carol', pw('carol'))); }
      else if (kind === 'login-flood' && el - lastFlood >= 60) {
        lastFlood = el; floodN += 1;
        // each gateway counts an address's failed logins itself (lab.api.login-failures-per-address): behind HAProxy's
        // round robin an address gets up to 20 x G 401s before every live gateway answers 429
        const live = gws.filter((x) => x.live).length;
        record(await loginFlood(base, floodAddr(floodN), floodN, 20 * live + 10, 20, live));
      }
    } catch (e) { report.errors.push(`${kind}: ${e.message}`); }
    if (el - lastProgress >= 10) {
      if (Math.floor(el / 60) > Math.floor(lastProgress / 60)) finish(); // a partial report each minute
      lastProgress = el;
      const s = lastSample ?? {};
      const bad = Object.values(report.bad_input.by_kind).reduce((a, b) => [a[0] + b.sent, a[1] + b.mismatches], [0, 0]);
      log(`${Math.round(el)}/${durS} s${rounds.length > 1 ? ` (round ${state.round + 1}/${rounds.length})` : ''} | MO ${moLine.replace(/^\[\s*\d+s\]\s*/, '').split('|')[0].trim()} | MT ${mtLine.replace(/^\[\s*\d+s\]\s*/, '').split('|')[0].trim()} | `
        + `bad input ${bad[0]} sent, ${bad[1]} mismatched | gw heap ${s.heap_mib} MiB, ${s.threads} threads, ${s.fds} fds, ${s.calls} calls, ${s.dialogs} dialogs, rtpengine ${s.rtpengine_sessions} sessions`);
    }
    if (report.heap_after_gc_first_minute_mib === undefined && el >= 60) {
      report.heap_after_gc_first_minute_mib = {};
      for (const g of gws.filter((x) => x.live)) report.heap_after_gc_first_minute_mib[g.name] = await gcHeap(g, 'first minute');
      log(`heap after a full GC at ${Math.round(el)} s: ${JSON.stringify(report.heap_after_gc_first_minute_mib)} MiB`);
    }
    await sleep(BAD_EVERY_S * 1000);
  }
  await traffic;
  const trafficEndS = tS(); // the last minute of traffic (rounds make the traffic longer than M minutes) ends here
  if (report.heap_after_gc_first_minute_mib === undefined) {
    report.heap_after_gc_first_minute_mib = {};
    for (const g of gws.filter((x) => x.live)) report.heap_after_gc_first_minute_mib[g.name] = await gcHeap(g, 'first minute');
  }
  await bob.close(base);
  await dave.close(base);

  // --- every call: touched by a fault (counted by outcome) or not (must have completed)
  const windowOf = (kinds2, ms) => state.windows.find((w) => kinds2.some((k) => w.kind.startsWith(k)) && ms >= w.from && ms <= w.to)?.kind ?? null;
  const tally = { mo: { attempted: 0, completed: 0, untouched: 0, untouched_failed: 0, failed: [] }, mt: { attempted: 0, completed: 0, untouched: 0, untouched_failed: 0, failed: [], sipp_successful: 0, sipp_failed: 0 } };
  const touched = {};
  const count = (kind, oc) => {
    const t = (touched[kind] ??= { kept: 0, ended: 0, lost: 0, ended_reasons: {}, lost_reasons: {} });
    t[oc.outcome] += 1;
    if (oc.outcome === 'ended') t.ended_reasons[oc.reason] = (t.ended_reasons[oc.reason] ?? 0) + 1;
    if (oc.outcome === 'lost') t.lost_reasons[oc.reason] = (t.lost_reasons[oc.reason] ?? 0) + 1;
  };
  const relayMedia = new Map((state.relayKill?.media ?? []).map((m) => [m.id.replace(/^gw\d+-/, ''), m]));
  const gwKillFault = report.faults.find((f) => f.kind === 'gateway-kill');
  const gwKillCalls = new Map((gwKillFault?.calls ?? []).map((c) => [c.id.replace(/^gw\d+-/, ''), c]));
  for (const rr of report.rounds) {
    for (const dir of ['mo', 'mt']) {
      const lg = rr[dir];
      const T = tally[dir];
      T.attempted += rr.calls_each_way;
      for (const c of lg?.calls ?? []) {
        if (dir === 'mo' && c.direction === 'mt') continue;
        if (c.setup_ok) T.completed += 1;
        const startMs = rr.mo_t0 + (c.index ?? 0) * (1000 / o.cps);
        const byId = c.gateway_call_id ? state.touchedIds.get(c.gateway_call_id) : null;
        const byWin = windowOf(dir === 'mo' ? ['relay-kill', 'kamailio-restart-mo'] : ['relay-kill', 'kamailio-restart-mt'], startMs);
        const kind = byId ?? (byWin ? byWin.replace(/-m[ot]$/, '') : null);
        if (!kind) {
          T.untouched += 1;
          if (!untouchedOk(c)) { T.untouched_failed += 1; if (T.failed.length < 20) T.failed.push({ round: rr.round, index: c.index, id: c.gateway_call_id, setup_ok: c.setup_ok, ended_early: c.ended_early, end_reason: c.end_reason, error: c.error, fail_phase: c.fail_phase }); }
          continue;
        }
        let oc;
        if (kind === 'gateway-kill' && gwKillCalls.has(c.gateway_call_id)) {
          const g = gwKillCalls.get(c.gateway_call_id);
          oc = g.outcome === 'ended' ? { outcome: 'ended', reason: 'gateway-failed (BYE + Reason from a live gateway)' } : { outcome: 'lost', reason: 'no BYE or relay session left' };
        } else if (kind === 'relay-kill' && relayMedia.has(c.gateway_call_id)) {
          oc = outcomeOf(c);
          const m = relayMedia.get(c.gateway_call_id);
          // a call whose caller hung up (as planned: its hold was over) before the standby carried media again
          if (oc.outcome === 'kept' && !m.media_after_both_ways) {
            const plannedEnd = startMs + (c.setup_ms ?? 0) + o.hold * 1000; // when its caller was to hang up (estimated)
            oc = c.hung_up && plannedEnd <= state.relayKill.at_ms + (state.relayKill.standby_answering_ms ?? 0) + 1000
              ? { outcome: 'ended', reason: 'its hold ended (hung up) while the standby took over' } : { outcome: 'lost', reason: 'no media both ways after the kill' };
          } else if (oc.outcome === 'kept') oc.gap_ms = Math.max(m.gap_to_browser_ms ?? 0, m.gap_to_ims_ms ?? 0);
        } else oc = outcomeOf(c);
        count(kind, oc);
      }
      // calls loadgen never saw (MT: SIPp's INVITE refused before the gateway, e.g. 403 after Kamailio's restart)
      const seen = (lg?.calls ?? []).filter((c) => dir === 'mt' ? c.direction === 'mt' : c.direction !== 'mt').length;
      const missing = Math.max(0, rr.calls_each_way - seen);
      if (missing) {
        if (faultRound(rr.round) && dir === 'mt') { const fk = state.faultRounds.get(rr.round);
          for (let i = 0; i < missing; i += 1) count(fk, { outcome: 'ended', reason: fk === 'kamailio-restart' ? 'refused before the gateway (SIPp ue2 unregistered by the restart)' : 'never reached the gateway (SIPp counts it failed)' }); }
        else { T.untouched_failed += missing; T.failed.push({ round: rr.round, missing, note: `${missing} calls never reached loadgen` }); }
      }
    }
    if (rr.sipp) { tally.mt.sipp_successful += rr.sipp.successful; tally.mt.sipp_failed += rr.sipp.failed; }
    // an exit other than 0 without a fault in its round fails the soak (a fault's round: its calls decide)
    for (const [n, c] of Object.entries(rr.exits ?? {})) if (c !== 0 && c !== 'lingered' && !faultRound(rr.round)) report.why.push(`round ${rr.round}: ${n} exited ${c}`);
  }
  report.calls = tally;
  report.touched = touched;

  log(`settling ${SETTLE_S} s (BYEs, rtpengine deletes, a reconciler round, dialog cleanup)`);
  await sleep(SETTLE_S * 1000);
  const heapEnd = {};
  for (const g of gws.filter((x) => x.live)) heapEnd[g.name] = await gcHeap(g, 'end');
  const end = await sample();
  clearInterval(sampler);
  report.heap_after_gc_end_mib = heapEnd;
  report.leaks = { rtpengine_sessions_at_end: end.rtpengine_sessions, calls_at_end: end.calls, sip_dialogs_at_end: end.dialogs, websockets_at_end: end.websockets };

  // --- flatness per live gateway: the first traffic minute vs the last one
  const max = (xs) => (xs.length ? Math.max(...xs) : null);
  for (const g of gws.filter((x) => x.live)) {
    const val = (s, k) => (HOSTS ? s.per_gateway?.[g.name]?.[k] : s[k]);
    const inWin = (a, b) => report.series.filter((s) => s.t_s >= a && s.t_s < b && val(s, 'threads') != null);
    const first = inWin(0, 60), last = inWin(Math.max(0, trafficEndS - 60), trafficEndS);
    const h0 = report.heap_after_gc_first_minute_mib?.[g.name], h1 = heapEnd[g.name];
    const heapLimit = h0 == null ? null : Math.round(Math.max(h0 * (1 + FLAT.heap_pct / 100), h0 + FLAT.heap_min_mib) * 10) / 10;
    const t0m = max(first.map((s) => val(s, 'threads'))), t1m = max(last.map((s) => val(s, 'threads')));
    const f0m = max(first.map((s) => val(s, 'fds'))), f1m = max(last.map((s) => val(s, 'fds')));
    const key = (k) => (HOSTS ? `${g.name}_${k}` : k);
    report.flat[key('heap_after_gc_mib')] = { first_minute: h0, end: h1, limit: heapLimit, ok: h0 != null && h1 != null && h1 <= heapLimit };
    report.flat[key('threads')] = { first_minute_max: t0m, last_minute_max: t1m, ok: t0m != null && t1m != null && t1m <= t0m + FLAT.threads };
    report.flat[key('fds')] = { first_minute_max: f0m, last_minute_max: f1m, ok: f0m != null && f1m != null && f1m <= f0m + FLAT.fds };
  }

  // --- verdict
  const why = report.why;
  for (const d of ['mo', 'mt']) {
    const T = tally[d];
    if (T.untouched_failed) why.push(`${d.toUpperCase()}: ${T.untouched_failed} calls no fault touched did not complete (e.g. ${JSON.stringify(T.failed.slice(0, 3))})`);
  }
  if (!HOSTS) {
    if (tally.mo.completed !== calls) why.push(`MO: ${tally.mo.completed} of ${calls} set up`);
    if (tally.mt.completed !== calls) why.push(`MT: ${tally.mt.completed} of ${calls} answered by loadgen`);
    if (tally.mt.sipp_failed) why.push(`MT: SIPp counts ${tally.mt.sipp_failed} failed calls`);
  } else {
    // SIPp's failed MT calls may only be the touched ones (a fault's round)
    const touchedMt = Object.values(touched).reduce((a, t) => a + t.kept * 0 + t.ended + t.lost, 0);
    for (const rr of report.rounds) {
      if (!faultRound(rr.round) && rr.sipp?.failed) why.push(`round ${rr.round}: SIPp counts ${rr.sipp.failed} failed MT calls and no fault was in that round`);
      if (rr.error) why.push(`round ${rr.round}: ${rr.error}`);
    }
    if (tally.mt.sipp_failed > touchedMt + (touched['relay-kill']?.kept ?? 0)) why.push(`MT: SIPp counts ${tally.mt.sipp_failed} failed calls, more than the ${touchedMt} a fault touched and did not keep`);
  }
  const mism = report.bad_input.mismatches.length;
  if (mism) why.push(`${mism} bad input(s) not answered with their error`);
  for (const f of report.faults) if (!f.ok) why.push(`fault ${f.kind} at ${f.at_s} s: not handled${f.error ? ` (${f.error})` : ''}`);
  // a touched call is kept with media or ended with a reason, never lost (issue #28)
  for (const [k, t] of Object.entries(touched)) if (t.lost) why.push(`${k}: ${t.lost} touched call(s) lost, neither kept with media nor ended with a reason (${JSON.stringify(t.lost_reasons)})`);
  if (HOSTS) {
    for (const k of ['relay-kill', 'gateway-kill', 'kamailio-restart']) {
      if ((k === 'relay-kill' && o.relays < 2) || (k === 'gateway-kill' && o.gateways < 2)) continue;
      if (!report.faults.some((f) => f.kind === k)) why.push(`fault ${k}: did not happen`);
    }
  }
  if (end.rtpengine_sessions !== 0) why.push(`${end.rtpengine_sessions ?? 'unknown'} rtpengine sessions left`);
  if (end.calls !== 0) why.push(`${end.calls ?? 'unknown'} gateway calls left`);
  if (end.dialogs !== 0) why.push(`${end.dialogs ?? 'unknown'} SIP dialogs left`);
  for (const [k, v] of Object.entries(report.flat)) if (!v.ok) why.push(`${k} not flat: ${JSON.stringify(v)}`);
  report.verdict = why.length ? 'fail' : 'pass';
  report.finished = new Date().toISOString();
  finish();

  const b = report.bad_input.by_kind;
  console.log(`\nsoak ${o.minutes} min at ${o.cps} calls/s each way${HOSTS ? ` on ${o.gateways} gateway + ${o.relays} relay hosts` : ''}: ${report.verdict.toUpperCase()}`);
  console.log(`  MO calls: ${tally.mo.attempted} attempted, ${tally.mo.completed} set up; ${tally.mo.untouched} untouched by faults, ${tally.mo.untouched_failed} of them failed`);
  console.log(`  MT calls: ${tally.mt.attempted} attempted, ${tally.mt.completed} answered by loadgen, ${tally.mt.sipp_successful} completed (SIPp), ${tally.mt.sipp_failed} failed (SIPp); ${tally.mt.untouched} untouched by faults, ${tally.mt.untouched_failed} of them failed`);
  for (const [k, t] of Object.entries(touched)) console.log(`  touched by ${k}: ${t.kept} kept with media, ${t.ended} ended cleanly ${JSON.stringify(t.ended_reasons)}, ${t.lost} lost ${t.lost ? JSON.stringify(t.lost_reasons) : ''}`);
  console.log(`  bad input: ${Object.entries(b).map(([k, v]) => `${k} ${v.answered_as_expected}/${v.sent}`).join(', ')}`);
  console.log(`  faults: ${report.faults.map((f) => `${f.kind} at ${f.at_s} s ${f.ok ? 'ok' : 'FAIL'}`).join(', ') || 'none'}`);
  console.log(`  at the end: ${end.rtpengine_sessions} rtpengine sessions, ${end.calls} calls, ${end.dialogs} SIP dialogs`);
  for (const [k, v] of Object.entries(report.flat)) console.log(`  ${k}: ${JSON.stringify(v)}`);
  for (const w of why) console.log(`  why: ${w}`);
  for (const e of report.errors.slice(0, 30)) console.log(`  error: ${e}`);
  return report.verdict === 'pass' ? 0 : 1;
}

process.on('SIGTERM', () => { stopAll(); process.exit(143); });
process.on('SIGINT', () => { stopAll(); process.exit(130); });
main().then((rc) => process.exit(rc), (e) => { console.error(`soak: ${e.stack ?? e.message}`); stopAll(); process.exit(1); });
