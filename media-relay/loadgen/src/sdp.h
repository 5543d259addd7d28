// SDP for the two legs: the browser-like offer, the far end's plain answer, and the few fields
// loadgen needs from rtpengine's SDPs (address/port, ICE credentials, candidates, DTLS fingerprint/role).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lg::sdp {

struct OfferParams {
  uint16_t port = 0;          // loadgen's own UDP port (host candidate)
  std::string ufrag, pwd;     // local ICE credentials
  std::string fingerprint;    // "AB:CD:..." sha-256 of our certificate
  uint32_t ssrc = 0;
  uint64_t sessionId = 0;
  bool plainRtp = false;      // RTP/AVP offer without ICE, DTLS and rtcp-mux (profile A-RTP)
};
std::string buildBrowserOffer(const OfferParams& p);

// The browser's answer to rtpengine's offer on an incoming (MT) call, shaped like Chromium's: our ICE
// credentials, fingerprint and host candidate, `a=setup:<setup>` (active unless the offer said active),
// the offer's mid (and a one-mid BUNDLE group when the offer had one), its Opus payload type.
struct AnswerParams {
  uint16_t port = 0;
  std::string ufrag, pwd, fingerprint;
  std::string setup = "active";
  std::string mid = "0";
  bool bundle = false;
  int pt = 111;
  uint32_t ssrc = 0;
  uint64_t sessionId = 0;
};
std::string buildBrowserAnswer(const AnswerParams& p);

// Plain RTP/AVP answer for the IMS side (the far end at addr:port): opus PT 111 by default, or the
// one codec rtpengine offered IMS when it transcodes (pt, "PCMA/8000", fmtp or "").
struct FarCodec {
  int pt = 111;
  std::string rtpmap = "opus/48000/2";
  std::string fmtp;
};
std::string buildFarAnswer(const std::string& addr, uint16_t port, uint64_t sessionId, const FarCodec& codec = {});

struct Candidate {
  std::string foundation, transport, address, type;
  int component = 0;
  uint32_t priority = 0;
  uint16_t port = 0;
};

struct Remote {
  std::string proto;            // m= line protocol, e.g. RTP/AVP or UDP/TLS/RTP/SAVPF
  std::string connection;       // c= address (media level wins over session level)
  uint16_t port = 0;            // m= port
  std::string iceUfrag, icePwd;
  std::vector<Candidate> candidates;
  std::string fingerprintHash;  // "sha-256"
  std::string fingerprint;      // "AB:CD:..."
  std::string setup;            // active | passive | actpass
  bool rtcpMux = false;
  int firstPt = -1;             // first payload type on the m= line
  std::string firstCodec;       // its a=rtpmap encoding, e.g. "PCMA/8000" or "opus/48000/2" ("" if none)
  int opusPt = -1;              // payload type of opus/48000/2 on the first m= line (-1: none)
  std::string mid;              // a=mid of the first m= line
  bool bundleGroup = false;     // a=group:BUNDLE at session level
  bool iceLite = false;         // a=ice-lite (session level)
};
// Parses the first m= section (plus session-level lines). Returns false when no m= line exists.
bool parseRemote(const std::string& sdp, Remote& out, std::string* err = nullptr);

// The candidate loadgen should send to: first UDP component-1 IPv4 candidate, highest priority.
const Candidate* pickCandidate(const Remote& r);

// ICE role of the browser (loadgen) that answers `offer` (RFC 8445 6.1.1): controlling when the offerer
// is ICE-lite (rtpengine with `ICE-lite: forward`), else controlled (a full agent that offers controls).
bool answererControlsIce(const Remote& offer);
// DTLS role of the answerer (RFC 5763 5): `active` (DTLS client) unless the offer says active.
std::string answerSetup(const Remote& offer);

}  // namespace lg::sdp
