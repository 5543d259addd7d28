// HTTP/1.1 response parsing (Content-Length, chunked, close-delimited, 101 + trailing frames,
// incomplete and malformed input) and URL parsing.
#include <gtest/gtest.h>

#include "http.h"

using namespace lg::http;

TEST(HttpResponse, ContentLengthAndIncomplete) {
  std::string full =
      "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\ncontent-length: 27\r\n\r\n"
      "{\"token\":\"t\",\"wsUrl\":\"ws\"}x";
  Response r;
  size_t used = 0;
  for (size_t cut : {10ul, 60ul, full.size() - 3}) {
    EXPECT_EQ(parseResponse(full.substr(0, cut), false, false, r, used, nullptr), Parse::Incomplete) << cut;
  }
  ASSERT_EQ(parseResponse(full, false, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.reason, "Created");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, "{\"token\":\"t\",\"wsUrl\":\"ws\"}x");
  EXPECT_EQ(used, full.size());
}

TEST(HttpResponse, Chunked) {
  std::string s = "HTTP/1.1 401 \r\nTransfer-Encoding: chunked\r\n\r\n"
                  "7\r\n{\"code\"\r\nf;ext=1\r\n:\"auth-failed\"}\r\n0\r\nX-Trailer: 1\r\n\r\n";
  Response r;
  size_t used = 0;
  EXPECT_EQ(parseResponse(s.substr(0, s.size() - 2), false, false, r, used, nullptr), Parse::Incomplete);
  ASSERT_EQ(parseResponse(s, false, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.reason, "");
  EXPECT_EQ(r.body, "{\"code\":\"auth-failed\"}");
  EXPECT_EQ(used, s.size());
}

TEST(HttpResponse, NoLengthEndsAtClose) {
  std::string s = "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nhello";
  Response r;
  size_t used = 0;
  EXPECT_EQ(parseResponse(s, false, false, r, used, nullptr), Parse::Incomplete);
  ASSERT_EQ(parseResponse(s, false, true, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.body, "hello");
}

TEST(HttpResponse, NoContentAndSwitchingProtocols) {
  Response r;
  size_t used = 0;
  ASSERT_EQ(parseResponse("HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n", false, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 204);
  std::string up = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Accept: abc=\r\n\r\n\x81\x02hi";
  ASSERT_EQ(parseResponse(up, true, false, r, used, nullptr), Parse::Complete);
  EXPECT_EQ(r.status, 101);
  EXPECT_EQ(r.header("sec-websocket-accept"), "abc=");
  EXPECT_EQ(up.substr(used), "\x81\x02hi");  // the frame after the header block is left alone
}

TEST(HttpResponse, Malformed) {
  Response r;
  size_t used = 0;
  std::string err;
  EXPECT_EQ(parseResponse("SSH-2.0-OpenSSH\r\n\r\n", false, false, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 2x0 OK\r\n\r\n", false, false, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", false, false, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", false, true, r, used, &err), Parse::Error);
  EXPECT_EQ(parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, false, r, used, &err),
            Parse::Error);
}

TEST(HttpUrl, Parse) {
  Url u;
  ASSERT_TRUE(parseUrl("http://127.0.0.1:8088", u, nullptr));
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 8088);
  EXPECT_EQ(u.path, "/");
  ASSERT_TRUE(parseUrl("ws://localhost:8088/ws?token=a-b", u, nullptr));
  EXPECT_EQ(u.scheme, "ws");
  EXPECT_EQ(u.path, "/ws?token=a-b");
  ASSERT_TRUE(parseUrl("http://gw", u, nullptr));
  EXPECT_EQ(u.port, 80);
  std::string err;
  EXPECT_FALSE(parseUrl("https://gw", u, &err));
  EXPECT_FALSE(parseUrl("127.0.0.1:8088", u, &err));
  EXPECT_FALSE(parseUrl("http://gw:99999/", u, &err));
}

TEST(HttpRequest, Build) {
  Url u;
  parseUrl("http://127.0.0.1:8088", u, nullptr);
  EXPECT_EQ(buildRequest("POST", u, "/api/v1/sessions", "{}"),
            "POST /api/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:8088\r\nUser-Agent: loadgen\r\n"
            "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
}
