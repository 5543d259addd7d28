// The data-channel endpoint (media-relay/datachannel, docs/datachannel.md) that ./lab starts beside
// rtpengine: two real WebRTC peers (aiortc, harness/tests/datachannel-peers.py), one as the browser and
// one as the IMS UE, set up through its control protocol and exchange text and binary messages both
// ways on a dcmap-negotiated application channel (stream 1000, a=3gpp-req-app) and on two channels the
// browser opens with DCEP (unordered without retransmissions; ordered with a lifetime) and on one the
// IMS UE opens with DCEP (ordered, reliable). Two more put a real Chromium, then Firefox (in the lab's
// browser namespace, over the veth to the endpoint's browser-facing address) in the browser's place, with
// an aiortc IMS UE that echoes what it receives. The control
// protocol's errors are checked on their own. Delays go to out/test/datachannel.json.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { labRoot, outDir } from '../kit/env.mjs';
import { launchBrowser } from '../runner/browser.mjs';
import { adopt } from '../kit/procs.mjs';

const CTL = LAB.LAB_DATACHANNEL_CTL;
const PYTHON = path.join(labRoot(), 'out', 'pyenv', 'bin', 'python');
const PEERS = path.join(labRoot(), 'harness', 'tests', 'datachannel-peers.py');
const MESSAGES = 50; // per kind (text, binary), direction and channel

