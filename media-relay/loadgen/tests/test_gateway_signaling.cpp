// GatewaySignaling + GatewayLink against a scripted gateway: a WebSocket server thread in the test
// that reads the real WsClient's `call`/`hangup` messages and answers with the browser API's events.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>

#include "event_loop.h"
#include "fake_host.h"
#include "gateway_link.h"
#include "gateway_signaling.h"
#include "http.h"
#include "ws_client.h"
#include "ws_test_server.h"

using namespace lg;
using lg::testing::FakeHost;
using lg::testing::MiniServer;
using json = nlohmann::json;

namespace {

struct GatewayFixture : ::testing::Test {
  MiniServer srv;
  std::mutex mu;
  std::vector<json> got;  // the client's messages, as the server read them
  WsClient ws;
  EventLoop loop;
  std::unique_ptr<GatewayLink> link;
  Config cfg;
  FakeHost host;

  // script(fd, decoder) runs on the server thread after the handshake; the connection closes after it.
  template <class F>
  void serve(F script) {
    srv.th = std::thread([this, script] {
      int fd = srv.acceptUpgrade();
      ws::Decoder d;
      script(fd, d);
      ::close(fd);
    });
    http::Url url;
    ASSERT_TRUE(http::parseUrl("ws://127.0.0.1:" + std::to_string(srv.port) + "/ws?token=t", url, nullptr));
    std::string err;
    ASSERT_TRUE(ws.connect(url, 2000, &err)) << err;
    link = std::make_unique<GatewayLink>(ws, "ue1");
    link->attach(loop);
  }
  // The client's next text message (server thread); null at EOF or Close.
  json read(int fd, ws::Decoder& d) {
    ws::Frame f;
    while (MiniServer::readFrame(fd, d, f)) {
      if (f.opcode == ws::kClose) break;
      if (f.opcode != ws::kText) continue;
      json m = json::parse(f.payload, nullptr, false);
      std::lock_guard<std::mutex> lock(mu);
      got.push_back(m);
      return m;
    }
    return nullptr;
  }
  template <class F>
  bool runUntil(F cond) {
    int64_t end = nowNs() + 3'000'000'000LL;
    while (!cond() && nowNs() < end) loop.runOnce(10);
    return cond();
  }
  void TearDown() override {
    if (link && ws.open()) ws.closeBlocking(1000);
    if (srv.th.joinable()) srv.th.join();
  }
};

}  // namespace

TEST_F(GatewayFixture, CallAnsweredThenHangupAndEnded) {
  cfg.hangupWaitS = 5;
  serve([this](int fd, ws::Decoder& d) {
    json call = read(fd, d);
    if (call.is_null()) return;
    MiniServer::sendText(fd, R"({"type":"calling","callId":"c1","to":"ue1@ims.lab"})");
    MiniServer::sendText(fd, R"({"type":"ringing","callId":"c1"})");
    MiniServer::sendText(fd, R"({"type":"answered","callId":"c1","sdp":"v=0 rtpengine answer"})");
    if (read(fd, d).is_null()) return;  // hangup
    MiniServer::sendText(fd, R"({"type":"ended","callId":"c1","reason":"local-hangup","sipCode":null})");
    read(fd, d);  // until the client closes
  });
  GatewaySignaling sig(host, *link, cfg);
  EXPECT_FALSE(sig.mayHoldCall());
  sig.start("v=0 browser offer", nowNs());
  EXPECT_TRUE(sig.mayHoldCall());
  EXPECT_STREQ(sig.setupPhase(), "gateway");
  EXPECT_EQ(sig.setupTimeoutReason(), "no `calling` within the setup timeout");
  ASSERT_TRUE(runUntil([&] { return !host.remoteSdp.empty(); })) << host.failWhy;
  EXPECT_EQ(host.remoteSdp, "v=0 rtpengine answer");
  EXPECT_EQ(host.r.gwCallId, "c1");
  EXPECT_FALSE(host.r.earlyAnswer);
  EXPECT_EQ(sig.setupTimeoutReason(), "no `answered` within the setup timeout");

  host.stg = CallStage::Ending;
  sig.end(nowNs());
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_TRUE(host.r.deleted);
  EXPECT_EQ(host.r.endReason, "local-hangup");
  EXPECT_EQ(host.r.sipCode, 0);
  EXPECT_TRUE(host.failPhase.empty()) << host.failWhy;
  EXPECT_EQ(link->unmatched(), 0u);

  CallResult r;
  sig.report(r);
  EXPECT_GE(r.wsCallingMs, 0);
  EXPECT_GE(r.wsRingingMs, r.wsCallingMs);
  EXPECT_GE(r.wsAnsweredMs, r.wsRingingMs);
  EXPECT_EQ(r.wsEarlySdpMs, -1);
  EXPECT_GE(r.hangupMs, 0);
  EXPECT_EQ(r.ngOfferMs, -1);  // ng timings stay unset

  TearDown();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[0], (json{{"type", "call"}, {"to", "ue1"}, {"sdp", "v=0 browser offer"}}));
  EXPECT_EQ(got[1], (json{{"type", "hangup"}, {"callId", "c1"}}));
}

