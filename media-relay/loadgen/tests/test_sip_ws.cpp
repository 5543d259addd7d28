// SipWsLink + SipWsSignaling against a scripted eP-CSCF: a WebSocket server thread in the test reads the real
// WsClient's SIP messages (REGISTER, INVITE, ACK, BYE, CANCEL, responses) and answers as the lab's Kamailio would.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "event_loop.h"
#include "fake_host.h"
#include "http.h"
#include "sip_dialog.h"
#include "sip_message.h"
#include "sip_ws_link.h"
#include "sip_ws_signaling.h"
#include "ws_client.h"
#include "ws_test_server.h"

using namespace lg;
using lg::testing::FakeHost;
using lg::testing::MiniServer;

namespace {

const char* kToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzaXA6YWxpY2VAaW1zLmxhYiJ9.c2ln";
const char* kServiceRoute = "<sip:orig@127.0.0.1:5062;lr>";
const char* kAnswerSdp = "v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 30002 UDP/TLS/RTP/SAVPF 111\r\n";
const char* kOfferSdp = "v=0\r\no=- 3 3 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 30004 UDP/TLS/RTP/SAVPF 111\r\n";

struct SipWsFixture : ::testing::Test {
  MiniServer srv;
  std::mutex mu;
  std::vector<sip::Message> got;  // the client's messages, as the server read them
  WsClient ws;
  EventLoop loop;
  std::unique_ptr<SipWsLink> link;
  Config cfg;
  FakeHost host;
  sip::UaIdentity server;  // the eP-CSCF's side of responses

  SipWsFixture() {
    server.viaHost = "127.0.0.1:5066";
    server.contact = "<sip:ue1@127.0.0.1:5070>";
    cfg.hangupWaitS = 2;
  }
  template <class F>
  void serve(F script) {
    srv.th = std::thread([this, script] {
      int fd = srv.acceptUpgrade();
      ws::Decoder d;
      script(fd, d);
      ::close(fd);
    });
    http::Url url;
    ASSERT_TRUE(http::parseUrl("ws://127.0.0.1:" + std::to_string(srv.port) + "/", url, nullptr));
    std::string err;
    ASSERT_TRUE(ws.connect(url, 2000, &err, {"sip"})) << err;
    link = std::make_unique<SipWsLink>(ws, "alice", "sip:alice@ims.lab", "ims.lab", "ue1", kToken, false);
  }
  // The client's next SIP message (server thread); an empty Message (no method, status 0) at EOF or Close.
  sip::Message read(int fd, ws::Decoder& d) {
    ws::Frame f;
    while (MiniServer::readFrame(fd, d, f)) {
      if (f.opcode == ws::kClose) break;
      if (f.opcode != ws::kText) continue;
      sip::Message m;
      std::string err;
      if (!sip::parse(f.payload, m, &err)) {
        m = sip::Message{};
        m.reason = "unparsable: " + err;
      }
      std::lock_guard<std::mutex> lock(mu);
      got.push_back(m);
      return m;
    }
    return sip::Message{};
  }
  static void send(int fd, const sip::Message& m) { MiniServer::sendText(fd, m.str()); }
  // 200 to a REGISTER with the Service-Route the S-CSCF adds
  void okRegister(int fd, const sip::Message& reg) {
    sip::Message ok = sip::response(reg, 200, "OK", "regtag", server);
    ok.add("Contact", reg.header("Contact"));
    ok.add("Service-Route", kServiceRoute);
    send(fd, ok);
  }
  template <class F>
  bool runUntil(F cond) {
    int64_t end = nowNs() + 3'000'000'000LL;
    while (!cond() && nowNs() < end) loop.runOnce(10);
    return cond();
  }
  bool registerNow() {
    std::string err;
    bool ok = link->registerOn(loop, 600, 2000, &err);
    EXPECT_TRUE(ok) << err;
    link->attach(loop);
    return ok;
  }
  std::vector<sip::Message> received() {
    std::lock_guard<std::mutex> lock(mu);
    return got;
  }
  void TearDown() override {
    if (link && ws.open()) ws.closeBlocking(1000);
    if (srv.th.joinable()) srv.th.join();
  }
};

}  // namespace

