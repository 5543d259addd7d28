// SDP: our offer parses back; the fixtures are SDPs rtpengine 10.5 really returned in a loadgen run
// (captured with --dump-sdp).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sdp.h"

using namespace lg;

namespace {
std::string readFixture(const std::string& name) {
  std::ifstream f(std::string(LOADGEN_FIXTURES) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST(Sdp, OfferRoundTrip) {
  sdp::OfferParams p;
  p.port = 40000;
  p.ufrag = "abcd1234";
  p.pwd = "0123456789abcdefghijklmn";
  p.fingerprint = "AA:BB";
  p.ssrc = 42;
  p.sessionId = 7;
  std::string offer = sdp::buildBrowserOffer(p);
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(offer, r));
  EXPECT_EQ(r.proto, "UDP/TLS/RTP/SAVPF");
  EXPECT_EQ(r.port, 40000);
  EXPECT_EQ(r.connection, "127.0.0.1");
  EXPECT_EQ(r.iceUfrag, "abcd1234");
  EXPECT_EQ(r.icePwd, p.pwd);
  EXPECT_EQ(r.setup, "actpass");
  EXPECT_EQ(r.fingerprintHash, "sha-256");
  EXPECT_TRUE(r.rtcpMux);
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].port, 40000);
  EXPECT_NE(offer.find("a=rtpmap:111 opus/48000/2\r\n"), std::string::npos);
}

TEST(Sdp, RejectsSdpWithoutMedia) {
  sdp::Remote r;
  std::string err;
  EXPECT_FALSE(sdp::parseRemote("v=0\r\ns=-\r\n", r, &err));
  EXPECT_EQ(err, "no m= line");
}

TEST(Sdp, ParsesRealRtpengineAnswerToBrowser) {
  std::string text = readFixture("rtpengine-10.5-answer-to-browser.sdp");
  ASSERT_FALSE(text.empty()) << "fixture missing";
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(text, r));
  EXPECT_EQ(r.proto, "UDP/TLS/RTP/SAVPF");
  EXPECT_EQ(r.port, 30018);
  EXPECT_EQ(r.connection, "127.0.0.1");
  EXPECT_EQ(r.setup, "active");  // DTLS: active -> loadgen is the DTLS server
  EXPECT_TRUE(r.rtcpMux);
  EXPECT_EQ(r.iceUfrag, "QfmTWeWR");
  EXPECT_EQ(r.icePwd, "vKcolBgrNC6p7nHGCvmJEYd8zp");
  EXPECT_EQ(r.fingerprintHash, "sha-256");
  EXPECT_EQ(r.fingerprint.substr(0, 8), "29:50:BC");
  EXPECT_EQ(r.fingerprint.size(), 95u);
  const sdp::Candidate* c = sdp::pickCandidate(r);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->transport, "UDP");  // rtpengine writes it upper-case
  EXPECT_EQ(c->address, "127.0.0.1");
  EXPECT_EQ(c->port, 30018);
  EXPECT_EQ(c->type, "host");
  EXPECT_EQ(c->priority, 2130706431u);
}

TEST(Sdp, ParsesRealRtpengineOfferToIms) {
  std::string text = readFixture("rtpengine-10.5-offer-to-ims.sdp");
  ASSERT_FALSE(text.empty()) << "fixture missing";
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(text, r));
  EXPECT_EQ(r.proto, "RTP/AVP");        // transport-protocol: RTP/AVP
  EXPECT_EQ(r.port, 30000);
  EXPECT_EQ(r.connection, "127.0.0.1");  // media-level c= (replace: session-connection)
  EXPECT_TRUE(r.iceUfrag.empty());       // ICE: remove
  EXPECT_TRUE(r.candidates.empty());
  EXPECT_TRUE(r.fingerprint.empty());
  EXPECT_FALSE(r.rtcpMux);               // rtcp-mux: demux
}

TEST(Sdp, PlainOfferHasNoIceOrDtls) {
  sdp::OfferParams p;
  p.port = 40002;
  p.plainRtp = true;
  std::string offer = sdp::buildBrowserOffer(p);
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(offer, r));
  EXPECT_EQ(r.proto, "RTP/AVP");
  EXPECT_EQ(r.port, 40002);
  EXPECT_TRUE(r.iceUfrag.empty());
  EXPECT_TRUE(r.fingerprint.empty());
  EXPECT_TRUE(r.candidates.empty());
  EXPECT_FALSE(r.rtcpMux);
  EXPECT_EQ(r.firstCodec, "opus/48000/2");
}

TEST(Sdp, FarAnswerWithTheTranscodedCodec) {
  std::string a = sdp::buildFarAnswer("127.0.0.1", 6000, 1, {96, "AMR-WB/16000", "octet-align=1"});
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(a, r));
  EXPECT_EQ(r.firstPt, 96);
  EXPECT_EQ(r.firstCodec, "AMR-WB/16000");
  EXPECT_NE(a.find("a=fmtp:96 octet-align=1\r\n"), std::string::npos);
  EXPECT_EQ(sdp::buildFarAnswer("127.0.0.1", 6000, 1).find("a=fmtp"), std::string::npos);
}

// What rtpengine 10.5.3.5 offered IMS for loadgen's `codec {strip [PCMA], mask [all], transcode
// [PCMA/8000/1/64000]}`, and its browser-side answer in plain A-RTP mode.
TEST(Sdp, ParsesRtpengineTranscodeAndPlainSdps) {
  sdp::Remote ims;
  ASSERT_TRUE(sdp::parseRemote(readFixture("rtpengine-10.5-transcode-pcma-offer-reply.sdp"), ims));
  EXPECT_EQ(ims.proto, "RTP/AVP");
  EXPECT_EQ(ims.firstPt, 8);
  EXPECT_EQ(ims.firstCodec, "PCMA/8000");
  sdp::Remote plain;
  ASSERT_TRUE(sdp::parseRemote(readFixture("rtpengine-10.5-plain-answer-reply.sdp"), plain));
  EXPECT_EQ(plain.proto, "RTP/AVP");
  EXPECT_EQ(plain.connection, "127.0.0.1");
  EXPECT_GT(plain.port, 0);
  EXPECT_TRUE(plain.iceUfrag.empty());
  EXPECT_EQ(plain.firstCodec, "opus/48000/2");
}
