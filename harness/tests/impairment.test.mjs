// Integration (issue #15): an impaired browser link (docs/scenarios.md "Impairments"). One MO call on
// the plain link, then one with 100 ms delay and 10 % loss each way on the browser's veth end
// (harness/kit/link.mjs: the NFQUEUE delay line in the browser's namespace, which also drops): the
// browser's RTT toward rtpengine rises by about 200 ms and about 10 % of its packets never reach the
// relay, while rtpengine's own per-packet delay (capture of both legs + delaymeter) does not move. And one
// datagram lost at the worst moment: the DTLS handshake's last flight, once, on the browser link; the call must
// still get media (docs/media.md "A lost last DTLS flight").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { relayDelay, startCapture } from '../kit/capture.mjs';
import { passwordOf } from '../kit/env.mjs';
import { applyLink, resolveImpairment } from '../kit/link.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import * as gw from '../runner/gateway.mjs';
import { moCall } from '../runner/scenario.mjs';
import { titled } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const USER = 'dave';
const MEDIA_MS = 9000;
const RELAY_PORTS = '30000-30999';
const IMS_PORTS = LAB.LAB_UE_RTP_PORTS; // the SIPp UEs' RTP ports (relayDelay's default imsPorts)
let browser;
let client;
let token;
let link = null;

before(async () => {
  assert.ok(process.env.LAB_BROWSER_NS, 'LAB_BROWSER_NS is not set: run through ./lab test (the browser topology)');
  await gw.waitHealthy(15000);
  browser = await launchBrowser();
  client = await openClient(browser, { name: `test-impairment-${USER}` });
  ({ token } = await client.login(USER, passwordOf(USER)));
});

after(async () => {
  await link?.stop().catch(() => {});
  await client?.logout().catch(() => {});
  await browser?.close();
});

// The packets rtpengine could not forward at a call's two edges, per direction (from the capture, whose
// clock is this process's): the head, sent before rtpengine forwarded the first packet that way (a DTLS
// flight the lossy link dropped: the browser already sends SRTP that rtpengine cannot use until the flight
// is retransmitted, about 1 s later), and the tail, which reached the relay after both the hang-up
// (hungUpAt) and the last packet it forwarded that way: the browser's last packets, still on the delayed
// link or sent before the gateway's `ended` reached the page, arrive after rtpengine deleted the call
// (docs/scenarios.md "Reading the figures"). A packet lost in between, while the call was up, is the
// relay's own loss. Counted as delaymeter counts `lost`: RTP packets of the call's audio SSRC only (not STUN,
// DTLS or RTCP, which cross the same ports).
async function edgePackets(file, hungUpAt, ssrc) {
  const { stdout } = await promisify(execFile)('tshark', ['-r', file, '-n', '-T', 'fields', '-E', 'separator=;',
    '-e', 'frame.time_epoch', '-e', 'ip.src', '-e', 'udp.srcport', '-e', 'ip.dst', '-e', 'udp.dstport', '-e', 'udp.payload'],
  { maxBuffer: 64 << 20 });
  // RTP (RFC 3550 version 2, not an RTCP packet type, RFC 5761 §4) of `ssrc`; SRTP keeps the header in the clear
  const isAudioRtp = (hex) => {
    const b = Buffer.from(hex.replace(/:/g, ''), 'hex');
    return b.length >= 12 && b[0] >> 6 === 2 && !((b[1] & 0x7f) >= 64 && (b[1] & 0x7f) <= 95) && b.readUInt32BE(8) === ssrc;
  };
  const rows = stdout.trim().split('\n').map((l) => l.split(';')).filter((f) => f.length === 6 && isAudioRtp(f[5]))
    .map(([t, src, sport, dst, dport]) => ({ t: Number(t) * 1000, src, sport: Number(sport), dst, dport: Number(dport) }));
  const [lo, hi] = RELAY_PORTS.split('-').map(Number);
  const [ilo, ihi] = IMS_PORTS.split('-').map(Number);
  const relay = (p) => p >= lo && p <= hi;
  const ims = (p) => p >= ilo && p <= ihi;
  const edges = (isIn, isOut) => {
    const out = rows.filter(isOut);
    if (!out.length) return { head: rows.filter(isIn).length, tail: 0 };
    const after = Math.max(out[out.length - 1].t, hungUpAt);
    return { head: rows.filter((p) => isIn(p) && p.t < out[0].t).length, tail: rows.filter((p) => isIn(p) && p.t > after).length };
  };
  return {
    toIms: edges((p) => p.src === ADDRESSES.browser && relay(p.dport), (p) => p.src === '127.0.0.1' && relay(p.sport) && ims(p.dport)),
    toBrowser: edges((p) => p.src === '127.0.0.1' && ims(p.sport) && relay(p.dport), (p) => p.src === ADDRESSES.pub && p.dst === ADDRESSES.browser && relay(p.sport)),
  };
}

const median = (xs) => {
  const v = xs.filter((x) => x != null).sort((a, b) => a - b);
  return v.length ? v[Math.floor((v.length - 1) / 2)] : null;
};