TEST_F(SipWsFixture, RegistersThenMoCallIsAckedAlongTheRouteSetAndHungUpWithBye) {
  serve([this](int fd, ws::Decoder& d) {
    sip::Message reg = read(fd, d);
    if (reg.method != "REGISTER") return;
    okRegister(fd, reg);
    sip::Message inv = read(fd, d);
    if (inv.method != "INVITE") return;
    send(fd, sip::response(inv, 100, "Trying", "", server));
    send(fd, sip::response(inv, 180, "Ringing", "uetag", server));
    sip::Message ok = sip::response(inv, 200, "OK", "uetag", server);
    ok.add("Record-Route", "<sip:127.0.0.1:5062;lr>, <sip:127.0.0.1;lr;r2=on>");
    ok.add("Record-Route", "<sip:127.0.0.1:5066;transport=ws;lr;r2=on>");
    ok.add("Content-Type", "application/sdp");
    ok.body = kAnswerSdp;
    send(fd, ok);
    sip::Message ack = read(fd, d);
    send(fd, ok);  // the 200 retransmitted: the client ACKs again
    read(fd, d);
    sip::Message bye = read(fd, d);
    if (bye.method != "BYE") return;
    send(fd, sip::response(bye, 200, "OK", "", server));
    sip::Message dereg = read(fd, d);
    if (dereg.method == "REGISTER") okRegister(fd, dereg);
    read(fd, d);  // until the client closes
  });
  ASSERT_TRUE(registerNow());
  EXPECT_TRUE(link->registered());
  EXPECT_EQ(link->serviceRoute(), kServiceRoute);
  SipWsSignaling sig(host, *link, cfg);
  EXPECT_FALSE(sig.mayHoldCall());
  sig.start("v=0 browser offer\r\n", nowNs());
  EXPECT_TRUE(sig.mayHoldCall());
  EXPECT_STREQ(sig.setupPhase(), "sip");
  ASSERT_TRUE(runUntil([&] { return !host.remoteSdp.empty(); })) << host.failWhy;
  EXPECT_EQ(host.remoteSdp, kAnswerSdp);
  EXPECT_FALSE(host.r.earlyAnswer);
  ASSERT_TRUE(runUntil([&] { return received().size() >= 4; })) << "no second ACK for the retransmitted 200";

  host.stg = CallStage::Ending;
  sig.end(nowNs());
  ASSERT_TRUE(runUntil([&] { return host.finished; })) << "no 200 to the BYE seen";
  EXPECT_TRUE(host.r.deleted);
  EXPECT_EQ(host.r.endReason, "local-hangup");
  EXPECT_TRUE(host.failPhase.empty()) << host.failWhy;
  sig.release();

  link->detach();
  EventLoop after;
  std::string err;
  EXPECT_TRUE(link->registerOn(after, 0, 2000, &err)) << err;
  EXPECT_FALSE(link->registered());
  CallResult r;
  sig.report(r);
  EXPECT_GE(r.wsCallingMs, 0) << "INVITE -> 100";
  EXPECT_GE(r.wsRingingMs, r.wsCallingMs) << "INVITE -> 180";
  EXPECT_GE(r.wsAnsweredMs, r.wsRingingMs) << "INVITE -> 200";
  EXPECT_GE(r.hangupMs, 0) << "BYE -> 200";

  TearDown();
  auto msgs = received();
  ASSERT_GE(msgs.size(), 6u);
  const sip::Message &reg = msgs[0], &inv = msgs[1], &ack = msgs[2], &ack2 = msgs[3], &bye = msgs[4], &dereg = msgs[5];
  EXPECT_EQ(reg.uri, "sip:ims.lab");
  EXPECT_EQ(sip::uri(reg.header("To")), "sip:alice@ims.lab");
  EXPECT_NE(reg.header("Contact").find(";transport=ws>"), std::string::npos) << reg.header("Contact");
  EXPECT_NE(reg.header("Contact").find(".invalid"), std::string::npos) << "RFC 7118 §5: a .invalid host in Contact";
  EXPECT_EQ(reg.header("Expires"), "600");
  EXPECT_EQ(reg.header("Via").rfind("SIP/2.0/WS ", 0), 0u) << reg.header("Via");
  for (const auto& m : msgs)
    EXPECT_EQ(m.header("Authorization"), std::string("Bearer ") + kToken) << m.method << " went out without the access token";
  EXPECT_EQ(inv.uri, "sip:ue1@ims.lab") << "--to ue1 is a user of the token's domain";
  EXPECT_EQ(inv.all("Route"), std::vector<std::string>{kServiceRoute}) << "RFC 3608: the Service-Route preloaded";
  EXPECT_EQ(inv.header("Content-Type"), "application/sdp");
  EXPECT_EQ(inv.body, "v=0 browser offer\r\n");
  EXPECT_EQ(host.r.gwCallId, inv.callId());
  EXPECT_EQ(ack.method, "ACK");
  EXPECT_EQ(ack.uri, "sip:ue1@127.0.0.1:5070") << "the ACK goes to the 200's Contact";
  EXPECT_EQ(ack.all("Route"), (std::vector<std::string>{"<sip:127.0.0.1:5066;transport=ws;lr;r2=on>", "<sip:127.0.0.1;lr;r2=on>",
                                                        "<sip:127.0.0.1:5062;lr>"}));
  EXPECT_EQ(ack.header("CSeq"), "1 ACK");
  EXPECT_EQ(ack2.method, "ACK");
  EXPECT_EQ(bye.method, "BYE");
  EXPECT_EQ(bye.header("CSeq"), "2 BYE");
  EXPECT_EQ(sip::tag(bye.header("To")), "uetag");
  EXPECT_EQ(bye.all("Route"), ack.all("Route"));
  EXPECT_EQ(dereg.method, "REGISTER");
  EXPECT_EQ(dereg.header("Expires"), "0");
  EXPECT_EQ(dereg.callId(), reg.callId()) << "one registration Call-ID";
  EXPECT_EQ(dereg.cseq(), reg.cseq() + 1);
  EXPECT_EQ(link->unmatched(), 0u);
  EXPECT_EQ(link->badMessages(), 0u);
}

