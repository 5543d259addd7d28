#include <gtest/gtest.h>

#include "control.h"

using namespace dc;

namespace {
// A fake handler (unit test only): records what the control layer passed on.
struct FakeHandler : ControlHandler {
  int offers = 0;
  std::string lastCall, lastSdp;
  std::vector<DcMap> lastChannels;
  bool offer(const std::string& c, const std::string& sdp, const std::vector<DcMap>& ch, std::string* a,
             std::string* i, std::string*) override {
    ++offers;
    lastCall = c;
    lastSdp = sdp;
    lastChannels = ch;
    *a = "answer-sdp";
    *i = "ims-offer-sdp";
    return true;
  }
  bool answer(const std::string&, const std::string&, std::vector<uint16_t>* acc, std::string*) override {
    acc->push_back(1000);
    return true;
  }
  bool remove(const std::string& c, lg::BValue*, std::string* err) override {
    *err = "unknown call-id " + c;
    return false;
  }
  bool query(const std::string&, lg::BValue* s, std::string*) override {
    *s = lg::BValue::makeDict();
    (*s)["channels"] = lg::BValue::makeList();
    return true;
  }
  std::vector<std::string> calls() const override { return {"c1"}; }
};

lg::BValue reply(const std::string& out, const std::string& cookie) {
  EXPECT_EQ(out.rfind(cookie + " ", 0), 0u) << "the reply must start with the command's cookie: " << out;
  lg::BValue v;
  EXPECT_TRUE(lg::bdecode(out.substr(cookie.size() + 1), v)) << "the reply is not bencode: " << out;
  return v;
}
}  // namespace

TEST(Control, PingPongs) {
  FakeHandler h;
  Control c(h);
  EXPECT_EQ(reply(c.handle("k1 d7:command4:pinge"), "k1").str("result"), "pong");
}

TEST(Control, OfferPassesSdpAndChannelsAndReturnsBothSdps) {
  FakeHandler h;
  Control c(h);
  lg::BValue cmd = lg::BValue::makeDict();
  cmd["command"] = "offer";
  cmd["call-id"] = "call-1";
  cmd["sdp"] = "v=0...";
  lg::BValue ch = lg::BValue::makeDict();
  ch["id"] = 1000;
  ch["label"] = "app";
  ch["ordered"] = "no";
  ch["max-retr"] = 0;
  ch["3gpp-req-app"] = "chatapp";
  cmd["channels"] = lg::BValue::makeList({ch});
  auto r = reply(c.handle("ck " + lg::bencode(cmd)), "ck");
  EXPECT_EQ(r.str("result"), "ok") << r.str("error-reason");
  EXPECT_EQ(r.str("sdp"), "answer-sdp");
  EXPECT_EQ(r.str("ims-sdp"), "ims-offer-sdp");
  EXPECT_EQ(h.lastCall, "call-1");
  ASSERT_EQ(h.lastChannels.size(), 1u);
  EXPECT_EQ(h.lastChannels[0].id, 1000);
  EXPECT_FALSE(h.lastChannels[0].params.ordered);
  EXPECT_EQ(h.lastChannels[0].params.reliability, Reliability::Rexmit);
  EXPECT_EQ(h.lastChannels[0].reqApp(), "chatapp");
}

TEST(Control, ARetransmissionGetsTheCachedReplyNotASecondOffer) {
  FakeHandler h;
  Control c(h);
  std::string cmd = "same d7:call-id1:x7:command5:offer3:sdp3:v=0e";
  std::string first = c.handle(cmd), second = c.handle(cmd);
  EXPECT_EQ(first, second);
  EXPECT_EQ(h.offers, 1) << "the offer must run once for one cookie";
}

TEST(Control, ErrorsSayWhatIsWrong) {
  FakeHandler h;
  Control c(h);
  auto r = reply(c.handle("a1 notbencode"), "a1");
  EXPECT_EQ(r.str("result"), "error");
  EXPECT_NE(r.str("error-reason").find("bencoded"), std::string::npos) << r.str("error-reason");
  r = reply(c.handle("a2 d7:command4:fooee"), "a2");
  EXPECT_NE(r.str("error-reason").find("unknown command"), std::string::npos) << r.str("error-reason");
  r = reply(c.handle("a3 d7:command5:offer3:sdp3:v=0e"), "a3");
  EXPECT_NE(r.str("error-reason").find("call-id"), std::string::npos) << r.str("error-reason");
  r = reply(c.handle("a4 d7:call-id1:x7:command6:deletee"), "a4");
  EXPECT_EQ(r.str("error-reason"), "unknown call-id x");
  r = reply(c.handle("a5 d7:call-id1:x8:channelsld2:idi70000eee7:command5:offer3:sdp3:v=0e"), "a5");
  EXPECT_NE(r.str("error-reason").find("out of range"), std::string::npos) << r.str("error-reason");
  EXPECT_EQ(c.handle("nocookie"), "") << "a datagram without a cookie gets no reply";
}

namespace {
// The fake with calls from IMS: records the IMS offer it was given.
struct MtHandler : FakeHandler {
  std::string imsOffer;
  bool offerFromIms(const std::string& c, const std::string& sdp, std::string* b, std::string* i, std::string*) override {
    lastCall = c;
    imsOffer = sdp;
    *b = "browser-offer-sdp";
    *i = "ims-answer-sdp";
    return true;
  }
};
}  // namespace

TEST(Control, AnOfferFromImsGivesTheBrowserOfferAndTheImsAnswer) {
  MtHandler h;
  Control c(h);
  auto r = reply(c.handle("m1 d7:call-id2:mt7:command5:offer4:from3:ims3:sdp5:v=0 xe"), "m1");
  EXPECT_EQ(r.str("result"), "ok") << r.str("error-reason");
  EXPECT_EQ(r.str("sdp"), "browser-offer-sdp") << "\"sdp\" is what goes to the browser in both directions";
  EXPECT_EQ(r.str("ims-sdp"), "ims-answer-sdp") << "\"ims-sdp\" is what goes to the IMS side in both directions";
  EXPECT_EQ(h.imsOffer, "v=0 x");
  EXPECT_EQ(h.offers, 0) << "an IMS offer must not reach the browser-offer handler";
  r = reply(c.handle("m2 d7:call-id2:mt8:channelsle7:command5:offer4:from3:ims3:sdp3:v=0e"), "m2");
  EXPECT_NE(r.str("error-reason").find("a=dcmap"), std::string::npos) << "channels with an IMS offer: " << r.str("error-reason");
  r = reply(c.handle("m3 d7:call-id2:mt7:command5:offer4:from3:sip3:sdp3:v=0e"), "m3");
  EXPECT_NE(r.str("error-reason").find("neither browser nor ims"), std::string::npos) << r.str("error-reason");
}

TEST(Control, AnEndpointWithoutCallsFromImsSaysSo) {
  FakeHandler h;
  Control c(h);
  auto r = reply(c.handle("n1 d7:call-id2:mt7:command5:offer4:from3:ims3:sdp3:v=0e"), "n1");
  EXPECT_EQ(r.str("result"), "error");
  EXPECT_NE(r.str("error-reason").find("not supported"), std::string::npos) << r.str("error-reason");
}
