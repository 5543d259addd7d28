// One RTP packet seen on the wire, reduced to what pairing needs.
#pragma once
#include <cstdint>

namespace dm {

// In = the copy arriving at a relay port, Out = the copy the relay sends from one of its ports.
enum class Role { None, In, Out };
enum class Direction { ToIms, ToBrowser };

inline const char* directionName(Direction d) { return d == Direction::ToIms ? "to_ims" : "to_browser"; }

struct RtpObservation {
  int64_t ts_ns = 0;
  Role role = Role::None;
  Direction dir = Direction::ToIms;
  uint32_t ssrc = 0;
  uint16_t seq = 0;
  uint32_t rtp_ts = 0;      // RTP timestamp: checks that transcoded pairs carry the same media time
  uint16_t relay_port = 0;  // the relay's end: destination port of an In copy, source port of an Out
};

}  // namespace dm
