// Integration (issue #15): an impaired browser link (docs/scenarios.md "Impairments"). One MO call on
// the plain link, then one with 100 ms delay and 10 % loss each way on the browser's veth end
// (harness/kit/link.mjs: the NFQUEUE delay line in the browser's namespace, which also drops): the
// browser's RTT toward rtpengine rises by about 200 ms and about 10 % of its packets never reach the
// relay, while rtpengine's own per-packet delay (capture of both legs + delaymeter) does not move.
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

// One MO call to ue1 (echo) under a capture: the browser's RTT samples after the first 3 s, its packet
// counters, and delaymeter's figures for the call's audio SSRC.
async function measuredCall() {
  const cap = await startCapture(null, 'impairment-rtp', { filter: `udp portrange ${RELAY_PORTS}`, args: ['-B', '65536', '-s', '200'] });
  let r;
  try {
    r = await moCall(client, { token, from: USER, to: 'ue1', hangup: 'browser', mediaMs: MEDIA_MS, maxMs: 30000 });
  } finally {
    await new Promise((res) => setTimeout(res, 300));
    await cap.stop();
  }
  assert.equal(r.error, null, r.error);
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
  return { r, rtt, toIms, toBrowser, edges: await edgePackets(cap.file, r.hungUpAt, Number(r.browser.audioSsrc) >>> 0), upLossPct: 100 * (1 - (toIms.matched + toIms.lost) / r.browser.packetsSent) };
}

test(titled('a delayed, lossy browser link: browser RTT +~200 ms, ~10 % lost on the way up, relay delay unchanged'), { timeout: 85000 }, async () => {
  const plain = await measuredCall();
  assert.ok(plain.rtt != null, 'no RTT from getStats on the plain link');
  link = await applyLink(resolveImpairment({ netem: 'delay 100ms loss 10%' }));
  const imp = await measuredCall();
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
