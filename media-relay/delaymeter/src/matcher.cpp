#include "matcher.h"

#include <algorithm>
#include <deque>

namespace dm {
namespace {

uint64_t packetKey(uint32_t ssrc, uint16_t seq) { return (uint64_t(ssrc) << 16) | seq; }

// Tracks the highest sequence number sent so far, extended across 16-bit wrap-around.
class SeqOrder {
 public:
  // True when seq is lower than one already seen (RFC 4737 style "reordered").
  bool reordered(uint16_t seq) {
    if (!started_) {
      started_ = true;
      highest_ = seq;
      return false;
    }
    int64_t ext = highest_ + int16_t(uint16_t(seq - uint16_t(highest_)));
    if (ext < highest_) return true;
    highest_ = ext;
    return false;
  }

 private:
  bool started_ = false;
  int64_t highest_ = 0;
};

struct Pending {
  int64_t t_in;
  Direction dir;
};

}  // namespace

void StreamStats::add(const StreamStats& o) {
  matched += o.matched;
  lost += o.lost;
  duplicates += o.duplicates;
  reordered += o.reordered;
  reordered_in += o.reordered_in;
  unmatched_out += o.unmatched_out;
  delays_ns.insert(delays_ns.end(), o.delays_ns.begin(), o.delays_ns.end());
}

StreamStats MatchResult::total(Direction dir) const {
  StreamStats t;
  for (const auto& [key, s] : streams)
    if (key.dir == dir) t.add(s);
  return t;
}

MatchResult Matcher::finish() {
  std::stable_sort(observations_.begin(), observations_.end(),
                   [](const RtpObservation& a, const RtpObservation& b) { return a.ts_ns < b.ts_ns; });
  MatchResult r;
  std::unordered_map<uint64_t, std::deque<Pending>> pending;
  std::unordered_map<uint64_t, int64_t> last_paired_t_in;
  std::map<StreamKey, SeqOrder> in_order, out_order;

  for (const RtpObservation& o : observations_) {
    if (o.role == Role::In) {
      StreamKey sk{o.dir, o.ssrc};
      if (in_order[sk].reordered(o.seq)) r.streams[sk].reordered_in++;
      pending[packetKey(o.ssrc, o.seq)].push_back({o.ts_ns, o.dir});
      continue;
    }
    if (o.role != Role::Out) continue;
    uint32_t ssrc = o.ssrc;
    if (auto m = config_.out_to_in_ssrc.find(ssrc); m != config_.out_to_in_ssrc.end()) ssrc = m->second;
    uint64_t key = packetKey(ssrc, o.seq);
    StreamKey sk{o.dir, ssrc};
    auto& q = pending[key];
    while (!q.empty() && o.ts_ns - q.front().t_in > config_.window_ns) {
      r.streams[{q.front().dir, ssrc}].lost++;
      q.pop_front();
    }
    if (!q.empty()) {
      // An echoing far end (SIPp rtp_echo) sends the same SSRC+seq back the other way, so prefer
      // the pending copy travelling in this copy's direction.
      auto it = std::find_if(q.begin(), q.end(), [&](const Pending& p) { return p.dir == o.dir; });
      if (it == q.end()) it = q.begin();
      int64_t delay = o.ts_ns - it->t_in;
      StreamStats& s = r.streams[sk];
      s.matched++;
      s.delays_ns.push_back(delay);
      if (out_order[sk].reordered(o.seq)) s.reordered++;
      r.packets.push_back({it->t_in, o.dir, ssrc, o.seq, delay});
      last_paired_t_in[key] = it->t_in;
      q.erase(it);
    } else if (auto lp = last_paired_t_in.find(key);
               lp != last_paired_t_in.end() && o.ts_ns - lp->second <= config_.window_ns) {
      r.streams[sk].duplicates++;
    } else {
      r.streams[sk].unmatched_out++;
    }
  }
  for (const auto& [key, q] : pending)
    for (const Pending& p : q) r.streams[{p.dir, uint32_t(key >> 16)}].lost++;
  return r;
}

}  // namespace dm
