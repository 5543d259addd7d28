// `./lab demo --rtt` (issue #25, docs/datachannel.md "Real-time text through the gateway"): one call from the browser
// user (kate) to the RFC 4103 UE ue10 and one from ue10 to kate, each with real-time text beside the audio: on the
// browser side T.140 on a data channel (RFC 8865, the phone's real-time-text pane), on the IMS side m=text with
// t140 + red (RFC 4103, RFC 2198 redundancy), bridged by the gateway's data-channel endpoint. The UE is
// harness/runner/dc-ue.py (SIP through the P-CSCF, RTP echo, its text from harness/tests/rfc4103_ue.py). On each call
// the page types a sentence into its pane key by key while the UE types its own; each must arrive exactly (no
// character lost or doubled). --netem SPEC (LAB_DEMO_NETEM) impairs the browser's link (harness/kit/link.mjs) for
// both calls. report.json + report.html in $LAB_OUT; exit 0 iff both calls are ok.
import { applyLink, resolveImpairment } from '../kit/link.mjs';
import { esc, htmlHead } from '../kit/report.mjs';
import { DC_UE, waitUntil } from './dc-ue.mjs';
import { abandon, audioOf, cpuLine, f, hangUpFromCaller, log, printAligned, runUeDemo, settle } from './demo-ue-calls.mjs';
import * as gw from './gateway.mjs';

const USER = 'kate';
const T140 = { id: 1001, label: 't140', protocol: 't140' };  // webclient/public/rtt.js T140_CHANNEL
const FROM_PAGE = 'Hello from the browser: real-time text, é € 😀.';
const FROM_UE = 'Hi, this is the IMS UE typing back: ü 漢 ok!';

async function rttCall(direction, { client, token, ue }) {
  const r = { direction, ok: false, error: null, call_id: null };
  try {
    const mark = ue.mark();
    if (direction === 'mo') {
      log(`MO: ${USER} calls ${DC_UE} with real-time text (a T.140 data channel)`);
      r.call_id = await client.call(DC_UE, { dataChannels: [T140] });
      const inv = await ue.waitFor((e) => e.event === 'incoming', 10000, 'the INVITE', mark);
      r.ims_sdp_text = inv.text;
      r.ims_sdp_application = inv.application;
      await client.waitFor('answered', r.call_id, 10000);
    } else {
      log(`MT: ${DC_UE} calls ${USER} with m=text (RFC 4103)`);
      const pmark = await client.mark();
      ue.send({ cmd: 'call', to: USER, text: true });
      const inc = await client.waitFor('incoming', null, 10000, pmark);
      r.call_id = inc.callId;
      r.browser_sdp_dcmap = (inc.sdp ?? '').split(/\r?\n/).filter((l) => /^a=dcmap:/.test(l));
      await client.answer(r.call_id);
      await ue.waitFor((e) => e.event === 'answered', 15000, 'the 200 to its INVITE', mark);
      r.ims_sdp_text = ue.events.slice(mark).find((e) => e.event === 'text-answer')?.text ?? null;
    }
    await waitUntil(async () => (await client.realTimeText(r.call_id))?.state === 'open', 10000, 'the page\'s T.140 channel to open');
    const t0 = Date.now();
    ue.send({ cmd: 'type', text: FROM_UE, cps: 20 });
    await client.page.click('#rtt-input');
    await client.page.keyboard.type(FROM_PAGE, { delay: 40 });
    await ue.waitFor((e) => e.event === 'typed' && e.callId === r.call_id, 10000, 'the end of its typing', mark);
    const atUe = () => ue.events.slice(mark).filter((e) => e.event === 'text' && e.callId === r.call_id).map((e) => e.text).join('');
    await waitUntil(async () => atUe().length >= FROM_PAGE.length, 5000, 'the page\'s text at the UE').catch(() => {});
    const page = await waitUntil(async () => { const x = await client.realTimeText(r.call_id); return x.received.length >= FROM_UE.length && x; }, 5000, 'the UE\'s text at the page')
      .catch(async () => client.realTimeText(r.call_id));
    r.typing_s = (Date.now() - t0) / 1000;
    const info = await gw.callInfo(token, r.call_id);
    r.audio = audioOf(info);
    const ended = await hangUpFromCaller({ client, ue, callId: r.call_id, direction });
    const fin = (await waitUntil(async () => (await gw.callInfo(token, r.call_id)).dataChannels, 5000, 'the ended call\'s counters')).text ?? {};
    const s = ended.text?.stats ?? {};
    r.text = {
      to_ims: { typed: FROM_PAGE, received: atUe(), exact: atUe() === FROM_PAGE, channel_messages: fin.toIms?.messages, rtp_packets: fin.toIms?.rtpPackets,
        ue_red_packets: s.red_packets, ue_red_generations: s.red_blocks_max, ue_lost: s.lost, ue_recovered: s.recovered },
      to_browser: { typed: FROM_UE, received: page.received, exact: page.received === FROM_UE, rtp_packets: fin.toBrowser?.rtpPackets,
        bridge_recovered: fin.toBrowser?.recovered, bridge_lost: fin.toBrowser?.lost, channel_messages: fin.toBrowser?.messages },
      redundancy: fin.redundancy,
    };
    const problems = [];
    if (!r.text.to_ims.exact) problems.push(`the UE got ${JSON.stringify(atUe())} for ${JSON.stringify(FROM_PAGE)}`);
    if (!r.text.to_browser.exact) problems.push(`the page got ${JSON.stringify(page.received)} for ${JSON.stringify(FROM_UE)}`);
    if (!(s.red_packets > 0 && s.red_blocks_max === 2)) problems.push(`no RED packets with 2 generations reached the UE (${s.red_packets} RED, ${s.red_blocks_max} blocks at most)`);
    if (!(r.audio.packets_to_ims > 0 && r.audio.packets_to_browser > 0)) problems.push('no audio both ways beside the text');
    settle(r, problems);
  } catch (e) {
    await abandon(r, e, { client, ue });
  }
  log(`${direction.toUpperCase()}: ${r.ok ? 'ok' : `FAILED: ${r.error}`}`);
  return r;
}


