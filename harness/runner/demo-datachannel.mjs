// `./lab demo --datachannel` (issue #25, docs/datachannel.md "Calls"): one call from the browser user (kate) to the
// IMS UE ue10 and one from ue10 to kate, each with the chat application's data channel (a=dcmap stream 1000,
// a=dcsa 3gpp-req-app:org.lab.chat, TS 26.114 / TS 24.186) beside the audio. The UE is harness/runner/dc-ue.py:
// SIP through the P-CSCF, an RTP echo, aiortc for the data channels. On each call both sides send MESSAGES chat
// messages and every one must arrive; the report gives per channel the messages, bytes and delay each way (the
// receiver's clock minus the sender's timestamp: same host, same clock) and the data-channel endpoint's own relay
// time per message. report.json + report.html in $LAB_OUT. Exit 0 iff both calls are ok and no session is left.
// On the 3GPP core (--ims 3gpp: LAB_IMS=3gpp) the user is carol and ue10 registers through the core's P-CSCF with SIP
// digest (its HSS subscription); a bootstrap call comes first: carol calls ue10 offering the bootstrap data channels
// (streams 0 and 100, subprotocol "http"); the S-CSCF's DCSF has the MF anchor them (ims-sim/3gpp/dcsf) and the page
// downloads the application list and the chat application over HTTP on them (webclient/public/bootstrap.js). The MO
// call then offers the application data channels the downloaded application asks for (its list entry's channels:
// a=dcmap + a=dcsa 3gpp-req-app, TS 24.186). The report has per bootstrap channel the requests, bytes and HTTP round
// trips, and the MF's own record of them.
import { LAB } from '../kit/addresses.mjs';
import { esc, htmlHead } from '../kit/report.mjs';
import { DC_UE, chatBothWays, waitUntil } from './dc-ue.mjs';
import { abandon, audioOf, cpuLine, f, hangUpFromCaller, log, printAligned, runUeDemo, settle } from './demo-ue-calls.mjs';
import * as gw from './gateway.mjs';

const IMS3 = process.env.LAB_IMS === '3gpp';
const USER = IMS3 ? 'carol' : 'kate';
const MESSAGES = 20;
const MF = `http://${LAB.LAB_LOOPBACK}:${LAB.LAB_IMS3_MF_PORT}/mrm`;
let appChannels = null;   // --ims 3gpp: the channels the application downloaded on the bootstrap call asks for

