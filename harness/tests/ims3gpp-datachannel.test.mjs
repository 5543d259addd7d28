// Integration (./lab test --ims 3gpp --only ims3gpp-datachannel): the bootstrap data channel on the 3GPP core
// (issue #25; TS 23.228 AC.4 and AC.7.1, TS 24.186, TS 26.114 §6.2.10; docs/datachannel.md "Bootstrap").
// carol's page (Chromium) calls ue1 (SIPp, audio only) offering the bootstrap channels (stream ids 0 and 100, subprotocol
// "http") through the gateway and its data-channel endpoint; the S-CSCF's DCSF route (ims-sim/3gpp/kamailio/dcsf.cfg)
// has the MF (ims-sim/3gpp/dcsf/mf.py, aiortc) anchor them; the page downloads the application list and the chat
// application over HTTP on the channel. Checked: carol's REGISTER on the wire (the Contact's feature tag), the SDP ue1
// got (the data-channel section refused with port 0: it stays with the MF), the MF's section in the browser's answer,
// what the page downloaded against the files on disk, the MF's own record of the requests, and the MF's session
// ended with the call, and the home network's Feature-Caps (g.3gpp.datachannel) in the 200 to REGISTER the gateway got. Then frank
// in Firefox makes the same call and download.
// Needs LAB_IMS=3gpp.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { LAB } from '../kit/addresses.mjs';
import { startCapture } from '../kit/capture.mjs';
import { labRoot, logDir, passwordOf } from '../kit/env.mjs';
import { launchBrowser, openClient } from '../runner/browser.mjs';
import { loggedInPage, ueMessages } from '../runner/testkit.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const run = promisify(execFile);
const USER = 'carol';
const MF = `http://${LAB.LAB_LOOPBACK}:${LAB.LAB_IMS3_MF_PORT}/mrm`;
const APPS = path.join(labRoot(), 'ims-sim/3gpp/dcsf/apps');
const PORTS = { pcscf: Number(LAB.LAB_PCSCF.split(':')[1]), gw: Number(LAB.LAB_GW_SIP_PORT) };
let page;
let registers = [];    // carol's REGISTERs, gateway -> P-CSCF, as decoded from the capture
let registerOk = [];   // the 200s to them, P-CSCF -> gateway
let responses = [];    // every answer to them (401s too)
let callId;
let answerSdp;
let download;          // what the page got over the bootstrap channel
let notFound;          // the page's GET of a path the MF does not serve
let remote;            // GET / on the remote-network bootstrap channel (stream 100)
let mfDuring;          // the MF's sessions while the call was up
let mfAfter;           // ... after the hangup

const mfState = async () => (await fetch(MF)).json();
const mfSession = (state, id) => state.sessions.find((s) => s['call-id'] === id);

before(async () => {
  assert.equal(process.env.LAB_IMS, '3gpp', 'run with ./lab test --ims 3gpp');
  const cap = await startCapture(0, 'ims3gpp-datachannel', { filter: `udp port ${PORTS.gw}` });
  try {
    page = await loggedInPage(USER, 'test-ims3gpp-datachannel-carol');
  } finally {
    await cap.stop();
  }
  const { stdout } = await run('tshark', ['-r', cap.file, '-n', '-d', `udp.port==${PORTS.gw},sip`, '-Y', 'sip.CSeq.method == "REGISTER"',
    '-T', 'fields', '-e', 'udp.payload'], { maxBuffer: 64 * 1024 * 1024 });
  const msgs = stdout.split('\n').filter(Boolean).map((hex) => Buffer.from(hex.replace(/:/g, ''), 'hex').toString('latin1'));
  registers = msgs.filter((m) => m.startsWith('REGISTER '));
  registerOk = msgs.filter((m) => m.startsWith('SIP/2.0 200'));
  responses = msgs.filter((m) => m.startsWith('SIP/2.0 '));

  const { client } = page;
  const channels = await client.page.evaluate(async () => (await import('/bootstrap.js')).BOOTSTRAP_CHANNELS);
  callId = await client.call('ue1', { dataChannels: channels });
  answerSdp = (await client.waitFor('answered', callId, 15000)).sdp;
  const get = (label, p) => client.page.evaluate(async ([id, l, u]) => {
    const b = await import('/bootstrap.js');
    return b.httpGet(window.labClient.dataChannel(id, l), u);
  }, [callId, label, p]);
  download = await client.page.evaluate(async (id) => (await import('/bootstrap.js')).downloadApplication(window.labClient, id), callId);
  notFound = await get('bootstrap', '/apps/../mf.py');
  remote = await get('bootstrap-remote', '/');
  mfDuring = await mfState();
  await client.hangup(callId);
  await client.waitFor('ended', callId, 10000);
  for (const end = Date.now() + 3000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    mfAfter = await mfState();
    if (!mfSession(mfAfter, callId)) break;
  }
});