// A call whose page sent or received no audio says so, with the page's DTLS state, before anything reads the
// capture (there delaymeter would only find "no RTP on relay ports": the STUN and DTLS datagrams of a handshake
// that never completed).
function assertMediaFlowed(r, label) {
  const b = r.browser ?? {};
  assert.ok(b.packetsSent > 0 && b.packetsReceived > 0, `the ${label} call had no media at the page (sent ${b.packetsSent}, `
    + `received ${b.packetsReceived}, DTLS ${b.dtlsState}, ICE ${b.iceState}; rtpengine to IMS ${r.info?.media?.packetsToIms}, `
    + `to the browser ${r.info?.media?.packetsToBrowser})${b.dtlsState === 'connected' ? '' : ': its DTLS handshake never completed '
    + '(a lost flight that was never resent: docs/media.md "A lost last DTLS flight")'}`);
}

// One MO call to ue1 (echo) under a capture: the browser's RTT samples after the first 3 s, its packet
// counters, and delaymeter's figures for the call's audio SSRC.
async function measuredCall(label) {
  const cap = await startCapture(null, 'impairment-rtp', { filter: `udp portrange ${RELAY_PORTS}`, args: ['-B', '65536', '-s', '200'] });
  let r;
  try {
    r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS, maxMs: 30000 });
  } finally {
    await new Promise((res) => setTimeout(res, 300));
    await cap.stop();
  }
  assert.equal(r.error, null, r.error);
  assertMediaFlowed(r, label);
  await assertFarUeAssertedIdentity({ token, callId: r.callId, ue: 'ue1' });
  const t0 = r.answeredAt + 3000;
  const rtt = median(r.samples.filter((s) => s.t >= t0).map((s) => s.rtt));
  const dm = await relayDelay(cap.file, { aliases: [ADDRESSES.pub], relayPorts: RELAY_PORTS });
  const ssrc = `0x${(Number(r.browser.audioSsrc) >>> 0).toString(16).padStart(8, '0')}`;
  const dir = (k) => dm.directions[k].ssrcs.find((s) => s.ssrc.toLowerCase() === ssrc);
  const toIms = dir('to_ims');
  const toBrowser = dir('to_browser');
  assert.ok(toIms?.matched > 100 && toBrowser?.matched > 100, `delaymeter paired too few packets of ${ssrc}: ${JSON.stringify(dm.directions)}`);
  assert.ok(r.hungUpAt, 'the browser did not hang up');
  return { r, rtt, toIms, toBrowser, edges: await edgePackets(cap.file, r.hungUpAt, Number(r.browser.audioSsrc) >>> 0), upLossPct: 100 * (1 - (toIms.matched + toIms.lost + (toIms.in_flight_at_end ?? 0)) / r.browser.packetsSent) };
}

test(titled('a delayed, lossy browser link: browser RTT +~200 ms, ~10 % lost on the way up, relay delay unchanged'), { timeout: 85000 }, async () => {
  const plain = await measuredCall('plain');
  assert.ok(plain.rtt != null, 'no RTT from getStats on the plain link');
  link = await applyLink(resolveImpairment({ netem: 'delay 100ms loss 10%' }));
  const imp = await measuredCall('impaired');
  const counters = await link.stop();
  link = null;
  const rise = imp.rtt - plain.rtt;
  const msg = `RTT plain ${plain.rtt} ms, impaired ${imp.rtt} ms; relay p50 to_ims ${plain.toIms.delay_ms.p50} -> ${imp.toIms.delay_ms.p50} ms, `
    + `to_browser ${plain.toBrowser.delay_ms.p50} -> ${imp.toBrowser.delay_ms.p50} ms; up loss ${imp.upLossPct.toFixed(1)} %; `
    + `relay lost (matched) to_ims ${plain.toIms.lost} (${plain.toIms.matched}) -> ${imp.toIms.lost} (${imp.toIms.matched}), `
    + `to_browser ${plain.toBrowser.lost} (${plain.toBrowser.matched}) -> ${imp.toBrowser.lost} (${imp.toBrowser.matched}); `
    + `edges (head/tail) to_ims ${imp.edges.toIms.head}/${imp.edges.toIms.tail}, to_browser ${imp.edges.toBrowser.head}/${imp.edges.toBrowser.tail}; link ${JSON.stringify(counters)}`;
  console.log(msg);
  assert.ok(rise > 170 && rise < 260, `the RTT should rise by ~200 ms: ${msg}`);
  assert.ok(imp.upLossPct > 4 && imp.upLossPct < 18, `~10 % of the browser's packets should not reach rtpengine: ${msg}`);
  assert.ok(counters.up.loss_dropped > 0 && counters.down.loss_dropped > 0, `the delay lines dropped nothing: ${msg}`);
  // the impairment is on the link, outside the relay: rtpengine's own delay stays sub-millisecond-ish
  for (const k of ['toIms', 'toBrowser']) {
    assert.ok(imp[k].delay_ms.p50 < plain[k].delay_ms.p50 + 2 && imp[k].delay_ms.p50 < 5, `relay delay moved (${k}): ${msg}`);
    // what rtpengine could not forward at the call's two edges is the link's and the hang-up's, not the
    // relay's (edgePackets); a few more for packets in flight between the two legs at an edge
    const { head, tail } = imp.edges[k];
    const allowed = head + tail + 5;
    assert.ok(imp[k].lost <= allowed, `the relay lost packets (${k}: ${imp[k].lost} > ${allowed}): ${msg}`);
  }
});

