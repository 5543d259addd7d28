// The data-channel endpoint (media-relay/datachannel, docs/datachannel.md) that ./lab starts beside
// rtpengine: two real WebRTC peers (aiortc, harness/tests/datachannel-peers.py), one as the browser and
// one as the IMS UE, set up through its control protocol and exchange text and binary messages both
// ways on a dcmap-negotiated application channel (stream 1000, a=3gpp-req-app) and on two channels the
// browser opens with DCEP (unordered without retransmissions; ordered with a lifetime) and on one the
// IMS UE opens with DCEP (ordered, reliable). The control
// protocol's errors are checked on their own. Delays go to out/test/datachannel.json.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { labRoot, outDir } from '../kit/env.mjs';

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
