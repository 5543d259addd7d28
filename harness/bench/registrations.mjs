// ./lab bench registrations --users N --minutes M: registration scale (issue #14). N provisioned subscribers
// (u00001 ..., harness/lib/bench.sh provision_users: Kamailio's digest table and $LAB_USERS_FILE) log in
// through the gateway's REST API with bounded concurrency and keep a WebSocket open each, so the gateway
// holds N registrations and refreshes them (short expiry: `--lab.ims.register-expires`, refresh at 80 %)
// for M minutes; then they log out (de-REGISTER). Every second: REGISTERs/s and registrations from the
// gateway's /actuator/prometheus, the gateway JVM's heap (its jvm_memory_used_bytes), threads, fds and RSS
// (/proc), Kamailio's memory (PSS of all its processes, /proc/PID/smaps_rollup: its shared-memory pool
// counted once), CPU of the gateway, Kamailio and this driver, and the host's other load.
import fs from 'node:fs';
import http from 'node:http';
import { WebSocket } from 'ws';
import { sleep } from '../kit/procs.mjs';
import { javaPid } from './jfr.mjs';

const REFRESH_AT = 0.8; // the gateway re-REGISTERs at 80 % of the granted expiry (sip/RegistrationLifecycle)

export function registrationsPlan(users, minutes, concurrency) {
  // logins: ~15/s per 20 in flight on this 2-core host (REGISTER + 401 + REGISTER + 200, then the upgrade)
  const loginS = Math.ceil(users / Math.max(5, concurrency * 0.75));
  return { expected_s: loginS * 2 + minutes * 60 + 30 };
}

// The load the gateway is configured for (docs/benchmarks.md "Registration scale"): what bench.sh passes.
export function gatewayLoadArgs(users, expires) {
  return [`--lab.ims.register-expires=${expires}`, `--lab.api.max-sessions=${users + 10}`,
    `--lab.api.login-attempts-per-address=${users * 2 + 100}`];
}

export function usersFrom(file, n) {
  let text;
  try { text = fs.readFileSync(file, 'utf8'); } catch (e) { throw new Error(`cannot read the users file ${file}: ${e.message} (provisioned by ./lab bench registrations --users N)`); }
  const users = text.split('\n').map((l) => l.trim()).filter((l) => /^u\d{5}:/.test(l))
    .map((l) => ({ user: l.slice(0, l.indexOf(':')), password: l.slice(l.indexOf(':') + 1) }));
  if (users.length < n) throw new Error(`${file} has ${users.length} generated users, ${n} wanted`);
  return users.slice(0, n);
}

export function request(base, method, path, { body, token, timeoutMs = 15000 } = {}) {
  const data = body === undefined ? null : JSON.stringify(body);
  const headers = { ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return new Promise((resolve) => {
    const req = http.request(`${base}${path}`, { method, headers, timeout: timeoutMs, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, body: json, text });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => resolve({ status: 0, body: null, text: e.message }));
    req.end(data ?? undefined);
  });
}

// Prometheus text -> Map `name{labels}` -> number
export async function scrape(base) {
  const r = await request(base, 'GET', '/actuator/prometheus', { timeoutMs: 5000 });
  if (r.status !== 200) return null;
  const m = new Map();
  for (const line of r.text.split('\n')) {
    const hit = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)$/.exec(line);
    if (hit) m.set(hit[1], Number(hit[2]));
  }
  return m;
}

export const sumOf = (m, prefix) => {
  let s = 0;
  for (const [k, v] of m ?? []) if (k === prefix || k.startsWith(`${prefix}{`)) s += v;
  return s;
};
export const sumWhere = (m, prefix, needle) => {
  let s = 0;
  for (const [k, v] of m ?? []) if (k.startsWith(`${prefix}{`) && k.includes(needle)) s += v;
  return s;
};

export function pidOf(name) {
  try {
    const line = fs.readFileSync(process.env.LAB_PIDS, 'utf8').split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(/\s+/)[1]) : null;
  } catch { return null; }
}

function stat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch { return null; }
}

function tree(root) {
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const st = stat(Number(d));
    if (st) kids.set(st.ppid, [...(kids.get(st.ppid) ?? []), Number(d)]);
  }
  const out = [];
  const todo = [root];
  while (todo.length) { const p = todo.pop(); out.push(p); todo.push(...(kids.get(p) ?? [])); }
  return out;
}

