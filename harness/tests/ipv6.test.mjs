// Integration: IPv6 on Gm, IPv4 toward the browser (issue #23; TS 23.334's IPv4/IPv6 interworking at the
// eIMS-AGW; docs/ims-sim.md "IPv6 on Gm"). This file brings up an IMS side of its own on IPv6 only, beside the
// lab's IPv4 one: LAB_IMS6_ADDR (a ULA) on the lab namespace's loopback, a light Kamailio (P-CSCF :5060 UDP/TCP and
// :5061 TLS, S-CSCF :5062) listening only there, an rtpengine whose "pub" interface is the browser link's IPv4
// address and whose "ims" interface is the IPv6 one (ng 127.0.0.1:2263, media 31500-31599), three gateways of its
// own (UDP: HTTP 8099, SIP [LAB_IMS6_ADDR]:5071, rtpengine's DTMF log on 127.0.0.1:2264; TCP: 8100 and :5073; TLS:
// 8101 and :5075) and the SIPp UEs over IPv6 (ue4 answering and ue5 calling with preconditions, ue6 sending
// RFC 4733 digits, ue8 answering re-INVITEs, ue7 answering video).
// MO and MT calls with preconditions carry media both ways over UDP, TCP and TLS; the UEs see c=IN IP6 and nothing
// IPv4, the browser c=IN IP4 and IPv4 candidates only, and the SIP the UEs got names the gateway in brackets with
// its transport (TCP and TLS also checked on the wire). DTMF from an IPv6 UE reaches the browser; hold and resume,
// a transcoded call (PCMA forced on the IMS leg) and a video call work the same over IPv6.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADDRESSES, LAB } from '../kit/addresses.mjs';
import { rtpPackets, startCapture } from '../kit/capture.mjs';
import { gatewayUrl, labRoot, logDir, outDir } from '../kit/env.mjs';
import { start, stop, sleep } from '../kit/procs.mjs';
import { commandOf } from '../kit/restart.mjs';
import { listCalls, ng } from '../kit/ng.mjs';
import { assertFarUeAssertedIdentity } from './fixtures/asserted-identity.mjs';

const V6 = LAB.LAB_IMS6_ADDR;
const PCSCF = `[${V6}]:${LAB.LAB_PCSCF.split(':').pop()}`;
const HTTP_PORT = Number(LAB.LAB_IPV6_TEST_GW_PORT);
const SIP_PORT = Number(LAB.LAB_IPV6_TEST_GW_SIP_PORT);
const NG = `${LAB.LAB_LOOPBACK}:${LAB.LAB_IPV6_TEST_NG_PORT}`;
const DTMF_LOG = `${LAB.LAB_LOOPBACK}:${LAB.LAB_IPV6_TEST_DTMF_LOG_PORT}`; // this rtpengine's RFC 4733 events -> this file's gateway
const HOST = new URL(gatewayUrl()).hostname; // the browser link's address (198.18.0.1 under ./lab test)
const BASE = `http://${HOST}:${HTTP_PORT}`;
const USER = 'frank';
const UE_LOGS = path.join(logDir(), 'ipv6');
const PCSCF_TLS = `[${V6}]:${LAB.LAB_PCSCF_TLS_PORT}`;
// Two more gateways of this file toward the same P-CSCF, for SIP over TCP and over TLS on IPv6: each its own
// HTTP port, SIP port on the IPv6 address, browser user and rtpengine session prefix (same rtpengine).
const OVER = {
  tcp: { http: Number(LAB.LAB_IPV6_TEST_GW_TCP_PORT), sip: Number(LAB.LAB_IPV6_TEST_GW_TCP_SIP_PORT), user: 'carol', proxy: PCSCF, pcscfPort: Number(LAB.LAB_PCSCF.split(':').pop()) },
  tls: { http: Number(LAB.LAB_IPV6_TEST_GW_TLS_PORT), sip: Number(LAB.LAB_IPV6_TEST_GW_TLS_SIP_PORT), user: 'dave', proxy: PCSCF_TLS, pcscfPort: Number(LAB.LAB_PCSCF_TLS_PORT) },
};
for (const o of Object.values(OVER)) o.base = `http://${HOST}:${o.http}`;
const TLS_DIR = path.join(outDir(), 'ipv6-tls');
// the UEs of this file: over IPv6 at this file's P-CSCF, their logs apart from the lab's UEs of the same names
const UE_ENV = { KAMAILIO: PCSCF, UE_IP: V6, LAB_LOGDIR: UE_LOGS };
process.env.LAB_GW = BASE; // every runner helper below talks to this file's gateway

