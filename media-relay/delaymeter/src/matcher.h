// Pairs each RTP packet entering the relay with the copy leaving it, by (SSRC, sequence number).
// Assumes the relay keeps SSRC and sequence number when forwarding (rtpengine does without
// transcoding); an SSRC the relay rewrites can be mapped back with MatcherConfig::out_to_in_ssrc.
#pragma once
#include <cstdint>
#include <cstddef>
#include <map>
#include <unordered_map>
#include <vector>

#include "observation.h"

namespace dm {

struct MatcherConfig {
  // An egress copy only pairs with an ingress copy at most this much older; older ingress copies
  // count as lost. Keeps pairing correct when sequence numbers wrap in long captures.
  int64_t window_ns = 1000000000;
  std::unordered_map<uint32_t, uint32_t> out_to_in_ssrc;  // egress SSRC -> ingress SSRC
};

struct StreamKey {
  Direction dir;
  uint32_t ssrc;  // ingress SSRC
  bool operator<(const StreamKey& o) const { return dir != o.dir ? dir < o.dir : ssrc < o.ssrc; }
};

struct StreamStats {
  uint64_t matched = 0;        // in copy + out copy
  uint64_t lost = 0;           // in copy, no out copy within the window
  uint64_t duplicates = 0;     // extra out copies of an already paired packet
  uint64_t reordered = 0;      // out copies leaving with a lower seq than one already sent
  uint64_t reordered_in = 0;   // same on ingress: disorder the relay was given, not caused
  uint64_t unmatched_out = 0;  // out copy with no in copy (capture started mid-flight, relay-made)
  std::vector<int64_t> delays_ns;
  void add(const StreamStats& o);
};

struct PacketDelay {
  int64_t t_in_ns;
  Direction dir;
  uint32_t ssrc;
  uint16_t seq;
  int64_t delay_ns;
};

struct MatchResult {
  std::map<StreamKey, StreamStats> streams;
  std::vector<PacketDelay> packets;  // matched packets in egress order
  StreamStats total(Direction dir) const;
};

class Matcher {
 public:
  explicit Matcher(MatcherConfig config) : config_(std::move(config)) {}
  void add(const RtpObservation& o) { observations_.push_back(o); }
  size_t size() const { return observations_.size(); }
  // Sorts by capture time (pcapng with several interfaces need not be ordered) and pairs.
  MatchResult finish();

 private:
  MatcherConfig config_;
  std::vector<RtpObservation> observations_;
};

}  // namespace dm
