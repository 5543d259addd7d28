// RTP fixed header (RFC 3550 §5.1). SRTP leaves this header in clear text, so one parser serves both.
#pragma once
#include <cstddef>
#include <cstdint>

namespace dm {

struct RtpHeader {
  uint8_t payload_type = 0;
  bool marker = false;
  uint16_t seq = 0;
  uint32_t timestamp = 0;
  uint32_t ssrc = 0;
  size_t header_len = 0;  // fixed header + CSRCs + extension
};

enum class RtpParse { Ok, TooShort, NotRtp, Rtcp };

// Rtcp: second byte's low 7 bits in 64..95 — RTCP packet types 192..223 (SR=200, RR=201, SDES,
// BYE, APP, RTPFB, PSFB...) seen through the RTP marker/PT split. RFC 5761 §4 forbids these RTP PTs
// on rtcp-mux ports, so rejecting them never drops real RTP.
// NotRtp: version is not 2 (STUN, DTLS and ZRTP start with other bits, RFC 7983).
RtpParse parseRtp(const uint8_t* data, size_t len, RtpHeader& out);

}  // namespace dm