const gw = await import('../runner/gateway.mjs');
const { endedCleanly, moCall, mtCall } = await import('../runner/scenario.mjs');
const {
  assertNoRtpengineSession, inviteSdpSeenByUe, loggedInPage, mediaSection, messageSeenByUe, receivedDuring, responseSdpSeenByUe,
  ueMessages, waitForUeMessage, waitReceiving,
} = await import('../runner/testkit.mjs');

const procs = [];
let page;

function own(name, cmd, args, env = {}) {
  const p = start(name, cmd, args, { log: path.join(logDir(), `${name}.log`), env: { ...process.env, ...env }, group: true });
  procs.push(p);
  return p;
}

// Polls check() (a command that exits 0 when ready) until it succeeds, or fails naming what did not come up.
async function ready(what, proc, check, ms = 20000) {
  for (const end = Date.now() + ms; ;) {
    const gone = await Promise.race([proc.done, sleep(200).then(() => null)]);
    if (gone) throw new Error(`${what} exited (${JSON.stringify(gone)}): ${proc.tail().slice(-600)}`);
    try {
      check();
      return;
    } catch { /* not yet */ }
    if (Date.now() > end) throw new Error(`${what} not ready within ${ms} ms: ${proc.tail().slice(-600)}`);
  }
}

// The UAS UE `mode` as `user` over IPv6, resolved once it registered (run-ue.sh execs sipp only then).
async function startUas(mode, user) {
  const p = own(`ipv6-${user}`, 'bash', [path.join(labRoot(), 'sipp-scenarios', 'run-ue.sh'), mode], UE_ENV);
  await ready(`SIPp ${mode} ${user} over IPv6`, p, () => {
    if (fs.readFileSync(`/proc/${p.pid}/comm`, 'utf8').trim() !== 'sipp') throw new Error('not yet');
  }, 30000);
}

function assertCall(r) {
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'not answered');
  assert.ok(r.info.media.packetsToIms > 0 && r.info.media.packetsToBrowser > 0, `media not both ways: ${JSON.stringify(r.info.media)}`);
  assert.ok(r.browser?.packetsReceived > 0, 'the browser received no media');
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  assert.equal(r.info.preconditions, true, 'the call ran without preconditions');
}

// The IMS leg as the UE saw it: IPv6 only, rtpengine's IPv6 address.
function assertIpv6Sdp(sdp, what) {
  assert.ok(sdp, `${what}: no SDP in the UE's message log`);
  assert.match(sdp, new RegExp(`^c=IN IP6 ${V6.replace(/\./g, '\\.')}\\r?$`, 'm'), `${what} has no c=IN IP6 ${V6}:\n${sdp}`);
  assert.doesNotMatch(sdp, /IP4/, `${what} carries IPv4 toward an IPv6-only IMS:\n${sdp}`);
}

// The browser leg: IPv4 only (c= and candidates), rtpengine's browser-facing address.
function assertIpv4BrowserSdp(sdp, what) {
  assert.ok(sdp, `${what}: no SDP`);
  assert.match(sdp, new RegExp(`^c=IN IP4 ${ADDRESSES.pub.replace(/\./g, '\\.')}\\r?$`, 'm'), `${what}:\n${sdp}`);
  assert.doesNotMatch(sdp, /^c=IN IP6/m, `${what} has an IPv6 connection line:\n${sdp}`);
  assert.doesNotMatch(sdp, /^a=candidate:\S+ \d+ \S+ \d+ [0-9a-f]*:[0-9a-f:]* /mi, `${what} offers an IPv6 candidate:\n${sdp}`);
}

