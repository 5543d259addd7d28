#include <gtest/gtest.h>

#include "bencode.h"

using namespace lg;

TEST(Bencode, RoundTripNgOffer) {
  BValue cmd = BValue::makeDict();
  cmd["command"] = "offer";
  cmd["call-id"] = "abc";
  cmd["sdp"] = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
  cmd["rtcp-mux"] = BValue::makeList({"demux"});
  cmd["delete-delay"] = 0;
  std::string enc = bencode(cmd);
  // Keys come out sorted, as bencode requires.
  EXPECT_EQ(enc.substr(0, 20), "d7:call-id3:abc7:com");
  BValue back;
  ASSERT_TRUE(bdecode(enc, back));
  EXPECT_EQ(back.str("command"), "offer");
  EXPECT_EQ(back.str("sdp"), cmd.str("sdp"));
  ASSERT_NE(back.find("rtcp-mux"), nullptr);
  EXPECT_EQ(back.find("rtcp-mux")->list.at(0).s, "demux");
  EXPECT_EQ(back.find("delete-delay")->i, 0);
  EXPECT_EQ(bencode(back), enc);
}

TEST(Bencode, DecodesRtpengineReply) {
  BValue r;
  ASSERT_TRUE(bdecode("d3:sdp5:v=0\r\n6:result2:oke", r));
  EXPECT_EQ(r.str("result"), "ok");
  EXPECT_EQ(r.str("sdp"), "v=0\r\n");
  ASSERT_TRUE(bdecode("d6:result5:error12:error-reason15:Unknown call-ide", r));
  EXPECT_EQ(r.str("error-reason"), "Unknown call-id");
  ASSERT_TRUE(bdecode("i-42e", r));
  EXPECT_EQ(r.i, -42);
}

TEST(Bencode, RejectsMalformed) {
  BValue r;
  EXPECT_FALSE(bdecode("d3:sdp", r));
  EXPECT_FALSE(bdecode("5:abc", r));
  EXPECT_FALSE(bdecode("ie", r));
  EXPECT_FALSE(bdecode("d1:ai1ee_trailing", r));
  EXPECT_FALSE(bdecode("", r));
}
