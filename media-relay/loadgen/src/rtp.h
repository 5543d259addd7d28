// RFC 7983 demultiplexing of one UDP 5-tuple (STUN / DTLS / RTP+RTCP) and the RTP header fields
// loadgen writes and reads.
#pragma once
#include <cstddef>
#include <cstdint>

namespace lg {

enum class PacketKind { Stun, Dtls, Rtp, Rtcp, Unknown };

// First byte per RFC 7983 (0-3 STUN, 20-63 DTLS, 128-191 RTP/RTCP); RTP vs RTCP by the
// payload-type byte per RFC 5761 (RTCP packet types 192-223 = 200..207 range with the marker bit).
inline PacketKind classify(const uint8_t* d, size_t len) {
  if (len == 0) return PacketKind::Unknown;
  uint8_t b = d[0];
  if (b <= 3) return PacketKind::Stun;
  if (b >= 20 && b <= 63) return PacketKind::Dtls;
  if (b >= 128 && b <= 191) {
    if (len < 2) return PacketKind::Unknown;
    return (d[1] >= 192 && d[1] <= 223) ? PacketKind::Rtcp : PacketKind::Rtp;
  }
  return PacketKind::Unknown;
}

constexpr size_t kRtpHeaderLen = 12;

inline void writeRtpHeader(uint8_t* b, uint8_t pt, uint16_t seq, uint32_t ts, uint32_t ssrc) {
  b[0] = 0x80;
  b[1] = pt & 0x7F;
  b[2] = static_cast<uint8_t>(seq >> 8);
  b[3] = static_cast<uint8_t>(seq);
  for (int i = 0; i < 4; ++i) b[4 + i] = static_cast<uint8_t>(ts >> (24 - 8 * i));
  for (int i = 0; i < 4; ++i) b[8 + i] = static_cast<uint8_t>(ssrc >> (24 - 8 * i));
}

struct RtpInfo {
  uint16_t seq = 0;
  uint32_t ts = 0, ssrc = 0;
  uint8_t pt = 0;
  size_t headerLen = 0;  // including CSRCs and the header extension
};

inline bool parseRtp(const uint8_t* d, size_t len, RtpInfo& r) {
  if (len < kRtpHeaderLen || (d[0] >> 6) != 2) return false;
  r.pt = d[1] & 0x7F;
  r.seq = static_cast<uint16_t>(d[2] << 8 | d[3]);
  r.ts = static_cast<uint32_t>(d[4]) << 24 | d[5] << 16 | d[6] << 8 | d[7];
  r.ssrc = static_cast<uint32_t>(d[8]) << 24 | d[9] << 16 | d[10] << 8 | d[11];
  size_t h = kRtpHeaderLen + 4 * (d[0] & 0x0F);
  if (d[0] & 0x10) {
    if (len < h + 4) return false;
    h += 4 + 4 * static_cast<size_t>(d[h + 2] << 8 | d[h + 3]);
  }
  if (h > len) return false;
  r.headerLen = h;
  return true;
}

}  // namespace lg
