// Impairments of the browser's link (docs/scenarios.md "Impairments"): delay, jitter, loss and a rate
// limit with a queue, per direction, on the veth end inside the browser's namespace (vb), so that the
// core namespace (rtpengine, and the capture delaymeter reads) sees the packets as they leave and
// reach the link: the relay's own per-packet delay is measured without the impairment in it.
//   up   = browser -> core: egress of vb
//   down = core -> browser: ingress of vb
// The spec is netem's grammar (`delay 100ms 10ms loss 5% rate 500kbit`) plus `queue 100ms` (the rate
// limiter's queue, as tbf's latency). This kernel has no sch_netem, so each part runs on what it has:
//   delay, loss  iptables NFQUEUE -> harness/link/linkdelay.c: holds each packet for delay ± jitter (netem's
//                tfifo order) or drops it at random. Every impaired direction goes through it, also with a
//                rate limit only: a packet the kernel drops in OUTPUT (iptables DROP, a full tbf) fails the
//                browser's sendmsg, so the browser knows (docs/scenarios.md); a queued packet counts as sent, as on a link
//   rate         tc tbf (rate, burst, latency = queue) after it; down through an ifb device (ingress redirect)
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { labRoot, logDir } from './env.mjs';
import { start, signal } from './procs.mjs';

const run = promisify(execFile);

const UNITS_MS = { us: 0.001, ms: 1, s: 1000 };
const UNITS_KBIT = { bit: 0.001, kbit: 1, mbit: 1000, gbit: 1e6 };
const KEYWORDS = 'delay TIME [JITTER], loss PERCENT%, rate RATE (bit|kbit|mbit|gbit), queue TIME (the rate limit\'s queue, default 100ms)';
export const DEFAULT_QUEUE_MS = 100;

function time(word, what) {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s)$/.exec(word ?? '');
  if (!m) throw new Error(`${what}: '${word ?? ''}' is not a time (e.g. 100ms, 0.5s)`);
  return Number(m[1]) * UNITS_MS[m[2]];
}

function rate(word) {
  const m = /^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)$/i.exec(word ?? '');
  if (!m) throw new Error(`rate: '${word ?? ''}' is not a rate (e.g. 500kbit, 2mbit)`);
  const kbit = Number(m[1]) * UNITS_KBIT[m[2].toLowerCase()];
  if (kbit < 8) throw new Error(`rate: ${word} is below 8kbit`);
  return kbit;
}

// parseNetem("delay 100ms 10ms loss 5% rate 500kbit queue 100ms") -> {delay_ms, jitter_ms, loss_pct, rate_kbit, queue_ms}
// (absent parts null). Throws a one-line error naming the bad word.
export function parseNetem(text) {
  const words = String(text ?? '').trim().split(/\s+/).filter(Boolean);
  if (!words.length) throw new Error(`empty impairment (use ${KEYWORDS})`);
  const out = { delay_ms: null, jitter_ms: null, loss_pct: null, rate_kbit: null, queue_ms: null };
  for (let i = 0; i < words.length;) {
    const w = words[i++].toLowerCase();
    if (w === 'delay') {
      out.delay_ms = time(words[i++], 'delay');
      if (/^\d/.test(words[i] ?? '')) out.jitter_ms = time(words[i++], 'delay jitter');
      if (out.delay_ms > 10000 || (out.jitter_ms ?? 0) > out.delay_ms) throw new Error('delay: at most 10s, and the jitter at most the delay');
    } else if (w === 'loss') {
      if ((words[i] ?? '').toLowerCase() === 'random') i++;
      const m = /^(\d+(?:\.\d+)?)%$/.exec(words[i++] ?? '');
      if (!m || Number(m[1]) > 100) throw new Error(`loss: '${words[i - 1] ?? ''}' is not a percentage (e.g. 5%)`);
      out.loss_pct = Number(m[1]);
    } else if (w === 'rate') {
      out.rate_kbit = rate(words[i++]);
    } else if (w === 'queue' || w === 'latency') {
      out.queue_ms = time(words[i++], w);
    } else {
      throw new Error(`unknown impairment word '${words[i - 1]}' (use ${KEYWORDS})`);
    }
  }
  if (out.queue_ms != null && out.rate_kbit == null) throw new Error('queue needs a rate (e.g. rate 500kbit queue 100ms)');
  if (out.rate_kbit != null && out.queue_ms == null) out.queue_ms = DEFAULT_QUEUE_MS;
  return out;
}

