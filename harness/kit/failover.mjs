// A host of the scale-out layout dying (issue #28, docs/scale-out.md "A relay host that does not come back"), and
// what each call's media did across it, from packet captures. Used by scale-hosts.test.mjs and bench scale-out.
//  - killHost: SIGKILL the process groups of the host's components — only the pids the lab's supervisor recorded
//    for them (its "NAME PID" lines) — then delete the host's network namespace: its link leaves the bridge, its
//    addresses are gone, as with a machine that lost power;
//  - captureOn: tcpdump in a namespace (the client host: where the browsers are; the IMS host: where the UEs are);
//  - mediaGaps: per UDP flow of a capture, the longest silence around the failure and whether packets came after it.
import { execFileSync, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { logDir } from './env.mjs';
import { listCalls, ng } from './ng.mjs';
import { sleep, start, stop } from './procs.mjs';

const run = promisify(execFile);

/** The last recorded pid of each NAME in a supervisor's pids file ("NAME PID" lines). */
export function recordedPids(pidsFile, names) {
  const lines = fs.readFileSync(pidsFile, 'utf8').split('\n').map((l) => l.trim().split(/\s+/));
  return Object.fromEntries(names.map((n) => {
    const l = lines.filter((f) => f[0] === n).pop();
    if (!l) throw new Error(`no '${n}' in ${pidsFile}: the layout did not record that component`);
    return [n, Number(l[1])];
  }));
}

const alive = (pid) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch { return false; }
};

/**
 * Kills host NS: SIGKILL to the process group of each recorded pid of NAMES (the supervisor starts every component
 * in a session of its own: keepalived's VRRP child goes with its parent), then `ip netns del NS`. Returns the time
 * of the kill (epoch ms) and the pids killed.
 */
export async function killHost(pidsFile, names, ns) {
  const pids = recordedPids(pidsFile, names);
  for (const [n, pid] of Object.entries(pids)) if (!alive(pid)) throw new Error(`${n} (pid ${pid}) is not running before the kill`);
  const at = Date.now();
  for (const pid of Object.values(pids)) {
    try { process.kill(-pid, 'SIGKILL'); } catch { process.kill(pid, 'SIGKILL'); }
  }
  for (const end = Date.now() + 5000; Object.values(pids).some(alive);) {
    if (Date.now() > end) throw new Error(`still running 5 s after SIGKILL: ${JSON.stringify(pids)}`);
    await sleep(20);
  }
  execFileSync('ip', ['netns', 'del', ns]);
  return { at, pids };
}

/** tcpdump of UDP (FILTER, a pcap filter) on every interface of namespace NS (null: this one); stop() → file. */
export async function captureOn(ns, name, filter) {
  const file = path.join(logDir(), `${name}-${process.pid}.pcap`);
  const args = ['-i', 'any', '--immediate-mode', '-U', '-n', '-B', '8192', '-s', '96', '-w', file, ...filter.split(/\s+/)];
  let listening;
  const ready = new Promise((resolve) => { listening = resolve; });
  const proc = ns ? start(`tcpdump-${name}`, 'ip', ['netns', 'exec', ns, 'tcpdump', ...args], { log: `${file}.log`, onLine: (l) => { if (/listening on/.test(l)) listening(); } })
    : start(`tcpdump-${name}`, 'tcpdump', args, { log: `${file}.log`, onLine: (l) => { if (/listening on/.test(l)) listening(); } });
  const state = await Promise.race([ready.then(() => 'ok'), proc.done.then((d) => `exited ${JSON.stringify(d)}`), sleep(5000).then(() => 'timeout')]);
  if (state !== 'ok') {
    await stop(proc, 'SIGTERM', 1000);
    throw new Error(`tcpdump ${name} in ${ns ?? 'this namespace'} did not start (${state}): ${proc.tail().trim()}`);
  }
  return { file, async stop() { await sleep(300); await stop(proc, 'SIGINT'); return file; } };
}