// One bencoded command to the endpoint ("<cookie> <bencode>", rtpengine's ng framing); the reply's raw text.
function control(bencoded, timeoutMs = 2000) {
  const [host, port] = [CTL.slice(0, CTL.lastIndexOf(':')), Number(CTL.slice(CTL.lastIndexOf(':') + 1))];
  const cookie = `t${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => { s.close(); reject(new Error(`no reply from the data-channel endpoint at ${CTL} within ${timeoutMs} ms (is it running? ./lab starts it when media-relay/build/datachannel/datachannel exists)`)); }, timeoutMs);
    s.on('message', (msg) => {
      const text = msg.toString('latin1');
      if (!text.startsWith(`${cookie} `)) return;
      clearTimeout(timer);
      s.close();
      resolve(text.slice(cookie.length + 1));
    });
    s.send(Buffer.from(`${cookie} ${bencoded}`, 'latin1'), port, host);
  });
}
const bstr = (s) => `${Buffer.byteLength(s, 'latin1')}:${s}`;
// the same in UTF-8 (SDP may carry non-ASCII); decodes only the keys asked for, enough for offer replies
const ustr = (s) => `${Buffer.byteLength(s, 'utf8')}:${s}`;
function bencodedString(reply, key) {
  const at = reply.indexOf(`${key.length}:${key}`);
  if (at < 0) return null;
  const p = at + `${key.length}:${key}`.length;
  const colon = reply.indexOf(':', p);
  const n = Number(reply.slice(p, colon));
  return Buffer.from(reply.slice(colon + 1), 'latin1').subarray(0, n).toString('utf8');
}

test('datachannel: the control protocol answers ping and refuses bad commands with a reason', async () => {
  assert.equal(await control('d7:command4:pinge'), 'd6:result4:ponge', 'ping must be answered with result pong');
  const unknown = await control(`d7:call-id${bstr('no-such-call')}7:command5:querye`);
  assert.match(unknown, /6:result5:error/, `query of an unknown call must be an error: ${unknown}`);
  assert.match(unknown, /unknown call-id no-such-call/, `the error must name the call-id: ${unknown}`);
  const audioOnly = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n';
  const noDc = await control(`d7:call-id${bstr('x1')}7:command5:offer3:sdp${bstr(audioOnly)}e`);
  assert.match(noDc, /no m=application UDP\/DTLS\/SCTP webrtc-datachannel section/, `an offer without a data-channel section: ${noDc}`);
  const list = await control('d7:command4:liste');
  assert.doesNotMatch(list, /x1/, `a refused offer must leave no session behind: ${list}`);
});

test('datachannel: browser and IMS UE peers exchange text and binary both ways through the endpoint', { timeout: 60000 }, async (t) => {
  assert.ok(fs.existsSync(PYTHON), `${PYTHON} is missing: ./lab test --only datachannel installs aiortc there (harness/lib/build.sh build_pyenv)`);
  const child = spawn(PYTHON, [PEERS, CTL, String(MESSAGES)], { stdio: ['ignore', 'pipe', 'pipe'] });
  adopt('datachannel-peers', child.pid);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((resolve) => child.on('close', resolve));
  const last = out.trim().split('\n').pop() || '';
  let r;
  try { r = JSON.parse(last); } catch { assert.fail(`the peers printed no JSON result (exit ${code}); stderr: ${err.slice(-1500)}`); }
  assert.equal(r.ok, true, `the peers failed: ${r.error}`);
  assert.equal(code, 0, `the peers exited ${code}: ${err.slice(-800)}`);
  for (const [k, v] of Object.entries(r.received)) {
    if (k.startsWith('unrel')) {
      // max-retransmits 0: loopback loses nothing, but the channel may drop; most must arrive
      assert.ok(v.text + v.binary >= MESSAGES, `${k}: only ${v.text} text + ${v.binary} binary of ${2 * MESSAGES} arrived`);
    } else {
      assert.deepEqual(v, { text: MESSAGES, binary: MESSAGES }, `${k}: not every message arrived`);
    }
  }
  const labels = r.endpoint_channels.map((c) => `${c.label}:${c['browser-stream']}->${c['ims-stream']}:${c.negotiated}`).sort();
  assert.ok(labels.includes('app:1000->1000:yes'), `the endpoint's channel map lacks the negotiated app channel: ${labels}`);
  assert.ok(labels.some((l) => /^from-ims:\d+->\d+:no$/.test(l)), `the endpoint's channel map lacks the IMS UE's DCEP channel: ${labels}`);
  assert.equal(r.endpoint_channels.length, 3, `after the browser closed ordered-lifetime the endpoint should map 3 channels: ${labels}`);
  assert.ok(!labels.some((l) => l.startsWith('ordered-lifetime:')), `the closed channel is still mapped: ${labels}`);
  for (const dir of ['browser-to-ims', 'ims-to-browser']) {
    assert.equal(r.endpoint_relay_us[dir].dropped, 0, `the endpoint dropped messages ${dir}`);
    assert.ok(r.endpoint_relay_us[dir].messages >= 2 * MESSAGES * 3, `the endpoint relayed only ${r.endpoint_relay_us[dir].messages} messages ${dir}`);
  }
  fs.writeFileSync(path.join(outDir(), 'datachannel.json'), JSON.stringify(r, null, 2));
  const fmt = (d) => `p50 ${d.p50} ms, p95 ${d.p95} ms, max ${d.max} ms (n=${d.n})`;
  for (const [k, d] of Object.entries(r.delay_ms)) t.diagnostic(`peer-to-peer delay ${k}: ${fmt(d)}`);
  for (const dir of ['browser-to-ims', 'ims-to-browser']) {
    const e = r.endpoint_relay_us[dir];
    t.diagnostic(`endpoint relay time ${dir}: p50 ${e['relay-us-p50']} µs, p99 ${e['relay-us-p99']} µs, max ${e['relay-us-max']} µs`);
  }
  t.diagnostic(`set-up (offer to all channels open): ${r.setup_ms} ms`);
});

