#include <gtest/gtest.h>

#include "rtcp_report.h"

using namespace dc;

TEST(RtcpReport, ReceiveStatsCountLossAcrossTheSequenceWrap) {
  RtpReceiveStats s;
  s.onPacket(7, 65534, 1000, 0);
  s.onPacket(7, 65535, 1300, 300);
  s.onPacket(7, 0, 1600, 600);
  s.onPacket(7, 2, 2200, 1200);  // 1 lost
  s.onPacket(7, 0, 1600, 1210);  // a duplicate counts as received (RFC 3550 A.3)
  EXPECT_EQ(s.extendedMax(), 65536u + 2) << "one wrap of the 16-bit sequence number";
  EXPECT_EQ(s.expected(), 5u);
  EXPECT_EQ(s.received(), 5u);
  EXPECT_EQ(s.cumulativeLost(), 0) << "the duplicate makes up for the loss, as RFC 3550 counts";
  RtpReceiveStats t;
  for (uint16_t q : {10, 11, 13, 14}) t.onPacket(1, q, q * 300u, q * 300);
  EXPECT_EQ(t.cumulativeLost(), 1);
  EXPECT_EQ(t.takeFractionLost(), 256 / 5) << "1 of 5 expected, in 1/256";
  EXPECT_EQ(t.takeFractionLost(), 0) << "nothing new since the last report";
  EXPECT_EQ(t.jitter(), 0u) << "packets exactly on their timestamps have no jitter";
  t.onPacket(1, 15, 15 * 300u, 15 * 300 + 160);
  EXPECT_EQ(t.jitter(), 10u) << "one packet 160 ms late: J = 160/16";
}

TEST(RtcpReport, ASenderReportWithOneBlockAndCnameIsWellFormed) {
  RtpReceiveStats rx;
  rx.onPacket(0xAABBCCDD, 100, 0, 0);
  rx.onPacket(0xAABBCCDD, 102, 600, 600);
  RtcpSender me;
  me.ssrc = 0x01020304;
  me.sent = true;
  me.ntp = 0x1122334455667788ULL;
  me.rtpTs = 42;
  me.packets = 3;
  me.octets = 30;
  me.cname = "dc@lab";
  RtcpLastSr last{0x33445566, 1000};
  auto b = buildRtcpReport(me, &rx, last, 1500);
  ASSERT_EQ(b.size(), 52u + 20u) << "SR with one block (52) + SDES (4 + 4 + 2 + 6, at least one null, padded to 20)";
  EXPECT_EQ(b[0], 0x81) << "V=2, one report block";
  EXPECT_EQ(b[1], 200);
  EXPECT_EQ(b[3], 12) << "SR length: 13 words - 1";
  EXPECT_EQ(b[28 + 3], 0xDD) << "the block is about the peer's SSRC";
  EXPECT_EQ(b[32], 256 / 3) << "fraction lost: 1 of 3";
  EXPECT_EQ(b[35], 1) << "cumulative lost";
  EXPECT_EQ(b[43], 0) << "jitter";
  EXPECT_EQ(b[44], 0x33) << "LSR echoes the peer's SR";
  uint32_t dlsr = static_cast<uint32_t>(b[48]) << 24 | b[49] << 16 | b[50] << 8 | b[51];
  EXPECT_EQ(dlsr, 500u * 65536 / 1000) << "DLSR: 500 ms in 1/65536 s";
  EXPECT_EQ(b[53], 202) << "then SDES";
  EXPECT_EQ(b[55], 4) << "SDES length: 5 words - 1";
  EXPECT_EQ(std::string(b.begin() + 62, b.begin() + 68), "dc@lab");
  uint32_t ssrc = 0, mid = 0;
  ASSERT_TRUE(findRtcpSr(b.data(), b.size(), &ssrc, &mid));
  EXPECT_EQ(ssrc, 0x01020304u);
  EXPECT_EQ(mid, 0x33445566u) << "the middle 32 bits of the NTP timestamp 0x11223344_55667788";
}

TEST(RtcpReport, AReceiverReportWhenNothingWasSentAndNoBlockBeforeAnyPacket) {
  RtcpSender me;
  me.ssrc = 9;
  me.cname = "x";
  auto b = buildRtcpReport(me, nullptr, {}, 0);
  EXPECT_EQ(b[0], 0x80);
  EXPECT_EQ(b[1], 201) << "RR";
  EXPECT_EQ(b.size(), 8u + 12u);
  uint32_t ssrc, mid;
  EXPECT_FALSE(findRtcpSr(b.data(), b.size(), &ssrc, &mid)) << "no SR in it";
  std::vector<uint8_t> junk = {0x80, 200, 0, 50};
  EXPECT_FALSE(findRtcpSr(junk.data(), junk.size(), &ssrc, &mid)) << "a length beyond the datagram";
}