/** Every UDP datagram of FILE: [epoch ms, "src:port", "dst:port"]. */
export async function datagrams(file) {
  const { stdout } = await run('tshark', ['-r', file, '-n', '-Y', 'udp && ip', '-T', 'fields', '-E', 'separator=;',
    '-e', 'frame.time_epoch', '-e', 'ip.src', '-e', 'udp.srcport', '-e', 'ip.dst', '-e', 'udp.dstport'], { maxBuffer: 256 * 1024 * 1024 });
  return stdout.trim().split('\n').filter(Boolean).map((l) => l.split(';'))
    .map(([t, sa, sp, da, dp]) => [Number(t) * 1000, `${sa}:${sp}`, `${da}:${dp}`]);
}

/**
 * The times (epoch ms) of the STUN binding success responses from SRC ("addr:port") in FILE: a relay answering the
 * browser's ICE consent checks (RFC 7675). Without them the browser ends the call's media within ~30 s.
 */
export async function stunAnswers(file, src) {
  const [addr, port] = [src.slice(0, src.lastIndexOf(':')), src.slice(src.lastIndexOf(':') + 1)];
  const { stdout } = await run('tshark', ['-r', file, '-n', '-Y', `stun.type == 0x0101 && ip.src == ${addr} && udp.srcport == ${port}`,
    '-T', 'fields', '-e', 'frame.time_epoch'], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim().split('\n').filter(Boolean).map((t) => Number(t) * 1000);
}

/**
 * The media of one flow (packets from SRC "addr:port", optionally to DST) across a failure at AT (epoch ms):
 * {before, after (packets after AT), gapMs (the longest interval between two packets from 1 s before AT to
 * UNTIL, or from the last packet to UNTIL when none came after), lastMs (the last packet, ms after AT)}.
 */
export function flowAcross(rows, src, at, until, dst = null) {
  const ts = rows.filter(([, s, d]) => s === src && (!dst || d === dst)).map(([t]) => t).sort((a, b) => a - b);
  const win = ts.filter((t) => t >= at - 1000 && t <= until);
  let gap = 0;
  for (let k = 1; k < win.length; k++) gap = Math.max(gap, win[k] - win[k - 1]);
  const after = ts.filter((t) => t > at).length;
  // innerGapMs: the longest silence between two packets only (a call that ended in the window is not silent after)
  const inner = win.length ? Math.max(gap, win[0] - (at - 1000)) : null;
  if (win.length) gap = Math.max(gap, until - win[win.length - 1], win[0] - (at - 1000));
  else gap = until - (at - 1000);
  return { before: ts.filter((t) => t <= at).length, after, gapMs: Math.round(gap), innerGapMs: inner == null ? null : Math.round(inner),
    lastMs: ts.length ? Math.round(ts[ts.length - 1] - at) : null };
}

/**
 * The outcome of one call across a failure: "kept" (media again both ways after it, and — CONSENT — the browser's
 * ICE consent checks answered again: gap = the longer of the two directions' gaps), "ended" (it ended with a reason
 * the user saw, e.g. media-lost), or "lost" (neither: silent, unanswered consent, or gone without a reason).
 */
export function outcome({ toBrowser, toIms, ended = null, consent = true }) {
  if (ended) return { outcome: 'ended', reason: ended };
  const kept = toBrowser.after > 0 && toIms.after > 0 && consent;
  return kept ? { outcome: 'kept', gapMs: Math.max(toBrowser.gapMs, toIms.gapMs) } : { outcome: 'lost' };
}

/**
 * Where a call's media is on the relays (RELAYS: [{addr, ...}], their service addresses): the relay whose address
 * its sockets are bound to — each relay also lists its standby copies of another relay's calls, so `list` alone does
 * not say — and its two local ports: {ngId, relay, browserPort, imsPort}.
 */
export async function mediaOf(relays, ngPort, callId) {
  for (const r of relays) {
    let calls;
    try { calls = await listCalls(`${r.addr}:${ngPort}`); } catch { continue; }
    const id = calls.find((c) => c.endsWith(callId));
    if (!id) continue;
    const q = await ng(`${r.addr}:${ngPort}`, { command: 'query', 'call-id': id });
    // each media's RTP stream (with rtcp-mux the only one; without, the RTCP one is flagged RTCP)
    const rtpOf = (m) => (m.streams ?? []).find((x) => (x.flags ?? []).includes('RTP')) ?? (m.streams ?? [])[0];
    const streams = Object.values(q.tags ?? {}).flatMap((t) => (t.medias ?? []).map((m) => ({ proto: m.protocol, s: rtpOf(m) })));
    const browser = streams.find((x) => /SAVPF/.test(x.proto ?? ''));
    const ims = streams.find((x) => x.proto === 'RTP/AVP');
    if (!browser?.s || !ims?.s) throw new Error(`query of ${id} on ${r.addr} has no browser and IMS streams: ${JSON.stringify(q).slice(0, 600)}`);
    const relay = relays.find((x) => x.addr === browser.s['local address']);
    if (!relay) throw new Error(`call ${callId} is bound to ${browser.s['local address']}, no relay's service address`);
    // createdMs: when the relay created the call (its offer), for each call's age at a kill
    const createdMs = q.created == null ? null : Number(q.created) * 1000 + Math.round(Number(q.created_us ?? 0) / 1000);
    return { ngId: id, relay, browserPort: browser.s['local port'], imsPort: ims.s['local port'], createdMs };
  }
  throw new Error(`no relay lists call ${callId}`);
}

const pct50 = (v) => {
  if (!v.length) return null;
  const s = [...v].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil(0.5 * s.length) - 1)] * 10) / 10;
};

