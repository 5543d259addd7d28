// Drives one call end to end (browser page + gateway REST + optional SIPp UE) and collects what
// the demo and the tests judge: gateway call info, browser getStats, timings, the UE's exit.
import { checkAudio } from './audio-check.mjs';
import * as gw from './gateway.mjs';
import { describeSignal } from './test-signal.mjs';
import { startUe } from './ue.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function newResult(direction, from, to) {
  return {
    direction, from, to, callId: null, answered: false, ended: null, info: null, infoDuring: null,
    browser: null, samples: [], incomingSdp: null, offerSdp: null, answerSdp: null, answeredAt: null, endedAt: null, ue: null, error: null,
    audio: null, audioRecording: null, pageTiming: null,
  };
}

// Waits for `ended` while sampling getStats once a second (progress via log()).
async function mediaUntilEnded(client, r, { mediaMs, hangupAfterMs, maxMs, log, callInfo }) {
  const t0 = Date.now();
  let hungUp = false;
  for (;;) {
    const elapsed = Date.now() - t0;
    if (hangupAfterMs != null && !hungUp && elapsed >= hangupAfterMs) {
      // the last counters of a call its info source forgets at the end (below)
      if (callInfo.forgetsEnded) r.infoDuring = await callInfo(r.callId).catch(() => r.infoDuring);
      log(`browser hangs up ${r.callId}`);
      r.hungUpAt = Date.now();
      await client.hangup(r.callId);
      hungUp = true;
    }
    if (elapsed > maxMs) throw new Error(`no 'ended' within ${maxMs} ms`);
    try {
      r.ended = await client.waitFor('ended', r.callId, 1000);   // doubles as the 1 s tick
      r.endedAt = Date.now();
      return;
    } catch (e) {
      if (!/^timeout/.test(e.message)) throw e;
    }
    const s = await client.stats(r.callId);
    // Video arrives but nothing decodes: the first key frame was lost, and the echoing SIPp UE sends no
    // PLI/FIR to ask for another (docs/media.md "Video"), so the page asks its own encoder for one.
    if (s.videoPacketsReceived > 0 && s.framesDecoded === 0 && elapsed >= 1000) {
      log(`  video: ${s.videoPacketsReceived} packets, no frame decoded yet: asking the local encoder for a key frame`);
      r.keyFrameRequests = (r.keyFrameRequests ?? 0) + 1;
      await client.refreshVideo(r.callId);
    }
    log(`  t=${(elapsed / 1000 + 1).toFixed(0)}s ${s.codec ?? '?'} ice=${s.iceState} dtls=${s.dtlsState} `
      + `sent=${s.packetsSent} recv=${s.packetsReceived} jitter=${fmt(s.jitter)}ms rtt=${fmt(s.rtt)}ms`);
    // counters while the call is up (the gateway may forget ended calls). A source that forgets a call at its end
    // (callInfo.forgetsEnded: rtpengine's own view, relay-info.mjs, which deletes the call at the BYE) is read every
    // second, so that what is kept is at most a second short of the call's totals, not its first 2 s.
    if ((callInfo.forgetsEnded || !r.infoDuring) && Date.now() - t0 >= Math.min(mediaMs, 2000)) {
      r.infoDuring = await callInfo(r.callId).catch(() => r.infoDuring);
    }
  }
}

// The audio check (docs/media.md): `audio` = {tones, skipMs, durationMs}; the browser sends `tones`
// (its fake microphone plays test-signal.mjs's WAV), the UE echoes them, the page records the
// remote track from skipMs after the answer on.
const AUDIO_COVERS = 'browser→rtpengine→UE (RTP echo)→rtpengine→browser';
const DEFAULT_AUDIO = { skipMs: 1500, durationMs: 2000 };

async function startAudioRecording(client, r, audio) {
  if (!audio) return;
  const { skipMs, durationMs } = { ...DEFAULT_AUDIO, ...audio };
  await client.recordAudio(r.callId, { skipMs, durationMs });
}

async function collectAudio(client, r, audio) {
  const base = { signal: describeSignal(audio.tones), covers: AUDIO_COVERS };
  if (!r.answered) return;
  try {
    const rec = await client.audioRecording(r.callId);
    r.audioRecording = rec;
    r.audio = { ...base, ...checkAudio(rec.samples, rec.sampleRate, audio.tones) };
  } catch (e) {
    r.audio = { ...base, tones_hz: [...audio.tones], pass: false, problems: [`audio check could not run: ${e.message}`] };
  }
}