// --ims 3gpp, first call: the bootstrap data channels, the application list and the application over HTTP on them.
async function bootstrapCall({ client, token, ue }) {
  const r = { direction: 'bootstrap', ok: false, error: null, call_id: null };
  try {
    const mark = ue.mark();
    log(`BOOTSTRAP: ${USER} calls ${DC_UE} with the bootstrap data channels (streams 0 and 100, HTTP)`);
    const channels = await client.page.evaluate(async () => (await import('/bootstrap.js')).BOOTSTRAP_CHANNELS);
    r.call_id = await client.call(DC_UE, { dataChannels: channels });
    const inv = await ue.waitFor((e) => e.event === 'incoming', 10000, 'the INVITE', mark);
    r.ims_sdp_dcmap = inv.dcmap;
    const answer = (await client.waitFor('answered', r.call_id, 15000)).sdp ?? '';
    r.answer_dcmap = answer.split(/\r?\n/).filter((l) => /^a=dc(map|sa):/.test(l));
    const t0 = Date.now();
    const got = await client.page.evaluate(async (id) => {
      const b = await import('/bootstrap.js');
      const d = await b.downloadApplication(window.labClient, id);
      const remote = await b.httpGet(window.labClient.dataChannel(id, 'bootstrap-remote'), '/');
      return { d, remote: { status: remote.status, bytes: remote.bytes, ms: remote.ms }, channels: b.applicationChannels(d.app) };
    }, r.call_id);
    r.download_ms = Date.now() - t0;
    appChannels = got.channels;
    r.application = { id: got.d.app.id, url: got.d.app.url, bytes: got.d.app.bytes, content_type: got.d.app.contentType,
      listed: got.d.list.applications.map((a) => a.id), asks_for: got.channels };
    const mfSession = (await (await fetch(MF)).json()).sessions.find((x) => x['call-id'] === r.call_id);
    r.mf = mfSession ? { streams: mfSession.streams, open: mfSession.open, served: mfSession.served.map(({ stream, method, path, status, bytes }) => ({ stream, method, path, status, bytes })) } : null;
    const info = await gw.callInfo(token, r.call_id);
    const page = await client.dataChannels(r.call_id);
    const endMark = ue.mark();
    await client.hangup(r.call_id);
    await ue.waitFor((e) => e.event === 'ended' && e.callId === r.call_id, 10000, 'the end of the bootstrap call', endMark);
    await client.waitFor('ended', r.call_id, 10000);
    const fin = await waitUntil(async () => (await gw.callInfo(token, r.call_id)).dataChannels, 5000, 'the ended call\'s data-channel counters');
    r.setup_ms = info.setupMs;
    r.sip_flow = info.sipFlow;
    r.endpoint = { browser_leg: info.dataChannels?.browserLeg, ims_leg: info.dataChannels?.imsLeg };
    const reqs = { bootstrap: [{ method: 'GET', path: '/', status: got.d.list.status, ms: got.d.list.ms }, { method: 'GET', path: got.d.app.url, status: got.d.app.status, bytes: got.d.app.bytes, ms: got.d.app.ms }],
      'bootstrap-remote': [{ method: 'GET', path: '/', status: got.remote.status, bytes: got.remote.bytes, ms: got.remote.ms }] };
    r.bootstrap_channels = (page ?? []).map((c) => ({ label: c.label, stream: c.id, state: c.state, requests: reqs[c.label] ?? [],
      responses_received: c.received, bytes_received: c.bytesReceived,
      http_ms: (reqs[c.label] ?? []).map((q) => q.ms) }));
    r.endpoint_counters = { to_ims: { messages: fin.toIms.messages, bytes: fin.toIms.bytes, dropped: fin.toIms.dropped },
      to_browser: { messages: fin.toBrowser.messages, bytes: fin.toBrowser.bytes, dropped: fin.toBrowser.dropped } };
    const problems = [];
    // the MF keeps the bootstrap streams: the far UE's INVITE has the section with port 0 and no a=dcmap left
    if (r.ims_sdp_dcmap?.length) problems.push(`the far UE was offered ${JSON.stringify(r.ims_sdp_dcmap)}: the MF did not anchor the bootstrap channel`);
    if (!r.mf) problems.push('the MF had no session for the call');
    else if (r.mf.served.length !== 3) problems.push(`the MF served ${r.mf.served.length} requests, not 3: ${JSON.stringify(r.mf.served)}`);
    if (got.d.app.id !== 'org.lab.chat' || !(got.d.app.bytes > 0)) problems.push(`the application downloaded is ${got.d.app.id} (${got.d.app.bytes} bytes)`);
    if (got.remote.status !== 200) problems.push(`GET / on the remote-network bootstrap channel: HTTP ${got.remote.status}`);
    if (fin.toIms.dropped || fin.toBrowser.dropped) problems.push('the endpoint dropped messages');
    settle(r, problems);
  } catch (e) {
    await abandon(r, e, { client, ue });
  }
  log(`BOOTSTRAP: ${r.ok ? `ok (${r.application?.id}, ${r.application?.bytes} bytes; it asks for ${JSON.stringify(r.application?.asks_for)})` : `FAILED: ${r.error}`}`);
  return r;
}