TEST_F(GatewayFixture, StoppedBeforeCallingHangsUpOnceCallingNamesTheCall) {
  cfg.hangupWaitS = 5;
  serve([this](int fd, ws::Decoder& d) {
    if (read(fd, d).is_null()) return;  // call
    MiniServer::sendText(fd, R"({"type":"calling","callId":"c2"})");
    if (read(fd, d).is_null()) return;  // hangup
    MiniServer::sendText(fd, R"({"type":"ended","callId":"c2","reason":"local-hangup"})");
    read(fd, d);
  });
  GatewaySignaling sig(host, *link, cfg);
  sig.start("v=0", nowNs());
  host.stg = CallStage::Ending;  // a stop before `calling`: nothing to hang up yet
  int64_t now = nowNs();
  sig.end(now);
  ASSERT_EQ(host.armed.size(), 1u);
  EXPECT_EQ(host.armed[0], now + 5'000'000'000LL);  // bounded wait
  EXPECT_FALSE(host.finished);
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_TRUE(host.r.deleted);
  EXPECT_EQ(host.r.gwCallId, "c2");
  TearDown();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1], (json{{"type", "hangup"}, {"callId", "c2"}}));
}

TEST_F(GatewayFixture, ErrorBeforeCallingFailsTheCallWithNothingToHangUp) {
  serve([this](int fd, ws::Decoder& d) {
    if (read(fd, d).is_null()) return;
    MiniServer::sendText(fd, R"({"type":"error","code":"bad-sdp","message":"no audio"})");
    read(fd, d);
  });
  GatewaySignaling sig(host, *link, cfg);
  sig.start("v=0", nowNs());
  ASSERT_TRUE(runUntil([&] { return !host.failWhy.empty(); }));
  EXPECT_EQ(host.failPhase, "(current phase)");
  EXPECT_EQ(host.failWhy, "gateway error bad-sdp: no audio");
  // Call::fail ends the call: the gateway never created it, so it is done at once.
  sig.end(nowNs());
  EXPECT_TRUE(host.finished);
  EXPECT_TRUE(host.r.deleted);
}

TEST_F(GatewayFixture, EndedBeforeAnswerFailsWithTheSipCause) {
  serve([this](int fd, ws::Decoder& d) {
    if (read(fd, d).is_null()) return;
    MiniServer::sendText(fd, R"({"type":"calling","callId":"c3"})");
    MiniServer::sendText(fd, R"({"type":"ended","callId":"c3","reason":"not found","sipCode":404})");
    read(fd, d);
  });
  GatewaySignaling sig(host, *link, cfg);
  sig.start("v=0", nowNs());
  ASSERT_TRUE(runUntil([&] { return !host.failWhy.empty(); }));
  EXPECT_EQ(host.failWhy, "ended: not found (SIP 404)");
  EXPECT_EQ(host.r.sipCode, 404);
  sig.end(nowNs());  // already ended: nothing to hang up
  EXPECT_TRUE(host.finished);
  EXPECT_TRUE(host.r.deleted);
}

TEST_F(GatewayFixture, EarlySdpStartsIceAndSocketLossDuringMediaEndsEarly) {
  std::atomic<bool> inMedia{false};
  serve([&](int fd, ws::Decoder& d) {
    if (read(fd, d).is_null()) return;
    MiniServer::sendText(fd, R"({"type":"calling","callId":"c4"})");
    MiniServer::sendText(fd, R"({"type":"progress","callId":"c4","sipCode":183,"sdp":"v=0 early"})");
    MiniServer::sendText(fd, R"({"type":"answered","callId":"c4","sdp":"v=0 final"})");
    while (!inMedia) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    // return: the connection closes without a Close frame
  });
  GatewaySignaling sig(host, *link, cfg);
  sig.start("v=0", nowNs());
  ASSERT_TRUE(runUntil([&] { return !host.remoteSdp.empty(); }));
  EXPECT_EQ(host.remoteSdp, "v=0 early");  // ICE starts from the early SDP
  EXPECT_TRUE(host.r.earlyAnswer);
  host.stg = CallStage::Media;
  ASSERT_TRUE(runUntil([&] { CallResult r; sig.report(r); return r.wsAnsweredMs >= 0; }));
  EXPECT_EQ(host.remoteSdp, "v=0 early");  // `answered` after the early SDP changes nothing
  inMedia = true;
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_EQ(host.endedEarly.rfind("websocket closed: ", 0), 0u) << host.endedEarly;
  CallResult r;
  sig.report(r);
  EXPECT_GE(r.wsEarlySdpMs, 0);
  EXPECT_GE(r.wsAnsweredMs, r.wsEarlySdpMs);
}