function status(pid) {
  try {
    const t = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const num = (k) => Number((t.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) ?? [])[1] ?? NaN);
    return { threads: num('Threads'), rss_kb: num('VmRSS') };
  } catch { return null; }
}

function fds(pid) {
  try { return fs.readdirSync(`/proc/${pid}/fd`).length; } catch { return null; }
}

function pssKb(pids) {
  let kb = 0;
  for (const p of pids) {
    try { kb += Number((fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m) ?? [])[1] ?? 0); } catch { /* gone */ }
  }
  return kb;
}

function hostTicks() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3] + (f[4] ?? 0);
  return { busy: f.reduce((a, b) => a + b, 0) - idle, total: f.reduce((a, b) => a + b, 0) };
}

const ticksOf = (pids) => pids.reduce((t, p) => t + (stat(p)?.ticks ?? 0), 0);
const r1 = (v) => (v == null || Number.isNaN(v) ? null : Math.round(v * 10) / 10);
const nproc = () => fs.readFileSync('/proc/cpuinfo', 'utf8').split('\n').filter((l) => l.startsWith('processor')).length || 1;

// One sample a second until stop(): {t, phase, registers_per_s, registrations, ...}
function sampler(base, gwPid, kamPid, clock, phaseOf) {
  const samples = [];
  const health = { failedScrapes: 0 }; // consecutive scrapes without an answer: the gateway stopped answering
  const cores = nproc();
  let prev = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = Date.now();
      const m = await scrape(base);
      health.failedScrapes = m ? 0 : health.failedScrapes + 1;
      const kam = kamPid ? tree(kamPid) : [];
      const host = hostTicks();
      const cur = { at: t0, m, host, gw: gwPid ? ticksOf([gwPid]) : 0, kam: ticksOf(kam), self: process.cpuUsage() };
      if (prev) {
        const dt = (cur.at - prev.at) / 1000;
        const dHost = cur.host.total - prev.host.total;
        const pct = (d) => (dHost > 0 ? (d / dHost) * 100 * cores : null); // % of one core
        const gwPct = pct(cur.gw - prev.gw);
        const kamPct = pct(cur.kam - prev.kam);
        const selfPct = ((cur.self.user + cur.self.system - prev.self.user - prev.self.system) / 1e6 / dt) * 100;
        const hostPct = pct(cur.host.busy - prev.host.busy);
        const reg = (mm) => sumOf(mm, 'gw_register_requests_total');
        const st = gwPid ? status(gwPid) : null;
        samples.push({
          t: r1((t0 - clock) / 1000), phase: phaseOf(),
          registers_per_s: m && prev.m ? r1((reg(m) - reg(prev.m)) / dt) : null,
          registrations: m ? sumOf(m, 'gw_registrations') : null,
          websockets: m ? sumOf(m, 'gw_websocket_sessions') : null,
          register_failed_total: m ? sumWhere(m, 'gw_registrations_completed_total', 'result="failed"') : null,
          refreshes_ok_total: m ? sumWhere(m, 'gw_registrations_completed_total', 'kind="refresh",result="ok"') : null,
          heap_mb: m ? r1(sumWhere(m, 'jvm_memory_used_bytes', 'area="heap"') / 1048576) : null,
          // the old generation: what survived young collections, i.e. what the registrations really hold (heap_mb
          // includes garbage G1 has not collected yet; its young generation grows toward the default max heap)
          old_gen_mb: m ? r1(sumWhere(m, 'jvm_memory_used_bytes', 'Old Gen"') / 1048576) : null,
          gw_threads: st?.threads ?? null, gw_fds: gwPid ? fds(gwPid) : null, gw_rss_mb: st ? r1(st.rss_kb / 1024) : null,
          kamailio_pss_mb: kam.length ? r1(pssKb(kam) / 1024) : null, kamailio_procs: kam.length,
          cpu_gateway_pct: r1(gwPct), cpu_kamailio_pct: r1(kamPct), cpu_driver_pct: r1(selfPct), cpu_host_pct: r1(hostPct),
          cpu_other_pct: r1(Math.max(0, hostPct - gwPct - kamPct - selfPct)),
        });
      }
      prev = cur;
      await sleep(Math.max(0, 1000 - (Date.now() - t0)));
    }
  })();
  return { samples, health, stop: async () => { stopped = true; await loop; } };
}