async function collect(client, r, callInfo, audio = null) {
  if (audio) await collectAudio(client, r, audio);
  r.browser = await client.stats(r.callId).catch(() => null);
  r.samples = await client.samples(r.callId).catch(() => []);
  r.pageTiming = await client.timing(r.callId).catch(() => null);
  r.info = await callInfo(r.callId).catch(() => r.infoDuring);
  // final stats may lack counters if the gateway stopped querying rtpengine; keep the larger ones
  if (r.info?.media && r.infoDuring?.media) {
    for (const k of ['packetsToIms', 'packetsToBrowser', 'bytesToIms', 'bytesToBrowser']) {
      const v = [r.info.media[k], r.infoDuring.media[k]].filter((x) => typeof x === 'number');
      if (v.length) r.info.media[k] = Math.max(...v);
    }
    const [vf, vd] = [r.info.media.video, r.infoDuring.media.video];
    if (vd && (!vf || vd.packetsToIms + vd.packetsToBrowser > vf.packetsToIms + vf.packetsToBrowser)) r.info.media.video = vd;
  }
}

// A call that failed half-way is hung up so the gateway frees its rtpengine session.
async function hangUpQuietly(client, r) {
  if (!r.callId || r.ended) return;
  try {
    await client.hangup(r.callId);
    r.ended = await client.waitFor('ended', r.callId, 3000);
  } catch { /* already gone */ }
}

// Browser-originated call. hangup: 'browser' (after mediaMs) or 'remote' (wait for the IMS side's BYE).
// imsCodec: force that codec on the IMS leg (the gateway has rtpengine transcode); absent = pass-through.
// callOptions: more options of labClient.call ({video, videoCodec, bundlePolicy}).
// audio: run the audio check ({tones, skipMs?, durationMs?}, see collectAudio); null = packets only.
// callInfo: the call's info by id (default the gateway's GET /api/v1/calls/{id} with token; the SIP-over-WebSocket
// client's calls: relay-info.mjs's relayCallInfo, rtpengine's own view).
export async function moCall(client, { token, from, to, hangup = 'browser', mediaMs = 5000, maxMs = 20000, log = () => {}, imsCodec = null, callOptions = {}, audio = null,
  callInfo = (id) => gw.callInfo(token, id) }) {
  const r = newResult('mo', from, to);
  try {
    log(`MO ${from} -> ${to}: offering${imsCodec ? ` (IMS leg forced to ${imsCodec})` : ''}`);
    // the offer and the wait for its answer in one page call (runner/browser.mjs callAnswered)
    const answered = await client.callAnswered(to, { ...(imsCodec ? { imsCodec } : {}), ...callOptions }, 15000)
      .catch((e) => { r.callId = e.callId ?? null; throw e; });
    r.callId = answered.callId;
    r.answerSdp = answered.sdp;
    // the offer as applied, read once the answer is in: a page call of the harness's while the answer is on its way
    // would share the page's main thread with it (the page's own set-up figure)
    r.offerSdp = (await client.sdp(r.callId).catch(() => null))?.local ?? null;
    r.answered = true;
    r.answeredAt = Date.now();
    log(`answered ${r.callId}`);
    await startAudioRecording(client, r, audio);
    await mediaUntilEnded(client, r, { mediaMs, hangupAfterMs: hangup === 'browser' ? mediaMs : null, maxMs, log, callInfo });
    log(`ended ${r.callId}: ${r.ended.reason ?? ''} ${r.ended.sipCode ?? ''}`);
  } catch (e) {
    r.error = e.message;
    log(`MO ${from} -> ${to} failed: ${e.message}`);
    await hangUpQuietly(client, r);
  }
  if (r.callId) await collect(client, r, callInfo, audio);
  return r;
}

