// A session's SDP for a call from IMS (offerFromIms) and the answer that follows: the IMS side's a=dcmap
// channels on both legs with their ids, the DTLS roles (RFC 8842), the mids, and the refusals. The legs
// bind real UDP ports on the loopback address; no DTLS or SCTP runs here (datachannel-calls.test.mjs does that).
#include <gtest/gtest.h>

#include <string>

#include "session.h"

using namespace dc;

namespace {
const char* kImsOffer =
    "v=0\r\no=ue10 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
    "m=audio 4000 RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\n"
    "m=application 5000 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:0\r\na=sctp-port:5000\r\n"
    "a=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
    "a=fingerprint:sha-256 AA:BB:CC\r\na=setup:actpass\r\n"
    "a=candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host\r\n"
    "a=dcmap:1000 label=\"chat\"\r\na=dcsa:1000 3gpp-req-app:org.lab.chat\r\n";

const char* kBrowserAnswer =
    "v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=mid:dc\r\n"
    "a=ice-ufrag:efgh\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\na=fingerprint:sha-256 DD:EE\r\n"
    "a=setup:active\r\na=sctp-port:5000\r\na=dcmap:1000 label=\"chat\"\r\n";

struct Fixture : ::testing::Test {
  lg::EventLoop loop;
  std::string err;
  std::unique_ptr<DtlsContext> dtls = DtlsContext::create(kDtlsCertName, kDtlsSrtpProfiles, &err);
  MediaConfig cfg = [] {
    MediaConfig c;
    c.portMin = 31600;
    c.portMax = 31699;
    return c;
  }();
};
}  // namespace

TEST_F(Fixture, ACallFromImsOffersTheBrowserTheSameChannelsAndAnswersIms) {
  ASSERT_TRUE(dtls) << err;
  Session s("mt-1", loop, *dtls, cfg);
  std::string browserOffer, imsAnswer;
  ASSERT_TRUE(s.offerFromIms(kImsOffer, &browserOffer, &imsAnswer, &err)) << err;
  EXPECT_NE(browserOffer.find("a=setup:actpass"), std::string::npos) << "the browser gets an offer: " << browserOffer;
  EXPECT_NE(browserOffer.find("a=ice-lite"), std::string::npos) << browserOffer;
  EXPECT_NE(browserOffer.find("a=dcmap:1000 label=\"chat\""), std::string::npos) << browserOffer;
  EXPECT_NE(browserOffer.find("a=dcsa:1000 3gpp-req-app:org.lab.chat"), std::string::npos) << browserOffer;
  EXPECT_EQ(browserOffer.find("a=mid:"), std::string::npos) << "the gateway gives the browser's section its mid: " << browserOffer;
  EXPECT_NE(imsAnswer.find("a=setup:passive"), std::string::npos) << "IMS offered actpass: we answer passive: " << imsAnswer;
  EXPECT_NE(imsAnswer.find("a=mid:0"), std::string::npos) << "the answer keeps the IMS offer's mid: " << imsAnswer;
  EXPECT_NE(imsAnswer.find("a=dcmap:1000 label=\"chat\""), std::string::npos) << "the IMS channel is accepted: " << imsAnswer;
  std::vector<uint16_t> accepted;
  ASSERT_TRUE(s.answer(kBrowserAnswer, &accepted, &err)) << err;
  EXPECT_EQ(accepted, std::vector<uint16_t>{1000});
  EXPECT_FALSE(s.answer(kBrowserAnswer, &accepted, &err)) << "a second answer must be refused";
  EXPECT_NE(err.find("browser leg is already answered"), std::string::npos) << err;
  lg::BValue st = s.stats();
  ASSERT_EQ(st["channels"].list.size(), 1u);
  EXPECT_EQ(st["channels"].list[0].str("label"), "chat");
}

