// NgSignaling against a scripted rtpengine: a UDP socket in the test that reads the real NgClient's
// commands and answers them (replies with SDPs rtpengine 10.5 really returned, tests/fixtures).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "bencode.h"
#include "event_loop.h"
#include "fake_host.h"
#include "ng_client.h"
#include "ng_signaling.h"

using namespace lg;
using lg::testing::FakeHost;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(LOADGEN_FIXTURES) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// rtpengine's side of the ng socket.
struct FakeRtpengine {
  int fd = -1;
  sockaddr_in addr{};
  sockaddr_in client{};
  FakeRtpengine() {
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  }
  ~FakeRtpengine() { close(fd); }
  // A command waiting on the socket (cookie, dict); false when there is none.
  bool poll(std::string& cookie, BValue& cmd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) != 1) return false;
    char buf[65536];
    socklen_t len = sizeof client;
    ssize_t n = recvfrom(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&client), &len);
    std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
    size_t sp = text.find(' ');
    if (sp == std::string::npos) return false;
    cookie = text.substr(0, sp);
    return bdecode(text.substr(sp + 1), cmd);
  }
  void reply(const std::string& cookie, const BValue& r) {
    std::string pkt = cookie + " " + bencode(r);
    sendto(fd, pkt.data(), pkt.size(), 0, reinterpret_cast<sockaddr*>(&client), sizeof client);
  }
};

BValue okWithSdp(const std::string& sdp) {
  BValue r = BValue::makeDict();
  r["result"] = "ok";
  if (!sdp.empty()) r["sdp"] = sdp;
  return r;
}

std::vector<std::string> strings(const BValue* list) {
  std::vector<std::string> out;
  if (list)
    for (const auto& v : list->list) out.push_back(v.s);
  return out;
}

struct NgFixture : ::testing::Test {
  FakeRtpengine rtpengine;
  EventLoop loop;
  std::unique_ptr<NgClient> ng;
  Config cfg;
  std::mt19937_64 rng{7};
  FakeHost host;
  void SetUp() override {
    ng = std::make_unique<NgClient>(loop, rtpengine.addr, "t_");
    std::string err;
    ASSERT_TRUE(ng->open(&err)) << err;
    host.r.index = 3;
    host.r.callId = "lg-1-3-abc";
  }
  // Runs the loop until cond() or 2 s.
  template <class F>
  bool runUntil(F cond) {
    int64_t end = nowNs() + 2'000'000'000LL;
    for (;;) {
      if (cond()) return true;  // evaluated once per round: a poll consumes what it found
      if (nowNs() >= end) return false;
      loop.runOnce(10);
      ng->tick(nowNs());
    }
  }
  // The next ng command the client sent, running the loop meanwhile; false after 2 s without one.
  bool next(std::string& cookie, BValue& cmd) {
    return runUntil([&] { return rtpengine.poll(cookie, cmd); });
  }
};

}  // namespace

TEST_F(NgFixture, OfferAnswerDelete) {
  NgSignaling sig(host, *ng, cfg, rng, host.r);
  EXPECT_FALSE(sig.mayHoldCall());
  sig.start("v=0 browser offer", nowNs());
  EXPECT_TRUE(sig.mayHoldCall());  // rtpengine may create the call even if its reply is lost
  EXPECT_STREQ(sig.setupPhase(), "ng-offer");

  std::string cookie;
  BValue cmd;
  ASSERT_TRUE(next(cookie, cmd));
  EXPECT_EQ(cmd.str("command"), "offer");
  EXPECT_EQ(cmd.str("call-id"), "lg-1-3-abc");
  EXPECT_EQ(cmd.str("from-tag"), "lgb3");
  EXPECT_EQ(cmd.str("sdp"), "v=0 browser offer");
  EXPECT_EQ(cmd.str("transport-protocol"), "RTP/AVP");
  EXPECT_EQ(cmd.str("ICE"), "remove");
  EXPECT_EQ(strings(cmd.find("rtcp-mux")), std::vector<std::string>{"demux"});
  EXPECT_EQ(strings(cmd.find("flags")), (std::vector<std::string>{"trust-address", "strip-extmap"}));
  EXPECT_EQ(strings(cmd.find("replace")), (std::vector<std::string>{"origin", "session-connection"}));
  EXPECT_EQ(cmd.find("codec"), nullptr);
  rtpengine.reply(cookie, okWithSdp(fixture("rtpengine-10.5-offer-to-ims.sdp")));

  // The far end's answer goes out as soon as the offer reply is in.
  ASSERT_TRUE(next(cookie, cmd)) << host.failWhy;
  EXPECT_STREQ(sig.setupPhase(), "ng-answer");
  EXPECT_GT(host.r.imsPort, 0);
  EXPECT_EQ(cmd.str("command"), "answer");
  EXPECT_EQ(cmd.str("from-tag"), "lgb3");
  EXPECT_EQ(cmd.str("to-tag"), "lgf3");
  EXPECT_EQ(cmd.str("transport-protocol"), "UDP/TLS/RTP/SAVPF");
  EXPECT_EQ(cmd.str("ICE"), "force");
  EXPECT_EQ(cmd.str("DTLS"), "active");
  EXPECT_EQ(strings(cmd.find("rtcp-mux")), (std::vector<std::string>{"offer", "require"}));
  EXPECT_NE(cmd.str("sdp").find("m=audio 40000 RTP/AVP 111"), std::string::npos) << cmd.str("sdp");
  EXPECT_NE(cmd.str("sdp").find("c=IN IP4 127.0.0.1"), std::string::npos) << cmd.str("sdp");
  std::string browserSdp = fixture("rtpengine-10.5-answer-to-browser.sdp");
  rtpengine.reply(cookie, okWithSdp(browserSdp));
  ASSERT_TRUE(runUntil([&] { return !host.remoteSdp.empty(); }));
  EXPECT_EQ(host.remoteSdp, browserSdp);
  EXPECT_TRUE(host.failPhase.empty()) << host.failWhy;

  host.stg = CallStage::Ending;
  sig.end(nowNs());
  ASSERT_TRUE(next(cookie, cmd));
  EXPECT_EQ(cmd.str("command"), "delete");
  EXPECT_EQ(cmd.str("call-id"), "lg-1-3-abc");
  EXPECT_EQ(cmd.str("from-tag"), "lgb3");
  ASSERT_NE(cmd.find("delete-delay"), nullptr);
  EXPECT_EQ(cmd.find("delete-delay")->i, 0);
  rtpengine.reply(cookie, okWithSdp(""));
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_TRUE(host.r.deleted);

  CallResult r;
  sig.report(r);
  EXPECT_GE(r.ngOfferMs, 0);
  EXPECT_GE(r.ngAnswerMs, 0);
  EXPECT_EQ(r.wsCallingMs, -1);  // gateway timings stay unset
}

