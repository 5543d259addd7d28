// Real-time text through the data-channel endpoint's text bridge (media-relay/datachannel, docs/datachannel.md
// "Real-time text"): a browser's T.140 data channel (RFC 8865) <-> RFC 4103 RTP text with RFC 2198 redundancy
// toward the lab's RFC 4103 UE (harness/tests/rfc4103_ue.py, its own implementation). The endpoint is driven
// through its control protocol as the gateway would drive it (offer, text-offer, text-answer, query, delete).
// The browser is an aiortc peer (harness/tests/rtt-peers.py); real Chromium and Firefox pages are in
// rtt-calls.test.mjs, through the gateway. With the UE's loss knob at 5 % (seeded: the same drops every run, one run of two and
// one single loss each way) every character arrives exactly once; the same drops without redundancy lose
// text, marked U+FFFD, which shows the comparison bites.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { labRoot, outDir } from '../kit/env.mjs';
import { ng } from '../kit/ng.mjs';
import { adopt } from '../kit/procs.mjs';

const CTL = LAB.LAB_DATACHANNEL_CTL;
const PYTHON = path.join(labRoot(), 'out', 'pyenv', 'bin', 'python');
const PEERS = path.join(labRoot(), 'harness', 'tests', 'rtt-peers.py');
const LOSS = ['--loss', '0.05', '--seed', '144'];
const MISSING = '\ufffd';
const results = {};

function runPeers(args) {
  assert.ok(fs.existsSync(PYTHON), `${PYTHON} is missing: ./lab test installs aiortc there (harness/lib/build.sh build_pyenv)`);
  return new Promise((resolve) => {
    const child = spawn(PYTHON, [PEERS, CTL, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    adopt('rtt-peers', child.pid);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => {
      let r;
      try { r = JSON.parse(out.trim().split('\n').pop() || ''); } catch { assert.fail(`rtt-peers.py printed no JSON result (exit ${code}); stderr: ${err.slice(-1500)}`); }
      assert.equal(r.ok, true, `rtt-peers.py failed: ${r.error}`);
      resolve(r);
    });
  });
}

function assertExact(r, what) {
  assert.equal(r.at_ue, r.want_at_ue, `${what}: the RFC 4103 UE got ${JSON.stringify(r.at_ue)} for the browser's ${JSON.stringify(r.want_at_ue)}`);
  assert.equal(r.at_browser, r.want_at_browser, `${what}: the browser got ${JSON.stringify(r.at_browser)} for the UE's ${JSON.stringify(r.want_at_browser)}`);
  for (const dir of ['browser-to-ims', 'ims-to-browser']) assert.ok(r.endpoint_text[dir], `${what}: the endpoint's query has no text ${dir}`);
  assert.equal(r.endpoint_text['ims-to-browser'].lost, 0, `${what}: the endpoint marked text from the UE as lost`);
  assert.equal(r.ue.lost, 0, `${what}: the UE marked text from the endpoint as lost`);
}

test('rtt: the text commands refuse what they cannot do, with a reason', async () => {
  const none = await ng(CTL, { command: 'text-offer', 'call-id': 'no-such-call' }, 2000);
  assert.equal(none.result, 'error', `text-offer for an unknown call must fail: ${JSON.stringify(none)}`);
  assert.match(none['error-reason'], /unknown call-id no-such-call .*offer first/, `the reason must say the call needs an offer first: ${none['error-reason']}`);
  const bad = await ng(CTL, { command: 'text-offer', 'call-id': 'x', channel: 4000 }, 2000);
  assert.match(bad['error-reason'] ?? '', /"channel" is out of range 0\.\.1023/, `a channel id beyond 1023: ${JSON.stringify(bad)}`);
  const noSdp = await ng(CTL, { command: 'text-answer', 'call-id': 'x' }, 2000);
  assert.match(noSdp['error-reason'] ?? '', /no "sdp"/, `text-answer without an SDP: ${JSON.stringify(noSdp)}`);
});

test('rtt: an aiortc browser types over a DCEP T.140 channel, the RFC 4103 UE gets it and answers', { timeout: 60000 }, async (t) => {
  const r = await runPeers([]);
  assertExact(r, 'no loss');
  assert.equal(r.endpoint_text.redundancy, 2, 'the bridge must send with 2 redundant generations');
  assert.ok(r.endpoint_text['browser-to-ims']['rtp-packets'] >= 3, 'the text and its two redundancy packets');
  assert.ok(r.ue.rtcp_received >= 1 && r.ue.rtcp_kinds.includes('SR'), `the UE got no RTCP sender report from the endpoint: ${JSON.stringify(r.ue)}`);
  results.aiortc = r;
  t.diagnostic(`set-up ${r.setup_ms} ms; browser typing -> all text at the UE ${r.browser_to_ue_ms} ms; RTP packets ${r.endpoint_text['browser-to-ims']['rtp-packets']} out, ${r.endpoint_text['ims-to-browser']['rtp-packets']} in`);
});

test('rtt: with 5 % RTP loss at the UE (both ways) no character is lost or doubled (negotiated channel)', { timeout: 60000 }, async (t) => {
  const r = await runPeers([...LOSS, '--negotiated', '7', '--cps', '20']);
  assertExact(r, '5 % loss');
  assert.equal(r.endpoint_text.channel, 7, 'the negotiated T.140 stream');
  assert.ok(r.ue.send_dropped >= 1 && r.ue.recv_dropped >= 1, `the loss knob must have dropped packets both ways (sent ${r.ue.send_dropped}, received ${r.ue.recv_dropped})`);
  assert.equal(r.endpoint_text['ims-to-browser'].recovered, r.ue.send_dropped, 'the endpoint must recover every packet the UE dropped on sending from the redundancy');
  assert.equal(r.ue.recovered, r.ue.recv_dropped, 'the UE must recover every packet it dropped on receiving from the redundancy');
  results.loss = r;
  t.diagnostic(`UE dropped ${r.ue.send_dropped}/${r.ue.sent_packets} sent (at ${r.ue.send_dropped_at}) and ${r.ue.recv_dropped}/${r.ue.received_packets + r.ue.recv_dropped} received (at ${r.ue.recv_dropped_at}); recovered: endpoint ${r.endpoint_text['ims-to-browser'].recovered}, UE ${r.ue.recovered}`);
});

test('rtt: the same drops without redundancy lose text, marked U+FFFD both ways', { timeout: 60000 }, async (t) => {
  const r = await runPeers([...LOSS, '--cps', '20', '--redundancy', '0']);
  assert.equal(r.endpoint_text.redundancy, 0, 'plain t140 was asked for');
  assert.ok(r.at_ue.includes(MISSING) && r.at_ue !== r.want_at_ue, `the UE should have lost text: ${JSON.stringify(r.at_ue)}`);
  assert.ok(r.at_browser.includes(MISSING) && r.at_browser !== r.want_at_browser, `the browser should have lost text: ${JSON.stringify(r.at_browser)}`);
  assert.ok(r.endpoint_text['ims-to-browser'].lost >= 1, 'the endpoint counts the packets it could not recover');
  t.diagnostic(`without redundancy: UE got ${JSON.stringify(r.at_ue)}, browser got ${JSON.stringify(r.at_browser)}`);
});

after(() => fs.writeFileSync(path.join(outDir(), 'rtt.json'), JSON.stringify(results, null, 2)));
