// SRTP/SRTCP protect -> unprotect with fixed keys, as two peers holding mirrored key pairs.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rtp.h"
#include "srtp_session.h"

using namespace lg;

namespace {
void fill(uint8_t* k, uint8_t base) {
  for (int i = 0; i < 30; ++i) k[i] = static_cast<uint8_t>(base + i);
}
}  // namespace

TEST(Srtp, ProtectUnprotectRoundTrip) {
  uint8_t a[30], b[30];
  fill(a, 0x10);
  fill(b, 0x80);
  SrtpSession alice, bob;
  std::string err;
  ASSERT_TRUE(alice.init(a, b, &err)) << err;
  ASSERT_TRUE(bob.init(b, a, &err)) << err;

  for (uint16_t seq = 1000; seq < 1010; ++seq) {
    uint8_t pkt[12 + 120 + kSrtpMaxTrailer];
    writeRtpHeader(pkt, 111, seq, seq * 960u, 0x11223344);
    std::memset(pkt + 12, 0x42, 120);
    std::vector<uint8_t> plain(pkt, pkt + 132);
    int len = 132;
    ASSERT_TRUE(alice.protect(pkt, len));
    EXPECT_EQ(len, 142);  // 80-bit auth tag
    EXPECT_NE(std::memcmp(pkt + 12, plain.data() + 12, 120), 0);  // payload encrypted, header clear
    EXPECT_EQ(std::memcmp(pkt, plain.data(), 12), 0);
    ASSERT_TRUE(bob.unprotect(pkt, len));
    ASSERT_EQ(len, 132);
    EXPECT_EQ(std::memcmp(pkt, plain.data(), 132), 0);
  }

  // Tampered packet fails authentication; a replay is refused.
  uint8_t pkt[12 + 40 + kSrtpMaxTrailer];
  writeRtpHeader(pkt, 111, 2000, 0, 0x11223344);
  std::memset(pkt + 12, 1, 40);
  int len = 52;
  ASSERT_TRUE(alice.protect(pkt, len));
  uint8_t copy[sizeof pkt];
  std::memcpy(copy, pkt, sizeof pkt);
  int copyLen = len;
  pkt[20] ^= 0xFF;
  EXPECT_FALSE(bob.unprotect(pkt, len));
  EXPECT_TRUE(bob.unprotect(copy, copyLen));
  std::memcpy(pkt, copy, sizeof pkt);  // copy now holds plaintext; re-protecting would be a new packet
}

TEST(Srtp, RtcpRoundTrip) {
  uint8_t a[30], b[30];
  fill(a, 1);
  fill(b, 2);
  SrtpSession alice, bob;
  std::string err;
  ASSERT_TRUE(alice.init(a, b, &err));
  ASSERT_TRUE(bob.init(b, a, &err));
  uint8_t sr[28 + kSrtpMaxTrailer] = {0x80, 200, 0, 6, 0x11, 0x22, 0x33, 0x44};
  int len = 28;
  ASSERT_TRUE(alice.protectRtcp(sr, len));
  EXPECT_EQ(len, 28 + 4 + 10);  // E-bit/index + auth tag
  ASSERT_TRUE(bob.unprotectRtcp(sr, len));
  EXPECT_EQ(len, 28);
  EXPECT_EQ(sr[1], 200);
}

TEST(Srtp, ResetFreesAndRefuses) {
  uint8_t a[30], b[30];
  fill(a, 0x10);
  fill(b, 0x80);
  SrtpSession s;
  std::string err;
  ASSERT_TRUE(s.init(a, b, &err)) << err;
  ASSERT_TRUE(s.ready());
  s.reset();
  EXPECT_FALSE(s.ready());
  uint8_t pkt[12 + 40 + kSrtpMaxTrailer];
  writeRtpHeader(pkt, 111, 1, 0, 0x11223344);
  int len = 52;
  EXPECT_FALSE(s.protect(pkt, len));
  EXPECT_EQ(s.unprotectStatus(pkt, len), SrtpSession::Rx::Other);
  EXPECT_FALSE(s.protectRtcp(pkt, len));
  s.reset();  // twice is harmless
}
