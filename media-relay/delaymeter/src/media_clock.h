// Media-time pairing of transcoded streams. Under load rtpengine 10.5 lets a transcoded stream's
// sequence numbers run ahead of its audio: an input frame that yields no output packet still uses up
// its sequence number, and from then on out seq n carries the audio (timestamp) of in seq n-1
// (docs/delaymeter.md "Transcoded streams"). The RTP timestamp is the frame's identity: each
// egress timestamp is converted to the ingress clock and packets pair by (SSRC, timestamp).
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "observation.h"
#include "ssrc_map.h"

namespace dm {

struct ClockMap {
  uint32_t in_anchor = 0, out_anchor = 0;  // timestamps of one frame on both sides
  int64_t in_step = 0, out_step = 0;       // timestamp advance per packet (960 opus, 160 PCMA)
  // The ingress timestamp of the frame an egress timestamp carries; false when it falls between frames.
  bool toInTs(uint32_t out_ts, uint32_t& in_ts) const;
};

// Per egress SSRC of ssrc_map. The anchor is the stream's first egress packet and the ingress copy with
// the same sequence number (at the start the two still agree); steps are each side's most common
// timestamp advance between consecutive sequence numbers. Streams without a usable anchor are left
// out (they pair by sequence number, and the ts_mismatch check shows whether that was right).
std::unordered_map<uint32_t, ClockMap> deriveClockMaps(const std::vector<RtpObservation>& time_sorted,
                                                       const SsrcMap& map);

}  // namespace dm
