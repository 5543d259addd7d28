#include "rtp_header.h"

namespace dm {

RtpParse parseRtp(const uint8_t* p, size_t len, RtpHeader& out) {
  if (len < 12) return RtpParse::TooShort;
  if ((p[0] >> 6) != 2) return RtpParse::NotRtp;
  uint8_t pt = p[1] & 0x7f;
  if (pt >= 64 && pt <= 95) return RtpParse::Rtcp;
  size_t hlen = 12 + size_t(p[0] & 0x0f) * 4;
  if (p[0] & 0x10) {  // header extension: 4-byte preamble + length in 32-bit words
    if (len < hlen + 4) return RtpParse::TooShort;
    hlen += 4 + size_t((p[hlen + 2] << 8) | p[hlen + 3]) * 4;
  }
  if (len < hlen) return RtpParse::TooShort;
  out.payload_type = pt;
  out.marker = (p[1] & 0x80) != 0;
  out.seq = static_cast<uint16_t>((p[2] << 8) | p[3]);
  out.timestamp = (uint32_t(p[4]) << 24) | (uint32_t(p[5]) << 16) | (uint32_t(p[6]) << 8) | p[7];
  out.ssrc = (uint32_t(p[8]) << 24) | (uint32_t(p[9]) << 16) | (uint32_t(p[10]) << 8) | p[11];
  out.header_len = hlen;
  return RtpParse::Ok;
}

}  // namespace dm
