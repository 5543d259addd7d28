#include "media_mode.h"

namespace lg {

namespace {
// Specs as in signaling-gw ImsCodec: a bare name would make rtpengine 10.5 re-add the browser's own
// codec and pass through instead of transcoding (docs/media.md).
const ImsCodec kCodecs[] = {
    {"PCMA", 8, "PCMA/8000", "", "PCMA/8000/1/64000", 8000},
    {"AMR-WB", 96, "AMR-WB/16000", "octet-align=1", "AMR-WB/16000/1/12650", 16000},
};
}  // namespace

bool findImsCodec(const std::string& name, ImsCodec& out) {
  for (const auto& c : kCodecs)
    if (c.name == name) {
      out = c;
      return true;
    }
  return false;
}

std::string imsCodecNames() {
  std::string s;
  for (const auto& c : kCodecs) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

std::string defaultImsCodec(const std::string& profileImsCodec) {
  for (const auto& c : {"PCMA", "AMR-WB"})
    if (profileImsCodec.find(c) != std::string::npos) return c;
  return "";
}

}  // namespace lg
