// Traffic profile from ../shared/bench/profiles.json (rates are per call and per direction).
#pragma once
#include <string>

namespace lg {

struct Profile {
  std::string name;
  std::string codec;
  int pps = 0;
  int payloadBytes = 0;
};

// Reads profiles.json and picks `name`. Returns false with a one-line reason in err.
bool loadProfile(const std::string& path, const std::string& name, Profile& out, std::string& err);

}  // namespace lg
