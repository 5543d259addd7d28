// rtpengine's own view of one call, for calls the gateway does not know: the SIP-over-WebSocket client's (Kamailio's
// rtpengine module drives rtpengine with the SIP Call-ID as its call-id; docs/ims-sim.md "eP-CSCF for WICs using
// Gm"). The shape is the gateway's call info's `media` (GET /api/v1/calls/{id}), so scenario.mjs and report.mjs
// judge both client kinds alike: packets each way, the codec of each leg, rtpengine's transcoding verdict.
import { LAB } from '../kit/addresses.mjs';
import { listCalls, ng } from '../kit/ng.mjs';

// The party whose streams come from the browser's side (any address off the core's loopback).
const fromBrowser = (tag) => (tag.medias ?? []).some((m) => (m.streams ?? []).some((s) => {
  const a = s.endpoint?.address;
  return typeof a === 'string' && a !== '' && !a.startsWith('127.') && a !== '::1';
}));

export async function relayCallInfo(callId, ngAddr = LAB.LAB_RTPENGINE_NG) {
  const r = await ng(ngAddr, { command: 'query', 'call-id': callId });
  if (r.result !== 'ok') throw new Error(`rtpengine has no call ${callId} (${r['error-reason'] ?? r.result})`);
  const parties = Object.values(r.tags ?? {}).map((tag) => {
    let packets = 0;
    let bytes = 0;
    let codec = null;
    let transcoding = false;
    for (const m of tag.medias ?? []) {
      if (codec == null && m.type === 'audio' && typeof m.codec === 'string') codec = m.codec;
      transcoding ||= (m.flags ?? []).includes('transcoding');
      for (const s of m.streams ?? []) {
        if (!(s.flags ?? []).includes('RTP')) continue;
        packets += s.stats?.packets ?? 0;
        bytes += s.stats?.bytes ?? 0;
      }
    }
    return { browser: fromBrowser(tag), packets, bytes, codec, transcoding };
  });
  const browser = parties.find((p) => p.browser);
  const ims = parties.find((p) => !p.browser);
  if (!browser || !ims) throw new Error(`rtpengine's call ${callId} lacks a browser or an IMS party (${parties.length} parties)`);
  return {
    callId,
    media: {
      // what rtpengine received from a party is what it sent on toward the other
      packetsToIms: browser.packets, bytesToIms: browser.bytes,
      packetsToBrowser: ims.packets, bytesToBrowser: ims.bytes,
      codecBrowser: browser.codec, codecIms: ims.codec,
      transcoded: browser.transcoding || ims.transcoding,
    },
  };
}

// Every call-id rtpengine holds, whoever drives it (the gateway's /api/v1/rtpengine/sessions lists only its own).
export async function relayCalls(ngAddr = LAB.LAB_RTPENGINE_NG) {
  return listCalls(ngAddr);
}