export function describe(d) {
  if (!d) return 'none';
  const p = [];
  if (d.delay_ms != null) p.push(`delay ${d.delay_ms}ms${d.jitter_ms ? ` ±${d.jitter_ms}ms` : ''}`);
  if (d.loss_pct != null) p.push(`loss ${d.loss_pct}%`);
  if (d.rate_kbit != null) p.push(`rate ${d.rate_kbit}kbit queue ${d.queue_ms}ms`);
  return p.join(' ') || 'none';
}

// The profiles file: ../shared/bench/profiles.json beside the repo, else the repo's copy (as ./lab bench).
export function profilesFile() {
  if (process.env.BENCH_PROFILES) return process.env.BENCH_PROFILES;
  const shared = path.resolve(labRoot(), '..', 'shared', 'bench', 'profiles.json');
  return fs.existsSync(shared) ? shared : path.join(labRoot(), 'media-relay', 'bench', 'profiles.json');
}

// Named impairments from the profiles file's `impairments` (the same on both directions):
//   latency-<ms> (each of `latency`), loss-<pct> (`loss_pct`), capacity-<kbps>x<queue ms>
//   (`capacity_kbps_x_queue_ms`), rmcat-w2 (`rmcat_w2_variable_capacity_mbps`: the capacity steps
//   through these rates, each held for an equal share of the run, queue 300 ms).
export const RMCAT_QUEUE_MS = 300;
export function namedImpairments(file = profilesFile()) {
  let imp;
  try { imp = JSON.parse(fs.readFileSync(file, 'utf8')).impairments; } catch (e) { throw new Error(`cannot read impairments from ${file}: ${e.message}`); }
  if (!imp) throw new Error(`${file} has no "impairments"`);
  const named = {};
  for (const ms of imp.latency ?? []) named[`latency-${ms}`] = { both: { ...parseNetem(`delay ${ms}ms`) } };
  for (const p of imp.loss_pct ?? []) named[`loss-${p}`] = { both: parseNetem(`loss ${p}%`) };
  for (const [kbps, q] of imp.capacity_kbps_x_queue_ms ?? []) named[`capacity-${kbps}x${q}`] = { both: parseNetem(`rate ${kbps}kbit queue ${q}ms`) };
  if (imp.rmcat_w2_variable_capacity_mbps?.length) {
    const steps = imp.rmcat_w2_variable_capacity_mbps.map((m) => m * 1000);
    named['rmcat-w2'] = { both: parseNetem(`rate ${steps[0]}kbit queue ${RMCAT_QUEUE_MS}ms`), schedule_kbit: steps };
  }
  return { file, named };
}

// resolveImpairment({netem, up, down, name}) -> {up, down, schedule_kbit, name, text} or null (none).
export function resolveImpairment({ netem = null, up = null, down = null, name = null } = {}) {
  if (name && (netem || up || down)) throw new Error('give either --impairment NAME or --netem SPEC, not both');
  if (name) {
    const { file, named } = namedImpairments();
    const p = named[name];
    if (!p) throw new Error(`unknown impairment '${name}' (${file} has: ${Object.keys(named).join(', ')})`);
    return { name, up: p.both, down: p.both, schedule_kbit: p.schedule_kbit ?? null, text: describe(p.both) };
  }
  if (!netem && !up && !down) return null;
  const both = netem ? parseNetem(netem) : null;
  const u = up ? parseNetem(up) : both;
  const d = down ? parseNetem(down) : both;
  return { name: null, up: u, down: d, schedule_kbit: null, text: `up: ${describe(u)}; down: ${describe(d)}` };
}