TEST_F(NgFixture, OfferErrorFailsInNgOffer) {
  NgSignaling sig(host, *ng, cfg, rng, host.r);
  sig.start("v=0", nowNs());
  std::string cookie;
  BValue cmd;
  ASSERT_TRUE(next(cookie, cmd));
  BValue r = BValue::makeDict();
  r["result"] = "error";
  r["error-reason"] = "Ran out of ports";
  rtpengine.reply(cookie, r);
  ASSERT_TRUE(runUntil([&] { return !host.failPhase.empty(); }));
  EXPECT_EQ(host.failPhase, "ng-offer");
  EXPECT_EQ(host.failWhy, "rtpengine: error: Ran out of ports");
  CallResult rep;
  sig.report(rep);
  EXPECT_GE(rep.ngOfferMs, 0);
  EXPECT_EQ(rep.ngAnswerMs, -1);
}

TEST_F(NgFixture, PlainRtpAnswerKeepsRtpAvp) {
  cfg.plainRtp = true;
  BValue a = NgSignaling::answerCommand(cfg, "c", "lgb0", "lgf0", "v=0");
  EXPECT_EQ(a.str("transport-protocol"), "RTP/AVP");
  EXPECT_EQ(a.str("ICE"), "remove");
  EXPECT_EQ(a.find("DTLS"), nullptr);
  EXPECT_EQ(a.find("rtcp-mux"), nullptr);
}

TEST_F(NgFixture, TranscodeOffersOnlyTheForcedCodecAndChecksIt) {
  ASSERT_TRUE(findImsCodec("PCMA", cfg.imsCodec));
  cfg.transcode = true;
  NgSignaling sig(host, *ng, cfg, rng, host.r);
  sig.start("v=0", nowNs());
  std::string cookie;
  BValue cmd;
  ASSERT_TRUE(next(cookie, cmd));
  const BValue* codec = cmd.find("codec");
  ASSERT_NE(codec, nullptr);
  EXPECT_EQ(strings(codec->find("strip")), std::vector<std::string>{"PCMA"});
  EXPECT_EQ(strings(codec->find("mask")), std::vector<std::string>{"all"});
  EXPECT_EQ(strings(codec->find("transcode")), std::vector<std::string>{"PCMA/8000/1/64000"});
  // rtpengine offering IMS Opus instead (cannot transcode): the call fails in ng-offer.
  rtpengine.reply(cookie, okWithSdp(fixture("rtpengine-10.5-offer-to-ims.sdp")));
  ASSERT_TRUE(runUntil([&] { return !host.failPhase.empty(); }));
  EXPECT_EQ(host.failPhase, "ng-offer");
  EXPECT_NE(host.failWhy.find("rtpengine offered IMS 'opus/48000"), std::string::npos) << host.failWhy;
}

TEST_F(NgFixture, TranscodeFarAnswerUsesTheOfferedCodec) {
  ASSERT_TRUE(findImsCodec("PCMA", cfg.imsCodec));
  cfg.transcode = true;
  NgSignaling sig(host, *ng, cfg, rng, host.r);
  sig.start("v=0", nowNs());
  std::string cookie;
  BValue cmd;
  ASSERT_TRUE(next(cookie, cmd));
  rtpengine.reply(cookie, okWithSdp(fixture("rtpengine-10.5-transcode-pcma-offer-reply.sdp")));
  ASSERT_TRUE(next(cookie, cmd)) << host.failWhy;
  EXPECT_EQ(cmd.str("command"), "answer");
  EXPECT_NE(cmd.str("sdp").find("m=audio 40000 RTP/AVP 8"), std::string::npos) << cmd.str("sdp");
  EXPECT_EQ(host.r.imsSdpCodec, "PCMA/8000");
}

TEST_F(NgFixture, LateReplyAfterEndIsIgnored) {
  NgSignaling sig(host, *ng, cfg, rng, host.r);
  sig.start("v=0", nowNs());
  std::string offerCookie, cookie;
  BValue cmd;
  ASSERT_TRUE(next(offerCookie, cmd));
  host.stg = CallStage::Ending;  // e.g. the setup timeout hit: the call deletes itself
  sig.end(nowNs());
  ASSERT_TRUE(next(cookie, cmd));
  EXPECT_EQ(cmd.str("command"), "delete");
  rtpengine.reply(offerCookie, okWithSdp(fixture("rtpengine-10.5-offer-to-ims.sdp")));
  rtpengine.reply(cookie, okWithSdp(""));
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_TRUE(host.r.imsSdpCodec.empty());  // the offer reply came too late to be used
  EXPECT_TRUE(host.failPhase.empty());
}
