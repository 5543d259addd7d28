// SDP of real-time text in RTP (RFC 4103 §6): the "m=text <port> RTP/AVP <red> <t140>" section with
// a=rtpmap:<t140> t140/1000, a=rtpmap:<red> red/1000 and a=fmtp:<red> <t140>/<t140>/<t140> (RFC 2198:
// the primary plus two redundant generations), a=fmtp:<t140> cps=<n>. Parses a peer's section and
// produces the endpoint's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace dc {

// What the bridge needs of the peer's first m=text section (the session's c= applies when the section
// has none).
struct TextMedia {
  std::string connAddr;
  bool ipv6 = false;
  int port = 0;
  std::string proto;     // RTP/AVP (or RTP/AVPF)
  int t140Pt = -1;       // -1: no t140/1000 among the formats
  int redPt = -1;        // -1: no red/1000
  int redGenerations = -1;  // redundant generations in red's fmtp (-1: red without an fmtp)
  int cps = -1;          // a=fmtp:<t140> cps=, the peer's receive rate limit (-1: absent)
  std::string direction = "sendrecv";
  bool rejected() const { return port == 0; }
};

std::optional<TextMedia> parseText(const std::string& sdp, std::string* err);

struct LocalText {
  std::string addr;
  int port = 0;
  int t140Pt = 98;
  int redPt = 100;       // -1: offer/answer plain t140 only
  int generations = 2;   // written into red's fmtp
  int cps = 30;          // our receive limit (RFC 4103 §6: 30 by default)
  uint64_t sessionId = 0;
};
// A whole SDP with one m=text section (the gateway takes the section into the IMS leg's SDP).
std::string produceText(const LocalText& t);

}  // namespace dc