before(async () => {
  fs.mkdirSync(UE_LOGS, { recursive: true });
  const has = execFileSync('ip', ['-6', '-o', 'addr', 'show', 'dev', 'lo']).toString().includes(`${V6}/128`);
  if (!has) execFileSync('ip', ['-6', 'addr', 'add', `${V6}/128`, 'dev', 'lo', 'nodad']);
  const rtp = own('ipv6-rtpengine', 'bash', [path.join(labRoot(), 'media-relay', 'start-rtpengine.sh'), `--interface=ims/${V6}`],
    { RTPENGINE_NG: NG, RTPENGINE_IFACE: `pub/${ADDRESSES.pub}`, RTPENGINE_PORT_MIN: LAB.LAB_IPV6_TEST_RELAY_PORTS.split('-')[0], RTPENGINE_PORT_MAX: LAB.LAB_IPV6_TEST_RELAY_PORTS.split('-')[1], RTPENGINE_DTMF_LOG: DTMF_LOG });
  await ready('rtpengine (pub IPv4 + ims IPv6)', rtp, () => execFileSync('python3', [path.join(labRoot(), 'media-relay', 'ng-ping.py'), NG, '1']));
  // one certificate for the IPv6 address (harness/lib/tls-cert.sh): the P-CSCF's TLS listener and the TLS gateway
  // present it, each trusts only it
  execFileSync('bash', [path.join(labRoot(), 'harness', 'lib', 'tls-cert.sh'), TLS_DIR, 'ipv6', V6]);
  const [cert, key] = [path.join(TLS_DIR, 'ipv6.crt'), path.join(TLS_DIR, 'ipv6.key')];
  const kam = own('ipv6-kamailio', 'bash', [path.join(labRoot(), 'ims-sim', 'start-kamailio.sh'), path.join(outDir(), 'ipv6-kamailio')],
    { KAMAILIO_ADDR: V6, KAMAILIO_TRUSTED_NODES: `${V6}:${SIP_PORT}`, KAMAILIO_TLS_PORT: String(OVER.tls.pcscfPort), KAMAILIO_TLS_CERT: cert, KAMAILIO_TLS_KEY: key, KAMAILIO_TLS_CA: cert });
  await ready(`Kamailio on ${PCSCF}`, kam, () => execFileSync('python3', [path.join(labRoot(), 'harness', 'lib', 'sip-options.py'), PCSCF, '1']));
  // java -jar ... as ./lab started the lab's gateway; C1 only and the serial collector: three JVMs start at once on
  // a shared host, and these gateways carry a call at a time
  const lab = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', ...commandOf('gateway').argv.slice(1)];
  const gatewayArgs = (options) => options.reduce((args, [name, value]) => gw.withOption(args, name, value), lab);
  // SIP requests are taken from the P-CSCF only (lab.sip.trusted-sources defaults to lab.ims.proxy)
  const common = [['lab.sip.host', V6], ['lab.rtpengine.ng', NG], ['lab.sip.trusted-sources', '']];
  // the three gateways start side by side (one JVM start's wait instead of three)
  const started = await Promise.allSettled([
    gw.startOwnGateway('gateway-ipv6', gatewayArgs([...common, ['server.port', HTTP_PORT], ['lab.sip.port', SIP_PORT],
      ['lab.ims.proxy', PCSCF], ['lab.ims.transport', 'udp'], ['lab.rtpengine.dtmf-log', DTMF_LOG], ['lab.rtpengine.session-prefix', 'gw-ipv6-']]), BASE, { label: 'IPv6 gateway' }),
    gw.startOwnGateway('gateway-ipv6-tcp', gatewayArgs([...common, ['server.port', OVER.tcp.http], ['lab.sip.port', OVER.tcp.sip],
      ['lab.ims.proxy', PCSCF], ['lab.ims.transport', 'tcp'], ['lab.rtpengine.dtmf-log', ''], ['lab.rtpengine.session-prefix', 'gw-ipv6-tcp-']]), OVER.tcp.base, { label: 'IPv6 TCP gateway' }),
    gw.startOwnGateway('gateway-ipv6-tls', gatewayArgs([...common, ['server.port', OVER.tls.http], ['lab.sip.port', OVER.tls.sip],
      ['lab.ims.proxy', PCSCF_TLS], ['lab.ims.transport', 'tls'], ['lab.sip.tls.certificate', cert], ['lab.sip.tls.private-key', key],
      ['lab.sip.tls.trust', cert], ['lab.rtpengine.dtmf-log', ''], ['lab.rtpengine.session-prefix', 'gw-ipv6-tls-']]), OVER.tls.base, { label: 'IPv6 TLS gateway' }),
  ]);
  for (const r of started) if (r.status === 'fulfilled') procs.push(r.value);
  const failed = started.filter((r) => r.status === 'rejected').map((r) => r.reason.message);
  assert.deepEqual(failed, [], 'a gateway of this file did not start');
  await startUas('volte-uas', 'ue4');
  page = await loggedInPage(USER, 'test-ipv6-frank');
});

after(async () => {
  await page?.close();
  for (const p of procs.reverse()) await stop(p, 'SIGTERM', 10000);
});

test('the gateway on IPv6: SIP listening on its IPv6 address, registered at the IPv6 P-CSCF', { timeout: 20000 }, async () => {
  const h = await gw.health();
  assert.equal(h.sip, `[${V6}]:${SIP_PORT}`, `health: ${JSON.stringify(h)}`);
  assert.equal(h.imsPcscf, PCSCF, `health: ${JSON.stringify(h)}`);
  const listening = execFileSync('ss', ['-Hlnu', `( sport = :${SIP_PORT} )`]).toString() + execFileSync('ss', ['-Hlnt', `( sport = :${SIP_PORT} )`]).toString();
  assert.ok(listening.includes(`[${V6}]:${SIP_PORT}`), `no UDP/TCP listener on [${V6}]:${SIP_PORT}:\n${listening}`);
  assert.doesNotMatch(listening, new RegExp(`\\b\\d+\\.\\d+\\.\\d+\\.\\d+:${SIP_PORT}\\b`), `an IPv4 listener on the SIP port:\n${listening}`);
  assert.ok((await gw.currentSession(page.token)).registration.expires > 0, `${USER} not registered over IPv6`);
});

