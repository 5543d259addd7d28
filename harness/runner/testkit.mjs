// Shared set-up of the integration tests (harness/tests/): one browser page logged in as a lab user,
// and the check that rtpengine holds no session after a call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launchBrowser, openClient } from './browser.mjs';
import { passwordOf } from '../kit/env.mjs';
import { sleep } from '../kit/procs.mjs';
import * as gw from './gateway.mjs';
import { startUe } from './ue.mjs';

// {browser, client, token, prewarmed, close()} for `user`, once the gateway is healthy.
export async function loggedInPage(user, name = `test-${user}`) {
  await gw.waitHealthy(15000);
  const browser = await launchBrowser();
  const client = await openClient(browser, { name });
  const { token, prewarmed } = await client.login(user, passwordOf(user));
  return {
    browser,
    client,
    token,
    prewarmed,   // the page's warm-up connection at login (webclient prewarm.js)
    async close() {
      await client.logout().catch(() => {});
      await browser.close();
    },
  };
}

// A SIPp UE (run-ue.sh `mode`) calls `user`; resolves {ue, incoming} once the page got `incoming`.
// The caller must ue.kill()/await ue.done when done.
export async function incomingCall(client, user, mode = 'uac-wait', arg = 20000, ueOptions = {}) {
  const mark = await client.mark();
  const ue = startUe(mode, user, arg, ueOptions);
  try {
    return { ue, incoming: await client.waitFor('incoming', null, 15000, mark), mark };
  } catch (e) {
    ue.kill();
    throw e;
  }
}

// RTP packets a page's call received over `ms` (its getStats packetsReceived, before and after).
export async function receivedDuring(client, callId, ms) {
  const a = await client.stats(callId);
  await sleep(ms);
  const b = await client.stats(callId);
  return b.packetsReceived - a.packetsReceived;
}

// Waits until a page's call receives audio (more than `min` packets in 500 ms), up to `ms`: ICE and DTLS
// start only once the answer is applied, which can take a second on a busy host, so a fixed window measured
// from `answered` would count that setup as missing audio.
export async function waitReceiving(client, callId, { min = 5, ms = 8000 } = {}) {
  const until = Date.now() + ms;
  while (await receivedDuring(client, callId, 500) <= min) {
    if (Date.now() > until) throw new Error(`the browser received no audio within ${ms} ms`);
  }
}

export async function assertNoRtpengineSession() {
  const s = await gw.waitNoSessions(5000);
  assert.equal(s.count, 0, `rtpengine sessions left: ${JSON.stringify(s.callIds)}`);
}

// The messages of a SIPp UE's message log (sipp -trace_msg), one block each ("message received/sent"
// line, headers, blank line, body).
export function ueMessages(messageLog) {
  return fs.readFileSync(messageLog, 'utf8').split(/^-{20,}.*$/m);
}

