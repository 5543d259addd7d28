// RFC 7983 first-byte demultiplexing and RTP header parsing.
#include <gtest/gtest.h>

#include "rtp.h"

using namespace lg;

TEST(Demux, Rfc7983Ranges) {
  auto kind = [](uint8_t b0, uint8_t b1 = 111) {
    uint8_t p[2] = {b0, b1};
    return classify(p, 2);
  };
  EXPECT_EQ(kind(0), PacketKind::Stun);
  EXPECT_EQ(kind(1), PacketKind::Stun);
  EXPECT_EQ(kind(3), PacketKind::Stun);
  EXPECT_EQ(kind(4), PacketKind::Unknown);
  EXPECT_EQ(kind(16), PacketKind::Unknown);  // ZRTP
  EXPECT_EQ(kind(20), PacketKind::Dtls);     // change_cipher_spec
  EXPECT_EQ(kind(22), PacketKind::Dtls);     // handshake
  EXPECT_EQ(kind(63), PacketKind::Dtls);
  EXPECT_EQ(kind(64), PacketKind::Unknown);  // TURN channel
  EXPECT_EQ(kind(128, 111), PacketKind::Rtp);
  EXPECT_EQ(kind(128, 111 | 0x80), PacketKind::Rtp);  // marker bit set
  EXPECT_EQ(kind(128, 200), PacketKind::Rtcp);        // SR
  EXPECT_EQ(kind(129, 201), PacketKind::Rtcp);        // RR
  EXPECT_EQ(kind(191, 206), PacketKind::Rtcp);
  EXPECT_EQ(kind(192), PacketKind::Unknown);
  EXPECT_EQ(classify(nullptr, 0), PacketKind::Unknown);
}

TEST(Demux, RtpHeaderRoundTrip) {
  uint8_t b[32] = {};
  writeRtpHeader(b, 111, 0xBEEF, 0x01020304, 0xCAFEBABE);
  RtpInfo r;
  ASSERT_TRUE(parseRtp(b, sizeof b, r));
  EXPECT_EQ(r.pt, 111);
  EXPECT_EQ(r.seq, 0xBEEF);
  EXPECT_EQ(r.ts, 0x01020304u);
  EXPECT_EQ(r.ssrc, 0xCAFEBABEu);
  EXPECT_EQ(r.headerLen, 12u);
  b[0] |= 0x10;  // one-word header extension
  b[14] = 0;
  b[15] = 1;
  ASSERT_TRUE(parseRtp(b, sizeof b, r));
  EXPECT_EQ(r.headerLen, 20u);
  EXPECT_FALSE(parseRtp(b, 8, r));
}
