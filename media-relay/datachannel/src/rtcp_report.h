// RTCP for the text bridge's RTP session (RFC 3550 §6): the receive statistics of the peer's stream
// (loss, extended highest sequence number, interarrival jitter: §6.4.1, A.1, A.3, A.8), the compound
// report the bridge sends every ~5 s (SR while it sends text, else RR, with one report block for the
// peer's stream, then SDES CNAME), and the peer's SR timestamp that goes back as LSR/DLSR.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dc {

class RtpReceiveStats {
 public:
  explicit RtpReceiveStats(uint32_t clockRate = 1000) : rate_(clockRate) {}
  // One RTP packet of the peer (any order, duplicates included), its arrival on the caller's ms clock.
  void onPacket(uint32_t ssrc, uint16_t seq, uint32_t rtpTs, int64_t arrivalMs);
  bool started() const { return started_; }
  uint32_t ssrc() const { return ssrc_; }
  uint32_t extendedMax() const { return cycles_ + maxSeq_; }
  uint32_t expected() const { return extendedMax() - baseSeq_ + 1; }
  uint32_t received() const { return received_; }
  int32_t cumulativeLost() const;  // expected - received, clamped to 24 signed bits
  uint32_t jitter() const { return static_cast<uint32_t>(jitter_); }  // in timestamp units
  // The fraction lost since the last call, in 1/256 (RFC 3550 A.3); moves the interval on.
  uint8_t takeFractionLost();

 private:
  uint32_t rate_;
  bool started_ = false;
  uint32_t ssrc_ = 0;
  uint16_t baseSeq_ = 0, maxSeq_ = 0;
  uint32_t cycles_ = 0, received_ = 0;
  uint32_t expectedPrior_ = 0, receivedPrior_ = 0;
  double jitter_ = 0;
  bool haveTransit_ = false;
  int64_t transit_ = 0;
};

struct RtcpSender {
  uint32_t ssrc = 0;
  bool sent = false;        // false: a receiver report (no sender info)
  uint64_t ntp = 0;         // wallclock now, NTP format (seconds << 32 | fraction)
  uint32_t rtpTs = 0;       // the RTP timestamp of the same instant
  uint32_t packets = 0, octets = 0;
  std::string cname;
};
// The peer's last SR (its NTP middle 32 bits) and our ms clock when it arrived; 0/0 when none yet.
struct RtcpLastSr {
  uint32_t ntpMiddle = 0;
  int64_t arrivalMs = 0;
};

// A compound RTCP packet: SR or RR (one report block when rx has started) + SDES CNAME.
std::vector<uint8_t> buildRtcpReport(const RtcpSender& me, RtpReceiveStats* rx, const RtcpLastSr& lastSr, int64_t nowMs);
// The SR in a compound packet from the peer: true with its sender SSRC and NTP middle bits.
bool findRtcpSr(const uint8_t* d, size_t len, uint32_t* ssrc, uint32_t* ntpMiddle);
// Wallclock now in NTP format.
uint64_t ntpNow();

}  // namespace dc
