// The catalogue of `./lab compliance` (docs/compliance.md): each 3GPP/RFC procedure check names its clause
// and the integration tests (harness/tests/<file>.test.mjs, exact test names) that drive a real call
// and assert on the SIP/SDP/packets seen on the wire. A check passes only when every test it names ran
// and passed (mapping.mjs). Checks the lab cannot exercise carry `notApplicable` with the reason.
// Clause numbers are given only where we are sure of them; otherwise the document alone.
//
// Which IMS core a check runs on (`./lab compliance [--ims 3gpp|external]`): `cores` lists them, from
// CORES; on any other core the check is reported not-applicable with `notOn[core]`, or the core's
// default reason below. A check without `cores` runs on the light core only. Set `cores: ['light', '3gpp']`
// when the tests it names are core-agnostic and their users/UEs exist on the 3GPP core too (every SIPp
// UE and alice, bob, carol, dave do: ims-sim/3gpp/subscribers.txt), `['3gpp']` for tests that need the
// 3GPP core (ims3gpp*.test.mjs), and add 'external' only for tests that need nothing but the gateway,
// rtpengine and an outside IMS (ims-external.test.mjs). `needsEnv: {VAR: reason}`: the check runs only
// when the run set VAR (an option of ./lab compliance), else it is not-applicable with that reason.

// Toward an outside IMS, the far end of a call is the credentials file's second user, played by the lab's SIPp UEs
// (harness/lib/imsext.sh sets LAB_EXT_PEER when there is one a SIPp UE can register).
const PEER_NEEDED = 'the credentials file has no second user a SIPp UE can play (aka with K/OPc, or digest with IMPI, IMPU and SIP password): this check needs the far end to be a UE the lab runs, registered at the outside IMS\'s P-CSCF';