TEST_F(Fixture, TheBrowsersAnswerMustChooseARoleAndDoIceAndMayDeclineAChannel) {
  ASSERT_TRUE(dtls) << err;
  Session a("mt-2", loop, *dtls, cfg);
  std::string b, i;
  ASSERT_TRUE(a.offerFromIms(kImsOffer, &b, &i, &err)) << err;
  std::vector<uint16_t> accepted;
  std::string actpass = kBrowserAnswer;
  actpass.replace(actpass.find("a=setup:active"), 14, "a=setup:actpass");
  EXPECT_FALSE(a.answer(actpass, &accepted, &err));
  EXPECT_NE(err.find("the answer of the browser has a=setup:actpass"), std::string::npos) << err;
  std::string noIce = kBrowserAnswer;
  noIce.erase(noIce.find("a=ice-ufrag:efgh\r\n"), 18);
  noIce.erase(noIce.find("a=ice-pwd:"), 36);
  EXPECT_FALSE(a.answer(noIce, &accepted, &err));
  EXPECT_NE(err.find("no a=ice-ufrag"), std::string::npos) << err;
  std::string declined = kBrowserAnswer;
  declined.erase(declined.find("a=dcmap:1000"));
  ASSERT_TRUE(a.answer(declined, &accepted, &err)) << err;
  EXPECT_TRUE(accepted.empty()) << "an answer without the a=dcmap declines the channel (RFC 8864 §5.1.2)";

  Session r("mt-3", loop, *dtls, cfg);
  std::string rejected = kImsOffer;
  rejected.replace(rejected.find("m=application 5000"), 18, "m=application 0");
  EXPECT_FALSE(r.offerFromIms(rejected, &b, &i, &err));
  EXPECT_NE(err.find("rejected (port 0)"), std::string::npos) << err;
}

// Real-time text, MT (RFC 8865 ↔ RFC 4103): an IMS offer with m=text and no m=application; the browser is offered
// the T.140 channel, the IMS side gets the bridge's m=text answer with its own payload types.
TEST_F(Fixture, ACallFromImsWithTextOffersTheBrowserAT140ChannelAndAnswersMText) {
  ASSERT_TRUE(dtls) << err;
  Session s("mt-text", loop, *dtls, cfg);
  const std::string imsOffer =
      "v=0\r\no=ue10 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
      "m=audio 4000 RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\n"
      "m=text 4002 RTP/AVP 101 99\r\na=rtpmap:101 red/1000\r\na=fmtp:101 99/99/99\r\na=rtpmap:99 t140/1000\r\n";
  TextBridge::Options o;
  o.channel = 1001;
  std::string browserOffer, imsAnswer;
  ASSERT_TRUE(s.textOfferFromIms(loop, o, imsOffer, &browserOffer, &imsAnswer, &err)) << err;
  EXPECT_NE(browserOffer.find("m=application "), std::string::npos) << browserOffer;
  EXPECT_NE(browserOffer.find("a=setup:actpass"), std::string::npos) << "the browser gets an offer: " << browserOffer;
  EXPECT_NE(browserOffer.find("a=dcmap:1001 label=\"t140\";subprotocol=\"t140\""), std::string::npos)
      << "the T.140 channel, RFC 8865 §4.2: " << browserOffer;
  EXPECT_NE(imsAnswer.find("RTP/AVP 101 99"), std::string::npos) << "the answer keeps the offer's payload types: " << imsAnswer;
  EXPECT_NE(imsAnswer.find("a=fmtp:101 99/99/99"), std::string::npos) << "red with 2 generations: " << imsAnswer;
  ASSERT_NE(s.text(), nullptr);
  EXPECT_EQ(s.text()->generations(), 2);
  EXPECT_EQ(s.text()->sendRedPt(), 101);
  std::vector<uint16_t> accepted;
  ASSERT_TRUE(s.answer(std::string(kBrowserAnswer), &accepted, &err)) << "the browser's answer goes to answer(): " << err;
  EXPECT_EQ(s.stats()["text"].str("state"), "answered");
  Session again("mt-text-2", loop, *dtls, cfg);
  TextBridge::Options none;
  EXPECT_FALSE(again.textOfferFromIms(loop, none, imsOffer, &browserOffer, &imsAnswer, &err));
  EXPECT_NE(err.find("needs \"channel\""), std::string::npos) << err;
}