after(async () => page?.close());

test('capability (TS 23.228 AC.4, TS 26.114 §6.2.10.1): the gateway\'s REGISTER Contact carries +sip.app-subtype="webrtc-datachannel", and the core registered it', () => {
  const contactOf = (m) => m.split('\r\n').filter((l) => /^(Contact|m)\s*:/i.test(l));
  assert.ok(registers.length > 0 && registerOk.length > 0, `the capture has ${registers.length} REGISTERs and ${registerOk.length} 200s of carol's login`);
  for (const m of registers) {
    const c = contactOf(m);
    assert.ok(c.length === 1 && c[0].includes(';+sip.app-subtype="webrtc-datachannel"'),
      `a REGISTER's Contact without the data-channel media feature tag: ${JSON.stringify(c)}`);
  }
  const bound = contactOf(registerOk[registerOk.length - 1]);
  assert.ok(bound.some((l) => l.includes('+sip.app-subtype="webrtc-datachannel"')),
    `the binding in the 200 to REGISTER lost the feature tag: ${JSON.stringify(bound)}`);
});

test('capability (TS 24.186, TS 23.228 AC.4, RFC 6809): the home network\'s 200 to REGISTER (the I-CSCF adds it) reaches the gateway with Feature-Caps g.3gpp.datachannel, and no other answer has it', () => {
  const fcaps = (m) => m.split('\r\n').filter((l) => /^Feature-Caps\s*:/i.test(l));
  assert.ok(registerOk.length > 0, 'the capture has no 200 to carol\'s REGISTER');
  for (const m of registerOk) {
    const f = fcaps(m);
    assert.ok(f.length === 1 && /^Feature-Caps:\s*\*;\+g\.3gpp\.datachannel\s*$/i.test(f[0]),
      `a 200 to REGISTER at the gateway should carry exactly "Feature-Caps: *;+g.3gpp.datachannel", it has ${JSON.stringify(f)}`);
  }
  const others = responses.filter((m) => !m.startsWith('SIP/2.0 200') && fcaps(m).length);
  assert.equal(others.length, 0, `non-200 answers to REGISTER with Feature-Caps: ${others.map((m) => m.split('\r\n')[0]).join(', ')}`);
});

test('the far UE gets the offer with the bootstrap data-channel section refused (port 0): the MF anchors it; its P-Asserted-Identity is one of carol\'s registered identities', async () => {
  await assertFarUeAssertedIdentity({ token: page.token, callId, log: path.join(logDir(), 'sipp-uas-ue1-messages.log'), where: 'the INVITE at ue1 (bootstrap call)' });
  const block = ueMessages(path.join(logDir(), 'sipp-uas-ue1-messages.log'))
    .find((b) => /message received/i.test(b) && b.includes(`Call-ID: ${callId}`) && /^INVITE /m.test(b));
  assert.ok(block, `ue1 logged no INVITE with Call-ID ${callId}`);
  assert.match(block, /^m=audio [1-9]\d* /m, 'the INVITE at ue1 has no audio');
  assert.match(block, /^m=application 0 UDP\/DTLS\/SCTP webrtc-datachannel/m,
    `the INVITE at ue1 should carry the data-channel section with port 0:\n${block.slice(block.indexOf('v=0'))}`);
});

test('the browser\'s answer has the MF\'s data-channel section with the bootstrap streams 0 and 100 (subprotocol "http")', () => {
  assert.match(answerSdp, /^m=application [1-9]\d* UDP\/DTLS\/SCTP webrtc-datachannel/m, `no live data-channel section in the answer:\n${answerSdp}`);
  for (const id of [0, 100]) {
    assert.match(answerSdp, new RegExp(`^a=dcmap:${id} .*subprotocol="http"`, 'm'), `the answer does not accept the bootstrap stream ${id}:\n${answerSdp}`);
  }
});