// MT: `incoming` reaches the engine's handler, the call's answer goes out as `answer {callId, sdp}`,
// and the caller's BYE (`ended remote-hangup`) during media is the call's normal end.
TEST_F(GatewayFixture, IncomingAnsweredAndEndedByTheCaller) {
  std::atomic<bool> inMedia{false}, ready{false};
  serve([&](int fd, ws::Decoder& d) {
    while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    MiniServer::sendText(fd, R"({"type":"incoming","callId":"m1","from":"ue2@ims.lab","to":"alice","sdp":"v=0 offer","preconditions":false})");
    if (read(fd, d).is_null()) return;  // answer
    while (!inMedia) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    MiniServer::sendText(fd, R"({"type":"ended","callId":"m1","reason":"remote-hangup","sipCode":null})");
    read(fd, d);
  });
  GatewaySignaling sig(host, *link, cfg);
  std::string offer;
  link->onIncoming([&](const IncomingCall& e, int64_t now) {
    offer = e.sdp;
    sig.adoptIncoming(e.callId, e.from, e.preconditions, now);
    sig.start("v=0 our answer", nowNs());
  });
  ready = true;
  ASSERT_TRUE(runUntil([&] { return !offer.empty(); }));
  EXPECT_EQ(offer, "v=0 offer");
  EXPECT_TRUE(sig.mayHoldCall());  // the gateway holds an incoming call from its INVITE on
  EXPECT_EQ(host.r.gwCallId, "m1");
  EXPECT_EQ(host.r.from, "ue2@ims.lab");
  EXPECT_FALSE(host.r.preconditions);
  host.stg = CallStage::Media;
  inMedia = true;
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_TRUE(host.endedNormally);
  EXPECT_TRUE(host.endedEarly.empty()) << host.endedEarly;
  EXPECT_TRUE(host.r.deleted);
  EXPECT_EQ(host.r.endReason, "remote-hangup");
  EXPECT_EQ(link->unmatched(), 0u);
  CallResult r;
  sig.report(r);
  EXPECT_GE(r.wsAnswerSentMs, 0);
  EXPECT_EQ(r.wsCallingMs, -1);

  TearDown();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(got.size(), 1u);
  EXPECT_EQ(got[0], (json{{"type", "answer"}, {"callId", "m1"}, {"sdp", "v=0 our answer"}}));
}

// MT with preconditions: the SDP goes out at once in `media`, then `answer` without SDP; `alerting`
// changes nothing; our own hangup ends the call (`ended local-hangup`).
TEST_F(GatewayFixture, IncomingWithPreconditionsSendsMediaThenAnswerAndHangsUp) {
  cfg.hangupWaitS = 5;
  std::atomic<bool> ready{false};
  serve([&](int fd, ws::Decoder& d) {
    while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    MiniServer::sendText(fd, R"({"type":"incoming","callId":"m2","from":"ue5@ims.lab","sdp":"v=0 offer","preconditions":true})");
    if (read(fd, d).is_null()) return;  // media
    if (read(fd, d).is_null()) return;  // answer
    MiniServer::sendText(fd, R"({"type":"alerting","callId":"m2"})");
    if (read(fd, d).is_null()) return;  // hangup
    MiniServer::sendText(fd, R"({"type":"ended","callId":"m2","reason":"local-hangup"})");
    read(fd, d);
  });
  GatewaySignaling sig(host, *link, cfg);
  bool got1 = false;
  link->onIncoming([&](const IncomingCall& e, int64_t now) {
    got1 = true;
    sig.adoptIncoming(e.callId, e.from, e.preconditions, now);
    sig.start("v=0 our answer", nowNs());
  });
  ready = true;
  ASSERT_TRUE(runUntil([&] { return got1; }));
  EXPECT_TRUE(host.r.preconditions);
  ASSERT_TRUE(runUntil([&] { std::lock_guard<std::mutex> lock(mu); return got.size() >= 2; }));
  host.stg = CallStage::Media;
  loop.runOnce(50);  // `alerting`
  host.stg = CallStage::Ending;
  sig.end(nowNs());
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_FALSE(host.endedNormally);
  EXPECT_TRUE(host.r.deleted);
  EXPECT_EQ(host.r.endReason, "local-hangup");
  EXPECT_EQ(link->unmatched(), 0u);

  TearDown();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(got.size(), 3u);
  EXPECT_EQ(got[0], (json{{"type", "media"}, {"callId", "m2"}, {"sdp", "v=0 our answer"}}));
  EXPECT_EQ(got[1], (json{{"type", "answer"}, {"callId", "m2"}}));
  EXPECT_EQ(got[2], (json{{"type", "hangup"}, {"callId", "m2"}}));
}

