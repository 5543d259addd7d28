#include "profile.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace lg {

bool loadProfile(const std::string& path, const std::string& name, Profile& out, std::string& err) {
  std::ifstream f(path);
  if (!f) {
    err = "cannot read profiles file " + path;
    return false;
  }
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("profiles") || !j["profiles"].is_object()) {
    err = path + ": not a profiles.json (no \"profiles\" object)";
    return false;
  }
  const auto& all = j["profiles"];
  if (!all.contains(name)) {
    std::string names;
    for (auto it = all.begin(); it != all.end(); ++it) names += (names.empty() ? "" : ", ") + it.key();
    err = "unknown profile '" + name + "' (have: " + names + ")";
    return false;
  }
  const auto& p = all[name];
  out.name = name;
  out.codec = p.value("codec", "");
  out.pps = p.value("pps", 0);
  // A-SRTP-transcode has no payload size; Opus at 50 pps in the other audio profiles uses 120 B.
  out.payloadBytes = p.value("payload_bytes", 120);
  out.browserLeg = p.value("browser_leg", "UDP/TLS/RTP/SAVPF");
  out.imsCodec = p.value("ims_codec", "");
  if (out.browserLeg != "RTP/AVP" && out.browserLeg != "UDP/TLS/RTP/SAVPF") {
    err = "profile '" + name + "': browser_leg '" + out.browserLeg + "' is neither RTP/AVP nor UDP/TLS/RTP/SAVPF";
    return false;
  }
  if (out.pps <= 0 || out.pps > 10000 || out.payloadBytes < 8 || out.payloadBytes > 1400) {
    err = "profile '" + name + "' needs pps in 1..10000 and payload_bytes in 8..1400";
    return false;
  }
  return true;
}

}  // namespace lg