function rows(calls) {
  const out = [];
  for (const c of calls) {
    if (!c.text) { out.push([c.direction.toUpperCase(), '-', '-', '-', '-', c.error ?? '']); continue; }
    out.push([c.direction.toUpperCase(), 'browser->IMS', [...c.text.to_ims.typed].length, c.text.to_ims.exact ? 'exact' : 'DIFFERS',
      `${f(c.text.to_ims.rtp_packets)} RTP, UE saw ${f(c.text.to_ims.ue_red_packets)} RED (${f(c.text.to_ims.ue_red_generations)} generations)`, `UE recovered ${f(c.text.to_ims.ue_recovered)}, lost ${f(c.text.to_ims.ue_lost)}`]);
    out.push([c.direction.toUpperCase(), 'IMS->browser', [...c.text.to_browser.typed].length, c.text.to_browser.exact ? 'exact' : 'DIFFERS',
      `${f(c.text.to_browser.rtp_packets)} RTP in, ${f(c.text.to_browser.channel_messages)} channel messages`, `bridge recovered ${f(c.text.to_browser.bridge_recovered)}, lost ${f(c.text.to_browser.bridge_lost)}`]);
  }
  return out;
}

function printTable(calls) {
  const all = [['call', 'direction', 'chars', 'arrived', 'wire', 'loss'], ...rows(calls)];
  printAligned(all);
}

function renderHtml(report) {
  const calls = report.calls.map((c) => `<tr><td>${esc(c.direction.toUpperCase())}</td><td>${c.ok ? 'ok' : `FAILED: ${esc(c.error)}`}</td><td>${esc(c.call_id)}</td>
<td>${esc(c.audio ? `${c.audio.codec_browser} / ${c.audio.codec_ims}; ${c.audio.packets_to_ims} / ${c.audio.packets_to_browser} packets` : '-')}</td>
<td><code>${esc((c.ims_sdp_text ?? []).join(' '))}</code></td></tr>`).join('\n');
  const text = rows(report.calls).map((r) => `<tr>${r.map((v) => `<td>${esc(String(v))}</td>`).join('')}</tr>`).join('\n');
  return `${htmlHead('lab demo --rtt', { chart: false })}
<h1>Real-time-text demo: ${report.ok ? 'OK' : 'FAILED'}</h1>
<p>${esc(report.browser?.kind)} ${esc(report.browser?.version)} as ${esc(report.user)} ↔ RFC 4103 UE ${esc(report.ue)}: T.140 on a data channel (RFC 8865) on the
browser's side, m=text with t140 + red (RFC 4103, RFC 2198: 2 redundant generations) toward IMS, bridged by the gateway's data-channel endpoint.
Browser link: ${esc(report.link ?? 'not impaired')}.</p>
<h2>Calls</h2><table><tr><th>call</th><th>result</th><th>call-id</th><th>audio (browser / IMS codec; packets to IMS / to browser)</th><th>IMS side's m=text</th></tr>
${calls}</table>
<h2>Text</h2><table><tr><th>call</th><th>direction</th><th>characters typed</th><th>arrived</th><th>wire</th><th>loss</th></tr>
${text}</table>
<p>CPU (average % of one core): ${esc(cpuLine(report.cpu))}</p>
</body></html>
`;
}

async function main() {
  const imp = resolveImpairment({ netem: process.env.LAB_DEMO_NETEM || null });
  const link = await applyLink(imp, { log });
  await runUeDemo({ tool: 'lab demo --rtt', user: USER, clientName: `demo-rtt-${USER}`, ueOptions: { messages: 0 },
    ueLog: `RFC 4103 UE ${DC_UE} registered through the P-CSCF`, oneCall: rttCall, fields: { link: imp?.text ?? null }, link,
    renderHtml, printTable,
    afterTable: (r) => log(`browser link: ${imp?.text ?? 'not impaired'}${r.link_counters ? ` (${JSON.stringify(r.link_counters)})` : ''}`) });
}

main().catch((e) => {
  console.error(`[demo] ${e.message}`);
  process.exit(1);
});