export const CHECKS = [
  {
    id: 'no-bundle-toward-ims',
    cores: ['light', '3gpp'],
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
    cores: ['light', '3gpp'],
    clause: '3GPP TS 23.334; 3GPP TS 23.228 Annex U',
    requirement: 'IMS leg is plain RTP/AVP with RTCP on its own port: no ICE, DTLS, rtcp-mux or WebRTC-only attributes',
    tests: [
      { file: 'calls', name: 'IMS leg SDP as ue1 received it: plain RTP/AVP, no ICE/DTLS/BUNDLE and no WebRTC-only lines' },
    ],
  },
  {
    id: 'browser-leg-dtls-srtp-ice-rtcp-mux',
    cores: ['light', '3gpp'],
    clause: '3GPP TS 23.334; 3GPP TS 24.371; RFC 5763/5764; RFC 8445; RFC 5761',
    requirement: 'Browser leg is UDP/TLS/RTP/SAVPF with DTLS-SRTP only (SHA-256 fingerprint, no SDES), ICE host candidates, rtcp-mux, a=mid; DTLS and SRTP come up both ways',
    tests: [
      { file: 'browser-leg', name: 'MO: rtpengine answers with DTLS-SRTP only, rtcp-mux, a=mid; consent checks are answered' },
      { file: 'browser-leg', name: 'MT: rtpengine offers the browser DTLS-SRTP only (actpass), rtcp-mux, a=mid' },
    ],
  },
  {
    id: 'dtls-setup-roles',
    cores: ['light', '3gpp'],
    clause: 'RFC 5763; RFC 8842; RFC 4145',
    requirement: 'DTLS roles follow a=setup (actpass answered active by the default dtls-on-actpass active, active answered passive) and the RFC 4145 default when a=setup is missing',
    tests: [
      { file: 'dtls-setup', name: 'MO offer with no a=setup: rtpengine answers passive and DTLS comes up' },
      { file: 'dtls-setup', name: 'MO offer with a=setup:active: rtpengine answers passive and DTLS comes up' },
      { file: 'dtls-setup', name: 'MO offer with a=setup:actpass: rtpengine answers active and DTLS comes up' },
      { file: 'dtls-setup', name: 'MT answer without a=setup: rtpengine takes active (an answer defaults to passive) and DTLS comes up' },
    ],
  },
  {
    id: 'consent-freshness',
    cores: ['light', '3gpp'],
    clause: 'RFC 7675',
    requirement: "The relay answers the browser's STUN consent checks during the call; ICE stays connected",
    tests: [
      { file: 'browser-leg', name: 'MO: rtpengine answers with DTLS-SRTP only, rtcp-mux, a=mid; consent checks are answered' },
    ],
  },
  {
    id: 'preconditions-mo',
    cores: ['light', '3gpp'],
    clause: 'RFC 3312; RFC 4032; RFC 3262; RFC 3311; 3GPP TS 24.229',
    requirement: 'Browser-originated call to a VoLTE UE: INVITE with precondition + 100rel, reliable 183, PRACK, UPDATE once the browser leg is up, then 180 and 200',
    tests: [
      { file: 'volte', name: 'MO with preconditions to ue4: 183 (100rel) -> PRACK -> UPDATE when the browser leg is up -> 180 -> 200' },
    ],
  },
  {
    id: 'preconditions-mt',
    cores: ['light', '3gpp'],
    clause: 'RFC 3312; RFC 4032; RFC 3262; RFC 3311; 3GPP TS 24.229',
    requirement: 'VoLTE UE calling the browser: reliable 183 with a=conf, PRACK and UPDATE answered, alerting only when both segments are met',
    tests: [
      { file: 'volte', name: 'MT with preconditions from ue5: reliable 183 with a=conf, PRACK, UPDATE answered, alerting only then' },
    ],
  },
  {
    id: 'record-route-honoured',
    cores: ['light'],
    notOn: { '3gpp': "reads the light Kamailio's routing log (kamailio.log, the 127.0.0.1:5062 S-CSCF hop); on the 3GPP core the same procedure is record-route-through-3gpp-core and path-mt-through-3gpp-core" },
    clause: 'RFC 3261 §12.1.1, §12.1.2, §12.2.1.1',
    requirement: "The gateway's in-dialog requests follow the Record-Route set through P-CSCF, S-CSCF, P-CSCF; as UAS it copies Record-Route into its 200",
    tests: [
      { file: 'calls', name: 'Record-Route and Path on the wire: BYE and 200 follow the P-CSCF/S-CSCF route set' },
    ],
  },
  {
    id: 'path-honoured',
    cores: ['light'],
    notOn: { '3gpp': "reads the light Kamailio's routing log (kamailio.log); on the 3GPP core the same procedure is path-service-route-at-registration and path-mt-through-3gpp-core" },
    clause: 'RFC 3327; RFC 3608',
    requirement: "Requests to a browser user reach the gateway through the P-CSCF that added Path at REGISTER; the gateway's initial requests carry the Service-Route",
    tests: [
      { file: 'calls', name: 'Record-Route and Path on the wire: BYE and 200 follow the P-CSCF/S-CSCF route set' },
    ],
  },
  {
    id: 'sip-over-websocket',
    cores: ['light'],
    notOn: { '3gpp': 'on the 3GPP core: sip-over-websocket-3gpp (the P-CSCF as eP-CSCF, IMS-AKA over the WebSocket)' },
    clause: 'RFC 7118; 3GPP TS 24.371 §5 (WIC using Gm)',
    requirement: 'A WIC speaks SIP over WebSocket to the eP-CSCF: REGISTER, an MO and an MT call with audio both ways through rtpengine (relayed, not transcoded), DTLS-SRTP with rtcp-mux toward the WIC and plain RTP/AVP without WebRTC-only lines toward the core',
    tests: [
      { file: 'sip-ws', name: 'the eP-CSCF opens a WebSocket only for the subprotocol "sip" (RFC 7118 §4.1)' },
      { file: 'sip-ws', name: 'MO call from the WIC to ue1 through the eP-CSCF: audio both ways, relayed without transcoding' },
      { file: 'sip-ws', name: 'MT call from ue2 to the WIC through the eP-CSCF: audio both ways, relayed without transcoding' },
    ],
  },
  {
    id: 'ws-subprotocol-sip',
    cores: ['light'],
    notOn: { '3gpp': "the 3GPP core's eP-CSCF is not tested with handshakes without the subprotocol (ims3gpp-wic.test opens only \"sip\")" },
    clause: 'RFC 7118 §4.1',
    requirement: 'The eP-CSCF accepts a WebSocket only when the handshake offers the subprotocol "sip", and selects it; a handshake without it, or with only another one, is refused',
    tests: [
      { file: 'sip-ws', name: 'the eP-CSCF opens a WebSocket only for the subprotocol "sip" (RFC 7118 §4.1)' },
    ],
  },
  {
    id: 'wic-bearer-every-request',
    cores: ['light'],
    notOn: { '3gpp': 'on the 3GPP core: wic-bearer-every-request-3gpp' },
    clause: 'RFC 8898; 3GPP TS 24.371 §7.2',
    requirement: "The WIC carries the WAF's access token as Authorization: Bearer in every request it sends (REGISTER, INVITE, ACK, BYE), and the eP-CSCF checks each",
    tests: [
      { file: 'sip-ws', name: 'MO call from the WIC to ue1 through the eP-CSCF: audio both ways, relayed without transcoding' },
      { file: 'sip-ws', name: 'MT call from ue2 to the WIC through the eP-CSCF: audio both ways, relayed without transcoding' },
      { file: 'sip-ws', name: 'every request the WIC sent carried the access token as Authorization: Bearer (RFC 8898)' },
    ],
  },
  {
    id: 'wic-token-refusal',
    cores: ['light'],
    notOn: { '3gpp': 'on the 3GPP core: wic-token-refusal-3gpp (a request without a valid token; web authentication by the token is the light core\'s only)' },
    clause: '3GPP TS 24.371 §7.2; RFC 8898; RFC 6750 §3',
    requirement: "The eP-CSCF refuses a request without a valid access token (missing, forged, expired, for another domain, unsigned: 401 with a Bearer challenge saying why; another user's: 403), and the gateway's own token registers the WIC by web authentication",
    tests: [
      { file: 'sip-ws', name: 'a request without a valid access token is refused by the eP-CSCF (RFC 8898, TS 24.371 §7.2)' },
      { file: 'sip-ws', name: 'the gateway\'s access token registers a WIC by web authentication (200, Service-Route), and de-registers it' },
    ],
  },
  {
    id: 'sip-over-websocket-3gpp',
    cores: ['3gpp'],
    clause: 'RFC 7118; 3GPP TS 24.371 §5, §6 (IMS authentication over the WebSocket); RFC 3310; TS 33.203',
    requirement: "A WIC registers with the 3GPP core's P-CSCF as eP-CSCF by IMS-AKA over the WebSocket (401 AKAv1-MD5 without CK/IK, the RFC 3310 digest of RES, 200) and makes an MO and takes an MT call with audio both ways through rtpengine, relayed, not transcoded",
    tests: [
      { file: 'ims3gpp-wic', name: 'the WIC registers by IMS-AKA over the WebSocket: 401 AKAv1-MD5 (no CK/IK), the page\'s answer, 200' },
      { file: 'ims3gpp-wic', name: 'MO call from the WIC to ue1 through the 3GPP core: audio both ways, relayed without transcoding' },
      { file: 'ims3gpp-wic', name: 'MT call from ue2 to the WIC through the 3GPP core: audio both ways, relayed without transcoding' },
    ],
  },
  {
    id: 'wic-bearer-every-request-3gpp',
    cores: ['3gpp'],
    clause: 'RFC 8898; 3GPP TS 24.371 §7.2',
    requirement: "On the 3GPP core too, the WIC carries the WAF's access token as Authorization: Bearer in every request it sends, and the eP-CSCF checks each",
    tests: [
      { file: 'ims3gpp-wic', name: 'every request the WIC sent on the 3GPP core carried the access token (RFC 8898), and the P-CSCF checked it' },
    ],
  },
  {
    id: 'wic-token-refusal-3gpp',
    cores: ['3gpp'],
    clause: '3GPP TS 24.371 §7.2; RFC 8898; RFC 6750 §3',
    requirement: "The 3GPP core's eP-CSCF refuses a request without a valid access token",
    tests: [
      { file: 'ims3gpp-wic', name: 'a request without a valid access token is refused by the 3GPP eP-CSCF (RFC 8898)' },
    ],
  },
  {
    id: 'dc-feature-caps-3gpp',
    cores: ['3gpp'],
    clause: '3GPP TS 24.186; TS 23.228 AC.4; RFC 6809',
    requirement: "The 200 to REGISTER tells the UE that the network supports IMS data channels: Feature-Caps: *;+g.3gpp.datachannel (added by the lab's I-CSCF for the S-CSCF, docs/datachannel.md \"Feature-Caps\"), in no other answer",
    tests: [
      { file: 'ims3gpp-datachannel', name: 'capability (TS 24.186, TS 23.228 AC.4, RFC 6809): the home network\'s 200 to REGISTER (the I-CSCF adds it) reaches the gateway with Feature-Caps g.3gpp.datachannel, and no other answer has it' },
    ],
  },
  {
    id: 'dc-bootstrap-3gpp',
    cores: ['3gpp'],
    clause: '3GPP TS 24.186; TS 26.114 §6.2.10; TS 23.228 AC.7.1',
    requirement: "The network anchors the caller's bootstrap data channels (a=dcmap streams 0 and 100, subprotocol http) at its MF (the far UE gets the section with port 0) and serves the data-channel application list and an application over HTTP on them, in Chromium and Firefox",
    tests: [
      { file: 'ims3gpp-datachannel', name: 'the far UE gets the offer with the bootstrap data-channel section refused (port 0): the MF anchors it; its P-Asserted-Identity is one of carol\'s registered identities' },
      { file: 'ims3gpp-datachannel', name: 'the browser\'s answer has the MF\'s data-channel section with the bootstrap streams 0 and 100 (subprotocol "http")' },
      { file: 'ims3gpp-datachannel', name: 'over the bootstrap channel the page downloads the application list and the chat application, byte for byte' },
      { file: 'ims3gpp-datachannel', name: 'in Firefox too: frank calls ue1 with the bootstrap channels and downloads the list and the application' },
    ],
  },
  {
    id: 'api-token-check',
    cores: ['light', '3gpp'],
    clause: '3GPP TS 24.371',
    requirement: 'WAF role: the REST API and the WebSocket upgrade need a live session token; missing or unknown tokens are refused (401), bad credentials get no token',
    tests: [
      { file: 'api', name: 'no or unknown token: REST calls get 401 bad-token and the WebSocket upgrade is refused' },
      { file: 'api', name: 'login with a bad password -> 401 auth-failed (REST and page)' },
    ],
  },
  {
    id: 'transcoding-amr-wb',
    cores: ['light', '3gpp'],
    clause: '3GPP TS 26.114',
    requirement: "AMR-WB toward IMS: the gateway offers only AMR-WB on the IMS leg, the UE answers it, rtpengine transcodes the browser's Opus both ways",
    tests: [
      { file: 'transcoding', name: 'MO call to ue1 with imsCodec AMR-WB: Opus <-> AMR-WB through rtpengine' },
    ],
  },
  {
    id: 'transcoding-pcma',
    cores: ['light', '3gpp'],
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
    cores: ['light', '3gpp'],
    clause: '3GPP TS 23.334',
    requirement: "No codec to change, no transcoding: a call's media is relayed (rtpengine's query shows the same codec on both legs and no transcoding), the default for every call",
    tests: [
      { file: 'dtmf', name: 'relayed call to ue6 (the default): the page keypad sends RFC 4733 via RTCDTMFSender; no transcoding' },
      { file: 'dtmf', name: 'ue6 sends RFC 4733 digits on a relayed call: the browser gets one WebSocket dtmf per digit' },
    ],
  },
  {
    id: 'dtmf-rfc4733',
    cores: ['light', '3gpp'],
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
      { file: 'dialog', name: 'RFC 4028 MO: the callee answers 422 with Min-SE 3600: the gateway sends the INVITE again (same Call-ID, next CSeq) with Session-Expires and Min-SE 3600, and the browser sees one answered call' },
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
    requirement: 'A forked MO INVITE: one early dialog per branch (different To tags), the first 2xx wins and gets the ACK and the later BYE, the other branch is cancelled (no ACK, BYE or PRACK to it), a 2xx that still comes from another branch is ACKed and ended with BYE at once, the browser sees one call',
    tests: [
      { file: 'dialog', name: 'forking on MO: ue5 has two contacts; one sends 183 + SDP and answers, the other rings and is cancelled by the proxy; the browser sees one call' },
      { file: 'dialog', name: 'forking on MO, both branches answer: the first 2xx carries the call; the second, sent after the proxy\'s CANCEL, is ACKed and ended with BYE at once (RFC 3261 §13.2.2.4); the browser sees one call' },
    ],
  },

  // --- 3GPP core only (./lab compliance --ims 3gpp): wire evidence from harness/tests/ims3gpp-wire.test.mjs
  // (one tcpdump of SIP + Diameter Cx) and harness/tests/ims3gpp.test.mjs.
  {
    id: 'registration-ims-aka',
    cores: ['3gpp'],
    clause: '3GPP TS 24.371 §6 (IMS authentication); 3GPP TS 33.203; RFC 3310',
    requirement: 'Registration scenario "IMS authentication" with IMS-AKA: the gateway registers a browser user\'s IMPU with its IMPI by AKAv1-MD5 (401, response from RES, 200) and the HSS saw UAR, MAR, SAR',
    tests: [
      { file: 'ims3gpp', name: 'the gateway registered alice with IMS-AKA: 401 AKAv1-MD5, response from RES, 200 (UAR, MAR, SAR at the HSS)' },
    ],
  },
  {
    id: 'aka-challenge',
    cores: ['3gpp'],
    clause: '3GPP TS 33.203; RFC 3310 §3',
    requirement: 'The S-CSCF\'s 401 carries an AKAv1-MD5 challenge whose nonce is RAND || AUTN; AUTN verifies with the subscriber\'s K/OPc (MAC-A recomputed by the test)',
    tests: [
      { file: 'ims3gpp-wire', name: 'IMS-AKA challenge on the wire: the 401 to the REGISTER carries AKAv1-MD5 with nonce = RAND || AUTN, and AUTN verifies with the USIM key (MAC-A, SQN > 0)' },
    ],
  },
  {
    id: 'aka-response',
    cores: ['3gpp'],
    clause: '3GPP TS 33.203; RFC 3310 §3',
    requirement: 'The gateway\'s second REGISTER answers with the digest whose password is RES (Milenage f2, recomputed by the test), and the core accepts it (200)',
    tests: [
      { file: 'ims3gpp-wire', name: 'IMS-AKA response on the wire: the second REGISTER answers with the RFC 3310 digest of RES (Milenage f2) and gets 200' },
    ],
  },
  {
    id: 'aka-sqn-resync',
    cores: ['3gpp'],
    clause: '3GPP TS 33.102 §6.3.5; RFC 3310 §3.4',
    requirement: 'A USIM ahead of the HSS refuses the challenge with AUTS; the HSS verifies MAC-S, restarts from SQN_MS + 1 and the registration completes',
    tests: [
      { file: 'ims3gpp', name: 'bob\'s USIM is ahead of the HSS: the gateway answers with AUTS, the HSS resynchronises, bob registers' },
    ],
  },
  {
    id: 'aka-failures',
    cores: ['3gpp'],
    clause: '3GPP TS 33.203; 3GPP TS 33.102 §6.3.5',
    requirement: 'A wrong RES gets 403 from the S-CSCF; an AUTS with a wrong MAC-S is refused by the HSS (no new vector)',
    tests: [
      { file: 'ims3gpp-wire', name: 'a REGISTER with a wrong RES is refused with 403, and an AUTS with a wrong MAC-S gets no new challenge (aka-ue.py against the P-CSCF)' },
    ],
  },
  {
    id: 'path-service-route-at-registration',
    cores: ['3gpp'],
    clause: 'RFC 3327; RFC 3608; 3GPP TS 24.229',
    requirement: 'The P-CSCF adds its Path to the REGISTER through I-CSCF and S-CSCF; the 200 returns the Path, the S-CSCF\'s Service-Route and the P-Associated-URI',
    tests: [
      { file: 'ims3gpp-wire', name: 'Path and Service-Route: the P-CSCF adds its Path to the REGISTER toward the I-CSCF and S-CSCF; the 200 returns the Path and the S-CSCF\'s Service-Route' },
    ],
  },
  {
    id: 'cx-uar',
    cores: ['3gpp'],
    clause: '3GPP TS 29.228; 3GPP TS 29.229',
    requirement: 'Cx UAR/UAA on the wire: the I-CSCF asks the HSS which S-CSCF serves the registering user (User-Name, Public-Identity) and gets success',
    tests: [
      { file: 'ims3gpp-wire', name: 'Cx UAR/UAA: the I-CSCF asks the HSS for the REGISTER\'s S-CSCF (User-Name, Public-Identity) and gets success' },
    ],
  },
  {
    id: 'cx-mar',
    cores: ['3gpp'],
    clause: '3GPP TS 29.228; 3GPP TS 29.229',
    requirement: 'Cx MAR/MAA on the wire: the S-CSCF gets an AKA vector (SIP-Authenticate = the 401\'s RAND || AUTN, CK, IK)',
    tests: [
      { file: 'ims3gpp-wire', name: 'Cx MAR/MAA: the S-CSCF gets an AKA vector from the HSS (SIP-Authenticate = the 401\'s RAND || AUTN, CK, IK)' },
    ],
  },
  {
    id: 'cx-sar',
    cores: ['3gpp'],
    clause: '3GPP TS 29.228; 3GPP TS 29.229',
    requirement: 'Cx SAR/SAA on the wire: the S-CSCF assigns itself at registration and releases the user at logout (de-REGISTER answered 200)',
    tests: [
      { file: 'ims3gpp-wire', name: 'Cx SAR/SAA: the S-CSCF assigns itself at registration (REGISTRATION) and releases at logout (USER_DEREGISTRATION)' },
    ],
  },
  {
    id: 'cx-lir',
    cores: ['3gpp'],
    clause: '3GPP TS 29.228; 3GPP TS 29.229',
    requirement: 'Cx LIR/LIA on the wire: the I-CSCF locates the terminating user\'s S-CSCF, for a call from the browser and to it',
    tests: [
      { file: 'ims3gpp-wire', name: 'Cx LIR/LIA: the I-CSCF locates the terminating S-CSCF for dave\'s MO call to ue1 and for ue2\'s MT call to dave' },
    ],
  },
  {
    id: 'pai-asserted-by-core',
    cores: ['3gpp'],
    clause: '3GPP TS 24.229; RFC 3325',
    requirement: 'The gateway does not assert an identity itself; the P-CSCF adds P-Asserted-Identity with the registered IMPU and the far end receives it',
    tests: [
      { file: 'ims3gpp-wire', name: 'P-Asserted-Identity: the gateway\'s INVITE asserts nothing itself, the P-CSCF adds the registered identity and ue1 receives it' },
      { file: 'ims3gpp', name: 'MO alice -> ue1 through P-CSCF, S-CSCF, I-CSCF (LIR), S-CSCF, P-CSCF; P-Asserted-Identity at ue1; media both ways' },
    ],
  },
  {
    id: 'pcscf-discovery',
    cores: ['3gpp'],
    clause: '3GPP TS 24.229 §9.2.1; RFC 3263 §4; RFC 2782',
    requirement: 'The gateway finds its P-CSCF by name as a UE does (NAPTR → SRV → A, transport from NAPTR) and, when the first SRV target does not answer the REGISTER, registers through the next one',
    tests: [
      { file: 'ims3gpp-dns', name: 'the lab\'s gateway found its P-CSCF by name: NAPTR pcscf.ims.lab → SRV _sip._udp.pcscf.ims.lab → A, at the core\'s DNS' },
      { file: 'ims3gpp-dns', name: 'failover: the first SRV target (priority 10) does not answer, carol registers through the second (priority 20, the P-CSCF)' },
    ],
  },
  {
    id: 'record-route-through-3gpp-core',
    cores: ['3gpp'],
    clause: 'RFC 3261 §12.1.1, §12.1.2, §12.2.1.1; 3GPP TS 24.229',
    requirement: 'The far end\'s INVITE records the 4 hops P-CSCF, S-CSCF, S-CSCF, P-CSCF; the gateway\'s BYE carries that route set and reaches the UE',
    tests: [
      { file: 'ims3gpp-wire', name: 'Record-Route through the core: ue1\'s INVITE records P-CSCF, S-CSCF, S-CSCF, P-CSCF and the gateway\'s BYE carries that route set' },
    ],
  },
  {
    id: 'path-mt-through-3gpp-core',
    cores: ['3gpp'],
    clause: 'RFC 3327; 3GPP TS 24.229; 3GPP TS 23.228',
    requirement: 'A call to a browser user crosses P-CSCF, S-CSCF, I-CSCF (LIR), S-CSCF and reaches the gateway\'s registered contact through the P-CSCF of the Path',
    tests: [
      { file: 'ims3gpp-wire', name: 'MT through the core: ue2\'s INVITE to dave goes P-CSCF -> S-CSCF -> I-CSCF -> S-CSCF, then to the gateway\'s contact through the Path P-CSCF' },
      { file: 'ims3gpp', name: 'MT ue2 -> alice (ue2 registered with IMS-AKA) reaches the gateway through the core; media both ways' },
    ],
  },
  {
    id: 'terminating-user-unreachable',
    cores: ['3gpp'],
    clause: '3GPP TS 29.228; 3GPP TS 24.229',
    requirement: 'A call to a subscriber that is not registered ends with 480 (LIA 5003), to a public identity the HSS does not know with 604 (LIA 5001)',
    tests: [
      { file: 'ims3gpp-wire', name: 'terminating user not registered (ue9) -> 480; no such subscriber -> 604 after the HSS answers LIR with user unknown' },
    ],
  },

  {
    id: 'asserted-identity-registered',
    cores: ['light'],
    notOn: { '3gpp': 'on the 3GPP core: asserted-identity-registered-3gpp (a login that is not the IMPU\'s user part)' },
    clause: '3GPP TS 24.229 §5.1.2A.1.1, §5.2.6.3.3; RFC 3325; RFC 3455',
    requirement: 'MO: the gateway calls as a registered public user identity (the default of the 200\'s P-Associated-URI in From and P-Preferred-Identity); the called UE receives a P-Asserted-Identity from that set',
    tests: [
      { file: 'calls', name: 'MO: ue1 gets a P-Asserted-Identity from the registered set (P-Associated-URI), From the default identity' },
    ],
  },
  {
    id: 'asserted-identity-registered-3gpp',
    cores: ['3gpp'],
    clause: '3GPP TS 24.229 §5.1.1.2.1, §5.1.2A.1.1, §5.2.6.3.3; RFC 3325; RFC 3455',
    requirement: 'A user whose login is not an IMPU\'s user part calls as the default public user identity and as another one of the implicit set (a tel URI); the called UE receives each as P-Asserted-Identity, in the registered set; a call to an identity of the set reaches the user',
    tests: [
      { file: 'ims3gpp', name: 'login ≠ IMPU, alice logged in from the same gateway: frank calls as his default identity and as his tel URI; ue1 gets each as P-Asserted-Identity, in the registered set; MT to sip:+15550100 reaches him; alice still calls after his logout' },
    ],
  },

  // --- external IMS only (./lab compliance --ims external): harness/tests/ims-external.test.mjs. `needsEnv`:
  // the check runs only when that variable is set (an option of the run), else it is not-applicable with the reason.
  {
    id: 'external-registration',
    cores: ['external'],
    clause: '3GPP TS 24.229; RFC 3261 §10; 3GPP TS 33.203 or RFC 2617 (per the credentials file)',
    requirement: 'Toward an outside IMS: the gateway registers the credentials file\'s first user (its IMPU, answering the P-CSCF\'s challenge with digest or IMS-AKA); REGISTER and 200 seen on the wire',
    tests: [
      { file: 'ims-external', name: 'registration at the outside IMS: the first user of the credentials file registers its IMPU at the P-CSCF (REGISTER, challenge answered, 200 on the wire)' },
    ],
  },
  {
    id: 'external-mo-call',
    cores: ['external'],
    needsEnv: { LAB_EXT_MO_TO: 'no far end: the credentials file has no second user for the lab\'s SIPp UE to play, and no --call-to USER was given' },
    clause: '3GPP TS 24.229; 3GPP TS 23.228 Annex U',
    requirement: 'Toward an outside IMS: a browser call to a user of that IMS (the second user of the credentials file, played by the lab\'s SIPp UE, or --call-to) is answered, media flows both ways through rtpengine and ends cleanly',
    tests: [
      { file: 'ims-external', name: 'MO call to a user of the outside IMS (the second user\'s SIPp UE, or --call-to): answered, media both ways through rtpengine, clean end' },
    ],
  },
  {
    id: 'external-asserted-identity',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: '3GPP TS 24.229 §5.1.2A.1.1, §5.2.6.3.3; RFC 3325; RFC 3455',
    requirement: 'Toward an outside IMS: the gateway calls as a registered public user identity (the default of the 200\'s P-Associated-URI, not the login name), and the called UE receives a P-Asserted-Identity from that set',
    tests: [
      { file: 'ims-external', name: 'MO call: the called UE got a P-Asserted-Identity from the registered set (P-Associated-URI)' },
    ],
  },
  {
    id: 'external-mt-call',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: '3GPP TS 24.229; 3GPP TS 23.228 Annex U',
    requirement: 'Toward an outside IMS: a call from that IMS (the second user of the credentials file, registered at the same P-CSCF by the lab\'s SIPp UE) to the browser user reaches the gateway\'s registered contact, is answered, media both ways',
    tests: [
      { file: 'ims-external', name: 'MT call from the second user\'s SIPp UE registered at the outside P-CSCF: answered, media both ways, clean end' },
    ],
  },
  {
    id: 'external-registration-digest',
    cores: ['external'],
    needsEnv: { LAB_EXT_DIGEST_USER: 'the credentials file has no digest user (LOGIN WEB-PASSWORD digest IMPI IMPU SIP-PASSWORD): this check registers one at the outside IMS' },
    clause: 'RFC 3261 §22; RFC 2617; 3GPP TS 24.229 §5.1.1.2 (SIP digest)',
    requirement: 'Toward an outside IMS: a digest user of the credentials file logs in; the gateway registers its IMPU with its IMPI, answers the 401 (algorithm MD5) with the SIP password, gets 200; its logout de-registers it (REGISTER with expiry 0 answered 200), on the wire',
    tests: [
      { file: 'ims-external', name: 'registration with SIP digest at the outside IMS: the credentials file\'s digest user registers (401 MD5, response from the SIP password, 200 on the wire) and its logout de-registers' },
    ],
  },
  {
    id: 'external-reg-event',
    cores: ['external'],
    clause: 'RFC 3680; RFC 6665; 3GPP TS 24.229 §5.1.1.3',
    requirement: 'Toward an outside IMS: after registering, the gateway subscribes to the user\'s registration state (SUBSCRIBE Event: reg through the P-CSCF), the core answers 200 and NOTIFYs the active registration, which the gateway answers 200',
    tests: [
      { file: 'ims-external', name: 'reg-event at the outside IMS: after registering, the gateway subscribes to the user\'s registration state (SUBSCRIBE Event: reg), 200 and a NOTIFY with the active registration' },
    ],
  },
  {
    id: 'external-session-timers',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: 'RFC 4028 §7, §9, §10',
    requirement: 'Toward an outside IMS: Supported: timer and Session-Expires on the gateway\'s INVITE reach the far end; with the far end\'s 4 s interval and refresher=uac the gateway refreshes by UPDATE through the core, without SDP and without a new offer to the browser',
    tests: [
      { file: 'ims-external', name: 'session timers toward the outside IMS: INVITE with Supported: timer and Session-Expires; the far end sets 4 s, refresher=uac: the gateway refreshes by UPDATE' },
    ],
  },
  {
    id: 'external-early-media',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: 'RFC 3261 §13.2.1; RFC 6337 §3.1',
    requirement: 'Toward an outside IMS: the far end\'s 183 with SDP (no 100rel) reaches the browser as progress and its media plays before the 200; the 183 is not PRACKed; the 200\'s changed SDP is followed',
    tests: [
      { file: 'ims-external', name: 'early media toward the outside IMS: the far end\'s 183 with SDP (no 100rel) reaches the browser as progress and its audio plays; the 200\'s changed SDP is followed' },
    ],
  },
  {
    id: 'external-preconditions-mo',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: 'RFC 3312; RFC 4032; RFC 3262; RFC 3311; 3GPP TS 24.229',
    requirement: 'Toward an outside IMS, a browser call to a UE that requires preconditions: 183 (100rel), PRACK, UPDATE once the browser leg is up, 180, 200 through the core; media both ways',
    tests: [
      { file: 'ims-external', name: 'preconditions toward a precondition UE of the outside IMS (MO): 183 (100rel) -> PRACK -> UPDATE when the browser leg is up -> 180 -> 200, media both ways' },
    ],
  },
  {
    id: 'external-preconditions-mt',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: 'RFC 3312; RFC 4032; RFC 3262; RFC 3311; 3GPP TS 24.229',
    requirement: 'Toward an outside IMS, a precondition UE calling the browser: reliable 183 with a=conf, PRACK and UPDATE answered, alerting only when both segments are met; media both ways',
    tests: [
      { file: 'ims-external', name: 'preconditions from a precondition UE of the outside IMS (MT): reliable 183 with a=conf, PRACK, UPDATE answered, alerting only then, media both ways' },
    ],
  },
  {
    id: 'external-dtmf',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: 'RFC 4733; RFC 7874 §3; 3GPP TS 26.114',
    requirement: 'Toward an outside IMS: RFC 4733 telephone-events from the far end on a relayed call reach the browser as one WebSocket dtmf per digit',
    tests: [
      { file: 'ims-external', name: 'DTMF from the outside IMS: the far end sends RFC 4733 digits 2 6 * on a relayed call, the browser gets one WebSocket dtmf per digit' },
    ],
  },
  {
    id: 'external-hold',
    cores: ['external'],
    needsEnv: { LAB_EXT_PEER: PEER_NEEDED },
    clause: 'RFC 3264 §8.4; RFC 3261 §14; 3GPP TS 24.229',
    requirement: 'Toward an outside IMS: the browser holds the call (re-INVITE with a=sendonly through the core) and resumes it (a=sendrecv); the far end gets both, audio stops on hold and flows again',
    tests: [
      { file: 'ims-external', name: 'hold toward the outside IMS: the browser holds (re-INVITE a=sendonly) and resumes (a=sendrecv) through the core; audio stops and flows again' },
    ],
  },
  {
    id: 'external-deregistration',
    cores: ['external'],
    clause: 'RFC 3261 §10.2.2; 3GPP TS 24.229',
    requirement: 'Toward an outside IMS: logout removes the binding (REGISTER with expiry 0 answered 200 on the wire)',
    tests: [
      { file: 'ims-external', name: 'logout de-registers at the outside IMS: REGISTER with expiry 0 answered 200 on the wire' },
    ],
  },
  {
    id: 'registration-web-authentication',
    cores: ['3gpp'],
    clause: '3GPP TS 24.371 §6 (web authentication); 3GPP TS 23.228 Annex U; 3GPP TS 24.229 §5.4.1.1; 3GPP TS 33.203',
    requirement: 'Web authentication scenario: the user logs in with web credentials at the gateway (WAF), which registers the mapped IMPU with trusted node authentication (integrity-protected="auth-done"): one REGISTER answered 200 without a 401, no MAR; auth-done from a node that is not trusted is refused, and the HSS gives no AKA vectors for the tna subscription',
    tests: [
      { file: 'ims3gpp', name: 'web authentication: erin logs in with web credentials; the gateway (WAF) registers sip:erin@ims.lab by trusted node authentication: one REGISTER with auth-done, 200 without a 401, no MAR at the HSS' },
      { file: 'ims3gpp', name: 'trusted node authentication only from the trusted node: auth-done from another address:port gets 403 at the P-CSCF; the HSS refuses MAR for a tna subscriber' },
    ],
  },
  {
    id: 'registration-identity-pool',
    cores: ['3gpp'],
    clause: '3GPP TS 24.371 §6 (public user identity from a pool)',
    requirement: 'Identity pool scenario: a guest login gets a free public user identity of the pool, registered (trusted node authentication); two guests get different IMPUs, an exhausted pool is a clear error (503 pool-exhausted), and an identity is de-registered and reused after logout',
    tests: [
      { file: 'ims3gpp', name: 'identity pool: two guests get sip:guest1 and sip:guest2 (trusted node authentication), a third gets 503 pool-exhausted, a logged-out identity is de-registered and reused' },
    ],
  },
  {
    id: 'reg-event-subscription',
    cores: ['3gpp'],
    clause: 'RFC 3680; RFC 6665; 3GPP TS 24.229 §5.1.1.3',
    requirement: "After registering, the gateway subscribes to the user's registration state (SUBSCRIBE Event: reg, Accept application/reginfo+xml) at the S-CSCF; 200 and a NOTIFY with the active registration, answered",
    tests: [
      { file: 'ims3gpp', name: 'reg-event (RFC 3680): after registering, the gateway subscribed to alice\'s registration state at the S-CSCF; 200 and a NOTIFY with her active registration' },
    ],
  },
  {
    id: 'network-initiated-deregistration',
    cores: ['3gpp'],
    clause: '3GPP TS 24.229 §5.1.1.3; 3GPP TS 29.228 §6.1.3; RFC 3680',
    requirement: "A network-initiated de-registration (HSS RTR to the S-CSCF, reg-event NOTIFY with the registration terminated) ends the user's session with a clear reason on the WebSocket (session-ended network-deregistered) and its call with a BYE",
    tests: [
      { file: 'ims3gpp', name: 'network-initiated de-registration: the HSS de-registers erin (RTR), the S-CSCF\'s reg-event NOTIFY ends erin\'s session with reason network-deregistered on the WebSocket and his call with a BYE' },
    ],
  },
];

