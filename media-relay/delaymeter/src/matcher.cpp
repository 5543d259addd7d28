#include "matcher.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

#include "media_clock.h"

namespace dm {
namespace {

uint64_t packetKey(uint32_t ssrc, uint16_t seq) { return (uint64_t(ssrc) << 16) | seq; }
uint64_t tsKey(uint32_t ssrc, uint32_t rtp_ts) { return (uint64_t(ssrc) << 32) | rtp_ts; }

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
  uint32_t rtp_ts;
  uint16_t seq;
};

// Media-time consistency of one paired stream: out_ts advances by (in_ts advance) x ratio, the ratio
// taken from the first two pairs with different timestamps (1 when forwarded, 1/6 for opus -> PCMA).
class TsCheck {
 public:
  bool consistent(uint32_t in_ts, uint32_t out_ts) {
    if (!have0_) {
      have0_ = true;
      in0_ = in_ts;
      out0_ = out_ts;
      return true;
    }
    int64_t di = int32_t(in_ts - in0_), dout = int32_t(out_ts - out0_);
    if (!haveRatio_) {
      if (di == 0) return dout == 0;
      haveRatio_ = true;
      rin_ = di;
      rout_ = dout;
      return true;
    }
    return dout * rin_ == di * rout_;
  }

 private:
  bool have0_ = false, haveRatio_ = false;
  uint32_t in0_ = 0, out0_ = 0;
  int64_t rin_ = 1, rout_ = 1;
};

}  // namespace

void StreamStats::add(const StreamStats& o) {
  matched += o.matched;
  lost += o.lost;
  duplicates += o.duplicates;
  reordered += o.reordered;
  reordered_in += o.reordered_in;
  unmatched_out += o.unmatched_out;
  ts_mismatch += o.ts_mismatch;
  held_at_end += o.held_at_end;
  in_flight_at_end += o.in_flight_at_end;
  seq_shift += o.seq_shift;
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
  std::unordered_map<uint32_t, ClockMap> clocks;  // egress SSRC -> media clock (transcoded streams)
  std::unordered_set<uint32_t> by_ts_in;          // ingress SSRCs paired by timestamp
  if (!config_.call_ports.empty()) {
    r.ssrc_map = deriveSsrcMap(observations_, config_.call_ports);
    for (const auto& [out, in] : r.ssrc_map.out_to_in) config_.out_to_in_ssrc.emplace(out, in);
    clocks = deriveClockMaps(observations_, r.ssrc_map);
    r.clock_mapped = clocks.size();
    for (const auto& [out, c] : clocks) by_ts_in.insert(r.ssrc_map.out_to_in.at(out));
  }
  // Two key spaces: (SSRC, seq) for forwarded streams, (SSRC, ingress timestamp) for transcoded ones.
  struct Table {
    std::unordered_map<uint64_t, std::deque<Pending>> pending;
    std::unordered_map<uint64_t, int64_t> last_paired_t_in;
  } by_seq, by_ts;
  std::map<StreamKey, TsCheck> ts_check;
  std::map<StreamKey, int64_t> last_paired_in;  // per stream: t_in of its newest paired in copy
  std::map<StreamKey, int16_t> seq_offset;      // per transcoded stream: out seq - in seq at its last pair
  std::map<StreamKey, SeqOrder> in_order, out_order;

  for (const RtpObservation& o : observations_) {
    if (o.role == Role::In) {
      StreamKey sk{o.dir, o.ssrc};
      if (in_order[sk].reordered(o.seq)) r.streams[sk].reordered_in++;
      bool ts_keyed = by_ts_in.count(o.ssrc) > 0;
      Table& t = ts_keyed ? by_ts : by_seq;
      t.pending[ts_keyed ? tsKey(o.ssrc, o.rtp_ts) : packetKey(o.ssrc, o.seq)].push_back({o.ts_ns, o.dir, o.rtp_ts, o.seq});
      continue;
    }
    if (o.role != Role::Out) continue;
    uint32_t ssrc = o.ssrc;
    if (auto m = config_.out_to_in_ssrc.find(ssrc); m != config_.out_to_in_ssrc.end()) ssrc = m->second;
    StreamKey sk{o.dir, ssrc};
    auto clock = clocks.find(o.ssrc);
    uint32_t in_ts = 0;
    bool ts_keyed = clock != clocks.end();
    if (ts_keyed && !clock->second.toInTs(o.rtp_ts, in_ts)) {
      r.streams[sk].unmatched_out++;  // between two ingress frames: no frame to pair with
      continue;
    }
    Table& t = ts_keyed ? by_ts : by_seq;
    uint64_t key = ts_keyed ? tsKey(ssrc, in_ts) : packetKey(ssrc, o.seq);
    auto& q = t.pending[key];
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
      if (ts_keyed) {
        if (o.seq != it->seq) s.seq_shift++;
        seq_offset[sk] = int16_t(uint16_t(o.seq - it->seq));
      } else if (!ts_check[sk].consistent(it->rtp_ts, o.rtp_ts)) {
        s.ts_mismatch++;
      }
      r.packets.push_back({it->t_in, o.dir, ssrc, ts_keyed ? it->seq : o.seq, delay});
      t.last_paired_t_in[key] = it->t_in;
      int64_t& lp_stream = last_paired_in[sk];
      lp_stream = std::max(lp_stream, it->t_in);
      q.erase(it);
    } else if (auto lp = t.last_paired_t_in.find(key);
               lp != t.last_paired_t_in.end() && o.ts_ns - lp->second <= config_.window_ns) {
      r.streams[sk].duplicates++;
    } else {
      r.streams[sk].unmatched_out++;
    }
  }
  // Never paired: lost, except the last in copies after a stream's last paired one (trailing): a
  // transcoded stream's that the relay still held when the call was deleted (the codec's one queued
  // frame (+1 margin) plus one per frame the stream had fallen behind, its final out seq - in seq
  // offset; held_at_end), a forwarded stream's that reached the relay as the call ended
  // (in_flight_at_end). Beyond those caps they are lost.
  std::map<StreamKey, std::vector<int64_t>> trailing, trailing_fwd;
  auto leftovers = [&](const Table& t, bool ts_keyed) {
    for (const auto& [key, q] : t.pending)
      for (const Pending& p : q) {
        StreamKey sk{p.dir, uint32_t(key >> (ts_keyed ? 32 : 16))};
        auto lp = last_paired_in.find(sk);
        if (lp != last_paired_in.end() && p.t_in > lp->second) (ts_keyed ? trailing : trailing_fwd)[sk].push_back(p.t_in);
        else r.streams[sk].lost++;
      }
  };
  leftovers(by_seq, false);
  leftovers(by_ts, true);
  for (auto& [sk, times] : trailing) {
    uint64_t cap = kMaxHeldAtEnd + uint64_t(std::max<int>(0, seq_offset[sk]));
    uint64_t held = std::min<uint64_t>(times.size(), cap);
    r.streams[sk].held_at_end += held;
    r.streams[sk].lost += times.size() - held;
  }
  for (auto& [sk, times] : trailing_fwd) {
    uint64_t in_flight = std::min<uint64_t>(times.size(), kMaxInFlightAtEnd);
    r.streams[sk].in_flight_at_end += in_flight;
    r.streams[sk].lost += times.size() - in_flight;
  }
  return r;
}

}  // namespace dm