// One call (MO: the page calls the UE, the page hangs up; MT: the UE calls, the UE hangs up).
async function dcCall(direction, { client, token, ue }) {
  if (direction === 'bootstrap') return bootstrapCall({ client, token, ue });
  const r = { direction, ok: false, error: null, call_id: null };
  const callInfo = (id) => gw.callInfo(token, id);
  try {
    const mark = ue.mark();
    if (direction === 'mo') {
      if (IMS3 && !appChannels) throw new Error('the bootstrap call gave no application, so no application channel to offer');
      log(`MO: ${USER} calls ${DC_UE} with the chat data channel${appChannels ? ` the downloaded application asks for (${JSON.stringify(appChannels)})` : ''}`);
      r.call_id = await client.call(DC_UE, { dataChannels: appChannels ?? true });
      r.offered_channels = appChannels ?? 'the phone\'s chat channel';
      const inv = await ue.waitFor((e) => e.event === 'incoming', 10000, 'the INVITE', mark);
      r.ims_sdp_dcmap = inv.dcmap;
      await client.waitFor('answered', r.call_id, 10000);
    } else {
      log(`MT: ${DC_UE} calls ${USER} with the chat data channel`);
      const pmark = await client.mark();
      ue.send({ cmd: 'call', to: USER });
      const inc = await client.waitFor('incoming', null, 10000, pmark);
      r.call_id = inc.callId;
      r.ims_sdp_dcmap = (inc.sdp ?? '').split(/\r?\n/).filter((l) => /^a=dc(map|sa):/.test(l));
      await client.answer(r.call_id);
      await ue.waitFor((e) => e.event === 'answered', 15000, 'the 200 to its INVITE', mark);
    }
    const { page, info } = await chatBothWays({ client, ue, callId: r.call_id, mark, n: MESSAGES, callInfo, label: USER });
    r.audio = audioOf(info);
    const ended = await hangUpFromCaller({ client, ue, callId: r.call_id, direction });
    const fin = await waitUntil(async () => (await callInfo(r.call_id)).dataChannels, 5000, 'the ended call\'s data-channel counters');
    const after = await callInfo(r.call_id);
    r.sip_flow = after.sipFlow;
    r.setup_ms = after.setupMs;
    r.endpoint = { browser_leg: info.dataChannels?.browserLeg, ims_leg: info.dataChannels?.imsLeg };
    const u = ended.channels[page.label] ?? {};
    const mapped = fin.channels.find((c) => c.label === page.label) ?? info.dataChannels?.channels.find((c) => c.label === page.label);
    r.data_channels = [{
      label: page.label,
      app: page.app,
      stream_browser: mapped?.browserStream ?? page.id,
      stream_ims: mapped?.imsStream ?? null,
      to_ims: { sent: page.sent, received: u.received ?? 0, bytes: page.bytesSent, in_order: u.inOrder ?? null, delay_ms: u.delayMs ?? null,
        endpoint_messages: fin.toIms.messages, endpoint_bytes: fin.toIms.bytes, endpoint_dropped: fin.toIms.dropped,
        endpoint_relay_us: { p50: fin.toIms.relayUsP50, p99: fin.toIms.relayUsP99, max: fin.toIms.relayUsMax } },
      to_browser: { sent: u.sent ?? 0, received: page.received, bytes: page.bytesReceived, delay_ms: page.delayMs,
        endpoint_messages: fin.toBrowser.messages, endpoint_bytes: fin.toBrowser.bytes, endpoint_dropped: fin.toBrowser.dropped,
        endpoint_relay_us: { p50: fin.toBrowser.relayUsP50, p99: fin.toBrowser.relayUsP99, max: fin.toBrowser.relayUsMax } },
    }];
    const d = r.data_channels[0];
    const problems = [];
    if (d.to_ims.received !== MESSAGES) problems.push(`the UE received ${d.to_ims.received} of ${MESSAGES} messages`);
    if (d.to_browser.received !== MESSAGES) problems.push(`the page received ${d.to_browser.received} of ${MESSAGES} messages`);
    if (d.to_ims.endpoint_dropped || d.to_browser.endpoint_dropped) problems.push('the endpoint dropped messages');
    if (!(r.audio.packets_to_ims > 0 && r.audio.packets_to_browser > 0)) problems.push('no audio both ways beside the data channel');
    r.ok = problems.length === 0;
    r.error = problems.join('; ') || null;
  } catch (e) {
    r.error = e.message;
    if (r.call_id) await client.hangup(r.call_id).catch(() => {});
    ue.send({ cmd: 'bye' }); // whatever the UE still has
  }
  log(`${direction.toUpperCase()}: ${r.ok ? 'ok' : `FAILED: ${r.error}`}`);
  return r;
}


function printTable(calls) {
  const rows = [['call', 'channel', 'direction', 'sent', 'received', 'bytes', 'delay p50/p95/max ms', 'endpoint relay p50/p99 µs']];
  for (const c of calls) {
    for (const d of c.data_channels ?? []) {
      for (const [dir, x] of [['browser->IMS', d.to_ims], ['IMS->browser', d.to_browser]]) {
        rows.push([c.direction.toUpperCase(), `${d.label} ${d.stream_browser}->${f(d.stream_ims)}`, dir, f(x.sent), f(x.received), f(x.bytes),
          x.delay_ms ? `${x.delay_ms.p50}/${x.delay_ms.p95}/${x.delay_ms.max}` : '-', `${f(x.endpoint_relay_us.p50)}/${f(x.endpoint_relay_us.p99)}`]);
      }
    }
    // a bootstrap channel: HTTP requests the page sent (sent), responses it got (received), their bytes and round trips
    for (const b of c.bootstrap_channels ?? []) {
      rows.push([c.direction.toUpperCase(), `${b.label} ${b.stream} (MF)`, 'HTTP', f(b.requests.length), f(b.responses_received), f(b.bytes_received),
        `round trips ${b.http_ms.join(', ')}`, '-']);
    }
    if (!c.data_channels && !c.bootstrap_channels) rows.push([c.direction.toUpperCase(), '-', '-', '-', '-', '-', '-', c.error ?? '']);
  }
  printAligned(rows);
}