test('over the bootstrap channel the page downloads the application list and the chat application, byte for byte', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(APPS, 'chat/manifest.json'), 'utf8'));
  assert.equal(download.list.status, 200);
  assert.deepEqual(download.list.applications.map((a) => a.id), [manifest.id], `application list ${JSON.stringify(download.list.applications)}`);
  assert.equal(download.app.id, 'org.lab.chat');
  assert.equal(download.app.url, '/apps/chat/index.html');
  assert.match(download.app.contentType ?? '', /^text\/html/, `content type ${download.app.contentType}`);
  const onDisk = fs.readFileSync(path.join(APPS, 'chat/index.html'), 'utf8');
  assert.equal(download.app.bytes, Buffer.byteLength(onDisk), `downloaded ${download.app.bytes} bytes, the file has ${Buffer.byteLength(onDisk)}`);
  assert.equal(download.app.body, onDisk, 'the downloaded application differs from ims-sim/3gpp/dcsf/apps/chat/index.html');
  assert.deepEqual(download.app.channels, [{ streamId: 1000, label: 'chat', app: 'org.lab.chat' }], 'the application channel the list names');
});

test('the MF answers a path outside its applications with 404, and serves the list on the remote-network stream 100 too', () => {
  assert.equal(notFound.status, 404, `GET /apps/../mf.py: ${notFound.status} ${notFound.body.slice(0, 80)}`);
  assert.doesNotMatch(notFound.body, /import|def |Traceback/, 'the 404 leaks the file or a trace');
  assert.equal(remote.status, 200);
  assert.deepEqual(JSON.parse(remote.body).applications.map((a) => a.id), ['org.lab.chat']);
});

test('the MF recorded each request on its session of the call, and the session ended with the call', () => {
  const s = mfSession(mfDuring, callId);
  assert.ok(s, `the MF had no session for the call (sessions: ${JSON.stringify(mfDuring.sessions.map((x) => x['call-id']))})`);
  assert.deepEqual(s.streams, [0, 100]);
  assert.deepEqual(s.open, [0, 100], 'bootstrap streams open at the MF');
  assert.deepEqual(s.served.map((r) => `${r.stream} ${r.method} ${r.path} ${r.status}`),
    ['0 GET / 200', '0 GET /apps/chat/index.html 200', '0 GET /apps/../mf.py 404', '100 GET / 200']);
  assert.equal(mfSession(mfAfter, callId), undefined, 'the MF still has the call\'s session after the BYE');
});

test('in Firefox too: frank calls ue1 with the bootstrap channels and downloads the list and the application', { timeout: 60000 }, async () => {
  const browser = await launchBrowser({ kind: 'firefox' });
  try {
    const client = await openClient(browser, { name: 'test-ims3gpp-datachannel-firefox' });
    await client.login('frank', passwordOf('frank'));
    const channels = await client.page.evaluate(async () => (await import('/bootstrap.js')).BOOTSTRAP_CHANNELS);
    const id = await client.call('ue1', { dataChannels: channels });
    await client.waitFor('answered', id, 15000);
    const d = await client.page.evaluate(async (c) => (await import('/bootstrap.js')).downloadApplication(window.labClient, c), id);
    const served = mfSession(await mfState(), id)?.served.map((r) => `${r.stream} ${r.method} ${r.path} ${r.status}`);
    await client.hangup(id);
    await client.waitFor('ended', id, 10000);
    await client.logout().catch(() => {});
    assert.deepEqual(d.list.applications.map((a) => a.id), ['org.lab.chat'], `Firefox's application list ${JSON.stringify(d.list.applications)}`);
    assert.equal(d.app.body, fs.readFileSync(path.join(APPS, 'chat/index.html'), 'utf8'), 'the application Firefox downloaded differs from the file');
    assert.deepEqual(served, ['0 GET / 200', '0 GET /apps/chat/index.html 200'], 'the MF\'s record of Firefox\'s requests');
  } finally {
    await browser.close();
  }
});
