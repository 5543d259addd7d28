// Pairs each RTP packet entering the relay with the copy leaving it, by (SSRC, sequence number);
// transcoded streams (MatcherConfig::call_ports) by (SSRC, RTP timestamp in the ingress clock).
// Assumes the relay keeps SSRC and sequence number when forwarding (rtpengine does without
// transcoding); an SSRC the relay rewrites can be mapped back with MatcherConfig::out_to_in_ssrc.
#pragma once
#include <cstdint>
#include <cstddef>
#include <map>
#include <unordered_map>
#include <vector>

#include "observation.h"
#include "ssrc_map.h"

namespace dm {

struct MatcherConfig {
  // An egress copy only pairs with an ingress copy at most this much older; older ingress copies
  // count as lost. Keeps pairing correct when sequence numbers wrap in long captures.
  int64_t window_ns = 1000000000;
  std::unordered_map<uint32_t, uint32_t> out_to_in_ssrc;  // egress SSRC -> ingress SSRC
  // Transcoded streams: the relay's two ports per call; the SSRC map is then derived from the
  // capture (ssrc_map.h) and added to out_to_in_ssrc.
  std::vector<CallPorts> call_ports;
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
  // Streams paired by seq: pairs whose timestamps do not advance in step with the first two pairs
  // (scaled by the clock-rate ratio those give), i.e. seq did not identify the same media time.
  uint64_t ts_mismatch = 0;
  // Transcoded streams (paired by timestamp, media_clock.h): pairs whose out seq differs from the in
  // seq, i.e. the relay's output sequence numbers had run ahead of its audio.
  uint64_t seq_shift = 0;
  // Transcoded streams: the last in copies after the stream's last paired one that the relay still
  // held when the call was deleted (rtpengine 10.5 keeps one frame queued, "1 frames left in the
  // queue on closing", plus one per frame it had fallen behind). At most kMaxHeldAtEnd + the final
  // out-in seq offset; not loss, counted apart.
  uint64_t held_at_end = 0;
  // Forwarded streams (paired by seq): the last in copies after the stream's last paired one, at most
  // kMaxInFlightAtEnd: they reached the relay as the call ended (the BYE's delete raced them), or the
  // capture stopped before their out copies. Not loss, counted apart; any more are lost.
  uint64_t in_flight_at_end = 0;
  std::vector<int64_t> delays_ns;
  void add(const StreamStats& o);
};

constexpr uint64_t kMaxHeldAtEnd = 2;
constexpr uint64_t kMaxInFlightAtEnd = 2;

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
  SsrcMap ssrc_map;                  // derived from call_ports (empty without)
  uint64_t clock_mapped = 0;         // egress streams paired by timestamp (media_clock.h)
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
