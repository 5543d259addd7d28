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
  // --- 3GPP core only (`core: '3gpp'`: their tests are harness/tests/ims3gpp.test.mjs, which needs `--ims 3gpp`;
  // a run on the light core leaves them out, harness/compliance/run.mjs) ---
  {
    id: 'registration-ims-aka',
    core: '3gpp',
    clause: '3GPP TS 24.371 §6 (IMS authentication); 3GPP TS 24.229 §5.1.1.2; RFC 3310; 3GPP TS 33.102 §6.3',
    requirement: 'IMS authentication scenario: the gateway registers the user IMPU/IMPI with IMS-AKA: REGISTER with the IMPI and an empty response, 401 AKAv1-MD5, REGISTER with the RES-based response, 200 (UAR, MAR, SAR at the HSS); a stale SQN is resynchronised with AUTS',
    tests: [
      { file: 'ims3gpp', name: 'the gateway registered alice with IMS-AKA: 401 AKAv1-MD5, response from RES, 200 (UAR, MAR, SAR at the HSS)' },
      { file: 'ims3gpp', name: 'bob\'s USIM is ahead of the HSS: the gateway answers with AUTS, the HSS resynchronises, bob registers' },
    ],
  },
  {
    id: 'registration-web-authentication',
    core: '3gpp',
    clause: '3GPP TS 24.371 §6 (web authentication); 3GPP TS 23.228 Annex U; 3GPP TS 24.229 §5.4.1.1; 3GPP TS 33.203',
    requirement: 'Web authentication scenario: the user logs in with web credentials at the gateway (WAF), which registers the mapped IMPU with trusted node authentication (integrity-protected="auth-done"): one REGISTER answered 200 without a 401, no MAR; auth-done from a node that is not trusted is refused, and the HSS gives no AKA vectors for the tna subscription',
    tests: [
      { file: 'ims3gpp', name: 'web authentication: dave logs in with web credentials; the gateway (WAF) registers sip:dave@ims.lab by trusted node authentication: one REGISTER with auth-done, 200 without a 401, no MAR at the HSS' },
      { file: 'ims3gpp', name: 'trusted node authentication only from the trusted node: auth-done from another address:port gets 403 at the P-CSCF; the HSS refuses MAR for a tna subscriber' },
    ],
  },
  {
    id: 'registration-identity-pool',
    core: '3gpp',
    clause: '3GPP TS 24.371 §6 (public user identity from a pool)',
    requirement: 'Identity pool scenario: a guest login gets a free public user identity of the pool, registered (trusted node authentication); two guests get different IMPUs, an exhausted pool is a clear error (503 pool-exhausted), and an identity is de-registered and reused after logout',
    tests: [
      { file: 'ims3gpp', name: 'identity pool: two guests get sip:guest1 and sip:guest2 (trusted node authentication), a third gets 503 pool-exhausted, a logged-out identity is de-registered and reused' },
    ],
  },
  {
    id: 'reg-event-subscription',
    core: '3gpp',
    clause: 'RFC 3680; RFC 6665; 3GPP TS 24.229 §5.1.1.3',
    requirement: "After registering, the gateway subscribes to the user's registration state (SUBSCRIBE Event: reg, Accept application/reginfo+xml) at the S-CSCF; 200 and a NOTIFY with the active registration, answered",
    tests: [
      { file: 'ims3gpp', name: 'reg-event (RFC 3680): after registering, the gateway subscribed to alice\'s registration state at the S-CSCF; 200 and a NOTIFY with her active registration' },
    ],
  },
  {
    id: 'network-initiated-deregistration',
    core: '3gpp',
    clause: '3GPP TS 24.229 §5.1.1.3; 3GPP TS 29.228 §6.1.3; RFC 3680',
    requirement: "A network-initiated de-registration (HSS RTR to the S-CSCF, reg-event NOTIFY with the registration terminated) ends the user's session with a clear reason on the WebSocket (session-ended network-deregistered) and its call with a BYE",
    tests: [
      { file: 'ims3gpp', name: 'network-initiated de-registration: the HSS de-registers dave (RTR), the S-CSCF\'s reg-event NOTIFY ends dave\'s session with reason network-deregistered on the WebSocket and his call with a BYE' },
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
