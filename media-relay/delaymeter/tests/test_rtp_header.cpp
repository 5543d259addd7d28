#include <vector>

#include "pcap_fixture.h"
#include "rtp_header.h"
#include "test_support.h"

using dm::parseRtp;
using dm::RtpParse;

TEST(RtpHeader, ParsesValidPacket) {
  std::vector<uint8_t> p = dmtest::rtp(0xdeadbeef, 4242, 111);
  p[1] |= 0x80;  // marker
  dm::RtpHeader h;
  ASSERT_EQ(parseRtp(p.data(), p.size(), h), RtpParse::Ok);
  EXPECT_EQ(h.ssrc, 0xdeadbeefu);
  EXPECT_EQ(h.seq, 4242);
  EXPECT_EQ(h.payload_type, 111);
  EXPECT_TRUE(h.marker);
  EXPECT_EQ(h.timestamp, 4242u * 160);
  EXPECT_EQ(h.header_len, 12u);
}

TEST(RtpHeader, CsrcAndExtensionLength) {
  std::vector<uint8_t> p = dmtest::rtp(1, 2, 96, 0);
  p[0] = 0x80 | 0x10 | 0x02;  // X bit, 2 CSRCs
  p.insert(p.end(), 8, 0);    // CSRCs
  std::vector<uint8_t> ext{0xbe, 0xde, 0x00, 0x01, 0x10, 0xaa, 0, 0};
  p.insert(p.end(), ext.begin(), ext.end());
  dm::RtpHeader h;
  ASSERT_EQ(parseRtp(p.data(), p.size(), h), RtpParse::Ok);
  EXPECT_EQ(h.header_len, 12u + 8 + 4 + 4);
  EXPECT_EQ(parseRtp(p.data(), p.size() - 1, h), RtpParse::TooShort);
}

TEST(RtpHeader, RejectsRtcp) {
  dm::RtpHeader h;
  std::vector<uint8_t> sr = dmtest::rtcpSenderReport(7);
  EXPECT_EQ(parseRtp(sr.data(), sr.size(), h), RtpParse::Rtcp);
  for (int type = 200; type <= 206; ++type) {
    sr[1] = uint8_t(type);
    EXPECT_EQ(parseRtp(sr.data(), sr.size(), h), RtpParse::Rtcp);
  }
}

TEST(RtpHeader, RejectsShortAndNonRtp) {
  dm::RtpHeader h;
  std::vector<uint8_t> p = dmtest::rtp(1, 1, 0, 0);
  EXPECT_EQ(parseRtp(p.data(), 11, h), RtpParse::TooShort);
  EXPECT_EQ(parseRtp(p.data(), 0, h), RtpParse::TooShort);
  p[0] = 0x00;  // STUN starts with 00
  EXPECT_EQ(parseRtp(p.data(), p.size(), h), RtpParse::NotRtp);
  p[0] = 22;  // DTLS handshake
  EXPECT_EQ(parseRtp(p.data(), p.size(), h), RtpParse::NotRtp);
}
