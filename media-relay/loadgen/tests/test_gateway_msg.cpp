// The gateway's browser API messages (docs/architecture.md "Browser API").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_msg.h"

using namespace lg;

TEST(GatewayMsg, LoginReply) {
  http::Response r;
  r.status = 201;
  r.body = R"({"token":"tok-1","wsUrl":"ws://127.0.0.1:8088/ws","wsProtocols":["lab.v1","lab.token.tok-1"],"user":"alice"})";
  std::string token, wsUrl, err;
  ASSERT_TRUE(gw::parseLogin(r, token, wsUrl, &err)) << err;
  EXPECT_EQ(token, "tok-1");
  EXPECT_EQ(wsUrl, "ws://127.0.0.1:8088/ws");
  EXPECT_EQ(gw::wsProtocols(token), (std::vector<std::string>{"lab.v1", "lab.token.tok-1"}));

  r.status = 401;
  r.body = R"({"code":"auth-failed","message":"wrong password"})";
  EXPECT_FALSE(gw::parseLogin(r, token, wsUrl, &err));
  EXPECT_EQ(err, "login failed: HTTP 401 auth-failed (wrong password)");
  r.status = 201;
  r.body = "{}";
  EXPECT_FALSE(gw::parseLogin(r, token, wsUrl, &err));
}

TEST(GatewayMsg, Outgoing) {
  auto call = nlohmann::json::parse(gw::callMessage("ue1", "v=0\r\n"));
  EXPECT_EQ(call["type"], "call");
  EXPECT_EQ(call["to"], "ue1");
  EXPECT_EQ(call["sdp"], "v=0\r\n");
  auto hangup = nlohmann::json::parse(gw::hangupMessage("abc@127.0.0.1"));
  EXPECT_EQ(hangup, (nlohmann::json{{"type", "hangup"}, {"callId", "abc@127.0.0.1"}}));
  auto login = nlohmann::json::parse(gw::loginBody("alice", "a\"b"));
  EXPECT_EQ(login["password"], "a\"b");
}

TEST(GatewayMsg, Events) {
  gw::Event e;
  std::string err;
  ASSERT_TRUE(gw::parseEvent(R"({"type":"calling","callId":"c1","to":"ue1@ims.lab"})", e, &err));
  EXPECT_EQ(e.type, "calling");
  EXPECT_EQ(e.callId, "c1");
  EXPECT_EQ(e.to, "ue1@ims.lab");

  ASSERT_TRUE(gw::parseEvent(R"({"type":"progress","callId":"c1","sipCode":183,"sdp":"v=0"})", e, &err));
  EXPECT_EQ(e.sipCode, 183);
  EXPECT_EQ(e.sdp, "v=0");

  ASSERT_TRUE(gw::parseEvent(R"({"type":"answered","callId":"c1","sdp":"v=0\r\nm=audio 1 UDP/TLS/RTP/SAVPF 111\r\n"})", e, &err));
  EXPECT_EQ(e.type, "answered");
  EXPECT_NE(e.sdp.find("SAVPF"), std::string::npos);

  ASSERT_TRUE(gw::parseEvent(R"({"type":"ended","callId":"c1","reason":"busy here","sipCode":486})", e, &err));
  EXPECT_EQ(e.reason, "busy here");
  EXPECT_EQ(e.sipCode, 486);
  ASSERT_TRUE(gw::parseEvent(R"({"type":"ended","callId":"c1","reason":"local-hangup","sipCode":null})", e, &err));
  EXPECT_EQ(e.sipCode, 0);

  ASSERT_TRUE(gw::parseEvent(R"({"type":"error","code":"bad-sdp","message":"no audio"})", e, &err));
  EXPECT_EQ(e.callId, "");
  EXPECT_EQ(e.code, "bad-sdp");
  EXPECT_EQ(e.message, "no audio");

  EXPECT_FALSE(gw::parseEvent("not json", e, &err));
  EXPECT_FALSE(gw::parseEvent(R"(["type"])", e, &err));
  EXPECT_FALSE(gw::parseEvent(R"({"type":7})", e, &err));
}
