// SDP of a data-channel media section (RFC 8841 "UDP/DTLS/SCTP webrtc-datachannel", RFC 8864
// a=dcmap/a=dcsa, TS 24.186 a=3gpp-req-app inside a=dcsa): parses the m=application section out of a
// peer's SDP and produces the endpoint's own SDP for one leg.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "dcep.h"

namespace dc {

// One a=dcmap line and the a=dcsa lines of its stream id.
struct DcMap {
  uint16_t id = 0;
  ChannelParams params;
  std::vector<std::string> dcsa;  // the attribute text after "a=dcsa:<id> ", e.g. "3gpp-req-app:chat"
  // The value of "3gpp-req-app:<app>" among dcsa, "" when there is none (TS 24.186).
  std::string reqApp() const;
};

struct Candidate {
  std::string addr;
  int port = 0;
};

// What the endpoint needs of the peer's data-channel media section (session-level ICE and
// fingerprint attributes apply when the section has none, RFC 8839/8122).
struct AppMedia {
  std::string connAddr;  // c= of the section (or the session's)
  int port = 0;
  std::string mid;
  std::string iceUfrag, icePwd;
  bool iceLite = false;
  std::vector<Candidate> candidates;
  std::string fpHash, fingerprint;  // "sha-256", "AB:CD:.."
  std::string setup;                // actpass | active | passive ("" = absent)
  int sctpPort = 5000;
  size_t maxMessageSize = 65536;
  std::vector<DcMap> dcmaps;
  bool rejected() const { return port == 0; }
};

// The m=application UDP/DTLS/SCTP webrtc-datachannel section of sdp; nullopt with *err when there is
// none or it lacks what DTLS needs (fingerprint).
std::optional<AppMedia> parseApp(const std::string& sdp, std::string* err);
// "a=dcmap:" value -> DcMap (without dcsa); nullopt when malformed.
std::optional<DcMap> parseDcmap(const std::string& value, std::string* err);
std::string formatDcmap(const DcMap& m);  // the value after "a=dcmap:"

// The endpoint's SDP for one leg: ICE-lite, one host candidate, its certificate's fingerprint.
struct LocalMedia {
  std::string addr;
  int port = 0;
  std::string mid;  // copied from the offer on the answering leg; "" = no a=mid
  std::string iceUfrag, icePwd;
  std::string fingerprint;  // sha-256
  std::string setup;        // actpass on an offer, active/passive on an answer
  int sctpPort = 5000;
  size_t maxMessageSize = 65536;
  std::vector<DcMap> dcmaps;
  uint64_t sessionId = 0;
  uint64_t sessionVersion = 1;
};
std::string produce(const LocalMedia& m);

}  // namespace dc
