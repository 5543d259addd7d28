// The frame both data-channel demos share (`./lab demo --datachannel`: demo-datachannel.mjs, `./lab demo --rtt`:
// demo-rtt.mjs): the IMS UE of dc-ue.mjs started and registered, one headless browser with USER logged in, one MO and
// one MT call made by the demo's own `oneCall`, the browser and the UE (and an impaired link) stopped whatever
// happened, no rtpengine session left, report.json + report.html in $LAB_OUT, the console table, exit status.
import { launchBrowser, openClient } from './browser.mjs';
import { startCpuSampler } from '../kit/cpu.mjs';
import { gatewayUrl, outDir, passwordOf } from '../kit/env.mjs';
import { writeReport } from '../kit/report.mjs';
import { DC_UE, startDcUe } from './dc-ue.mjs';
import * as gw from './gateway.mjs';

export const log = (s) => console.log(`[demo] ${s}`);
export const f = (x) => (x == null ? '-' : String(x));
// "datachannel 0.87, gateway 41.8, …": the components' average CPU (% of one core) of the sampler's result
// One demo call's audio as the gateway reports it (callInfo's media).
export const audioOf = (info) => ({ packets_to_ims: info.media.packetsToIms, packets_to_browser: info.media.packetsToBrowser, codec_browser: info.media.codecBrowser, codec_ims: info.media.codecIms });

// Ends a demo call from its caller's side (the page hangs up an MO call, the UE sends BYE on an MT one) and waits
// until both the UE and the page saw it end; resolves to the UE's `ended` event.
export async function hangUpFromCaller({ client, ue, callId, direction }) {
  const endMark = ue.mark();
  if (direction === 'mo') await client.hangup(callId);
  else ue.send({ cmd: 'bye' });
  const ended = await ue.waitFor((e) => e.event === 'ended' && e.callId === callId, 10000, 'the end of the call', endMark);
  await client.waitFor('ended', callId, 10000);
  return ended;
}

// A demo call's verdict from its problems; on an error, the call is ended from both sides.
export function settle(r, problems) {
  r.ok = problems.length === 0;
  r.error = problems.join('; ') || null;
}

export async function abandon(r, e, { client, ue }) {
  r.error = e.message;
  if (r.call_id) await client.hangup(r.call_id).catch(() => {});
  ue.send({ cmd: 'bye' });
}

export const cpuLine = (cpu) => Object.entries(cpu ?? {}).filter(([k]) => k.endsWith('_pct')).map(([k, v]) => `${k.slice(0, -4)} ${v}`).join(', ') || 'n/a';

// rows (the first one the heading) printed as columns
export function printAligned(rows) {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const r of rows) console.log(r.map((v, i) => String(v).padEnd(w[i])).join('  '));
}

// tool: the report's name; clientName: the page's; ueOptions/ueLog: the UE's start options and the line logged once it registered; oneCall(direction,
// {client, token, ue}) -> the call's report entry ({ok, error, ...}); fields: more top-level report fields; link: the
// browser-link impairment applied ({stop() -> counters}, null when none; given: the report has link_counters); renderHtml(report); printTable(calls);
// directions: the calls oneCall makes, in order (default MO then MT).
export async function runUeDemo({ tool, user, clientName, ueOptions, ueLog, oneCall, fields = {}, link = undefined, renderHtml, printTable, afterTable = () => {},
  directions = ['mo', 'mt'] }) {
  const started = new Date().toISOString();
  await gw.waitHealthy(15000);
  const cpu = startCpuSampler();
  let linkCounters = null;
  const calls = [];
  let browserInfo;
  try {
    const ue = await startDcUe(DC_UE, ueOptions);
    log(ueLog);
    const browser = await launchBrowser();
    try {
      const client = await openClient(browser, { name: clientName });
      const { token } = await client.login(user, passwordOf(user));
      log(`${user} logged in from headless ${browser.version}`);
      for (const direction of directions) calls.push(await oneCall(direction, { client, token, ue }));
      await client.logout().catch(() => {});
      browserInfo = { kind: browser.kind, version: browser.version };
    } finally {
      await browser.close();
      await ue.stop();
    }
  } finally {
    if (link) linkCounters = await link.stop();
  }
  const left = await gw.waitNoSessions(5000);
  const ok = calls.every((c) => c.ok) && left.count === 0;
  const report = { tool, started, ok, user, ue: DC_UE, browser: browserInfo, ...fields, ...(link !== undefined ? { link_counters: linkCounters } : {}),
    calls, cpu: cpu.stop(), rtpengine_sessions_left: left.count, gateway: gatewayUrl() };
  const { jsonFile, htmlFile } = writeReport(outDir(), report, renderHtml);
  printTable(calls);
  afterTable(report);
  log(`cpu (avg % of one core): ${cpuLine(report.cpu)}`);
  log(`report: ${jsonFile}, ${htmlFile}`);
  if (!ok) throw new Error(`demo failed: ${calls.filter((c) => !c.ok).map((c) => `${c.direction}: ${c.error}`).join('; ')}${left.count ? `; ${left.count} rtpengine session(s) left` : ''}`);
  log('demo OK');
}
