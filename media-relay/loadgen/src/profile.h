// Traffic profile from ../shared/bench/profiles.json (rates are per call and per direction).
#pragma once
#include <string>

namespace lg {

struct Profile {
  std::string name;
  std::string codec;
  int pps = 0;
  int payloadBytes = 0;
  std::string browserLeg;  // "RTP/AVP" (A-RTP: plain RTP, no ICE/DTLS) or "UDP/TLS/RTP/SAVPF"
  std::string imsCodec;    // "" (pass-through) or what rtpengine transcodes to, e.g. "AMR-WB/16000 or PCMA/8000"
  bool plainRtp() const { return browserLeg == "RTP/AVP"; }
};

// Reads profiles.json and picks `name`. Returns false with a one-line reason in err.
bool loadProfile(const std::string& path, const std::string& name, Profile& out, std::string& err);

}  // namespace lg
