// Decides, from addresses alone, whether a datagram is a relay ingress or egress copy and which way
// the media flows. The relay owns ports in `relay`; IMS endpoints use ports in `ims`.
#pragma once
#include <cstdint>
#include <string>

#include "observation.h"
#include "pcap_reader.h"

namespace dm {

struct PortRange {
  uint16_t lo = 0, hi = 0;
  bool contains(uint16_t p) const { return p >= lo && p <= hi; }
};

bool parsePortRange(const std::string& text, PortRange& out);    // "30000-30100" or "5004"
bool parseIpv4(const std::string& text, uint32_t& host_order);  // dotted quad

struct Classification {
  Role role = Role::None;
  Direction dir = Direction::ToIms;
};

class Classifier {
 public:
  Classifier(uint32_t relay_addr, PortRange relay, PortRange ims) : addr_(relay_addr), relay_(relay), ims_(ims) {}
  // In: destination is a relay port; the sender is the far end, so a sender on an IMS port means
  // the media goes to the browser. Out: source is a relay port; the receiver is the far end.
  Classification classify(const Endpoint& src, const Endpoint& dst) const;

 private:
  bool isRelay(const Endpoint& e) const { return e.addr == addr_ && relay_.contains(e.port); }
  uint32_t addr_;
  PortRange relay_, ims_;
};

}  // namespace dm
