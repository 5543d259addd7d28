#include <gtest/gtest.h>

#include "dcep.h"

using namespace dc;

TEST(Dcep, OpenEncodesTheRfc8832Layout) {
  ChannelParams p;
  p.label = "chat";
  p.protocol = "t140";
  p.ordered = false;
  p.reliability = Reliability::Rexmit;
  p.reliabilityParam = 3;
  p.priority = 512;
  auto b = encodeOpen(p);
  ASSERT_EQ(b.size(), 12u + 4 + 4) << "12-byte header + label + protocol";
  EXPECT_EQ(b[0], 0x03) << "message type DATA_CHANNEL_OPEN";
  EXPECT_EQ(b[1], 0x81) << "DATA_CHANNEL_PARTIAL_RELIABLE_REXMIT_UNORDERED";
  EXPECT_EQ(b[2] << 8 | b[3], 512) << "priority";
  EXPECT_EQ(b[7], 3) << "reliability parameter = max retransmissions";
  EXPECT_EQ(b[9], 4) << "label length";
  EXPECT_EQ(b[11], 4) << "protocol length";
  EXPECT_EQ(std::string(b.begin() + 12, b.begin() + 16), "chat");
}

TEST(Dcep, OpenRoundTripsEveryChannelType) {
  for (bool ordered : {true, false}) {
    for (auto rel : {Reliability::Reliable, Reliability::Rexmit, Reliability::Timed}) {
      ChannelParams p;
      p.label = "l";
      p.ordered = ordered;
      p.reliability = rel;
      p.reliabilityParam = rel == Reliability::Reliable ? 0 : 1500;
      auto b = encodeOpen(p);
      std::string err;
      auto back = decodeOpen(b.data(), b.size(), &err);
      ASSERT_TRUE(back) << "decode failed: " << err;
      EXPECT_TRUE(*back == p) << "channel type 0x" << std::hex << int(channelType(p)) << " did not round-trip";
    }
  }
}

TEST(Dcep, DecodeRefusesMalformedOpens) {
  std::string err;
  uint8_t shortMsg[] = {0x03, 0x00, 0x01};
  EXPECT_FALSE(decodeOpen(shortMsg, sizeof shortMsg, &err));
  EXPECT_NE(err.find("shorter"), std::string::npos) << "error was: " << err;
  ChannelParams p;
  p.label = "abc";
  auto b = encodeOpen(p);
  b.pop_back();  // label length says 3, only 2 bytes left
  EXPECT_FALSE(decodeOpen(b.data(), b.size(), &err)) << "a truncated label must be refused";
  b = encodeOpen(p);
  b[1] = 0x05;
  EXPECT_FALSE(decodeOpen(b.data(), b.size(), &err)) << "channel type 0x05 is not defined by RFC 8832";
  b = encodeOpen(p);
  b[0] = 0x02;
  EXPECT_FALSE(decodeOpen(b.data(), b.size(), &err)) << "an ACK is not an OPEN";
}

TEST(Dcep, AckIsOneByte) {
  auto a = encodeAck();
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(isAck(a.data(), a.size()));
  auto o = encodeOpen(ChannelParams{});
  EXPECT_FALSE(isAck(o.data(), o.size())) << "an OPEN must not be taken for an ACK";
}
