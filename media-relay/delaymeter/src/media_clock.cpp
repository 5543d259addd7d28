#include "media_clock.h"

#include <map>

namespace dm {

bool ClockMap::toInTs(uint32_t out_ts, uint32_t& in_ts) const {
  int64_t d_out = int32_t(out_ts - out_anchor);
  int64_t scaled = d_out * in_step;
  if (out_step <= 0 || scaled % out_step != 0) return false;
  in_ts = uint32_t(in_anchor + uint32_t(int64_t(scaled / out_step)));
  return true;
}

namespace {

// Most common positive timestamp advance between consecutive sequence numbers of one SSRC and role.
int64_t modalStep(const std::vector<RtpObservation>& obs, Role role, uint32_t ssrc) {
  std::map<int64_t, uint64_t> votes;
  bool have = false;
  uint16_t prev_seq = 0;
  uint32_t prev_ts = 0;
  for (const RtpObservation& o : obs) {
    if (o.role != role || o.ssrc != ssrc) continue;
    if (have && uint16_t(o.seq - prev_seq) == 1) {
      int64_t d = int32_t(o.rtp_ts - prev_ts);
      if (d > 0) votes[d]++;
    }
    have = true;
    prev_seq = o.seq;
    prev_ts = o.rtp_ts;
  }
  int64_t best = 0;
  uint64_t n = 0;
  for (const auto& [step, count] : votes)
    if (count > n) {
      best = step;
      n = count;
    }
  return best;
}

}  // namespace

std::unordered_map<uint32_t, ClockMap> deriveClockMaps(const std::vector<RtpObservation>& obs, const SsrcMap& map) {
  std::unordered_map<uint32_t, ClockMap> out;
  for (const SsrcMapEntry& e : map.entries) {
    const RtpObservation* first_out = nullptr;
    for (const RtpObservation& o : obs)
      if (o.role == Role::Out && o.ssrc == e.out_ssrc && o.relay_port == e.out_port) {
        first_out = &o;
        break;
      }
    if (!first_out) continue;
    const RtpObservation* anchor_in = nullptr;
    for (const RtpObservation& o : obs)
      if (o.role == Role::In && o.ssrc == e.in_ssrc && o.relay_port == e.in_port && o.seq == first_out->seq) {
        anchor_in = &o;
        break;
      }
    ClockMap c;
    c.in_step = modalStep(obs, Role::In, e.in_ssrc);
    c.out_step = modalStep(obs, Role::Out, e.out_ssrc);
    if (!anchor_in || c.in_step <= 0 || c.out_step <= 0) continue;
    c.in_anchor = anchor_in->rtp_ts;
    c.out_anchor = first_out->rtp_ts;
    out[e.out_ssrc] = c;
  }
  return out;
}

}  // namespace dm
