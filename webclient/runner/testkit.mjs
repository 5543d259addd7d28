// Shared set-up of the integration tests (webclient/test/): one browser page logged in as a lab user,
// and the check that rtpengine holds no session after a call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launchBrowser, openClient } from './browser.mjs';
import { passwordOf } from './env.mjs';
import * as gw from './gateway.mjs';

// {browser, client, token, close()} for `user`, once the gateway is healthy.
export async function loggedInPage(user, name = `test-${user}`) {
  await gw.waitHealthy(15000);
  const browser = await launchBrowser();
  const client = await openClient(browser, { name });
  const { token } = await client.login(user, passwordOf(user));
  return {
    browser,
    client,
    token,
    async close() {
      await client.logout().catch(() => {});
      await browser.close();
    },
  };
}

export async function assertNoRtpengineSession() {
  const s = await gw.waitNoSessions(5000);
  assert.equal(s.count, 0, `rtpengine sessions left: ${JSON.stringify(s.callIds)}`);
}

// The SDP of the INVITE a SIPp UE received for `callId`, from its message log (sipp -trace_msg), or null.
export function inviteSdpSeenByUe(messageLog, callId) {
  const blocks = fs.readFileSync(messageLog, 'utf8').split(/^-{20,}.*$/m);
  const invite = blocks.find((b) => /^INVITE sip:/m.test(b) && b.includes(`Call-ID: ${callId}`) && /message received/i.test(b));
  if (!invite) return null;
  const body = invite.split(/\r?\n\r?\n/).slice(2).join('\n'); // after the "received" line and the headers
  return body.trim();
}

// The SDP a SIPp UE sent in its 200 answer to the INVITE of `callId` (its message log), or null.
export function answerSdpSentByUe(messageLog, callId) {
  const blocks = fs.readFileSync(messageLog, 'utf8').split(/^-{20,}.*$/m);
  const ok = blocks.find((b) => /message sent/i.test(b) && /^SIP\/2\.0 200 /m.test(b) && b.includes(`Call-ID: ${callId}`)
    && /CSeq: *\d+ INVITE/i.test(b) && /application\/sdp/i.test(b));
  if (!ok) return null;
  return ok.split(/\r?\n\r?\n/).slice(2).join('\n').trim();
}