async function pool(items, concurrency, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) { const i = next++; await fn(items[i], i); }
  }));
}

function openSocket(base, protocols) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`, protocols, { handshakeTimeout: 10000 });
    ws.once('open', () => resolve({ ws }));
    ws.once('error', (e) => resolve({ error: e.message }));
    ws.once('unexpected-response', (_req, res) => resolve({ error: `upgrade answered ${res.statusCode}` }));
  });
}

const pctl = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const stats = (xs) => {
  const v = xs.filter((x) => x != null);
  return v.length ? { min: Math.min(...v), mean: r1(v.reduce((a, b) => a + b, 0) / v.length), p50: pctl(v, 50), p95: pctl(v, 95), max: Math.max(...v) } : null;
};

export async function runRegistrations(run, ctx, { progress, finish, base }) {
  const gw = ctx.gateway;
  const users = usersFrom(process.env.LAB_USERS_FILE ?? '', run.users);
  const report = { ...base, kind: 'registrations', gateway: gw, users: run.users, minutes: run.minutes, expires_s: run.expires,
    concurrency: run.concurrency, refresh_every_s: run.expires * REFRESH_AT,
    gateway_load_args: gatewayLoadArgs(run.users, run.expires).join(' '),
    gateway_args: process.env.BENCH_GATEWAY_ARGS || '(none beyond the load arguments)',
    note: 'the gateway is configured for load: login limits raised and sessions capped at users + 10 (gateway_load_args; the shipped defaults are 60 logins/min per address and 100 sessions, docs/security.md)',
    login: {}, hold: {}, logout: {}, series: [], first_problem: null };
  const gwPid = javaPid(pidOf('gateway'));
  const kamPid = pidOf('kamailio');
  if (!gwPid) report.errors.push('the gateway JVM was not found in $LAB_PIDS: no /proc figures for it');
  if (!kamPid) report.errors.push('Kamailio was not found in $LAB_PIDS: no memory figures for it');
  const clock = Date.now();
  let phase = 'login';
  const smp = sampler(gw, gwPid, kamPid, clock, () => phase);
  const down = () => smp.health.failedScrapes >= 10;
  const problems = [];
  const problem = (what) => {
    const t = r1((Date.now() - clock) / 1000);
    problems.push({ t, phase, what });
    if (!report.first_problem) { report.first_problem = { t, phase, what }; progress(`first problem at ${t} s (${phase}): ${what}`); }
  };
  const sessions = [];
  let closedEarly = 0;
  const loginMs = [];
  const loginFail = {};
  progress(`registrations: ${run.users} users log in (${run.concurrency} at a time), hold ${run.minutes} min with expiry ${run.expires} s (refresh every ~${report.refresh_every_s} s), then log out; gateway ${report.gateway_load_args}`);
  const t0 = Date.now();
  let lastLog = t0;
  await pool(users, run.concurrency, async (u) => {
    if (down()) { loginFail['not tried: the gateway stopped answering'] = (loginFail['not tried: the gateway stopped answering'] ?? 0) + 1; return; }
    const s = Date.now();
    const r = await request(gw, 'POST', '/api/v1/sessions', { body: { user: u.user, password: u.password } });
    if (r.status !== 201) {
      const code = r.body?.code ?? (r.status ? `http-${r.status}` : `unreachable: ${r.text}`);
      loginFail[code] = (loginFail[code] ?? 0) + 1;
      if (loginFail[code] === 1) problem(`login of ${u.user} failed: ${r.status} ${code}`);
      return;
    }
    const o = await openSocket(gw, r.body.wsProtocols);
    if (o.error) {
      loginFail[`websocket: ${o.error}`] = (loginFail[`websocket: ${o.error}`] ?? 0) + 1;
      problem(`WebSocket of ${u.user}: ${o.error}`);
      await request(gw, 'DELETE', '/api/v1/sessions/current', { token: r.body.token });
      return;
    }
    loginMs.push(Date.now() - s);
    const sess = { user: u.user, token: r.body.token, ws: o.ws, open: true };
    o.ws.on('close', (code) => {
      sess.open = false;
      if (phase !== 'logout' && phase !== 'done') { closedEarly += 1; if (closedEarly === 1) problem(`the gateway closed ${u.user}'s WebSocket (${code})`); }
    });
    o.ws.on('error', () => {});
    sessions.push(sess);
    if (Date.now() - lastLog >= 5000) {
      lastLog = Date.now();
      progress(`login: ${sessions.length}/${run.users} logged in, ${Object.values(loginFail).reduce((a, b) => a + b, 0)} failed, ${r1(sessions.length / ((Date.now() - t0) / 1000))}/s`);
    }
  });
  const loginS = (Date.now() - t0) / 1000;
  report.login = { logged_in: sessions.length, failed: loginFail, seconds: r1(loginS), per_s: r1(sessions.length / loginS), ms: stats(loginMs) };
  progress(`login done: ${sessions.length}/${run.users} in ${r1(loginS)} s (${report.login.per_s}/s), login p50 ${report.login.ms?.p50} ms p95 ${report.login.ms?.p95} ms`);
  finish(ctx.out, { ...report, series: smp.samples });

  phase = 'hold';
  const holdStart = Date.now();
  const failedAtHold = smp.samples.at(-1)?.register_failed_total ?? 0;
  while (Date.now() - holdStart < run.minutes * 60000 && !down()) {
    await sleep(Math.min(10000, run.minutes * 60000 - (Date.now() - holdStart)));
    const recent = smp.samples.filter((s) => s.phase === 'hold').slice(-10);
    const last = smp.samples.at(-1) ?? {};
    const regRate = r1(recent.reduce((a, s) => a + (s.registers_per_s ?? 0), 0) / Math.max(1, recent.length));
    if (last.register_failed_total > failedAtHold) problem(`${last.register_failed_total - failedAtHold} registration(s) failed (gw_registrations_completed_total{result="failed"})`);
    if (last.registrations != null && last.registrations < sessions.length) problem(`the gateway holds ${last.registrations} registrations, ${sessions.length} users are logged in`);
    progress(`hold ${Math.round((Date.now() - holdStart) / 1000)}/${run.minutes * 60} s: ${last.registrations} registered, ${last.websockets} sockets, ${regRate} REGISTERs/s (10 s), `
      + `heap ${last.heap_mb} MB, threads ${last.gw_threads}, fds ${last.gw_fds}, Kamailio ${last.kamailio_pss_mb} MB; CPU gateway ${last.cpu_gateway_pct} % kamailio ${last.cpu_kamailio_pct} % other ${last.cpu_other_pct} %`);
    finish(ctx.out, { ...report, series: smp.samples });
  }
  if (down()) {
    problem(`the gateway stopped answering (${smp.health.failedScrapes} scrapes in a row without an answer): hold and logout cut short`);
    report.errors.push('the gateway stopped answering during the run (see first_problem and logs/gateway.log)');
  }
  const hold = smp.samples.filter((s) => s.phase === 'hold');
  const refreshStart = hold[0]?.refreshes_ok_total ?? 0;
  const refreshes = (hold.at(-1)?.refreshes_ok_total ?? 0) - refreshStart;
  report.hold = {
    seconds: r1((Date.now() - holdStart) / 1000),
    registers_per_s: stats(hold.map((s) => s.registers_per_s)),
    refreshes_ok: refreshes,
    // each binding refreshes every refresh_every_s after its login: whole periods within the hold
    refreshes_expected: sessions.length * Math.floor((run.minutes * 60) / report.refresh_every_s),
    registrations: stats(hold.map((s) => s.registrations)),
    websockets_closed_by_gateway: closedEarly,
    register_failed: (hold.at(-1)?.register_failed_total ?? 0) - failedAtHold,
    heap_mb: stats(hold.map((s) => s.heap_mb)), old_gen_mb: stats(hold.map((s) => s.old_gen_mb)), gw_threads: stats(hold.map((s) => s.gw_threads)), gw_fds: stats(hold.map((s) => s.gw_fds)),
    gw_rss_mb: stats(hold.map((s) => s.gw_rss_mb)), kamailio_pss_mb: stats(hold.map((s) => s.kamailio_pss_mb)),
    cpu_gateway_pct: stats(hold.map((s) => s.cpu_gateway_pct)), cpu_kamailio_pct: stats(hold.map((s) => s.cpu_kamailio_pct)),
    cpu_driver_pct: stats(hold.map((s) => s.cpu_driver_pct)), cpu_other_pct: stats(hold.map((s) => s.cpu_other_pct)), cpu_host_pct: stats(hold.map((s) => s.cpu_host_pct)),
  };

  phase = 'logout';
  const l0 = Date.now();
  let loggedOut = 0;
  await pool(sessions, run.concurrency, async (s) => {
    if (down()) { s.ws.terminate(); return; }
    const r = await request(gw, 'DELETE', '/api/v1/sessions/current', { token: s.token, timeoutMs: 5000 });
    if (r.status === 200 || r.status === 204) loggedOut += 1; else problem(`logout of ${s.user}: ${r.status} ${r.body?.code ?? r.text.slice(0, 80)}`);
    s.ws.close();
  });
  report.logout = { logged_out: loggedOut, seconds: r1((Date.now() - l0) / 1000) };
  await sleep(2000);
  phase = 'done';
  await smp.stop();
  report.series = smp.samples;
  report.registrations_left = smp.samples.at(-1)?.registrations ?? null;
  // what the gateway itself said went wrong (an OutOfMemoryError names the limit the driver only sees as timeouts)
  try {
    const lines = fs.readFileSync(`${ctx.logDir}/gateway.log`, 'utf8').split('\n');
    const oom = lines.filter((l) => l.includes('OutOfMemoryError'));
    report.gateway_log = { out_of_memory: oom.length, first: oom[0]?.slice(0, 200) ?? null };
    if (oom.length) report.errors.push(`the gateway logged ${oom.length} OutOfMemoryError(s): ${oom[0].slice(0, 160)}`);
  } catch { report.gateway_log = null; }
  report.problems = problems.slice(0, 50);
  report.what_breaks_first = report.first_problem
    ? `${report.first_problem.what} (at ${report.first_problem.t} s, ${report.first_problem.phase})${report.gateway_log?.out_of_memory ? '; the gateway ran out of heap (OutOfMemoryError in its log)' : ''}`
    : `nothing within ${run.users} users x ${run.minutes} min: no failed login, REGISTER or socket`;
  report.ok = sessions.length > 0 && smp.samples.length > 0;
  if (!sessions.length) report.errors.push(`no user logged in: ${JSON.stringify(loginFail)}`);
  finish(ctx.out, report);

  const h = report.hold;
  const col = (v, w) => String(v ?? 'n/a').padStart(w);
  console.log(`\nregistrations: ${sessions.length}/${run.users} users held ${run.minutes} min, expiry ${run.expires} s (refresh every ~${report.refresh_every_s} s)`);
  console.log(`  login: ${report.login.per_s}/s, p50 ${report.login.ms?.p50} ms, p95 ${report.login.ms?.p95} ms, failed ${JSON.stringify(loginFail)}`);
  console.log('  hold                 min     mean     p95      max');
  for (const [k, label] of [['registers_per_s', 'REGISTERs/s'], ['registrations', 'registrations'], ['heap_mb', 'gateway heap MB'], ['old_gen_mb', 'old gen MB'], ['gw_rss_mb', 'gateway RSS MB'],
    ['gw_threads', 'gateway threads'], ['gw_fds', 'gateway fds'], ['kamailio_pss_mb', 'Kamailio PSS MB'], ['cpu_gateway_pct', 'gateway CPU %'],
    ['cpu_kamailio_pct', 'Kamailio CPU %'], ['cpu_driver_pct', 'driver CPU %'], ['cpu_other_pct', 'other jobs CPU %']]) {
    console.log(`  ${label.padEnd(18)}${col(h[k]?.min, 6)}  ${col(h[k]?.mean, 7)}  ${col(h[k]?.p95, 6)}  ${col(h[k]?.max, 7)}`);
  }
  console.log(`  refreshes: ${h.refreshes_ok} ok (expected ~${h.refreshes_expected}), ${h.register_failed} REGISTER transactions failed, ${h.websockets_closed_by_gateway} sockets closed by the gateway`);
  console.log(`  logout: ${loggedOut} in ${report.logout.seconds} s; registrations left ${report.registrations_left}`);
  console.log(`  what breaks first: ${report.what_breaks_first}`);
  return report;
}