// MO: the page writes a=dcmap for its T.140 channel; text-offer takes that stream over instead of refusing it.
TEST_F(Fixture, TheBrowsersOwnT140DcmapIsTakenOverByTheTextBridge) {
  ASSERT_TRUE(dtls) << err;
  Session s("mo-text", loop, *dtls, cfg);
  const std::string browserOffer =
      "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
      "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\na=mid:1\r\n"
      "a=ice-ufrag:efgh\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\na=fingerprint:sha-256 DD:EE\r\n"
      "a=setup:actpass\r\na=sctp-port:5000\r\na=dcmap:1001 label=\"t140\";subprotocol=\"t140\"\r\n"
      "a=dcmap:1000 label=\"chat\"\r\n";
  std::string answer, imsOffer, text;
  ASSERT_TRUE(s.offer(browserOffer, {}, &answer, &imsOffer, &err)) << err;
  TextBridge::Options o;
  o.channel = 1001;
  ASSERT_TRUE(s.textOffer(loop, o, &text, &err)) << "the browser's T.140 dcmap must not block the bridge: " << err;
  lg::BValue st = s.stats();
  ASSERT_EQ(st["channels"].list.size(), 1u) << "only chat is relayed to the IMS leg";
  EXPECT_EQ(st["channels"].list[0].str("label"), "chat");
  o.channel = 1000;
  Session t("mo-text-2", loop, *dtls, cfg);
  ASSERT_TRUE(t.offer(browserOffer, {}, &answer, &imsOffer, &err)) << err;
  EXPECT_FALSE(t.textOffer(loop, o, &text, &err)) << "a stream that is no T.140 channel is not taken";
  EXPECT_NE(err.find("already a data channel"), std::string::npos) << err;
}

// An IMS offer with both m=application and m=text (issue #25): the T.140 channel joins the IMS side's channels in the
// one data-channel section toward the browser, the bridge answers m=text; the browser's one answer takes both.
TEST_F(Fixture, AnImsOfferWithApplicationAndTextGivesTheBrowserOneSectionWithBothChannels) {
  ASSERT_TRUE(dtls) << err;
  Session s("mt-both", loop, *dtls, cfg);
  const std::string imsOffer = std::string(kImsOffer) +
      "m=text 4002 RTP/AVP 101 99\r\na=rtpmap:101 red/1000\r\na=fmtp:101 99/99/99\r\na=rtpmap:99 t140/1000\r\n";
  std::string browserOffer, imsAnswer, textOffer, textAnswer;
  ASSERT_TRUE(s.offerFromIms(imsOffer, &browserOffer, &imsAnswer, &err)) << err;
  TextBridge::Options clash;
  clash.channel = 1000;
  EXPECT_FALSE(s.textOfferFromIms(loop, clash, imsOffer, &textOffer, &textAnswer, &err))
      << "the T.140 channel may not take the IMS side's chat stream";
  EXPECT_NE(err.find("already a data channel of the IMS offer"), std::string::npos) << err;
  TextBridge::Options o;
  o.channel = 1001;
  ASSERT_TRUE(s.textOfferFromIms(loop, o, imsOffer, &textOffer, &textAnswer, &err)) << err;
  EXPECT_NE(textOffer.find("a=dcmap:1000 label=\"chat\""), std::string::npos) << "the IMS side's channel stays: " << textOffer;
  EXPECT_NE(textOffer.find("a=dcmap:1001 label=\"t140\";subprotocol=\"t140\""), std::string::npos) << textOffer;
  auto port = [](const std::string& sdp) { return sdp.substr(sdp.find("m=application ") + 14, 5); };
  EXPECT_EQ(port(textOffer), port(browserOffer)) << "one browser leg for both: " << browserOffer << " / " << textOffer;
  EXPECT_NE(textAnswer.find("m=text "), std::string::npos) << textAnswer;
  EXPECT_NE(textAnswer.find("a=fmtp:101 99/99/99"), std::string::npos) << textAnswer;
  std::vector<uint16_t> accepted;
  std::string answer = std::string(kBrowserAnswer) + "a=dcmap:1001 label=\"t140\";subprotocol=\"t140\"\r\n";
  ASSERT_TRUE(s.answer(answer, &accepted, &err)) << err;
  EXPECT_EQ(accepted, std::vector<uint16_t>{1000}) << "chat is relayed; the T.140 stream is the bridge's";
  lg::BValue st = s.stats();
  EXPECT_EQ(st["channels"].list.size(), 1u);
  EXPECT_EQ(st["text"].str("state"), "answered");
  EXPECT_FALSE(s.textOfferFromIms(loop, o, imsOffer, &textOffer, &textAnswer, &err)) << "one text bridge per call";
}