// The DTLS handshake's last flight (the DTLS server's ChangeCipherSpec + Finished, RFC 6347 §4.2.4: a datagram that
// opens with a ChangeCipherSpec record, content type 20) dropped once on the browser link, in whichever direction it
// goes: the browser's end for rtpengine's (its namespace's INPUT), the core's end for the browser's (this namespace's
// INPUT; a drop in the browser's OUTPUT would fail its sendmsg, which no link does). The client then resends its own
// flight and the server must answer it with its last one again; rtpengine 10.5 as DTLS server does not (it takes the
// handshake as done, sipwise/rtpengine#1310), so the call had no media at all, as in the impaired call of a CI run
// (docs/media.md "A lost last DTLS flight"). The first such datagram each way is dropped (`recent` marks its source),
// later ones pass.
async function dropLastFlightOnce() {
  const ns = process.env.LAB_BROWSER_NS;
  const exec = promisify(execFile);
  const u32 = ['-m', 'u32', '--u32', '0>>22&0x3C@8>>24=0x14'];   // the UDP payload's first byte (IHL-aware)
  const sides = [
    { dir: 'down', ipt: (...a) => exec('ip', ['netns', 'exec', ns, 'iptables', ...a]), match: ['-s', ADDRESSES.pub, '-d', ADDRESSES.browser, '--sport', RELAY_PORTS.replace('-', ':')] },
    { dir: 'up', ipt: (...a) => exec('iptables', a), match: ['-s', ADDRESSES.browser, '-d', ADDRESSES.pub, '--dport', RELAY_PORTS.replace('-', ':')] },
  ];
  const rules = (s) => {
    const base = ['INPUT', '-p', 'udp', ...s.match, ...u32, '-m', 'comment', '--comment', `lab-lastflight-${s.dir}`];
    return [[...base, '-m', 'recent', '--name', `lab-lastflight-${s.dir}`, '--rcheck', '-j', 'ACCEPT'],
      [...base, '-m', 'recent', '--name', `lab-lastflight-${s.dir}`, '--set', '-j', 'DROP']];
  };
  const added = [];
  const remove = async () => {
    for (const [s, rule] of added.reverse()) await s.ipt('-D', ...rule).catch(() => {});
    added.length = 0;
  };
  try {
    for (const s of sides) {
      const [pass, drop] = rules(s);
      await s.ipt('-I', ...drop);
      added.push([s, drop]);
      await s.ipt('-I', ...pass);
      added.push([s, pass]);
    }
  } catch (e) {
    await remove();
    throw new Error(`cannot set the DTLS last-flight drop: ${String(e.stderr ?? e.message).trim().split('\n')[0]}`);
  }
  return {
    // {down, up}: datagrams each DROP rule took
    async dropped() {
      const out = {};
      for (const s of sides) {
        const { stdout } = await s.ipt('-L', 'INPUT', '-v', '-x', '-n');
        const line = stdout.split('\n').find((l) => l.includes(`lab-lastflight-${s.dir}`) && /\bDROP\b/.test(l));
        out[s.dir] = line ? Number(line.trim().split(/\s+/)[0]) : null;
      }
      return out;
    },
    stop: remove,
  };
}

test(titled('the DTLS handshake\'s last flight lost once on the browser link: the call still gets media both ways'), { timeout: 40000 }, async () => {
  const drop = await dropLastFlightOnce();
  let r;
  let dropped;
  try {
    r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: 6000, maxMs: 20000 });
    dropped = await drop.dropped();
  } finally {
    await drop.stop();
  }
  assert.equal(r.error, null, r.error);
  const b = r.browser ?? {};
  const seen = `page DTLS ${b.dtlsState}, sent ${b.packetsSent}, received ${b.packetsReceived}; rtpengine to IMS `
    + `${r.info?.media?.packetsToIms}, to the browser ${r.info?.media?.packetsToBrowser}; last-flight datagrams dropped ${JSON.stringify(dropped)}`;
  console.log(`last flight lost once: ${seen}`);
  assert.ok(dropped.down + dropped.up >= 1, `no datagram opening with a DTLS ChangeCipherSpec record crossed the browser link, `
    + `so nothing was dropped and the test proves nothing: ${seen}`);
  // 6 s of 20 ms audio; the lost flight is resent after DTLS's 1 s timer, so at least 2 s of it must arrive each way
  assert.ok(b.packetsReceived >= 100 && b.packetsSent >= 100 && r.info?.media?.packetsToIms >= 100, `the call had (almost) no media `
    + `after its DTLS handshake's last flight was lost once: the flight was never resent (rtpengine as DTLS server, `
    + `sipwise/rtpengine#1310; docs/media.md "A lost last DTLS flight"): ${seen}`);
});