test('MO over IPv6 on Gm with preconditions to ue4: media both ways, c=IN IP6 at the UE, the browser leg IPv4', { timeout: 45000 }, async () => {
  const r = await moCall(page.client, { token: page.token, from: USER, to: 'ue4', hangup: 'browser', mediaMs: 1500 });
  assertCall(r);
  const log = path.join(UE_LOGS, 'sipp-volte-uas-ue4-messages.log');
  assertIpv6Sdp(inviteSdpSeenByUe(log, r.callId), 'the INVITE at ue4');
  assertIpv4BrowserSdp(r.answerSdp, 'the answer the browser got');
  const headers = messageSeenByUe(log, r.callId, /^INVITE /);
  assert.match(headers ?? '', new RegExp(`^Contact: <sip:[^@>]+@\\[${V6}\\]:${SIP_PORT};`, 'm'), `the gateway's Contact at ue4:\n${headers}`);
  assert.match(headers ?? '', new RegExp(`^Via: SIP/2\\.0/UDP \\[${V6}\\]:${SIP_PORT};`, 'mi'), `the gateway's Via at ue4:\n${headers}`);
  await assertFarUeAssertedIdentity({ token: page.token, callId: r.callId, log, where: 'the INVITE at ue4 over IPv6' });
  await assertNoRtpengineSession();
});

test('MT over IPv6 on Gm with preconditions from ue5: media both ways, c=IN IP6 in the 200 at the UE, the browser leg IPv4', { timeout: 50000 }, async () => {
  const r = await mtCall(page.client, { token: page.token, user: USER, ue: { mode: 'volte-uac', arg: 1500, from: 'ue5', env: UE_ENV }, hangup: 'ue', maxMs: 15000 });
  assertCall(r);
  assert.equal(r.ue.code, 0, `SIPp exit ${r.ue.code}: ${r.ue.output}`);
  assertIpv6Sdp(responseSdpSeenByUe(path.join(UE_LOGS, `sipp-volte-uac-${USER}-messages.log`), r.callId), 'the 200 at ue5');
  assertIpv4BrowserSdp(r.incomingSdp, 'the offer the browser got');
  await assertNoRtpengineSession();
});

// An MO call from the page to `ue` (a SIPp UE of this file over IPv6, serving in `mode`): body(callId, log, mark)
// once answered; hung up afterwards, the hang-up's BYE seen at the UE. The INVITE at the UE is IPv6 only and asserts
// a registered identity of frank's.
async function ipv6Call(ue, mode, body) {
  const log = path.join(UE_LOGS, `sipp-${mode}-${ue}-messages.log`);
  const mark = await page.client.mark();
  const callId = await page.client.call(ue);
  try {
    await page.client.waitFor('answered', callId, 15000, mark);
    assertIpv6Sdp(inviteSdpSeenByUe(log, callId), `the INVITE at ${ue}`);
    await assertFarUeAssertedIdentity({ token: page.token, callId, log, where: `the INVITE at ${ue} over IPv6` });
    await body(callId, log, mark);
  } finally {
    await page.client.hangup(callId).catch(() => {});
    await page.client.waitFor('ended', callId, 5000).catch(() => {});
  }
  assert.ok(await waitForUeMessage(log, callId, /^BYE /), `the hang-up reached ${ue} over IPv6 (no BYE for ${callId} in ${log})`);
  await assertNoRtpengineSession();
}

test('DTMF over IPv6 on Gm: ue6 sends RFC 4733 digits 2 6 * from its IPv6 address, the browser gets one dtmf per digit', { timeout: 60000 }, async () => {
  await startUas('uas-dtmf', 'ue6');
  await ipv6Call('ue6', 'uas-dtmf', async (callId, _log, mark) => {
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await page.client.waitFor('dtmf', callId, 8000, mark));
    assert.equal(got.map((m) => m.digit).join(''), '26*', `the digits ue6 sent over IPv6 as the browser got them: ${JSON.stringify(got)}`);
    for (const m of got) assert.equal(m.source, 'ims', `a digit from the IMS side: ${JSON.stringify(m)}`);
    // the sender writes its line after the last digit's gap, so it may come after the browser has the digit
    const senderLog = path.join(UE_LOGS, 'ue6-rfc4733.log');
    const wanted = new RegExp(`sent 26\\* .* from ${V6}:\\d+ to ${V6}:\\d+`);
    let sent = '';
    for (let waited = 0; waited <= 5000 && !wanted.test(sent); waited += 100) {
      if (waited) await sleep(100);
      sent = fs.existsSync(senderLog) ? fs.readFileSync(senderLog, 'utf8') : '';
    }
    assert.match(sent, wanted, `ue6's RFC 4733 sender went over IPv6 (${senderLog}, read for 5 s after the browser had the digits):\n${sent || '(empty)'}`);
  });
});

