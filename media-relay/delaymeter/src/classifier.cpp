#include "classifier.h"

#include <arpa/inet.h>

#include <cstdlib>

namespace dm {
namespace {

bool parsePort(const std::string& s, uint16_t& out) {
  if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  long v = std::strtol(s.c_str(), nullptr, 10);
  if (v < 0 || v > 65535) return false;
  out = static_cast<uint16_t>(v);
  return true;
}

}  // namespace

bool parsePortRange(const std::string& text, PortRange& out) {
  auto dash = text.find('-');
  PortRange r;
  if (dash == std::string::npos) {
    if (!parsePort(text, r.lo)) return false;
    r.hi = r.lo;
  } else if (!parsePort(text.substr(0, dash), r.lo) || !parsePort(text.substr(dash + 1), r.hi)) {
    return false;
  }
  if (r.lo > r.hi) return false;
  out = r;
  return true;
}

bool parseIpv4(const std::string& text, uint32_t& host_order) {
  in_addr a;
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) return false;
  host_order = ntohl(a.s_addr);
  return true;
}

Classification Classifier::classify(const Endpoint& src, const Endpoint& dst) const {
  bool from_relay = isRelay(src), to_relay = isRelay(dst);
  // Relay-to-relay traffic (or neither side the relay) cannot be attributed to a leg.
  if (from_relay == to_relay) return {};
  if (to_relay) return {Role::In, ims_.contains(src.port) ? Direction::ToBrowser : Direction::ToIms};
  return {Role::Out, ims_.contains(dst.port) ? Direction::ToIms : Direction::ToBrowser};
}

}  // namespace dm