// The same blocks with their time: [{t: ms since the epoch (the separator line's local time), text}].
export function timedUeMessages(messageLog) {
  const parts = fs.readFileSync(messageLog, 'utf8').split(/^-{20,} (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\s*$/m);
  const out = [];
  for (let i = 1; i + 1 < parts.length; i += 2) out.push({ t: Date.parse(parts[i].replace(' ', 'T').slice(0, 23)), text: parts[i + 1] });
  return out;
}

// The body of one message block (after the "received/sent" line and the headers), trimmed.
function bodyOf(block) {
  return block.split(/\r?\n\r?\n/).slice(2).join('\n').trim();
}

// The SDP of the INVITE a SIPp UE received for `callId`, from its message log (sipp -trace_msg), or null.
export function inviteSdpSeenByUe(messageLog, callId) {
  const invite = ueMessages(messageLog).find((b) => /^INVITE sip:/m.test(b) && b.includes(`Call-ID: ${callId}`) && /message received/i.test(b));
  return invite ? bodyOf(invite) : null;
}

// The SDP a SIPp UE sent in its 200 answer to the INVITE of `callId` (its message log), or null.
export function answerSdpSentByUe(messageLog, callId) {
  const ok = ueMessages(messageLog).find((b) => /message sent/i.test(b) && /^SIP\/2\.0 200 /m.test(b) && b.includes(`Call-ID: ${callId}`)
    && /CSeq: *\d+ INVITE/i.test(b) && /application\/sdp/i.test(b));
  return ok ? bodyOf(ok) : null;
}

// The SDP of the `code` response (e.g. 200) a SIPp UE received for `callId` (sipp -trace_msg), or null.
export function responseSdpSeenByUe(messageLog, callId, code = 200) {
  const re = new RegExp(`^SIP/2\\.0 ${code} `, 'm');
  const resp = ueMessages(messageLog).find((b) => re.test(b) && b.includes(`Call-ID: ${callId}`) && /message received/i.test(b)
    && /^Content-Type: application\/sdp/mi.test(b));
  return resp ? bodyOf(resp) : null;
}

// The headers of the first SIP message of `callId` that a SIPp UE received (sipp -trace_msg) and whose
// start line matches `startLine` (e.g. /^BYE /), or null.
export function messageSeenByUe(messageLog, callId, startLine) {
  const msg = ueMessages(messageLog).find((b) => /message received/i.test(b) && b.includes(`Call-ID: ${callId}`)
    && startLine.test(b.split(/\r?\n/).find((l) => /^(SIP\/2\.0 |[A-Z]+ sip:)/.test(l)) ?? ''));
  if (!msg) return null;
  return msg.split(/\r?\n\r?\n/)[1] ?? null; // after the "received" line, up to the body
}

// The URIs of every P-Asserted-Identity value in a message's headers (RFC 3325: a sip: and a tel: one at most),
// whether one per line or comma-separated.
export function assertedIdentities(headers) {
  return (headers ?? '').split(/\r?\n/).filter((l) => /^P-Asserted-Identity\s*:/i.test(l))
    .flatMap((l) => {
      const v = l.slice(l.indexOf(':') + 1);
      const bracketed = [...v.matchAll(/<([^>]+)>/g)].map((m) => m[1].trim());
      return bracketed.length ? bracketed : v.split(',').map((x) => x.split(';')[0].trim()).filter(Boolean);
    });
}

// TS 24.229 §5.2.6.3.3 / RFC 3325 at the far UE: the P-Asserted-Identity it got is one of the caller's registered
// identities (the `identities` the gateway's login answered: the registration's P-Associated-URI). Returns them.
export function assertAssertedIdentityRegistered(headers, identities, where) {
  const pai = assertedIdentities(headers);
  assert.ok(pai.length > 0, `${where}: no P-Asserted-Identity in\n${headers}`);
  assert.ok(Array.isArray(identities) && identities.length > 0, `${where}: the gateway named no registered identities: ${JSON.stringify(identities)}`);
  const outside = pai.filter((u) => !identities.includes(u));
  assert.deepEqual(outside, [], `${where}: P-Asserted-Identity ${pai.join(', ')} is not in the registered set ${identities.join(', ')}`);
  return pai;
}

// messageSeenByUe, polled for up to `ms`: sipp writes its message log as messages come, and the page hears
// `ended` once the gateway sent its BYE, which still has the proxy to cross before the UE logs it. Null when
// none came.
export async function waitForUeMessage(messageLog, callId, startLine, ms = 5000) {
  for (const end = Date.now() + ms; ;) {
    const msg = fs.existsSync(messageLog) ? messageSeenByUe(messageLog, callId, startLine) : null;
    if (msg || Date.now() > end) return msg;
    await sleep(100);
  }
}

// host:port of each value of header `name` in `headers`, in order, whether the values come one per
// line or comma-separated; the default SIP port (5060) is written out.
// Via gives the sent-by (`SIP/2.0/UDP 127.0.0.1:5062;branch=…`), Record-Route/Route the URI's host:port.
export function hopsOf(headers, name) {
  const re = new RegExp(`^${name}:\\s*(.*)$`, 'gim');
  const values = [...headers.matchAll(re)].flatMap((m) => m[1].split(',')).map((v) => v.trim()).filter(Boolean);
  return values.map((v) => {
    const hostPort = v.match(/^SIP\/2\.0\/\w+\s+([^;\s]+)/i)?.[1] ?? v.match(/sips?:(?:[^@>;]+@)?([^;>]+)/i)?.[1] ?? v;
    return /:\d+$/.test(hostPort) ? hostPort : `${hostPort}:5060`;
  });
}

// The lines of one m-section ("audio" | "video") of an SDP, from its m= line to the next, or null.
export function mediaSection(sdp, kind) {
  const lines = sdp.split(/\r?\n/);
  const i = lines.findIndex((l) => l.startsWith(`m=${kind} `));
  if (i < 0) return null;
  const end = lines.findIndex((l, j) => j > i && l.startsWith('m='));
  return lines.slice(i, end < 0 ? undefined : end).join('\n');
}

// The browser these tests drive (LAB_BROWSER, set by ./lab test per pass; default chromium) and a test
// title that names it, so a run of both browsers tells their results apart.
export const BROWSER = process.env.LAB_BROWSER || 'chromium';
export const titled = (title) => `${title} [${BROWSER}]`;

// SDP hygiene toward IMS (issue #17): an SDP that IMS got for a call nobody holds carries no browser
// artefact — no mDNS `.local` name, no `0.0.0.0` (RFC 3264 hold), no `a=sendonly`/`a=inactive`, and no
// address of the browser side (`browserAddresses`, e.g. the browser's own or its NAT's).
export function assertImsSdpClean(sdp, what, browserAddresses = []) {
  assert.ok(sdp, `${what}: no SDP`);
  assert.doesNotMatch(sdp, /\.local\b/, `${what} names an mDNS host:\n${sdp}`);
  assert.doesNotMatch(sdp, /\b0\.0\.0\.0\b/, `${what} has a zero address:\n${sdp}`);
  assert.doesNotMatch(sdp, /^a=(sendonly|inactive)\r?$/m, `${what} puts the call on hold:\n${sdp}`);
  for (const a of browserAddresses) assert.ok(!sdp.includes(a), `${what} carries the browser-side address ${a}:\n${sdp}`);
}