// MT after its media: the call waits for the caller's BYE; when none comes within --hangup-wait it
// hangs up itself (`hangup` -> `ended local-hangup`). MO never waits.
TEST_F(GatewayFixture, IncomingAfterMediaWaitsForTheCallerThenHangsUp) {
  cfg.hangupWaitS = 0.2;
  std::atomic<bool> ready{false};
  serve([&](int fd, ws::Decoder& d) {
    while (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    MiniServer::sendText(fd, R"({"type":"incoming","callId":"m3","from":"ue2@ims.lab","sdp":"v=0 offer"})");
    if (read(fd, d).is_null()) return;  // answer
    if (read(fd, d).is_null()) return;  // hangup, once the wait is over
    MiniServer::sendText(fd, R"({"type":"ended","callId":"m3","reason":"local-hangup"})");
    read(fd, d);
  });
  GatewaySignaling sig(host, *link, cfg);
  bool in = false;
  link->onIncoming([&](const IncomingCall& e, int64_t now) {
    in = true;
    sig.adoptIncoming(e.callId, e.from, e.preconditions, now);
    sig.start("v=0 our answer", nowNs());
  });
  ready = true;
  ASSERT_TRUE(runUntil([&] { return in; }));
  host.stg = CallStage::Ending;  // media and drain done
  int64_t t = nowNs();
  ASSERT_TRUE(sig.awaitRemoteEnd(t));
  EXPECT_TRUE(sig.awaitingRemoteEnd());
  ASSERT_FALSE(host.armed.empty());
  int64_t deadline = host.armed.back();
  EXPECT_NEAR(static_cast<double>(deadline - t), 0.2e9, 1e6);
  sig.onEndTimer(deadline - 1);  // early wake-up: still waiting, re-armed
  EXPECT_TRUE(sig.awaitingRemoteEnd());
  while (nowNs() < deadline) loop.runOnce(10);
  sig.onEndTimer(nowNs());  // the caller stayed: we hang up
  EXPECT_FALSE(sig.awaitingRemoteEnd());
  ASSERT_TRUE(runUntil([&] { return host.finished; }));
  EXPECT_TRUE(host.r.deleted);
  EXPECT_EQ(host.r.endReason, "local-hangup");
  TearDown();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[1], (json{{"type", "hangup"}, {"callId", "m3"}}));
}

TEST_F(GatewayFixture, OriginatedCallNeverWaitsForTheRemoteEnd) {
  serve([this](int fd, ws::Decoder& d) { read(fd, d); });
  GatewaySignaling sig(host, *link, cfg);
  sig.start("v=0", nowNs());
  EXPECT_FALSE(sig.awaitRemoteEnd(nowNs()));
  EXPECT_FALSE(sig.awaitingRemoteEnd());
}

// The gateway watches a call whose relay restarted: `media-check` is answered with the packets received so far.
TEST_F(GatewayFixture, MediaCheckIsAnsweredWithThePacketsReceived) {
  std::atomic<bool> reported{false};
  serve([this, &reported](int fd, ws::Decoder& d) {
    if (read(fd, d).is_null()) return;  // call
    MiniServer::sendText(fd, R"({"type":"calling","callId":"c1","to":"ue1@ims.lab"})");
    MiniServer::sendText(fd, R"({"type":"answered","callId":"c1","sdp":"v=0 rtpengine answer"})");
    MiniServer::sendText(fd, R"({"type":"media-check","callId":"c1"})");
    if (read(fd, d).is_null()) return;  // media-report
    reported = true;
    read(fd, d);  // until the client closes
  });
  GatewaySignaling sig(host, *link, cfg);
  host.r.recv = 1234;
  sig.start("v=0 browser offer", nowNs());
  ASSERT_TRUE(runUntil([&] { return reported.load(); }));
  EXPECT_EQ(link->unmatched(), 0u);
  TearDown();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[1], (json{{"type", "media-report"}, {"callId", "c1"}, {"packetsReceived", 1234}}));
}