function renderHtml(report) {
  const rows = report.calls.flatMap((c) => (c.data_channels ?? []).flatMap((d) => [['browser → IMS', d.to_ims], ['IMS → browser', d.to_browser]]
    .map(([dir, x]) => `<tr><td>${esc(c.direction.toUpperCase())}</td><td>${esc(d.label)} (${esc(d.app)}) ${d.stream_browser} → ${esc(f(d.stream_ims))}</td>
<td>${dir}</td><td>${x.sent}</td><td>${x.received}</td><td>${x.bytes}</td><td>${x.delay_ms ? `${x.delay_ms.p50} / ${x.delay_ms.p95} / ${x.delay_ms.max}` : '-'}</td>
<td>${esc(f(x.endpoint_relay_us.p50))} / ${esc(f(x.endpoint_relay_us.p99))}</td></tr>`)));
  const boot = report.calls.flatMap((c) => (c.bootstrap_channels ?? []).map((b) => `<tr><td>${esc(c.direction.toUpperCase())}</td><td>${esc(b.label)} ${b.stream}</td>
<td>${esc(b.requests.map((q) => `${q.method} ${q.path} → ${q.status} (${q.ms} ms)`).join('; '))}</td><td>${b.responses_received}</td><td>${b.bytes_received}</td></tr>`));
  const apps = report.calls.filter((c) => c.application).map((c) => `<p>Downloaded over the bootstrap channel: <code>${esc(c.application.id)}</code>
(${esc(c.application.url)}, ${c.application.bytes} bytes, ${esc(c.application.content_type)}); it asks for the application data channel(s)
<code>${esc(JSON.stringify(c.application.asks_for))}</code>, which the MO call offers. The MF served: ${esc((c.mf?.served ?? []).map((q) => `stream ${q.stream} ${q.method} ${q.path} ${q.status} (${q.bytes} bytes)`).join('; '))}.</p>`).join('\n');
  const calls = report.calls.map((c) => `<tr><td>${esc(c.direction.toUpperCase())}</td><td>${c.ok ? 'ok' : `FAILED: ${esc(c.error)}`}</td>
<td>${esc(c.call_id)}</td><td>${esc(f(c.setup_ms))}</td><td>${esc(c.audio ? `${c.audio.codec_browser} / ${c.audio.codec_ims}; ${c.audio.packets_to_ims} / ${c.audio.packets_to_browser} packets` : '-')}</td>
<td><code>${esc((c.ims_sdp_dcmap ?? []).join(' '))}</code></td><td>${esc((c.sip_flow ?? []).join(', '))}</td></tr>`).join('\n');
  return `${htmlHead('lab demo --datachannel', { chart: false })}
<h1>Data-channel demo: ${report.ok ? 'OK' : 'FAILED'}</h1>
<p>${esc(report.browser.kind)} ${esc(report.browser.version)} as ${esc(report.user)} ↔ IMS UE ${esc(report.ue)} (aiortc), ${report.messages_each_way} chat messages each way per call,
through the gateway's data-channel endpoint (media-relay/datachannel). Delay: the receiver's clock minus the sender's timestamp (same host).
Endpoint relay: the endpoint's own time per message, datagram in to SCTP send out.</p>
<h2>Calls</h2><table><tr><th>call</th><th>result</th><th>call-id</th><th>set-up ms</th><th>audio (browser / IMS codec; packets to IMS / to browser)</th><th>IMS SDP a=dcmap/a=dcsa</th><th>SIP flow</th></tr>
${calls}</table>
<h2>Data channels</h2><table><tr><th>call</th><th>channel (stream browser → IMS)</th><th>direction</th><th>sent</th><th>received</th><th>bytes</th><th>delay p50 / p95 / max (ms)</th><th>endpoint relay p50 / p99 (µs)</th></tr>
${rows.join('\n')}</table>
${boot.length ? `<h2>Bootstrap data channels (HTTP to the network's MF)</h2><table><tr><th>call</th><th>channel (stream)</th><th>requests (round trip)</th><th>responses</th><th>bytes received</th></tr>
${boot.join('\n')}</table>` : ''}
${apps}
<p>CPU (average % of one core): ${esc(cpuLine(report.cpu))}</p>
</body></html>
`;
}

async function main() {
  await runUeDemo({ tool: 'lab demo --datachannel', user: USER, clientName: `demo-dc-${USER}`, ueOptions: { messages: MESSAGES, intervalMs: 20 },
    ueLog: `IMS UE ${DC_UE} registered through the P-CSCF (aiortc data channels, RTP echo)`, oneCall: dcCall,
    fields: { messages_each_way: MESSAGES, core: IMS3 ? '3gpp' : 'light' }, renderHtml, printTable,
    directions: IMS3 ? ['bootstrap', 'mo', 'mt'] : ['mo', 'mt'] });
}

main().catch((e) => {
  console.error(`[demo] ${e.message}`);
  process.exit(1);
});