for (const kind of ['chromium', 'firefox']) test(`datachannel: a real ${kind} in the browser namespace talks to an aiortc IMS UE through the endpoint`, { timeout: 60000 }, async (t) => {
  assert.ok(fs.existsSync(PYTHON), `${PYTHON} is missing: ./lab test --only datachannel installs aiortc there`);
  const N = 30;
  const browser = await launchBrowser({ kind, mediaPermission: false });
  let ims;
  const callId = `dc-${kind}-${process.pid}`;
  try {
    const { page, waitForFunction } = await browser.newPage();
    // the page: one negotiated application channel (stream 1000) and one it opens with DCEP (unordered, no retransmissions)
    const offer = await page.evaluate(async () => {
      const pc = new RTCPeerConnection();
      const recv = { app: [], chat: [] };
      const app = pc.createDataChannel('app', { negotiated: true, id: 1000 });
      const chat = pc.createDataChannel('chat', { ordered: false, maxRetransmits: 0 });
      for (const [name, ch] of [['app', app], ['chat', chat]]) {
        ch.binaryType = 'arraybuffer';
        ch.onmessage = (e) => recv[name].push({ at: performance.now(), data: e.data });
      }
      window.dc = { pc, app, chat, recv };
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((resolve) => {
        if (pc.iceGatheringState === 'complete') resolve();
        pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
        setTimeout(resolve, 3000);
      });
      return pc.localDescription.sdp;
    });
    const reply = await control(`d7:call-id${bstr(callId)}8:channelsld12:3gpp-req-app12:org.lab.chat2:idi1000e5:label3:appee7:command5:offer3:sdp${ustr(offer)}e`);
    assert.match(reply, /6:result2:ok/, `the endpoint refused ${kind}'s offer: ${reply.slice(0, 300)}\n${offer}`);
    const answer = bencodedString(reply, 'sdp');
    const imsOffer = bencodedString(reply, 'ims-sdp');
    ims = spawn(PYTHON, [PEERS, '--ims-echo', CTL, callId], { stdio: ['pipe', 'pipe', 'pipe'] });
    adopt('datachannel-ims-echo', ims.pid);
    let imsOut = '';
    let imsErr = '';
    ims.stdout.on('data', (d) => { imsOut += d; });
    ims.stderr.on('data', (d) => { imsErr += d; });
    ims.stdin.write(`${JSON.stringify({ sdp: imsOffer })}\n`);
    const deadline = Date.now() + 10000;
    while (!imsOut.includes('"answered"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(imsOut.includes('"answered": true'), `the aiortc IMS UE did not answer: ${imsOut} ${imsErr.slice(-800)}`);
    await page.evaluate((sdp) => window.dc.pc.setRemoteDescription({ type: 'answer', sdp }), answer);
    await waitForFunction(() => window.dc.app.readyState === 'open' && window.dc.chat.readyState === 'open', null, 10000)
      .catch(async () => assert.fail(`${kind}'s channels did not open: ${await page.evaluate(() => `pc ${window.dc.pc.connectionState}, app ${window.dc.app.readyState}, chat ${window.dc.chat.readyState}`)}`));
    // each message goes browser -> endpoint -> IMS UE, which echoes it back the same way
    await page.evaluate((n) => {
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        window.dc.app.send(JSON.stringify({ seq: i, t }));
        const b = new Float64Array([i, t]);
        window.dc.app.send(b.buffer);
        window.dc.chat.send(JSON.stringify({ seq: i, t }));
      }
    }, N);
    await waitForFunction((n) => window.dc.recv.app.length >= 2 * n, N, 10000)
      .catch(async () => assert.fail(`only ${await page.evaluate(() => window.dc.recv.app.length)} of ${2 * N} app-channel echoes came back to ${kind}`));
    await new Promise((r) => setTimeout(r, 300)); // the unordered channel's last echoes
    const got = await page.evaluate(() => {
      const rtt = [];
      const seqs = { text: [], binary: [] };
      for (const m of window.dc.recv.app) {
        if (typeof m.data === 'string') { const j = JSON.parse(m.data); seqs.text.push(j.seq); rtt.push(m.at - j.t); }
        else { const [seq, t] = new Float64Array(m.data); seqs.binary.push(seq); rtt.push(m.at - t); }
      }
      return { seqs, rtt, chat: window.dc.recv.chat.length };
    });
    const want = [...Array(N).keys()];
    assert.deepEqual(got.seqs, { text: want, binary: want }, 'the ordered app channel did not echo every text and binary message in order');
    assert.ok(got.chat >= N / 2, `only ${got.chat} of ${N} echoes on the unordered DCEP channel`);
    const q = await control(`d7:call-id${bstr(callId)}7:command5:querye`);
    assert.match(q, /5:label4:chat/, `the endpoint's map lacks ${kind}'s DCEP channel: ${q}`);
    const rtt = got.rtt.sort((a, b) => a - b);
    t.diagnostic(`${kind} round trip via the endpoint and the aiortc IMS UE (twice through the endpoint; ${3 * N} messages sent in one burst): p50 ${rtt[rtt.length >> 1].toFixed(2)} ms, max ${rtt[rtt.length - 1].toFixed(2)} ms (n=${rtt.length}); unordered channel ${got.chat}/${N}`);
  } finally {
    if (ims) { ims.stdin.end(); await new Promise((r) => { ims.on('close', r); setTimeout(r, 3000); }); }
    await control(`d7:call-id${bstr(callId)}7:command6:deletee`).catch(() => {});
    await browser.close();
  }
});
