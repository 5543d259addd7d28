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

namespace {
// rtpengine's browser-leg offer on an MT call, shaped as the gateway sends it in `incoming`
// (ICE force, generate-mid, the gateway's one-mid BUNDLE group); `lite` adds what ICE-lite: forward writes.
std::string mtOffer(bool lite, const char* setup = "actpass") {
  return std::string("v=0\r\no=- 1545997027 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n") +
         (lite ? "a=ice-lite\r\n" : "") +
         "m=audio 30012 UDP/TLS/RTP/SAVPF 111 8 101\r\nc=IN IP4 127.0.0.1\r\na=mid:0\r\n"
         "a=rtpmap:111 opus/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\na=rtpmap:8 PCMA/8000\r\n"
         "a=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\na=rtcp:30012\r\na=rtcp-mux\r\na=setup:" + setup + "\r\n"
         "a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF\r\n"
         "a=ice-ufrag:Rkq2Hd0M\r\na=ice-pwd:EKlKz5aB0sqDYdI4mSnDkzNqtw\r\na=ice-options:trickle\r\n"
         "a=candidate:dLGWY0EMKGxE9mzm 1 UDP 2130706431 127.0.0.1 30012 typ host\r\na=end-of-candidates\r\n";
}
}  // namespace

TEST(Sdp, MtOfferFromFullIceRtpengineMakesUsControlledDtlsClient) {
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(mtOffer(false), r));
  EXPECT_FALSE(r.iceLite);
  EXPECT_FALSE(sdp::answererControlsIce(r));  // the full-ICE offerer controls
  EXPECT_EQ(sdp::answerSetup(r), "active");   // actpass -> we are the DTLS client
  EXPECT_EQ(r.opusPt, 111);
  EXPECT_EQ(r.mid, "0");
  EXPECT_TRUE(r.bundleGroup);
  ASSERT_NE(sdp::pickCandidate(r), nullptr);
  EXPECT_EQ(sdp::pickCandidate(r)->port, 30012);
}

TEST(Sdp, MtOfferFromIceLiteRtpengineMakesUsControlling) {
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(mtOffer(true), r));
  EXPECT_TRUE(r.iceLite);
  EXPECT_TRUE(sdp::answererControlsIce(r));  // a lite offerer never controls (RFC 8445 6.1.1)
  EXPECT_EQ(sdp::answerSetup(r), "active");
  sdp::Remote active;
  ASSERT_TRUE(sdp::parseRemote(mtOffer(true, "active"), active));
  EXPECT_EQ(sdp::answerSetup(active), "passive");
}

TEST(Sdp, BrowserAnswerParsesBackLikeChromiums) {
  sdp::AnswerParams p;
  p.port = 41000;
  p.ufrag = "ufrag123";
  p.pwd = "0123456789abcdefghijklmn";
  p.fingerprint = "AA:BB";
  p.setup = "active";
  p.mid = "audio0";
  p.bundle = true;
  p.pt = 96;
  p.ssrc = 9;
  std::string text = sdp::buildBrowserAnswer(p);
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(text, r));
  EXPECT_EQ(r.proto, "UDP/TLS/RTP/SAVPF");
  EXPECT_EQ(r.setup, "active");
  EXPECT_EQ(r.mid, "audio0");
  EXPECT_TRUE(r.bundleGroup);
  EXPECT_EQ(r.opusPt, 96);
  EXPECT_EQ(r.firstPt, 96);
  EXPECT_EQ(r.iceUfrag, "ufrag123");
  EXPECT_TRUE(r.rtcpMux);
  EXPECT_FALSE(r.iceLite);
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].port, 41000);
  EXPECT_NE(text.find("a=group:BUNDLE audio0\r\n"), std::string::npos);
  p.bundle = false;
  EXPECT_EQ(sdp::buildBrowserAnswer(p).find("a=group:"), std::string::npos);
}

// The offer the gateway really sent in `incoming` (rtpengine 10.5 via ./lab test's gateway, SIPp ue2
// calling; captured with --dump-sdp): full ICE, generate-mid's mid 1, the gateway's BUNDLE group.
TEST(Sdp, ParsesRealMtOfferFromTheGateway) {
  std::string text = readFixture("rtpengine-10.5-mt-offer-to-browser.sdp");
  ASSERT_FALSE(text.empty()) << "fixture missing";
  sdp::Remote r;
  ASSERT_TRUE(sdp::parseRemote(text, r));
  EXPECT_EQ(r.proto, "UDP/TLS/RTP/SAVPF");
  EXPECT_EQ(r.setup, "actpass");
  EXPECT_EQ(r.mid, "1");
  EXPECT_TRUE(r.bundleGroup);
  EXPECT_EQ(r.opusPt, 111);
  EXPECT_FALSE(r.iceLite);
  EXPECT_FALSE(sdp::answererControlsIce(r));
  EXPECT_EQ(sdp::answerSetup(r), "active");
  ASSERT_NE(sdp::pickCandidate(r), nullptr);
  EXPECT_EQ(sdp::pickCandidate(r)->port, 30118);
}