export const CORES = ['light', '3gpp', 'external'];

const DEFAULT_NOT_ON = {
  light: 'needs the 3GPP core (I-CSCF, HSS over Cx, IMS-AKA): ./lab compliance --ims 3gpp',
  '3gpp': "its tests rely on the light core's single Kamailio (its log, its route set)",
  external: "needs the lab's own SIPp UEs, users or core logs, which an outside IMS does not have",
};

// What each test file needs that an outside IMS does not give the lab: the reason, per check, that a check of
// the light or 3GPP core is not applicable with --ims external (externalReason).
export const EXTERNAL_NEEDS = {
  calls: "the lab's SIPp UEs ue1, ue2, ue3 registered at the lab's core, and the light Kamailio's log",
  video: "the lab's video UE ue7 (echoes audio + video) and ue2 as a video caller",
  'browser-leg': "the lab's UE ue1 and a capture of rtpengine's browser-facing ports in the lab's topology",
  'dtls-setup': "the lab's echoing UE ue1",
  volte: "the lab's VoLTE UEs ue4 and ue5 (preconditions, 100rel/PRACK/UPDATE on request)",
  api: "the users of the lab's ims-sim/users.txt (a known login and its password at the lab's registrar)",
  transcoding: "the lab's UEs ue1 and ue2 offering a single codec on request (PCMA, PCMU, G722)",
  audio: "the lab's echoing UEs ue1 and ue2 (a known test signal sent back)",
  dtmf: "the lab's DTMF UE ue6 (logs the RFC 4733 events it gets) and ue1, ue2",
  dialog: "the lab's UEs with scripted dialog behaviour (ue1, ue2, ue5: re-INVITE, session timers, 422, early media, forking)",
  ims3gpp: "the logs of the lab's 3GPP core (P/I/S-CSCF, HSS) and its subscribers",
  'ims3gpp-wire': "a capture of the lab's 3GPP core's own SIP and Cx (Diameter) traffic between its nodes, and its UEs",
  'sip-ws': "the light core's eP-CSCF (Kamailio's WebSocket listener and access-token check) and the lab's UEs ue1, ue2",
  'ims3gpp-wic': "the lab's 3GPP core's P-CSCF as eP-CSCF (its WebSocket listener and access-token check), a subscriber with IMS-AKA keys for the page, and the lab's UEs ue1, ue2",
  'ims3gpp-datachannel': "the lab's 3GPP core's S-CSCF DCSF route, I-CSCF and MF (ims-sim/3gpp/dcsf), a subscriber for the page with IMS-AKA keys, and the lab's UE ue1",
  'ims3gpp-dns': "the lab's 3GPP core's DNS (its NAPTR/SRV records for pcscf.ims.lab, one of them pointing where nothing answers) and gateways of the test's own",
};