// What rtpengine holds for this file's call now, one line per stream: the party's tag and side (IMS when its
// peer is IPv6), local port, the peer it latched onto and the one the SDP named, packets/bytes/errors received
// and the last packet's age. A failing media check prints it, so that a call that stops carrying audio names
// the leg, the port and the peer where it stopped.
async function relayStreams() {
  try {
    const ids = (await listCalls(NG)).filter((id) => id.startsWith('gw-ipv6-'));
    const lines = [];
    for (const id of ids) {
      const q = await ng(NG, { command: 'query', 'call-id': id });
      const now = Math.floor(Date.now() / 1000);
      for (const tag of Object.values(q.tags ?? {})) {
        for (const m of tag.medias ?? []) {
          for (const st of m.streams ?? []) {
            const ep = (e) => (e?.address ? `${e.family === 'IPv6' ? `[${e.address}]` : e.address}:${e.port}` : '-');
            lines.push(`${id.slice(0, 16)}… tag ${String(tag.tag).slice(0, 10)} ${m.type} ${(m.flags ?? []).filter((f) => /send|recv|ICE|DTLS|trans/i.test(f)).join(',')}`
              + ` local :${st['local port']} peer ${ep(st.endpoint)} sdp ${ep(st['advertised endpoint'])} ${(st.flags ?? []).join(',')}`
              + ` got ${st.stats?.packets ?? 0} pkts/${st.stats?.bytes ?? 0} B, ${st.stats?.errors ?? 0} errors, last ${st['last packet'] ? now - st['last packet'] : '-'} s ago`);
          }
        }
      }
    }
    return lines.length ? lines.join('\n') : 'rtpengine holds no call of this gateway';
  } catch (e) {
    return `rtpengine ${NG} not asked: ${e.message}`;
  }
}

// The m= and c= lines and direction of an SDP, on one line.
const sdpGist = (sdp) => (sdp ?? '(none)').split(/\r?\n/).filter((l) => /^(m=|c=|a=(sendrecv|sendonly|recvonly|inactive)$)/.test(l)).join(' | ');

test('hold and resume over IPv6 on Gm: the browser holds ue8 by re-INVITE (a=sendonly at the UE, nothing played), resumes, audio flows again', { timeout: 60000 }, async () => {
  await startUas('uas-reinvite', 'ue8');
  await ipv6Call('ue8', 'uas-reinvite', async (callId, log) => {
    const client = page.client;
    // the INVITEs and the UE's 200 answers of this call at ue8, as one line each, for the failure messages
    const wire = () => ueMessages(log).filter((b) => b.includes(`Call-ID: ${callId}`) && /application\/sdp/i.test(b))
      .map((b) => `${/message (sent|received)/i.exec(b)?.[0] ?? '?'} ${b.split(/\r?\n/).find((l) => /^(SIP\/2\.0 |[A-Z]+ sip:)/.test(l))?.slice(0, 30)}: ${sdpGist(b)}`).join('\n');
    const diag = async (what) => `${what}\nrtpengine's streams:\n${await relayStreams()}\nSDP at ue8:\n${wire()}\nthe browser's remote SDP: ${sdpGist((await client.media(callId)).remoteSdp)}`;
    await waitReceiving(client, callId).catch(async (e) => assert.fail(await diag(`before the hold: ${e.message}`)));
    await client.reoffer(callId, { direction: 'sendonly' });
    const invites = () => ueMessages(log).filter((b) => /message received/i.test(b) && /^INVITE sip:/m.test(b) && b.includes(`Call-ID: ${callId}`));
    assert.equal(invites().length, 2, await diag('INVITE + the hold\'s re-INVITE at ue8'));
    assert.match(invites()[1], /^a=sendonly\r?$/m, await diag('the hold reached ue8 as a=sendonly'));
    assertIpv6Sdp(invites()[1].split(/\r?\n\r?\n/).slice(2).join('\n'), 'the hold\'s re-INVITE at ue8');
    const onHold = await receivedDuring(client, callId, 1000);
    assert.ok(onHold < 5, await diag(`the browser got ${onHold} packets in 1 s on hold`));
    await client.reoffer(callId, { direction: 'sendrecv' });
    assert.equal(invites().length, 3, await diag('the resume\'s re-INVITE at ue8'));
    assert.match(invites()[2], /^a=sendrecv\r?$/m, await diag('the resume reached ue8 as a=sendrecv'));
    await waitReceiving(client, callId, { min: 10, ms: 5000 }).catch(async (e) => assert.fail(await diag(`after the resume: ${e.message}`)));
  });
});

