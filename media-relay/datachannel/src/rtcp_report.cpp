#include "rtcp_report.h"

#include <time.h>

#include <cstdlib>

namespace dc {

namespace {
constexpr uint8_t kSr = 200, kRr = 201, kSdes = 202;

void put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(v >> s));
}
uint32_t get32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[2]) << 8 | p[3];
}
// Writes the common header's length field (32-bit words minus one) of the packet that starts at `at`.
void closePacket(std::vector<uint8_t>& b, size_t at) {
  size_t words = (b.size() - at) / 4 - 1;
  b[at + 2] = static_cast<uint8_t>(words >> 8);
  b[at + 3] = static_cast<uint8_t>(words);
}
}  // namespace

void RtpReceiveStats::onPacket(uint32_t ssrc, uint16_t seq, uint32_t rtpTs, int64_t arrivalMs) {
  if (!started_ || ssrc != ssrc_) {
    *this = RtpReceiveStats(rate_);
    started_ = true;
    ssrc_ = ssrc;
    baseSeq_ = maxSeq_ = seq;
  } else {
    uint16_t delta = static_cast<uint16_t>(seq - maxSeq_);
    if (delta > 0 && delta < 0x8000) {  // in order, possibly after a gap (RFC 3550 A.1)
      if (seq < maxSeq_) cycles_ += 65536;
      maxSeq_ = seq;
    }
  }
  ++received_;
  // RFC 3550 A.8: J += (|D| - J) / 16, with D the change of the transit time
  uint32_t arrival = static_cast<uint32_t>(arrivalMs * static_cast<int64_t>(rate_) / 1000);
  int64_t transit = static_cast<int32_t>(arrival - rtpTs);
  if (haveTransit_) {
    double d = std::llabs(transit - transit_);
    jitter_ += (d - jitter_) / 16.0;
  }
  transit_ = transit;
  haveTransit_ = true;
}

int32_t RtpReceiveStats::cumulativeLost() const {
  int64_t lost = static_cast<int64_t>(expected()) - received_;
  if (lost > 0x7FFFFF) lost = 0x7FFFFF;
  if (lost < -0x800000) lost = -0x800000;
  return static_cast<int32_t>(lost);
}

uint8_t RtpReceiveStats::takeFractionLost() {
  uint32_t exp = expected(), expInt = exp - expectedPrior_, recInt = received_ - receivedPrior_;
  expectedPrior_ = exp;
  receivedPrior_ = received_;
  int64_t lostInt = static_cast<int64_t>(expInt) - recInt;
  if (expInt == 0 || lostInt <= 0) return 0;
  return static_cast<uint8_t>((lostInt << 8) / expInt);
}

std::vector<uint8_t> buildRtcpReport(const RtcpSender& me, RtpReceiveStats* rx, const RtcpLastSr& lastSr, int64_t nowMs) {
  std::vector<uint8_t> b;
  bool block = rx && rx->started();
  b.push_back(static_cast<uint8_t>(0x80 | (block ? 1 : 0)));
  b.push_back(me.sent ? kSr : kRr);
  b.insert(b.end(), {0, 0});
  put32(b, me.ssrc);
  if (me.sent) {
    put32(b, static_cast<uint32_t>(me.ntp >> 32));
    put32(b, static_cast<uint32_t>(me.ntp));
    put32(b, me.rtpTs);
    put32(b, me.packets);
    put32(b, me.octets);
  }
  if (block) {
    put32(b, rx->ssrc());
    uint8_t fraction = rx->takeFractionLost();
    put32(b, static_cast<uint32_t>(fraction) << 24 | (static_cast<uint32_t>(rx->cumulativeLost()) & 0xFFFFFF));
    put32(b, rx->extendedMax());
    put32(b, rx->jitter());
    put32(b, lastSr.ntpMiddle);
    // DLSR: the delay since that SR arrived, in 1/65536 s (0 when no SR came yet)
    put32(b, lastSr.arrivalMs ? static_cast<uint32_t>((nowMs - lastSr.arrivalMs) * 65536 / 1000) : 0);
  }
  closePacket(b, 0);
  // SDES with the CNAME item (RFC 3550 §6.5), null-terminated and padded to 32 bits
  size_t at = b.size();
  b.insert(b.end(), {0x81, kSdes, 0, 0});
  put32(b, me.ssrc);
  b.push_back(1);
  b.push_back(static_cast<uint8_t>(me.cname.size()));
  b.insert(b.end(), me.cname.begin(), me.cname.end());
  do b.push_back(0);
  while (b.size() % 4);
  closePacket(b, at);
  return b;
}

bool findRtcpSr(const uint8_t* d, size_t len, uint32_t* ssrc, uint32_t* ntpMiddle) {
  size_t at = 0;
  while (at + 4 <= len) {
    if ((d[at] >> 6) != 2) return false;
    size_t bytes = (static_cast<size_t>(d[at + 2]) << 8 | d[at + 3]) * 4 + 4;
    if (at + bytes > len) return false;
    if (d[at + 1] == kSr && bytes >= 28) {
      *ssrc = get32(d + at + 4);
      *ntpMiddle = get32(d + at + 10);
      return true;
    }
    at += bytes;
  }
  return false;
}

uint64_t ntpNow() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t sec = static_cast<uint64_t>(ts.tv_sec) + 2208988800ULL;  // 1900 -> 1970
  uint64_t frac = (static_cast<uint64_t>(ts.tv_nsec) << 32) / 1000000000ULL;
  return sec << 32 | frac;
}

}  // namespace dc
