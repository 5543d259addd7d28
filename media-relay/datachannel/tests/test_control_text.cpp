#include <gtest/gtest.h>

#include "control.h"

using namespace dc;

namespace {
// A fake handler (unit test only) for the text commands: records the options the control layer parsed.
struct TextHandler : ControlHandler {
  TextBridge::Options last;
  std::string lastCall, lastSdp;
  bool offer(const std::string&, const std::string&, const std::vector<DcMap>&, std::string*, std::string*,
             std::string* err) override {
    *err = "unused";
    return false;
  }
  bool answer(const std::string&, const std::string&, std::vector<uint16_t>*, std::string* err) override {
    *err = "unused";
    return false;
  }
  bool remove(const std::string&, lg::BValue*, std::string* err) override {
    *err = "unused";
    return false;
  }
  bool query(const std::string&, lg::BValue*, std::string* err) override {
    *err = "unused";
    return false;
  }
  std::vector<std::string> calls() const override { return {}; }
  bool textOffer(const std::string& c, const TextBridge::Options& o, std::string* sdp, std::string*) override {
    lastCall = c;
    last = o;
    *sdp = "m=text";
    return true;
  }
  bool textOfferFromIms(const std::string& c, const TextBridge::Options& o, const std::string& sdp, std::string* browserOffer,
                        std::string* imsAnswer, std::string*) override {
    lastCall = c;
    last = o;
    lastSdp = sdp;
    *browserOffer = "m=application";
    *imsAnswer = "m=text answer";
    return true;
  }
  bool textAnswer(const std::string& c, const std::string& sdp, lg::BValue* info, std::string* err) override {
    if (c != "call-1") {
      *err = "unknown call-id " + c;
      return false;
    }
    lastSdp = sdp;
    (*info)["redundancy"] = 2;
    return true;
  }
};

lg::BValue reply(Control& c, const lg::BValue& cmd) {
  static int n = 0;
  std::string cookie = "k" + std::to_string(++n);  // a new cookie each: a repeated one gets the cached reply
  std::string out = c.handle(cookie + " " + lg::bencode(cmd));
  lg::BValue v;
  EXPECT_TRUE(lg::bdecode(out.substr(cookie.size() + 1), v)) << "the reply is not bencode: " << out;
  return v;
}
lg::BValue command(const char* name) {
  lg::BValue cmd = lg::BValue::makeDict();
  cmd["command"] = name;
  cmd["call-id"] = "call-1";
  return cmd;
}
}  // namespace

TEST(ControlText, TextOfferTakesTheChannelAndRedundancyAndReturnsTheTextSdp) {
  TextHandler h;
  Control c(h);
  auto cmd = command("text-offer");
  cmd["channel"] = 9;
  auto r = reply(c, cmd);
  EXPECT_EQ(r.str("result"), "ok") << r.str("error-reason");
  EXPECT_EQ(r.str("sdp"), "m=text");
  EXPECT_EQ(h.lastCall, "call-1");
  EXPECT_EQ(h.last.channel, 9);
  EXPECT_EQ(h.last.generations, 2) << "two redundant generations unless asked otherwise (RFC 4103)";
  EXPECT_EQ(h.last.redPt, 100);
  EXPECT_EQ(h.last.t140Pt, 98);
  auto plain = command("text-offer");
  plain["redundancy"] = 0;
  r = reply(c, plain);
  EXPECT_EQ(r.str("result"), "ok") << r.str("error-reason");
  EXPECT_EQ(h.last.channel, -1) << "no channel: the browser's DCEP channel with protocol t140";
  EXPECT_EQ(h.last.redPt, -1) << "redundancy 0: plain t140 offered";
}

TEST(ControlText, TextAnswerPassesTheSdpAndReturnsTheTermsInUse) {
  TextHandler h;
  Control c(h);
  auto cmd = command("text-answer");
  cmd["sdp"] = "v=0 answer";
  auto r = reply(c, cmd);
  EXPECT_EQ(r.str("result"), "ok") << r.str("error-reason");
  EXPECT_EQ(r.find("redundancy")->i, 2);
  EXPECT_EQ(h.lastSdp, "v=0 answer");
}

TEST(ControlText, BadTextCommandsGetAReason) {
  TextHandler h;
  Control c(h);
  auto cmd = command("text-offer");
  cmd["channel"] = 5000;
  auto r = reply(c, cmd);
  EXPECT_EQ(r.str("result"), "error");
  EXPECT_NE(r.str("error-reason").find("\"channel\" is out of range 0..1023"), std::string::npos) << r.str("error-reason");
  cmd = command("text-offer");
  cmd["red-pt"] = 98;
  r = reply(c, cmd);
  EXPECT_NE(r.str("error-reason").find("the same payload type"), std::string::npos) << r.str("error-reason");
  cmd = command("text-offer");
  cmd["t140-pt"] = "x";
  r = reply(c, cmd);
  EXPECT_NE(r.str("error-reason").find("\"t140-pt\" is not a number"), std::string::npos) << r.str("error-reason");
  cmd = command("text-answer");
  r = reply(c, cmd);
  EXPECT_NE(r.str("error-reason").find("no \"sdp\""), std::string::npos) << r.str("error-reason");
  cmd["sdp"] = "v=0";
  cmd["call-id"] = "nope";
  r = reply(c, cmd);
  EXPECT_EQ(r.str("error-reason"), "unknown call-id nope");
  lg::BValue noCall = lg::BValue::makeDict();
  noCall["command"] = "text-offer";
  r = reply(c, noCall);
  EXPECT_EQ(r.str("error-reason"), "no \"call-id\"");
}

TEST(ControlText, ATextOfferFromImsCarriesItsSdpAndGetsBothSdps) {
  TextHandler h;
  Control c(h);
  auto cmd = command("text-offer");
  cmd["from"] = "ims";
  cmd["sdp"] = "v=0 m=text";
  auto r = reply(c, cmd);
  EXPECT_EQ(r.str("result"), "ok") << r.str("error-reason");
  EXPECT_EQ(r.str("sdp"), "m=application") << "sdp: the offer toward the browser";
  EXPECT_EQ(r.str("ims-sdp"), "m=text answer") << "ims-sdp: the answer to the IMS side";
  EXPECT_EQ(h.lastSdp, "v=0 m=text");
  EXPECT_EQ(h.last.channel, 1001) << "without \"channel\" the browser is offered stream 1001 (the page's own T.140 id)";
  auto noSdp = command("text-offer");
  noSdp["from"] = "ims";
  r = reply(c, noSdp);
  EXPECT_EQ(r.str("result"), "error");
  EXPECT_NE(r.str("error-reason").find("no \"sdp\""), std::string::npos) << r.str("error-reason");
  auto badFrom = command("text-offer");
  badFrom["from"] = "elsewhere";
  r = reply(c, badFrom);
  EXPECT_NE(r.str("error-reason").find("neither browser nor ims"), std::string::npos) << r.str("error-reason");
}