// --- SIP over TCP and over TLS on IPv6 (this file's TCP and TLS gateways toward the same P-CSCF) ---

// The SIP over TCP of a capture, on connections to one of `ports`, decoded by tshark (TCP reassembly), one entry per
// segment: {src, dst (ports), first: the start lines, callId, via, contact} (a segment with two messages, e.g. a 180 and
// a 200, has two start lines). Over TLS nothing decodes as SIP: tlsRecords gives the records.
async function sipOverTcp(file, ports) {
  const out = execFileSync('tshark', ['-r', file, '-n', ...ports.flatMap((p) => ['-d', `tcp.port==${p},sip`]), '-Y', 'sip && ipv6 && tcp', '-T', 'fields', '-E', 'separator=/t',
    '-E', 'aggregator=|', '-e', 'tcp.srcport', '-e', 'tcp.dstport', '-e', 'sip.Request-Line', '-e', 'sip.Status-Line',
    '-e', 'sip.Call-ID', '-e', 'sip.Via', '-e', 'sip.Contact'], { maxBuffer: 64 * 1024 * 1024 }).toString();
  return out.trim().split('\n').filter(Boolean).map((l) => l.split('\t')).map(([src, dst, req, status, callId, via, contact]) =>
    ({ src: Number(src), dst: Number(dst), first: [...(req ?? '').split('|'), ...(status ?? '').split('|')].filter(Boolean),
      callId: (callId ?? '').split('|')[0], via: (via ?? '').split('|')[0], contact: (contact ?? '').split('|')[0] }));
}
// tcpdump's "N packets dropped by kernel" of a capture (a busy host): named in the wire checks' failure messages.
const droppedBy = (cap) => /(\d+) packets dropped by kernel/.exec(fs.readFileSync(`${cap.file}.log`, 'utf8'))?.[1] ?? '?';
function tlsRecords(file, ports) {
  const out = execFileSync('tshark', ['-r', file, '-n', ...ports.flatMap((p) => ['-d', `tcp.port==${p},tls`]), '-Y', 'tls && ipv6', '-T', 'fields', '-E', 'separator=;',
    '-E', 'aggregator=|', '-e', 'tcp.srcport', '-e', 'tcp.dstport', '-e', 'tls.handshake.type', '-e', 'tls.record.content_type'],
  { maxBuffer: 64 * 1024 * 1024 }).toString();
  return out.trim().split('\n').filter(Boolean).map((l) => l.split(';')).map(([src, dst, hs, ct]) =>
    ({ src: Number(src), dst: Number(dst), handshake: hs.split('|').filter(Boolean).map(Number), types: ct.split('|').filter(Boolean).map(Number) }));
}

// Runs body(page) with the runner helpers (LAB_GW) and a page of `o`'s gateway, logged in as o.user.
async function onGateway(o, body) {
  process.env.LAB_GW = o.base;
  let p;
  try {
    p = await loggedInPage(o.user, `test-ipv6-${o.user}`);
    return await body(p);
  } finally {
    await p?.close();
    process.env.LAB_GW = BASE;
  }
}