/**
 * A relay host dies (docs/scale-out.md "A relay host that does not come back"), with the media of every call around
 * it captured: RELAYS the relays' ng addresses, INDEX (0-based) the one killed — NAMES its components (rtpengine and
 * its keepalived) on namespace NS; WHERE (Map relay call-id -> mediaOf) the calls up now; IMS_HOST the namespace of
 * the UEs (the IMS side's capture; null: this one); LABEL names the capture files. Returns {at (epoch ms), pids,
 * standby_answering_ms (the relay's ng address answered again: its standby), held: the killed relay's calls and
 * others: every other relay's, each {id, age_at_kill_ms (since the relay created it), to_browser, to_ims}
 * (flowAcross: before/after/gap around the kill)}.
 * Used by bench scale-out's phase and ./lab soak's relay kill.
 */
export async function relayKill({ pidsFile, relays, index, names, ns, where, imsHost = null, label }) {
  const relayObjs = relays.map((r) => ({ addr: r.slice(0, r.lastIndexOf(':')), ng: r }));
  const caps = [await captureOn(null, `${label}-client`, 'udp and portrange 30000-39999'),
    await captureOn(imsHost, `${label}-ims`, 'udp and portrange 30000-39999')];
  await sleep(1200); // the gaps are measured from 1 s before the kill: the captures must cover it
  const k = await killHost(pidsFile, names, ns);
  let standbyMs = null;
  for (const t0 = Date.now(); Date.now() - t0 < 10000; await sleep(50)) {
    if ((await ng(relays[index], { command: 'ping' }, 200).catch(() => ({}))).result === 'pong') { standbyMs = Date.now() - k.at; break; }
  }
  await sleep(8000);
  const until = Date.now();
  const [rowsC, rowsI] = [await datagrams(await caps[0].stop()), await datagrams(await caps[1].stop())];
  const flows = (m) => ({ age_at_kill_ms: m.createdMs == null ? null : k.at - m.createdMs, to_browser: flowAcross(rowsC, `${m.relay.addr}:${m.browserPort}`, k.at, until),
    to_ims: flowAcross(rowsI, `${m.relay.addr}:${m.imsPort}`, k.at, until) });
  const entries = [...where.entries()].filter(([, m]) => m);
  return { at: k.at, pids: k.pids, standby_answering_ms: standbyMs, relay: relayObjs[index].ng,
    held: entries.filter(([, m]) => m.relay.ng === relays[index]).map(([id, m]) => ({ id, ...flows(m) })),
    others: entries.filter(([, m]) => m.relay.ng !== relays[index]).map(([id, m]) => ({ id, ...flows(m) })) };
}