// IMS-originated call from a SIPp UE: ue = {mode:'uac'|'uac-wait', arg, env?} (env e.g. {UE_CODEC:'PCMA'}
// for run-ue.sh). hangup: 'ue' or 'browser'. answerOptions: labClient.answer's ({video, videoCodec}).
// audio: as for moCall.
export async function mtCall(client, { token, user, ue, hangup = 'ue', mediaMs = 5000, maxMs = 20000, log = () => {}, answerOptions = {}, audio = null,
  callInfo = (id) => gw.callInfo(token, id) }) {
  const r = newResult('mt', ue.from ?? 'ue2', user);
  let proc = null;
  try {
    log(`MT ${r.from} -> ${user}: starting SIPp ${ue.mode} ${user} ${ue.arg ?? ''}`);
    const mark = await client.mark();   // only an `incoming` that arrives from now on is ours
    proc = startUe(ue.mode, user, ue.arg, { timeoutMs: maxMs + 15000, env: ue.env ?? {} });
    // a UE that gives up before its call reaches the browser (no keys, REGISTER refused, INVITE rejected) says
    // why at once, instead of a wait for `incoming` that only times out
    const gaveUp = proc.done.then((u) => { throw new Error(`the SIPp UE (${ue.mode} ${user}) exited ${u.code} before the call reached the browser: ${ueReason(u.output)}`); });
    const inc = await Promise.race([client.waitFor('incoming', null, 15000, mark), gaveUp]);
    r.callId = inc.callId;
    r.incomingSdp = inc.sdp;
    r.assertedIdentity = inc.assertedIdentity ?? null; // the caller's P-Asserted-Identity URIs (TS 24.229 §5.1.2A)
    if (inc.from) r.from = inc.from;
    if (inc.preconditions) {
      // TS 24.229: the browser's SDP went out at once (`media`); it rings when both QoS segments are met.
      log(`incoming ${r.callId} from ${inc.from} with preconditions; waiting for alerting`);
      await client.waitFor('alerting', r.callId, 15000);
    }
    log(`incoming ${r.callId} from ${inc.from}; answering`);
    await client.answer(r.callId, answerOptions);
    r.answered = true;
    r.answeredAt = Date.now();
    await startAudioRecording(client, r, audio);
    await mediaUntilEnded(client, r, { mediaMs, hangupAfterMs: hangup === 'browser' ? mediaMs : null, maxMs, log, callInfo });
    log(`ended ${r.callId}: ${r.ended.reason ?? ''} ${r.ended.sipCode ?? ''}`);
  } catch (e) {
    r.error = e.message;
    log(`MT ${r.from} -> ${user} failed: ${e.message}`);
    await hangUpQuietly(client, r);
    proc?.kill();
  }
  if (proc) {
    r.ue = await proc.done;
    log(`SIPp ${ue.mode} exited ${r.ue.code}`);
    if (r.ue.code !== 0 && !r.error) r.error = `SIPp UE exited ${r.ue.code}: ${ueReason(r.ue.output)}`;
    else if (r.ue.code !== 0 && !r.error.includes('SIPp UE')) r.error += `; the SIPp UE exited ${r.ue.code}: ${ueReason(r.ue.output)}`;
  }
  if (r.callId) await collect(client, r, callInfo, audio);
  return r;
}

// An `ended` is clean unless it reports a failure (SIP error response or an error reason).
export function endedCleanly(ended) {
  if (!ended) return false;
  if (ended.sipCode != null && ended.sipCode >= 400) return false;
  return !/error|fail|timeout/i.test(ended.reason ?? '');
}

// The demo's verdict: answered, rtpengine relayed both ways, the browser sent and received, the audio
// check passed (when it ran), clean end.
export function judge(r) {
  const problems = [];
  const m = r.info?.media ?? {};
  if (!r.answered) problems.push('not answered');
  if (!(m.packetsToIms > 0)) problems.push('rtpengine packets to IMS = 0');
  if (!(m.packetsToBrowser > 0)) problems.push('rtpengine packets to browser = 0');
  if (!(r.browser?.packetsSent > 0)) problems.push('browser sent no packets');
  if (!(r.browser?.packetsReceived > 0)) problems.push('browser received no packets');
  // the lab's topology (docs/media.md): the browser reaches rtpengine over its link, never loopback
  for (const c of [r.browser?.localCandidate, r.browser?.remoteCandidate]) {
    if (/^(127\.|\[?::1\]?:)/.test(c ?? '')) problems.push(`ICE pair over loopback (${c})`);
  }
  if (r.audio && !r.audio.pass) problems.push(`audio check failed: ${r.audio.problems.join('; ')}`);
  if (!endedCleanly(r.ended)) problems.push(r.ended ? `ended badly (${r.ended.reason} ${r.ended.sipCode ?? ''})` : 'no ended');
  if (r.error) problems.unshift(r.error);
  return { ok: problems.length === 0, problems };
}

export const sleepMs = sleep;

function fmt(v) {
  return v == null ? '-' : v.toFixed(1);
}

// What run-ue.sh said about its failure (its last "run-ue: ..." line), else the output's last line.
function ueReason(output) {
  const said = String(output ?? '').split('\n').filter((l) => /^run-ue: /.test(l.trim())).at(-1);
  return said ? said.trim() : lastLine(output);
}

function lastLine(s) {
  return String(s ?? '').trim().split('\n').at(-1) ?? '';
}