for (const transport of ['tcp', 'tls']) {
  const o = OVER[transport];
  const T = transport.toUpperCase();
  test(`SIP over ${T} on IPv6: ${o.user} registers, an MO call to ue4 and an MT call from ue5 carry media both ways, bracketed ${T} Via/Contact on the wire`, { timeout: 60000 }, async () => {
    // every SIP packet between this gateway and the P-CSCF, both transports: nothing may go over UDP
    // (a big kernel buffer: a busy host must not make tcpdump drop a message the checks look for)
    const cap = await startCapture(0, `ipv6-sip-${transport}`, { filter: `ip6 and (port ${o.pcscfPort} or port ${o.sip})`, bufferKiB: 65536 });
    let mo;
    let mt;
    try {
      await onGateway(o, async (p) => {
        const h = await gw.health();
        assert.equal(h.imsTransport, transport, `health of the ${T} gateway: ${JSON.stringify(h)}`);
        assert.equal(h.sip, `[${V6}]:${o.sip}`, `health of the ${T} gateway: ${JSON.stringify(h)}`);
        mo = await moCall(p.client, { token: p.token, from: o.user, to: 'ue4', hangup: 'browser', mediaMs: 1500 });
        assertCall(mo);
        await assertFarUeAssertedIdentity({ token: p.token, callId: mo.callId, log: path.join(UE_LOGS, 'sipp-volte-uas-ue4-messages.log'), where: `the INVITE at ue4 over IPv6 ${T}` });
        mt = await mtCall(p.client, { token: p.token, user: o.user, ue: { mode: 'volte-uac', arg: 1500, from: 'ue5', env: UE_ENV }, hangup: 'ue', maxMs: 15000 });
        assertCall(mt);
        assert.equal(mt.ue.code, 0, `SIPp exit ${mt.ue.code}: ${mt.ue.output}`);
        await assertNoRtpengineSession();
      });
    } finally {
      await cap.stop();
    }
    const ue4log = path.join(UE_LOGS, 'sipp-volte-uas-ue4-messages.log');
    assertIpv6Sdp(inviteSdpSeenByUe(ue4log, mo.callId), `the INVITE at ue4 (${T})`);
    const headers = messageSeenByUe(ue4log, mo.callId, /^INVITE /) ?? '';
    assert.match(headers, new RegExp(`^Via: SIP/2\\.0/${T} \\[${V6}\\]:${o.sip};`, 'mi'), `the ${T} gateway's Via at ue4:\n${headers}`);
    assert.match(headers, new RegExp(`^Contact: <sip:[^@>]+@\\[${V6}\\]:${o.sip};transport=${transport}[;>]`, 'mi'), `the ${T} gateway's Contact at ue4:\n${headers}`);
    assertIpv6Sdp(responseSdpSeenByUe(path.join(UE_LOGS, `sipp-volte-uac-${o.user}-messages.log`), mt.callId), `the 200 at ue5 (${T})`);
    const udp = execFileSync('tshark', ['-r', cap.file, '-n', '-Y', `udp.port == ${o.sip}`], { maxBuffer: 16 * 1024 * 1024 }).toString().trim();
    assert.equal(udp, '', `SIP over UDP between the ${T} gateway and the P-CSCF:\n${udp.slice(0, 800)}`);
    if (transport === 'tcp') {
      const sip = await sipOverTcp(cap.file, [o.pcscfPort, o.sip]);
      const ladder = `${sip.map((m) => `${m.src} -> ${m.dst} ${m.first.join(' + ')} ${m.callId}`).join('\n')}\n(tcpdump dropped ${droppedBy(cap)} packets)`;
      const invite = sip.find((m) => m.dst === o.pcscfPort && m.first.some((l) => l.startsWith('INVITE ')) && m.callId === mo.callId);
      assert.ok(invite, `no MO INVITE ${mo.callId} from the gateway to the P-CSCF over TCP/IPv6 in the capture:\n${ladder}`);
      assert.match(invite.via, new RegExp(`^SIP/2\\.0/TCP \\[${V6}\\]:${o.sip}(;|$)`), `the MO INVITE's Via on the wire: ${invite.via}`);
      assert.match(invite.contact, new RegExp(`@\\[${V6}\\]:${o.sip};transport=tcp`), `the MO INVITE's Contact on the wire: ${invite.contact}`);
      // the P-CSCF sends the MT INVITE to the gateway's Contact (its own connection to o.sip, or back over the gateway's)
      const mtInvite = sip.find((m) => m.dst !== o.pcscfPort && m.first.some((l) => l.startsWith('INVITE ')) && m.callId === mt.callId);
      assert.ok(mtInvite, `no MT INVITE ${mt.callId} from the P-CSCF to the gateway over TCP/IPv6 in the capture:\n${ladder}`);
      assert.ok(sip.some((m) => m.first.some((l) => l.startsWith('SIP/2.0 200 ')) && m.callId === mt.callId && m.dst !== o.sip),
        `no 200 of the gateway to the MT INVITE over TCP:\n${ladder}`);
    } else {
      const records = tlsRecords(cap.file, [o.pcscfPort, o.sip]);
      const summary = `${records.map((r) => `${r.src} -> ${r.dst} handshake ${r.handshake} content ${r.types}`).join('\n')}\n(tcpdump dropped ${droppedBy(cap)} packets)`;
      // the gateway's connection (REGISTER, MO) and the P-CSCF's own toward the gateway's TLS contact (MT)
      assert.ok(records.some((r) => r.dst === o.pcscfPort && r.handshake.includes(1)), `no ClientHello from the gateway to the P-CSCF's TLS port ${o.pcscfPort}:\n${summary}`);
      assert.ok(records.some((r) => r.dst === o.sip && r.handshake.includes(1)), `no ClientHello from the P-CSCF to the gateway's TLS contact ${o.sip} (MT):\n${summary}`);
      for (const port of [o.pcscfPort, o.sip]) {
        assert.ok(records.some((r) => r.dst === port && r.types.includes(23)) && records.some((r) => r.src === port && r.types.includes(23)),
          `no application data both ways on the TLS connection to port ${port}:\n${summary}`);
      }
      const clear = execFileSync('tshark', ['-r', cap.file, '-n', '-Y', `tcp && frame contains "SIP/2.0"`], { maxBuffer: 16 * 1024 * 1024 }).toString().trim();
      assert.equal(clear, '', `SIP in the clear between the TLS gateway and the P-CSCF:\n${clear.slice(0, 800)}`);
    }
  });
}

