// Integration: RFC 4475's 49 torture cases at the gateway's SIP port, over TCP and over UDP (docs/security.md
// "RFC 4475"). The messages are the lab's own corpus (harness/tests/fixtures/sip/rfc4475-cases.mjs: one message per
// case of RFC 4475 §3, written to exhibit the property the RFC describes for it); each case's expected outcome per
// transport is in harness/tests/fixtures/sip/rfc4475.json (the RFC's §3 answer for a UA that is no registrar).
// When LAB_RFC4475_DIR names a directory with the RFC's own Appendix A archive, decoded (<name>.dat each), the
// same checks run on those messages too, after ours.
// Each request gets a Via of the sender on top, as the P-CSCF puts its own when it forwards: the messages' Vias
// name hosts that do not exist (and the RFC's share one branch, z9hG4bKkdjuw, which would make them one
// transaction when sent together). Over TCP each message has a connection of its own and the answer must come
// back on it (RFC 3261 §18.2.2); each INVITE's final answer is ACKed. Our corpus is built anew for each transport
// (its own Call-IDs, tags and branches); the archive's messages are the same bytes on both, so its UDP pass starts
// LINGER_MS after its TCP pass, or its copies (same Call-ID, From tag and CSeq, another branch) would be taken for
// merged requests (RFC 3261 §8.2.2.2: 482) of INVITE transactions JAIN-SIP still keeps after they ended.
// Pass: at least 47 of 49 as expected on each transport for each corpus, then a message as it is (its Via says
// UDP) over TCP is answered on its connection, and the gateway still answers OPTIONS over both.
import assert from 'node:assert/strict';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { before, test } from 'node:test';
import { ADDRESSES } from '../kit/addresses.mjs';
import { sipSocket } from '../kit/sip.mjs';
import * as gw from '../runner/gateway.mjs';
import { CASE_NAMES, rfc4475Messages } from './fixtures/sip/rfc4475-cases.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXPECTED = JSON.parse(fs.readFileSync(path.join(HERE, 'fixtures', 'sip', 'rfc4475.json'), 'utf8')).cases;
const ARCHIVE_DIR = process.env.LAB_RFC4475_DIR || null;
const [GW_HOST, GW_PORT] = ADDRESSES.gatewaySip.split(':');
const REQUIRED = 47;
const WINDOW_MS = 4000; // an answer within this, or 'none'
const TCP_WINDOW_MS = 8000; // clerr waits for the gateway's read timeout (lab.sip.read-timeout-ms, 5 s)
const LINGER_MS = 9000; // JAIN-SIP keeps an ended transaction 8 s (its default LINGER_TIMER) before it forgets it

// The corpora: ours, built per transport; the RFC's archive (same bytes for both) when LAB_RFC4475_DIR is set.
const run = () => randomBytes(4).toString('hex');
const CORPORA = [{ label: 'the lab\'s corpus', messages: { tcp: rfc4475Messages(run()), udp: rfc4475Messages(run()) } }];
if (ARCHIVE_DIR) CORPORA.push({ label: `the RFC's archive in ${ARCHIVE_DIR}`, archive: true, messages: null });

before(async () => {
  await gw.waitHealthy(15000);
  assert.deepEqual(EXPECTED.map((c) => c.name), CASE_NAMES,
    'rfc4475.json and rfc4475-cases.mjs must list the same 49 cases of RFC 4475 §3 in the same order');
  const archive = CORPORA.find((c) => c.archive);
  if (!archive) return;
  const missing = CASE_NAMES.filter((n) => !fs.existsSync(path.join(ARCHIVE_DIR, `${n}.dat`)));
  assert.deepEqual(missing, [], `LAB_RFC4475_DIR=${ARCHIVE_DIR} lacks these RFC 4475 Appendix A messages (decoded, <name>.dat each)`);
  const bytes = new Map(CASE_NAMES.map((n) => [n, fs.readFileSync(path.join(ARCHIVE_DIR, `${n}.dat`))]));
  archive.messages = { tcp: bytes, udp: bytes };
});

// Each complete SIP message in a TCP byte stream (head + Content-Length octets of body).
function splitStream(buf) {
  const out = [];
  let rest = buf;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const head = rest.subarray(0, end).toString('latin1');
    const len = Number(/\r\n(?:content-length|l)\s*:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (rest.length < end + 4 + len) return out;
    out.push(head);
    rest = rest.subarray(end + 4 + len);
  }
}

const header = (text, ...names) => text.split('\r\n').find((l) => names.some((n) => l.toLowerCase().startsWith(`${n}:`)))?.replace(/^[^:]+:\s*/, '');
const statusOf = (text) => Number(text.split(' ')[1]);

// An ACK for a final answer to an INVITE (RFC 3261 §17.1.1.3), from the answer's own headers.
function ackFor(final) {
  const via = header(final, 'via', 'v');
  return `ACK sip:gw@${ADDRESSES.gatewaySip} SIP/2.0\r\nVia: ${via}\r\nMax-Forwards: 70\r\nFrom: ${header(final, 'from', 'f')}\r\n`
    + `To: ${header(final, 'to', 't')}\r\nCall-ID: ${header(final, 'call-id', 'i')}\r\nCSeq: ${header(final, 'cseq').split(' ')[0]} ACK\r\n`
    + `Content-Length: 0\r\n\r\n`;
}

