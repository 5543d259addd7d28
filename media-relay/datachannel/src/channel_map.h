// Which stream on one leg relays to which stream on the other. Channels negotiated in SDP (a=dcmap,
// RFC 8864) keep their stream id on both legs; a channel one peer opens with DCEP (RFC 8832) gets a
// stream id on the other leg of the parity the endpoint's DTLS role there allows (§6: the DTLS client
// uses even ids, the server odd ones) and is opened there with DCEP too.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dcep.h"

namespace dc {

enum Side : int { kBrowser = 0, kIms = 1 };
inline Side other(Side s) { return s == kBrowser ? kIms : kBrowser; }
const char* sideName(Side s);

struct Route {
  Side to;
  uint16_t sid;           // stream id on the leg `to`
  ChannelParams params;
  bool negotiated;        // a=dcmap: no DCEP on either leg
  bool acked;             // DCEP: the far peer acknowledged our OPEN (until then send ordered, §6.6)
};

class ChannelMap {
 public:
  // An SDP-negotiated channel: the same stream id on both legs. False when the id is taken.
  bool addNegotiated(uint16_t id, const ChannelParams& p);
  // The endpoint's DTLS role on a leg decides the parity of the ids it allocates there.
  void setDtlsClient(Side s, bool client) { dtlsClient_[s] = client; roleKnown_[s] = true; }
  bool roleKnown(Side s) const { return roleKnown_[s]; }
  // A peer opened stream sid on leg `from` with DCEP: allocates the stream on the other leg (the
  // lowest free id of the right parity) and records both directions. nullopt and *err when sid is
  // already in use on `from`, the other leg's role is not known yet, or no id is free.
  std::optional<uint16_t> openFromPeer(Side from, uint16_t sid, const ChannelParams& p, std::string* err);
  const Route* route(Side from, uint16_t sid) const;
  void markAcked(Side at, uint16_t sid);  // the DCEP ACK for our OPEN on leg `at`, stream sid
  // Removes the channel both ways; returns the other end (to reset it there) when it existed.
  std::optional<std::pair<Side, uint16_t>> close(Side from, uint16_t sid);
  size_t size() const { return routes_[kBrowser].size(); }
  std::vector<std::pair<uint16_t, Route>> list(Side from) const;

  static constexpr uint16_t kMaxStreams = 1024;  // ids 0..1023 on each leg (the SCTP INIT asks for as many)

 private:
  std::map<uint16_t, Route> routes_[2];
  bool dtlsClient_[2] = {false, false};
  bool roleKnown_[2] = {false, false};
};

}  // namespace dc