// --- transcoding and video over IPv6 ---

test('transcoding over IPv6 on Gm: the MO call forces PCMA on the IMS leg (as --codec), rtpengine transcodes the browser\'s Opus; c=IN IP6 at ue4', { timeout: 40000 }, async () => {
  const r = await moCall(page.client, { token: page.token, from: USER, to: 'ue4', hangup: 'browser', mediaMs: 2000, imsCodec: 'PCMA' });
  assertCall(r);
  const m = r.info.media;
  assert.equal(m.codecIms, 'PCMA/8000', `IMS leg codec (call info ${JSON.stringify(m)})`);
  assert.equal(m.codecBrowser, 'opus/48000', `browser leg codec (call info ${JSON.stringify(m)})`);
  assert.match(r.browser?.codec ?? '', /opus/i, `browser getStats codec ${r.browser?.codec}`);
  const sdp = inviteSdpSeenByUe(path.join(UE_LOGS, 'sipp-volte-uas-ue4-messages.log'), r.callId);
  assertIpv6Sdp(sdp, 'the INVITE at ue4 (PCMA)');
  assert.match(sdp, /^m=audio \d+ RTP\/AVP 8\b/m, `the IMS leg offers PCMA first:\n${sdp}`);
  assert.doesNotMatch(sdp, /opus/i, `the IMS leg offers Opus although PCMA was forced:\n${sdp}`);
  await assertNoRtpengineSession();
});

test('video over IPv6 on Gm: audio + VP8 to ue7, both m-lines c=IN IP6 at the UE, video RTP both ways over IPv6, frames decoded in the browser', { timeout: 60000 }, async () => {
  await startUas('uas-video', 'ue7');
  const VIDEO_PORT = Number(LAB.LAB_UE7_RTP_PORT) + 2; // ue7's video echo (run-ue.sh uas-video: audio at its RTP port, video 2 above)
  const cap = await startCapture(0, 'ipv6-ue7-video', { filter: `ip6 and udp port ${VIDEO_PORT}` });
  let r;
  try {
    r = await moCall(page.client, { token: page.token, from: USER, to: 'ue7', hangup: 'browser', mediaMs: 2500, callOptions: { video: true } });
  } finally {
    await cap.stop();
  }
  assert.equal(r.error, null, r.error);
  assert.ok(r.answered, 'not answered');
  const sdp = inviteSdpSeenByUe(path.join(UE_LOGS, 'sipp-uas-video-ue7-messages.log'), r.callId);
  assertIpv6Sdp(sdp, 'the INVITE at ue7');
  const video = mediaSection(sdp, 'video');
  assert.match(video ?? '', /^m=video [1-9]\d* RTP\/AVP /, `no plain RTP video m-line at ue7:\n${sdp}`);
  const v = r.info?.media?.video;
  assert.ok(v && v.packetsToIms > 20 && v.packetsToBrowser > 20, `rtpengine video counters ${JSON.stringify(r.info?.media)}`);
  assert.equal(v.codecIms, v.codecBrowser, `video is never transcoded: ${JSON.stringify(v)}`);
  const packets = await rtpPackets(cap.file, VIDEO_PORT);
  assert.ok(packets.filter((p) => p.dst === VIDEO_PORT).length > 20 && packets.filter((p) => p.src === VIDEO_PORT).length > 20,
    `video RTP over IPv6 on ue7's port ${VIDEO_PORT}: ${packets.filter((p) => p.dst === VIDEO_PORT).length} to it, ${packets.filter((p) => p.src === VIDEO_PORT).length} from it`);
  assert.ok((r.browser?.framesDecoded ?? 0) > 0, `the browser decoded ${r.browser?.framesDecoded} video frames (received ${r.browser?.videoPacketsReceived} packets)`);
  assertIpv4BrowserSdp(r.answerSdp, 'the answer the browser got (audio + video)');
  assert.ok(endedCleanly(r.ended), JSON.stringify(r.ended));
  await assertFarUeAssertedIdentity({ token: page.token, callId: r.callId, log: path.join(UE_LOGS, 'sipp-uas-video-ue7-messages.log'), where: 'the INVITE at ue7 over IPv6' });
  await assertNoRtpengineSession();
});