TEST_F(SipWsFixture, ARefusedRegisterNamesTheEpCscfsReason) {
  serve([this](int fd, ws::Decoder& d) {
    sip::Message reg = read(fd, d);
    if (reg.method != "REGISTER") return;
    sip::Message r = sip::response(reg, 401, "Unauthorized - token expired", "x", server);
    r.add("WWW-Authenticate", "Bearer realm=\"ims.lab\", error=\"invalid_token\", error_description=\"token expired\"");
    send(fd, r);
    read(fd, d);
  });
  std::string err;
  EXPECT_FALSE(link->registerOn(loop, 600, 2000, &err));
  EXPECT_NE(err.find("REGISTER of sip:alice@ims.lab refused: 401 Unauthorized - token expired"), std::string::npos) << err;
  EXPECT_NE(err.find("error_description=\"token expired\""), std::string::npos) << err;
  EXPECT_FALSE(link->registered());
}

TEST_F(SipWsFixture, MtCallIsAnsweredWith180And200AndTheCallersByeEndsItNormally) {
  std::atomic<bool> inMedia{false};
  serve([this, &inMedia](int fd, ws::Decoder& d) {
    sip::Message reg = read(fd, d);
    if (reg.method != "REGISTER") return;
    okRegister(fd, reg);
    sip::Message inv;
    inv.request = true;
    inv.method = "INVITE";
    inv.uri = sip::uri(reg.header("Contact")) + ";alias=127.0.0.1~40000~5";
    inv.add("Via", "SIP/2.0/WS 127.0.0.1:5066;branch=z9hG4bKmt1");
    inv.add("Record-Route", "<sip:127.0.0.1:5066;transport=ws;lr;r2=on>, <sip:127.0.0.1;lr;r2=on>");
    inv.add("From", "<sip:ue2@ims.lab>;tag=caller");
    inv.add("To", "<sip:alice@ims.lab>");
    inv.add("Call-ID", "mt-call-1");
    inv.add("CSeq", "1 INVITE");
    inv.add("Contact", "<sip:ue2@127.0.0.1:5080>");
    inv.add("Content-Type", "application/sdp");
    inv.body = kOfferSdp;
    // in a binary frame: RFC 7118 §5.1 lets the eP-CSCF send a SIP message in either kind
    std::string frame = ws::encodeFrame(ws::kBinary, inv.str(), true, nullptr);
    ::send(fd, frame.data(), frame.size(), 0);
    sip::Message ringing = read(fd, d), ok = read(fd, d);
    if (ok.status != 200) return;
    sip::Message ack;
    ack.request = true;
    ack.method = "ACK";
    ack.uri = "sip:alice@x.invalid";
    ack.add("Via", "SIP/2.0/WS 127.0.0.1:5066;branch=z9hG4bKmt2");
    ack.add("From", inv.header("From"));
    ack.add("To", ok.header("To"));
    ack.add("Call-ID", "mt-call-1");
    ack.add("CSeq", "1 ACK");
    send(fd, ack);
    for (int i = 0; i < 300 && !inMedia; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    sip::Message bye = ack;
    bye.method = "BYE";
    bye.remove("Via");
    bye.headers.insert(bye.headers.begin(), {"Via", "SIP/2.0/WS 127.0.0.1:5066;branch=z9hG4bKmt3"});
    bye.remove("CSeq");
    bye.add("CSeq", "2 BYE");
    send(fd, bye);
    read(fd, d);  // 200 to the BYE
    read(fd, d);  // until the client closes
  });
  ASSERT_TRUE(registerNow());
  std::unique_ptr<CallSignaling> sig;
  IncomingCall seen;
  link->onIncoming([&](const IncomingCall& c, int64_t now) {
    seen = c;
    sig = link->makeSignaling(host, cfg, &c, now);
  });
  ASSERT_TRUE(runUntil([&] { return sig != nullptr; })) << "no incoming call announced";
  EXPECT_EQ(seen.callId, "mt-call-1");
  EXPECT_EQ(seen.from, "sip:ue2@ims.lab");
  EXPECT_EQ(seen.sdp, kOfferSdp);
  EXPECT_EQ(host.r.gwCallId, "mt-call-1");
  sig->start("v=0 our answer\r\n", nowNs());  // as Call::answerIncoming does
  host.stg = CallStage::Media;
  inMedia = true;
  ASSERT_TRUE(runUntil([&] { return host.endedNormally; })) << host.failWhy << host.endedEarly;
  EXPECT_EQ(host.r.endReason, "remote-hangup");
  EXPECT_TRUE(host.r.deleted);
  ASSERT_TRUE(runUntil([&] { return received().size() >= 4; }));
  sig->release();

  TearDown();
  auto msgs = received();
  ASSERT_GE(msgs.size(), 4u);
  const sip::Message &ringing = msgs[1], &ok = msgs[2], &byeOk = msgs[3];
  EXPECT_EQ(ringing.status, 180);
  EXPECT_EQ(ok.status, 200);
  EXPECT_FALSE(sip::tag(ok.header("To")).empty());
  EXPECT_EQ(sip::tag(ok.header("To")), sip::tag(ringing.header("To"))) << "one To tag for the dialog";
  EXPECT_EQ(ok.all("Record-Route").size(), 2u);
  EXPECT_EQ(ok.header("Via"), "SIP/2.0/WS 127.0.0.1:5066;branch=z9hG4bKmt1");
  EXPECT_EQ(ok.header("Content-Type"), "application/sdp");
  EXPECT_EQ(ok.body, "v=0 our answer\r\n");
  EXPECT_NE(ok.header("Contact").find(";transport=ws>"), std::string::npos);
  EXPECT_EQ(byeOk.status, 200);
  EXPECT_EQ(byeOk.cseqMethod(), "BYE");
  CallResult r;
  sig->report(r);
  EXPECT_GE(r.wsAnswerSentMs, 0) << "INVITE received -> 200 sent";
}

TEST_F(SipWsFixture, AFailureIsAckedOnTheInvitesBranchAndFailsTheCallWithItsStatus) {
  serve([this](int fd, ws::Decoder& d) {
    sip::Message reg = read(fd, d);
    if (reg.method != "REGISTER") return;
    okRegister(fd, reg);
    sip::Message inv = read(fd, d);
    send(fd, sip::response(inv, 486, "Busy Here", "busytag", server));
    read(fd, d);  // ACK
    read(fd, d);
  });
  ASSERT_TRUE(registerNow());
  SipWsSignaling sig(host, *link, cfg);
  sig.start("v=0\r\n", nowNs());
  ASSERT_TRUE(runUntil([&] { return !host.failWhy.empty(); }));
  EXPECT_EQ(host.failWhy, "the INVITE was answered SIP 486 Busy Here");
  EXPECT_EQ(host.r.sipCode, 486);
  EXPECT_FALSE(sig.mayHoldCall()) << "after a final failure there is nothing to hang up";
  ASSERT_TRUE(runUntil([&] { return received().size() >= 3; })) << "no ACK for the 486";
  sig.release();
  TearDown();
  auto msgs = received();
  const sip::Message &inv = msgs[1], &ack = msgs[2];
  EXPECT_EQ(ack.method, "ACK");
  EXPECT_EQ(ack.uri, inv.uri);
  EXPECT_EQ(sip::param(ack.header("Via"), "branch"), sip::param(inv.header("Via"), "branch"))
      << "RFC 3261 §17.1.1.3: the ACK of a non-2xx is in the INVITE's transaction";
  EXPECT_EQ(sip::tag(ack.header("To")), "busytag");
  EXPECT_EQ(ack.header("CSeq"), "1 ACK");
}

TEST_F(SipWsFixture, AStopBeforeTheAnswerCancelsAndAcksThe487) {
  serve([this](int fd, ws::Decoder& d) {
    sip::Message reg = read(fd, d);
    if (reg.method != "REGISTER") return;
    okRegister(fd, reg);
    sip::Message inv = read(fd, d);
    send(fd, sip::response(inv, 100, "Trying", "", server));
    sip::Message cancel = read(fd, d);
    if (cancel.method != "CANCEL") return;
    send(fd, sip::response(cancel, 200, "OK", "", server));
    send(fd, sip::response(inv, 487, "Request Terminated", "t487", server));
    read(fd, d);  // ACK
    read(fd, d);
  });
  ASSERT_TRUE(registerNow());
  SipWsSignaling sig(host, *link, cfg);
  sig.start("v=0\r\n", nowNs());
  CallResult r;
  ASSERT_TRUE(runUntil([&] {
    sig.report(r);
    return r.wsCallingMs >= 0;
  })) << "no 100 Trying seen";
  EXPECT_EQ(sig.setupTimeoutReason(), "no 200 to the INVITE within the setup timeout");
  host.stg = CallStage::Ending;
  sig.end(nowNs());
  ASSERT_TRUE(runUntil([&] { return host.finished; })) << "the CANCEL's 487 did not end the call";
  EXPECT_EQ(host.r.endReason, "cancelled");
  EXPECT_TRUE(host.r.deleted);
  ASSERT_TRUE(runUntil([&] { return received().size() >= 4; }));
  sig.release();
  TearDown();
  auto msgs = received();
  const sip::Message &inv = msgs[1], &cancel = msgs[2], &ack = msgs[3];
  EXPECT_EQ(cancel.header("CSeq"), "1 CANCEL");
  EXPECT_EQ(sip::param(cancel.header("Via"), "branch"), sip::param(inv.header("Via"), "branch"));
  EXPECT_EQ(cancel.uri, inv.uri);
  EXPECT_EQ(ack.method, "ACK");
  EXPECT_EQ(sip::tag(ack.header("To")), "t487");
}

TEST_F(SipWsFixture, UnwantedRequestsGetTheirRefusals) {
  serve([this](int fd, ws::Decoder& d) {
    sip::Message reg = read(fd, d);
    if (reg.method != "REGISTER") return;
    okRegister(fd, reg);
    auto req = [](const std::string& method, const std::string& callId, const std::string& extra) {
      sip::Message m;
      std::string err;
      sip::parse(method + " sip:alice@x.invalid SIP/2.0\r\nVia: SIP/2.0/WS 127.0.0.1:5066;branch=z9hG4bK" + callId +
                     "\r\nFrom: <sip:ue2@ims.lab>;tag=f\r\nTo: <sip:alice@ims.lab>" + (method == "BYE" ? ";tag=t" : "") +
                     "\r\nCall-ID: " + callId + "\r\nCSeq: 1 " + method + "\r\nContact: <sip:ue2@127.0.0.1:5080>\r\n" + extra +
                     "Content-Length: 0\r\n\r\n",
                 m, &err);
      return m;
    };
    send(fd, req("INVITE", "refused-1", ""));                          // the handler refuses it: 486
    read(fd, d);
    send(fd, req("INVITE", "precond-1", "Require: precondition\r\n"));  // 420 Bad Extension
    read(fd, d);
    send(fd, req("BYE", "nobody-1", ""));                              // no such call: 481
    read(fd, d);
    send(fd, req("OPTIONS", "ping-1", ""));                            // out of dialog: 200
    read(fd, d);
    read(fd, d);
  });
  ASSERT_TRUE(registerNow());
  int offered = 0;
  link->onIncoming([&](const IncomingCall& c, int64_t) {
    ++offered;
    link->refuseIncoming(c);
  });
  ASSERT_TRUE(runUntil([&] { return received().size() >= 5; }));
  TearDown();
  auto msgs = received();
  EXPECT_EQ(offered, 1) << "an INVITE that requires preconditions never reaches the handler";
  EXPECT_EQ(msgs[1].status, 486);
  EXPECT_EQ(msgs[2].status, 420);
  EXPECT_EQ(msgs[2].header("Unsupported"), "precondition");
  EXPECT_EQ(msgs[3].status, 481);
  EXPECT_EQ(msgs[4].status, 200);
  EXPECT_EQ(msgs[4].cseqMethod(), "OPTIONS");
}

TEST_F(SipWsFixture, ATokenNearItsEndIsRefreshedBeforeTheNextRequestAndAFailedRefreshKeepsTheOldOne) {
  serve([this](int fd, ws::Decoder& d) {
    sip::Message reg = read(fd, d);
    if (reg.method != "REGISTER") return;
    okRegister(fd, reg);
    for (int i = 0; i < 2; ++i) {
      sip::Message inv = read(fd, d);
      if (inv.method != "INVITE") return;
      send(fd, sip::response(inv, 480, "Temporarily Unavailable", "t", server));
      read(fd, d);  // ACK
    }
    read(fd, d);
  });
  ASSERT_TRUE(registerNow());
  std::vector<std::string> presented;
  bool refreshWorks = true;
  // life 0: due at once
  link->keepAlive([&](const std::string& current, std::string& fresh, double& lifeS, std::string* err) {
    presented.push_back(current);
    if (!refreshWorks) {
      *err = "access token refused: HTTP 401 bad-token";
      return false;
    }
    fresh = "fresh.token.two";
    lifeS = 0.5;  // due again 0.4 s later (80 %)
    return true;
  }, 0);
  SipWsSignaling first(host, *link, cfg);
  first.start("v=0\r\n", nowNs());
  ASSERT_TRUE(runUntil([&] { return received().size() >= 3; }));
  EXPECT_EQ(link->tokenRefreshes(), 1u) << "the ACK right after the INVITE needed no second refresh";
  first.release();
  int64_t due = nowNs() + 500'000'000;
  runUntil([&] { return nowNs() >= due; });
  // the next refresh fails: the requests go with the token they have, and the error is kept for the report
  refreshWorks = false;
  FakeHost host2;
  SipWsSignaling second(host2, *link, cfg);
  second.start("v=0\r\n", nowNs());
  ASSERT_TRUE(runUntil([&] { return received().size() >= 5; }));
  second.release();
  TearDown();
  auto msgs = received();
  EXPECT_EQ(msgs[0].header("Authorization"), std::string("Bearer ") + kToken);
  EXPECT_EQ(msgs[1].header("Authorization"), "Bearer fresh.token.two") << "the INVITE after the refresh";
  EXPECT_EQ(msgs[2].header("Authorization"), "Bearer fresh.token.two") << "the ACK of its 480";
  EXPECT_EQ(msgs[3].header("Authorization"), "Bearer fresh.token.two") << "a failed refresh keeps the token";
  EXPECT_EQ(msgs[4].header("Authorization"), "Bearer fresh.token.two");
  EXPECT_EQ(presented, (std::vector<std::string>{kToken, "fresh.token.two"}))
      << "each refresh presents the current token; a failed one is retried after 5 s, not at the ACK right after";
  EXPECT_EQ(link->tokenRefreshes(), 1u);
  EXPECT_EQ(link->refreshError(), "access token refused: HTTP 401 bad-token");
}