// The delay line's binary, built with cc when missing or older than its source.
export function linkdelayBinary() {
  const src = path.join(labRoot(), 'harness', 'link', 'linkdelay.c');
  const bin = path.join(labRoot(), 'out', 'build', 'linkdelay');
  if (!fs.existsSync(bin) || fs.statSync(bin).mtimeMs < fs.statSync(src).mtimeMs) {
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    try {
      execFileSync('cc', ['-O2', '-Wall', '-o', bin, src, '-lnetfilter_queue'], { stdio: 'pipe' });
    } catch (e) {
      throw new Error(`cannot build ${path.relative(labRoot(), bin)} (needs libnetfilter-queue-dev): ${String(e.stderr ?? e.message).trim().split('\n')[0]}`);
    }
  }
  return bin;
}

const QUEUE = { up: 101, down: 102 };

function burstBytes(kbit) {
  // at least one MTU-sized packet plus a few, and about 10 ms worth of the rate
  return Math.max(4000, Math.round((kbit * 1000 / 8) * 0.01));
}

// applyLink(impairment, {netns, dev}) -> handle {setRate(kbit), counters(), stop()}. Needs root in the
// lab's namespace (./lab runs there as root); netns: the browser's (default LAB_BROWSER_NS).
export async function applyLink(imp, { netns = process.env.LAB_BROWSER_NS || 'lab-browser', dev = 'vb', log = () => {} } = {}) {
  if (!imp) return null;
  const ns = (cmd, ...args) => run('ip', ['netns', 'exec', netns, cmd, ...args]);
  const ifb = `ifb-${dev}`;
  const procs = [];
  const tbf = async (verb, where, d) => ns('tc', 'qdisc', verb, 'dev', where, 'root', 'tbf', 'rate', `${d.rate_kbit}kbit`,
    'burst', String(burstBytes(d.rate_kbit)), 'latency', `${d.queue_ms}ms`);
  const handle = { imp, netns, dev, rates: { up: imp.up?.rate_kbit ?? null, down: imp.down?.rate_kbit ?? null }, changes: [] };
  try {
    for (const dir of ['up', 'down']) {
      const d = imp[dir];
      if (!d) continue;
      const chain = dir === 'up' ? ['OUTPUT', '-o', dev] : ['INPUT', '-i', dev];
      if (d.delay_ms || d.loss_pct || d.rate_kbit) {
        const bin = linkdelayBinary();
        const file = path.join(logDir(), `linkdelay-${dir}.log`);
        const p = start(`linkdelay-${dir}`, 'ip', ['netns', 'exec', netns, bin, '--queue', String(QUEUE[dir]),
          '--delay', String(d.delay_ms ?? 0), '--jitter', String(d.jitter_ms ?? 0), '--loss', String(d.loss_pct ?? 0),
          '--seed', String((Date.now() % 100000) * 2 + (dir === 'up' ? 1 : 2))], { log: file });
        procs.push({ dir, p, file });
        await waitForLine(file, 'linkdelay: queue', 3000, p);
        await ns('iptables', '-A', ...chain, '-m', 'comment', '--comment', `lab-delay-${dir}`, '-j', 'NFQUEUE', '--queue-num', String(QUEUE[dir]));
      }
      if (d.rate_kbit) {
        if (dir === 'up') {
          await tbf('replace', dev, d);
        } else {
          await ns('ip', 'link', 'add', ifb, 'type', 'ifb');
          await ns('ip', 'link', 'set', ifb, 'up');
          await ns('tc', 'qdisc', 'add', 'dev', dev, 'handle', 'ffff:', 'ingress');
          await ns('tc', 'filter', 'add', 'dev', dev, 'parent', 'ffff:', 'protocol', 'all', 'u32', 'match', 'u32', '0', '0',
            'action', 'mirred', 'egress', 'redirect', 'dev', ifb);
          await tbf('replace', ifb, d);
        }
      }
    }
  } catch (e) {
    for (const { p } of procs) signal(p, 'SIGTERM');
    await clear(ns, dev, ifb);
    throw new Error(`cannot impair ${netns}/${dev}: ${String(e.stderr ?? e.message).trim().split('\n')[0]}`);
  }
  log(`link ${netns}/${dev} impaired: ${imp.text}`);

  handle.setRate = async (kbit) => {
    const t = Date.now();
    for (const dir of ['up', 'down']) {
      const d = imp[dir];
      if (!d?.rate_kbit) continue;
      await tbf('change', dir === 'up' ? dev : ifb, { ...d, rate_kbit: kbit });
      handle.rates[dir] = kbit;
    }
    handle.changes.push({ t, rate_kbit: kbit });
  };
  // what the link did: packets into the delay line (and at the end its own counts: dropped = random loss), tbf sent/dropped
  handle.counters = async () => {
    const c = { up: {}, down: {} };
    const ipt = (await ns('iptables', '-L', '-v', '-x', '-n').catch(() => ({ stdout: '' }))).stdout;
    for (const line of ipt.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+).*lab-delay-(up|down)/.exec(line);
      if (m) c[m[3]].queued = Number(m[1]);
    }
    for (const [dir, where] of [['up', dev], ['down', ifb]]) {
      if (!imp[dir]?.rate_kbit) continue;
      const s = (await ns('tc', '-s', 'qdisc', 'show', 'dev', where).catch(() => ({ stdout: '' }))).stdout;
      const m = /Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)/.exec(s);
      if (m) Object.assign(c[dir], { rate_sent_pkts: Number(m[2]), rate_dropped: Number(m[3]) });
    }
    return c;
  };
  handle.stop = async () => {
    const counters = await handle.counters();
    for (const { dir, p, file } of procs) {
      signal(p, 'SIGTERM');
      await p.done;
      const last = fs.readFileSync(file, 'utf8').trim().split('\n').at(-1);
      try { counters[dir].delay_line = JSON.parse(last); } catch { counters[dir].delay_line = null; }
      counters[dir].loss_dropped = counters[dir].delay_line?.dropped ?? null;
    }
    await clear(ns, dev, ifb);
    return counters;
  };
  return handle;
}