/**
 * A gateway host dies (docs/scale-out.md "A gateway host that does not come back"): gateway INDEX's JVM NAME is
 * SIGKILLed and its namespace NS deleted; each of its calls HELD (relay call-ids, prefix gw<INDEX>-) must be ended
 * toward the IMS by a live gateway from the dialog it kept in Redis — a BYE with the call's Call-ID in one of the
 * UEs' SIPp message logs UE_LOGS (read from their size at the kill on) and its relay session deleted (RELAYS'
 * `list`) — within 15 s: `ended` (ms after the kill), else `lost` (an orphan at the IMS or on a relay).
 * Used by bench scale-out's phase and ./lab soak's gateway kill.
 */
export async function gatewayKill({ pidsFile, name, ns, index, held, relays, ueLogs }) {
  const prefix = `gw${index}-`;
  const from = new Map(ueLogs.map((f) => [f, fs.existsSync(f) ? fs.statSync(f).size : 0]));
  const k = await killHost(pidsFile, [name], ns);
  const tail = (f) => {
    if (!fs.existsSync(f)) return '';
    const fd = fs.openSync(f, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, size - from.get(f)));
      fs.readSync(fd, buf, 0, buf.length, from.get(f));
      return buf.toString('latin1');
    } finally { fs.closeSync(fd); }
  };
  const byeAt = new Map();
  const sessionGoneAt = new Map();
  for (const t0 = Date.now(); Date.now() - t0 < 15000 && (byeAt.size < held.length || sessionGoneAt.size < held.length); await sleep(200)) {
    const log = ueLogs.map(tail).join('\n').replace(/\r/g, '');
    const live = new Set((await Promise.all(relays.map((r) => listCalls(r).catch(() => [])))).flat());
    for (const id of held) {
      const sip = id.slice(prefix.length);
      if (!byeAt.has(id) && new RegExp(`^BYE sip:[^\\n]*\\n(?:[^\\n]+\\n)*?Call-ID:\\s*${sip.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'mi').test(log)) byeAt.set(id, Date.now() - k.at);
      if (!sessionGoneAt.has(id) && !live.has(id)) sessionGoneAt.set(id, Date.now() - k.at);
    }
  }
  const calls = held.map((id) => ({ id, outcome: byeAt.has(id) && sessionGoneAt.has(id) ? 'ended' : 'lost',
    bye_at_ue_ms: byeAt.get(id) ?? null, relay_session_gone_ms: sessionGoneAt.get(id) ?? null }));
  const ended = calls.filter((c) => c.outcome === 'ended');
  const r = { gateway: name, index, host: ns, at: new Date(k.at).toISOString(), at_ms: k.at, calls_held: held.length,
    calls, kept_with_media: 0, ended_cleanly: ended.length, lost: calls.length - ended.length,
    bye_ms: ended.length ? { max: Math.max(...ended.map((c) => c.bye_at_ue_ms)), p50: pct50(ended.map((c) => c.bye_at_ue_ms)) } : null };
  r.outcome = `0 kept with media, ${r.ended_cleanly} ended cleanly (BYE at the UE after ${r.bye_ms?.p50 ?? '—'} ms p50, ${r.bye_ms?.max ?? '—'} max; relay session deleted), ${r.lost} lost`;
  return r;
}