// The request with a Via of the sender on its top (after the Request-Line); a response as it is.
function withVia(bytes, transport, port) {
  const text = bytes.toString('latin1');
  if (text.startsWith('SIP/')) return { bytes, branch: null };
  const branch = `z9hG4bK-rfc4475-${randomBytes(6).toString('hex')}`;
  const eol = text.indexOf('\r\n');
  const via = `Via: SIP/2.0/${transport} 127.0.0.1:${port};branch=${branch};rport\r\n`;
  return { bytes: Buffer.from(text.slice(0, eol + 2) + via + text.slice(eol + 2), 'latin1'), branch };
}

// TCP: the first final answer on the message's own connection, 'closed' when the gateway closes it first,
// or 'none'. asIs: the message without a Via of ours.
function overTcp(bytes, asIs = false) {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    let done = false;
    // from the harness's raw-SIP peer, which ./lab test trusts beside the P-CSCF (docs/security.md "SIP sources")
    const sock = net.connect({ port: Number(GW_PORT), host: GW_HOST, localAddress: ADDRESSES.sipTestPeer }, () => sock.write(asIs ? bytes : withVia(bytes, 'TCP', sock.localPort).bytes));
    const finish = (outcome) => { if (done) return; done = true; clearTimeout(timer); resolve(outcome); setTimeout(() => sock.destroy(), 200); };
    const timer = setTimeout(() => finish({ outcome: 'none' }), TCP_WINDOW_MS);
    sock.on('data', (b) => {
      got = Buffer.concat([got, b]);
      const final = splitStream(got).find((m) => /^SIP\/2\.0 [2-6]\d\d/.test(m));
      if (!final) return;
      if (/^\S+ INVITE/m.test(header(final, 'cseq') ?? '')) sock.write(ackFor(final));
      finish({ outcome: statusOf(final), line: final.split('\r\n')[0] });
    });
    sock.on('close', () => finish({ outcome: 'closed' }));
    sock.on('error', (e) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? finish({ outcome: 'closed' }) : reject(e)));
  });
}

// UDP: the first final answer carrying our Via's branch, or 'none'.
async function overUdp(bytes) {
  const s = await sipSocket();
  try {
    const sent = withVia(bytes, 'UDP', s.port);
    s.sendBytes(sent.bytes); // octets as they are: sendRaw would make mpart01's binary LFs CRLF
    const final = await s.waitFor(/^SIP\/2\.0 [2-6]\d\d /, sent.branch ?? ((t) => t.length > 0), WINDOW_MS);
    if (!final) return { outcome: 'none' };
    if (/^\S+ INVITE/m.test(header(final, 'cseq') ?? '')) s.sendRaw(ackFor(final));
    return { outcome: statusOf(final), line: final.split('\r\n')[0] };
  } finally {
    s.close();
  }
}

async function runAll(transport, messages) {
  return Promise.all(EXPECTED.map(async (c) => {
    const bytes = messages.get(c.name);
    const r = transport === 'tcp' ? await overTcp(bytes) : await overUdp(bytes);
    const expected = c[transport];
    return { name: c.name, ...r, expected, ok: expected.includes(r.outcome) };
  }));
}

for (const corpus of CORPORA) {
  for (const transport of ['tcp', 'udp']) {
    test(`RFC 4475 over ${transport.toUpperCase()}, ${corpus.label}: at least ${REQUIRED} of 49 cases get the RFC's answer`, { timeout: 60000 }, async (t) => {
      if (corpus.archive && transport === 'udp') await new Promise((r) => setTimeout(r, LINGER_MS));
      const results = await runAll(transport, corpus.messages[transport]);
      for (const r of results) t.diagnostic(`${r.ok ? 'ok ' : 'BAD'} ${r.name}: ${r.line ?? r.outcome} (expected ${r.expected.join(' or ')})`);
      const bad = results.filter((r) => !r.ok);
      assert.ok(results.length - bad.length >= REQUIRED,
        `${results.length - bad.length} of 49 as expected over ${transport} (${corpus.label}); mismatches: `
        + bad.map((r) => `${r.name} got ${r.line ?? r.outcome}, expected ${r.expected.join(' or ')}`).join('; '));
    });
  }
}

test('TCP: a torture message as it is (Via: SIP/2.0/UDP …) is answered on its own connection', { timeout: 15000 }, async () => {
  const r = await overTcp(rfc4475Messages(run()).get('transports'), true);
  assert.equal(r.outcome, 200, `our 'transports' OPTIONS as it is (top Via UDP) over TCP: ${JSON.stringify(r)} (RFC 3261 §18.2.2: the answer on the connection)`);
});

test('after RFC 4475 the gateway still answers OPTIONS over UDP and TCP', { timeout: 15000 }, async () => {
  const options = (transport, port) => `OPTIONS sip:gw@${ADDRESSES.gatewaySip} SIP/2.0\r\nVia: SIP/2.0/${transport} 127.0.0.1:${port};branch=z9hG4bK${randomBytes(6).toString('hex')};rport\r\n`
    + `Max-Forwards: 70\r\nFrom: <sip:probe@ims.lab>;tag=${randomBytes(4).toString('hex')}\r\nTo: <sip:gw@ims.lab>\r\nCall-ID: ${randomBytes(8).toString('hex')}\r\n`
    + `CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`;
  const s = await sipSocket();
  try {
    const text = options('UDP', s.port);
    s.sendRaw(text);
    const answer = await s.waitFor(/^SIP\/2\.0 /, header(text, 'call-id'), 5000);
    assert.equal(answer?.split('\r\n')[0], 'SIP/2.0 200 OK', `UDP OPTIONS after the torture: ${answer}`);
  } finally {
    s.close();
  }
  const tcp = await overTcp(Buffer.from(options('TCP', 9), 'latin1'), true);
  assert.equal(tcp.outcome, 200, `TCP OPTIONS after the torture: ${JSON.stringify(tcp)}`);
});
