// The catalogue of `./lab compliance` (docs/compliance.md): each 3GPP/RFC procedure check names its clause
// and the integration tests (harness/tests/<file>.test.mjs, exact test names) that drive a real call
// and assert on the SIP/SDP/packets seen on the wire. A check passes only when every test it names ran
// and passed (mapping.mjs). Checks the lab cannot exercise carry `notApplicable` with the reason.
// Clause numbers are given only where we are sure of them; otherwise the document alone.

export const CHECKS = [
  {
    id: 'no-bundle-toward-ims',
    clause: '3GPP TS 23.228 Annex U; RFC 8843',
    requirement: 'No BUNDLE toward IMS: the IMS leg gets one transport per m-line and no a=group:BUNDLE; an offer the relay cannot unbundle is refused',
    tests: [
      { file: 'calls', name: 'IMS leg SDP as ue1 received it: plain RTP/AVP, no ICE/DTLS/BUNDLE and no WebRTC-only lines' },
      { file: 'video', name: 'MO audio + video to ue7, balanced BUNDLE offer: VP8 passes through, one transport per m-line' },
      { file: 'video', name: 'MO audio + video offer with bundlePolicy max-bundle is refused: error bad-sdp, nothing set up' },
    ],
  },
  {
    id: 'plain-rtp-toward-ims',
    clause: '3GPP TS 23.334; 3GPP TS 23.228 Annex U',
    requirement: 'IMS leg is plain RTP/AVP with RTCP on its own port: no ICE, DTLS, rtcp-mux or WebRTC-only attributes',
    tests: [
      { file: 'calls', name: 'IMS leg SDP as ue1 received it: plain RTP/AVP, no ICE/DTLS/BUNDLE and no WebRTC-only lines' },
    ],
  },
  {
    id: 'browser-leg-dtls-srtp-ice-rtcp-mux',
    clause: '3GPP TS 23.334; 3GPP TS 24.371; RFC 5763/5764; RFC 8445; RFC 5761',
    requirement: 'Browser leg is UDP/TLS/RTP/SAVPF with DTLS-SRTP only (SHA-256 fingerprint, no SDES), ICE host candidates, rtcp-mux, a=mid; DTLS and SRTP come up both ways',
    tests: [
      { file: 'browser-leg', name: 'MO: rtpengine answers with DTLS-SRTP only, rtcp-mux, a=mid; consent checks are answered' },
      { file: 'browser-leg', name: 'MT: rtpengine offers the browser DTLS-SRTP only (actpass), rtcp-mux, a=mid' },
    ],
  },
  {
    id: 'dtls-setup-roles',
    clause: 'RFC 5763; RFC 8842; RFC 4145',
    requirement: 'DTLS roles follow a=setup (actpass answered active, active answered passive) and the RFC 4145 default when a=setup is missing',
    tests: [
      { file: 'dtls-setup', name: 'MO offer with no a=setup: rtpengine answers passive and DTLS comes up' },
      { file: 'dtls-setup', name: 'MO offer with a=setup:active: rtpengine answers passive and DTLS comes up' },
      { file: 'dtls-setup', name: 'MO offer with a=setup:actpass: rtpengine answers active and DTLS comes up' },
      { file: 'dtls-setup', name: 'MT answer without a=setup: rtpengine takes active (an answer defaults to passive) and DTLS comes up' },
    ],
  },
  {
    id: 'consent-freshness',
    clause: 'RFC 7675',
    requirement: "The relay answers the browser's STUN consent checks during the call; ICE stays connected",
    tests: [
      { file: 'browser-leg', name: 'MO: rtpengine answers with DTLS-SRTP only, rtcp-mux, a=mid; consent checks are answered' },
    ],
  },
  {
    id: 'preconditions-mo',
    clause: 'RFC 3312; RFC 4032; RFC 3262; RFC 3311; 3GPP TS 24.229',
    requirement: 'Browser-originated call to a VoLTE UE: INVITE with precondition + 100rel, reliable 183, PRACK, UPDATE once the browser leg is up, then 180 and 200',
    tests: [
      { file: 'volte', name: 'MO with preconditions to ue4: 183 (100rel) -> PRACK -> UPDATE when the browser leg is up -> 180 -> 200' },
    ],
  },
  {
    id: 'preconditions-mt',
    clause: 'RFC 3312; RFC 4032; RFC 3262; RFC 3311; 3GPP TS 24.229',
    requirement: 'VoLTE UE calling the browser: reliable 183 with a=conf, PRACK and UPDATE answered, alerting only when both segments are met',
    tests: [
      { file: 'volte', name: 'MT with preconditions from ue5: reliable 183 with a=conf, PRACK, UPDATE answered, alerting only then' },
    ],
  },
  {
    id: 'record-route-honoured',
    clause: 'RFC 3261 §12.1.1, §12.1.2, §12.2.1.1',
    requirement: "The gateway's in-dialog requests follow the Record-Route set through P-CSCF, S-CSCF, P-CSCF; as UAS it copies Record-Route into its 200",
    tests: [
      { file: 'calls', name: 'Record-Route and Path on the wire: BYE and 200 follow the P-CSCF/S-CSCF route set' },
    ],
  },
  {
    id: 'path-honoured',
    clause: 'RFC 3327; RFC 3608',
    requirement: "Requests to a browser user reach the gateway through the P-CSCF that added Path at REGISTER; the gateway's initial requests carry the Service-Route",
    tests: [
      { file: 'calls', name: 'Record-Route and Path on the wire: BYE and 200 follow the P-CSCF/S-CSCF route set' },
    ],
  },
  {
    id: 'sip-over-websocket',
    clause: 'RFC 7118',
    requirement: 'SIP over WebSocket framing where SIP over WebSocket is used',
    notApplicable: 'no SIP-over-WebSocket leg exists: browsers talk JSON over WebSocket to the gateway (docs/architecture.md), and the gateway talks SIP over UDP/TCP to Kamailio, whose configuration has no WebSocket listener',
  },
  {
    id: 'api-token-check',
    clause: '3GPP TS 24.371',
    requirement: 'WAF role: the REST API and the WebSocket upgrade need a live session token; missing or unknown tokens are refused (401), bad credentials get no token',
    tests: [
      { file: 'api', name: 'no or unknown token: REST calls get 401 bad-token and the WebSocket upgrade is refused' },
      { file: 'api', name: 'login with a bad password -> 401 auth-failed (REST and page)' },
    ],
  },
  {
    id: 'transcoding-amr-wb',
    clause: '3GPP TS 26.114',
    requirement: "AMR-WB toward IMS: the gateway offers only AMR-WB on the IMS leg, the UE answers it, rtpengine transcodes the browser's Opus both ways",
    tests: [
      { file: 'transcoding', name: 'MO call to ue1 with imsCodec AMR-WB: Opus <-> AMR-WB through rtpengine' },
    ],
  },
  {
    id: 'transcoding-pcma',
    clause: 'ITU-T G.711; 3GPP TS 26.114',
    requirement: 'PCMA toward IMS both ways (browser-originated with imsCodec, UE offering only PCMA); the test tones survive Opus -> PCMA -> Opus',
    tests: [
      { file: 'transcoding', name: 'MO call to ue1 with imsCodec PCMA: Opus <-> PCMA through rtpengine' },
      { file: 'audio', name: 'MO call with imsCodec PCMA: the tones survive Opus -> PCMA -> Opus' },
      { file: 'audio', name: 'MT call from ue2 offering only PCMA: the tones come back to the answering browser' },
    ],
  },
  {
    id: 'relay-without-transcoding',
    clause: '3GPP TS 23.334',
    requirement: "No codec to change, no transcoding: a call's media is relayed (rtpengine's query shows the same codec on both legs and no transcoding), the default for every call",
    tests: [
      { file: 'dtmf', name: 'relayed call to ue6 (the default): the page keypad sends RFC 4733 via RTCDTMFSender; no transcoding' },
      { file: 'dtmf', name: 'ue6 sends RFC 4733 digits on a relayed call: the browser gets one WebSocket dtmf per digit' },
    ],
  },
  {
    id: 'dtmf-rfc4733',
    clause: 'RFC 4733; RFC 7874 §3; 3GPP TS 26.114',
    requirement: "DTMF as RFC 4733 telephone-event both ways on a relayed call (the browser's RTCDTMFSender to the UE, the UE's events to the browser); the gateway's WebSocket dtmf as RFC 4733 on calls placed with it or transcoded (MO and MT), and a clear error otherwise",
    tests: [
      { file: 'dtmf', name: 'relayed call to ue6 (the default): the page keypad sends RFC 4733 via RTCDTMFSender; no transcoding' },
      { file: 'dtmf', name: 'ue6 sends RFC 4733 digits on a relayed call: the browser gets one WebSocket dtmf per digit' },
      { file: 'dtmf', name: 'WebSocket dtmf on a relayed call: error dtmf-unavailable saying how to get it, shown on the page; the call goes on' },
      { file: 'dtmf', name: 'WebSocket dtmf "1#" on an MO call placed with dtmf "inject": RFC 4733 events 1 and # reach ue6 under its payload type' },
      { file: 'dtmf', name: 'MT call from ue2 offering PCMA + telephone-event/8000 (transcoded anyway): WebSocket dtmf "5" reaches the UE as RFC 4733 without asking' },
    ],
  },
  {
    id: 'session-timers',
    clause: 'RFC 4028 §7, §9, §10',
    requirement: 'Session timers on the IMS leg: Supported: timer and Session-Expires/Min-SE on the gateway\'s INVITE, the interval and refresher in its 2xx (Require: timer), 422 with Min-SE and the retry, refreshes by UPDATE or re-INVITE without a new offer to the browser, BYE and ended session-expired when no refresh comes',
    tests: [
      { file: 'dialog', name: 'RFC 4028 MT: the UE refreshes by UPDATE, then stops: the gateway BYEs at expiry, the browser hears session-expired' },
      { file: 'dialog', name: 'RFC 4028 MT: refresher=uas, no UPDATE allowed: the gateway refreshes by re-INVITE with its unchanged SDP, the browser sees nothing' },
      { file: 'dialog', name: 'RFC 4028 MT: Session-Expires under the gateway\'s Min-SE gets 422 with Min-SE; the retry with it is answered, then expires' },
      { file: 'dialog', name: 'RFC 4028 MO: INVITE with Supported: timer and Session-Expires; the callee sets 4 s, refresher=uac: the gateway refreshes by UPDATE' },
    ],
  },
  {
    id: 'offerless-invite',
    clause: 'RFC 3261 §13.2.1; 3GPP TS 24.229',
    requirement: 'An INVITE without SDP (delayed offer) toward the browser: the browser makes the offer, the 200 carries it as plain RTP toward IMS, the answer in the ACK reaches the browser, media both ways',
    tests: [
      { file: 'dialog', name: 'offerless INVITE from ue2: the browser offers, the 200 carries it as plain RTP/AVP, the ACK\'s answer reaches the browser, audio both ways' },
    ],
  },
  {
    id: 'early-media',
    clause: 'RFC 3261 §13.2.1; RFC 6337 §3.1',
    requirement: 'Early media on MO without preconditions: the SDP answer of a 183 reaches the browser before the 200 and its media plays; an unreliable 183 is not PRACKed; a changed SDP in the 200 is followed',
    tests: [
      { file: 'dialog', name: 'early media on MO: ue5\'s 183 with SDP (no 100rel) reaches the browser as progress with the answer and its audio plays; the 200\'s changed SDP is followed' },
    ],
  },
  {
    id: 'asserted-identity',
    clause: '3GPP TS 24.229 §5.1.2A, §5.2.6.3; RFC 3325',
    requirement: 'P-Preferred-Identity on the gateway\'s INVITEs, replaced by the P-CSCF\'s P-Asserted-Identity (seen at the UE); on MT the asserted identity of the caller is shown to the browser',
    tests: [
      { file: 'dialog', name: 'P-Asserted-Identity: MT, the identity the P-CSCF asserted for ue2 reaches the browser; MO, ue1 gets the one asserted for the browser user (the gateway asked with P-Preferred-Identity)' },
    ],
  },
  {
    id: 'forking',
    clause: 'RFC 3261 §13.2.2.4, §16.7',
    requirement: 'A forked MO INVITE: one early dialog per branch (different To tags), the first 2xx wins and gets the ACK and the later BYE, the other branch is cancelled (no ACK, BYE or PRACK to it), the browser sees one call',
    tests: [
      { file: 'dialog', name: 'forking on MO: ue5 has two contacts; one sends 183 + SDP and answers, the other rings and is cancelled by the proxy; the browser sees one call' },
    ],
  },
];

// The test files the catalogue needs, in a stable order.
export function testFiles(checks = CHECKS) {
  return [...new Set(checks.flatMap((c) => (c.tests ?? []).map((t) => t.file)))].sort();
}

// The exact test names the catalogue needs (for --test-name-pattern, so the other tests of those
// files are skipped).
export function testNames(checks = CHECKS) {
  return [...new Set(checks.flatMap((c) => (c.tests ?? []).map((t) => t.name)))];
}