async function clear(ns, dev, ifb) {
  const quiet = (p) => p.catch(() => {});
  const rules = (await ns('iptables', '-S').catch(() => ({ stdout: '' }))).stdout.split('\n').filter((l) => /lab-(loss|delay)-/.test(l));
  for (const r of rules) await quiet(ns('iptables', ...r.replace(/^-A /, '-D ').match(/"[^"]*"|\S+/g).map((w) => w.replace(/^"|"$/g, ''))));
  await quiet(ns('tc', 'qdisc', 'del', 'dev', dev, 'root'));
  await quiet(ns('tc', 'qdisc', 'del', 'dev', dev, 'ingress'));
  await quiet(ns('ip', 'link', 'del', ifb));
}

async function waitForLine(file, text, ms, p) {
  const t0 = Date.now();
  let exited = false;
  p.done.then(() => { exited = true; });
  while (Date.now() - t0 < ms) {
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(text)) return;
    if (exited) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const tail = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').at(-1) : '';
  throw new Error(`the delay line did not start${tail ? `: ${tail}` : ''}`);
}

// `node harness/kit/link.mjs --check SPEC | --check-name NAME | --list`: ./lab checks its options with this
// before it starts anything (exit 2 and one line on a bad spec).
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const [opt, arg] = process.argv.slice(2);
  try {
    if (opt === '--check') console.log(describe(parseNetem(arg)));
    else if (opt === '--check-name') console.log(resolveImpairment({ name: arg }).text);
    else if (opt === '--list') console.log(Object.keys(namedImpairments().named).join(' '));
    else throw new Error('usage: link.mjs --check SPEC | --check-name NAME | --list');
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}
