#include <gtest/gtest.h>

#include "text_sdp.h"

using namespace dc;

TEST(TextSdp, OurOfferIsTheRfc4103FormWithRedFirstAndTwoGenerations) {
  LocalText t;
  t.addr = "127.0.0.1";
  t.port = 31002;
  t.sessionId = 7;
  std::string s = produceText(t);
  EXPECT_NE(s.find("m=text 31002 RTP/AVP 100 98\r\n"), std::string::npos) << s;
  EXPECT_NE(s.find("c=IN IP4 127.0.0.1\r\n"), std::string::npos) << s;
  EXPECT_NE(s.find("a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\n"), std::string::npos) << s;
  EXPECT_NE(s.find("a=rtpmap:98 t140/1000\r\na=fmtp:98 cps=30\r\n"), std::string::npos) << s;
  std::string err;
  auto p = parseText(s, &err);
  ASSERT_TRUE(p) << err;
  EXPECT_EQ(p->port, 31002);
  EXPECT_EQ(p->t140Pt, 98);
  EXPECT_EQ(p->redPt, 100);
  EXPECT_EQ(p->redGenerations, 2);
  EXPECT_EQ(p->cps, 30);
}

TEST(TextSdp, WithoutRedOffersPlainT140) {
  LocalText t;
  t.addr = "10.0.0.1";
  t.port = 4000;
  t.redPt = -1;
  std::string s = produceText(t);
  EXPECT_NE(s.find("m=text 4000 RTP/AVP 98\r\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("red/1000"), std::string::npos) << s;
}

TEST(TextSdp, ParsesAnImsAnswerAfterAnAudioSectionWithItsOwnPayloadTypesAndSessionAddress) {
  std::string sdp =
      "v=0\r\no=ue 1 1 IN IP4 192.0.2.5\r\ns=-\r\nc=IN IP4 192.0.2.5\r\nt=0 0\r\n"
      "m=audio 5004 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
      "m=text 6000 RTP/AVP 101 99\r\na=rtpmap:101 RED/1000\r\na=fmtp:101 99/99\r\n"
      "a=rtpmap:99 T140/1000\r\na=recvonly\r\n"
      "m=text 7000 RTP/AVP 98\r\na=rtpmap:98 t140/1000\r\n";
  std::string err;
  auto p = parseText(sdp, &err);
  ASSERT_TRUE(p) << err;
  EXPECT_EQ(p->connAddr, "192.0.2.5") << "the session-level c= applies";
  EXPECT_EQ(p->port, 6000) << "the first m=text section";
  EXPECT_EQ(p->t140Pt, 99);
  EXPECT_EQ(p->redPt, 101) << "encoding names are case-insensitive";
  EXPECT_EQ(p->redGenerations, 1) << "99/99: one redundant generation";
  EXPECT_EQ(p->cps, -1);
  EXPECT_EQ(p->direction, "recvonly");
}

TEST(TextSdp, ARejectedSectionAndMissingPiecesAreReported) {
  std::string err;
  auto p = parseText("v=0\r\nc=IN IP4 1.2.3.4\r\nm=text 0 RTP/AVP 98\r\n", &err);
  ASSERT_TRUE(p) << err;
  EXPECT_TRUE(p->rejected());
  EXPECT_FALSE(parseText("v=0\r\nm=audio 4 RTP/AVP 0\r\n", &err));
  EXPECT_EQ(err, "no m=text section");
  EXPECT_FALSE(parseText("v=0\r\nm=text 4 RTP/AVP 100\r\nc=IN IP4 1.2.3.4\r\na=rtpmap:100 red/1000\r\n", &err));
  EXPECT_NE(err.find("no t140/1000"), std::string::npos) << err;
  EXPECT_FALSE(parseText("v=0\r\nm=text 4 RTP/AVP 98\r\na=rtpmap:98 t140/1000\r\n", &err));
  EXPECT_NE(err.find("no c= address"), std::string::npos) << err;
  EXPECT_FALSE(parseText("v=0\r\nm=text x RTP/AVP 98\r\n", &err));
  EXPECT_NE(err.find("bad port"), std::string::npos) << err;
}
