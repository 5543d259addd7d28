// wic_token: the gateway's POST /api/v1/wic-tokens reply, as loadgen reads it (docs/security.md "WIC access tokens").
#include <gtest/gtest.h>

#include <ctime>

#include "wic_token.h"

using namespace lg;

namespace {
http::Response reply(int status, const std::string& body) {
  http::Response r;
  r.status = status;
  r.body = body;
  return r;
}
}  // namespace

TEST(WicToken, ReadsTheTokenImpuDomainAndEpCscfUrl) {
  wic::Token t;
  std::string err;
  ASSERT_TRUE(wic::parseReply(reply(201, R"({"accessToken":"a.b.c","tokenType":"Bearer","expiresAt":"2026-11-27T12:00:00Z",)"
                                         R"("impu":"sip:alice@ims.lab","domain":"ims.lab","wsUrl":"ws://127.0.0.1:5066"})"),
                              t, &err)) << err;
  EXPECT_EQ(t.accessToken, "a.b.c");
  EXPECT_EQ(t.impu, "sip:alice@ims.lab");
  EXPECT_EQ(t.domain, "ims.lab");
  EXPECT_EQ(t.wsUrl, "ws://127.0.0.1:5066");
  EXPECT_EQ(t.expiresAt, "2026-11-27T12:00:00Z");
  // a gateway that names no eP-CSCF: the token is still good (loadgen then needs --pcscf-ws)
  ASSERT_TRUE(wic::parseReply(reply(201, R"({"accessToken":"x","tokenType":"Bearer","impu":"sip:a@d","domain":"d"})"), t, &err));
  EXPECT_EQ(t.wsUrl, "");
}

TEST(WicToken, RefusalsSayWhy) {
  wic::Token t;
  std::string err;
  EXPECT_FALSE(wic::parseReply(reply(401, R"({"code":"auth-failed","message":"wrong user or password"})"), t, &err));
  EXPECT_EQ(err, "access token refused: HTTP 401 auth-failed (wrong user or password)");
  EXPECT_FALSE(wic::parseReply(reply(404, R"({"code":"wic-off","message":"this gateway issues no WIC access tokens"})"), t, &err));
  EXPECT_NE(err.find("wic-off"), std::string::npos) << err;
  EXPECT_FALSE(wic::parseReply(reply(201, "not json"), t, &err));
  EXPECT_NE(err.find("lacks accessToken"), std::string::npos) << err;
  EXPECT_FALSE(wic::parseReply(reply(201, R"({"accessToken":"x","tokenType":"MAC","impu":"sip:a@d","domain":"d"})"), t, &err));
  EXPECT_NE(err.find("expected Bearer"), std::string::npos) << err;
  EXPECT_EQ(wic::requestBody("alice", "p\"w"), R"({"password":"p\"w","user":"alice"})") << "the body is JSON-escaped";
}

TEST(WicToken, ExpiresAtIsReadAsSecondsFromNow) {
  double s = 0;
  ASSERT_TRUE(wic::secondsUntil("2000-01-01T00:00:00Z", s));
  EXPECT_LT(s, -7e8) << "an instant of 2000 is long past";
  std::time_t later = std::time(nullptr) + 300;
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::gmtime(&later));
  ASSERT_TRUE(wic::secondsUntil(std::string(buf) + ".250Z", s));
  EXPECT_NEAR(s, 300.25, 2.0);
  EXPECT_FALSE(wic::secondsUntil("2026-11-27 12:00:00", s)) << "not ISO-8601";
  EXPECT_FALSE(wic::secondsUntil("2026-11-27T12:00:00+01:00", s)) << "the gateway writes UTC (Z) only";
}