// Why `check` cannot run toward an outside IMS: what its tests' files need (EXTERNAL_NEEDS), else the default.
function externalReason(check) {
  const files = [...new Set((check.tests ?? []).map((t) => t.file))];
  const needs = files.map((f) => EXTERNAL_NEEDS[f]).filter(Boolean);
  if (!files.length || needs.length !== files.length) return DEFAULT_NOT_ON.external;
  return `its tests (${files.map((f) => `${f}.test.mjs`).join(', ')}) need ${[...new Set(needs)].join('; and ')}`;
}
const ONLY_EXTERNAL = 'runs only toward an outside IMS: ./lab compliance --ims external --pcscf HOST:PORT ...';

export const coresOf = (check) => check.cores ?? ['light'];

// Why `check` does not run on `core` (null when it does).
export function notOnReason(check, core) {
  if (check.notApplicable) return check.notApplicable;
  const cores = coresOf(check);
  if (!cores.includes(core)) {
    if (check.notOn?.[core]) return check.notOn[core];
    if (cores.length === 1 && cores[0] === 'external') return ONLY_EXTERNAL;
    return core === 'external' ? externalReason(check) : DEFAULT_NOT_ON[core];
  }
  const missing = Object.keys(check.needsEnv ?? {}).find((v) => !process.env[v]);
  return missing ? check.needsEnv[missing] : null;
}

// The checks whose tests run on `core`.
export const checksFor = (core, checks = CHECKS) => checks.filter((c) => notOnReason(c, core) === null);

// The test files the catalogue needs, in a stable order.
export function testFiles(checks = CHECKS) {
  return [...new Set(checks.flatMap((c) => (c.tests ?? []).map((t) => t.file)))].sort();
}

// The exact test names the catalogue needs (for --test-name-pattern, so the other tests of those
// files are skipped).
export function testNames(checks = CHECKS) {
  return [...new Set(checks.flatMap((c) => (c.tests ?? []).map((t) => t.name)))];
}
