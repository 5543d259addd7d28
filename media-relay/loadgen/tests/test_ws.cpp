// RFC 6455: accept key (the §1.3 example), frame encoding with masking and the three length forms,
// decoding split input, fragmentation with an interleaved ping, protocol errors; and WsClient against
// a tiny in-process server (handshake, fragmented message, ping -> pong, close).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "event_loop.h"
#include "http.h"
#include "ws_client.h"
#include "ws_frame.h"
#include "ws_test_server.h"

using namespace lg;
using lg::testing::MiniServer;

TEST(WsHandshake, AcceptKeyRfc6455Example) {
  EXPECT_EQ(ws::acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WsHandshake, RandomKeyIs16BytesBase64) {
  std::string k = ws::randomKey();
  EXPECT_EQ(k.size(), 24u);
  EXPECT_EQ(k.substr(22), "==");
  EXPECT_NE(k, ws::randomKey());
}

TEST(WsFrame, MaskedSmallTextRfcExample) {
  // RFC 6455 §5.7: masked "Hello" with key 37 fa 21 3d.
  const uint8_t mask[4] = {0x37, 0xfa, 0x21, 0x3d};
  std::string f = ws::encodeFrame(ws::kText, "Hello", true, mask);
  const uint8_t want[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
  ASSERT_EQ(f.size(), sizeof want);
  EXPECT_EQ(0, memcmp(f.data(), want, sizeof want));
  ws::Decoder d;
  d.feed(f.data(), f.size());
  ws::Frame out;
  ASSERT_EQ(d.next(out, nullptr), ws::Decoder::Result::Frame);
  EXPECT_TRUE(out.fin);
  EXPECT_TRUE(out.masked);
  EXPECT_EQ(out.opcode, ws::kText);
  EXPECT_EQ(out.payload, "Hello");
}

TEST(WsFrame, UnmaskedServerFrame) {
  std::string f = ws::encodeFrame(ws::kText, "Hello", true, nullptr);
  const uint8_t want[] = {0x81, 0x05, 'H', 'e', 'l', 'l', 'o'};
  ASSERT_EQ(f.size(), sizeof want);
  EXPECT_EQ(0, memcmp(f.data(), want, sizeof want));
}

TEST(WsFrame, SixteenAndSixtyFourBitLengths) {
  for (size_t n : {125u, 126u, 65535u, 65536u, 200000u}) {
    std::string payload(n, 'x');
    for (size_t i = 0; i < n; ++i) payload[i] = static_cast<char>(i * 7);
    std::string f = ws::encodeClientFrame(ws::kBinary, payload);
    size_t hdr = n < 126 ? 2 : n <= 65535 ? 4 : 10;
    ASSERT_EQ(f.size(), hdr + 4 + n) << n;
    uint8_t len7 = static_cast<uint8_t>(f[1]) & 0x7F;
    EXPECT_EQ(len7, n < 126 ? n : n <= 65535 ? 126 : 127) << n;
    EXPECT_TRUE(static_cast<uint8_t>(f[1]) & 0x80);
    if (n == 126) {
      EXPECT_EQ(std::string(f, 2, 2), std::string("\x00\x7e", 2));
    }
    if (n == 65536) {
      EXPECT_EQ(std::string(f, 2, 8), std::string("\x00\x00\x00\x00\x00\x01\x00\x00", 8));
    }
    ws::Decoder d;
    ws::Frame out;
    // Byte-by-byte for the header, then the rest: the decoder must wait for complete frames.
    for (size_t i = 0; i < hdr + 3; ++i) {
      d.feed(f.data() + i, 1);
      ASSERT_EQ(d.next(out, nullptr), ws::Decoder::Result::NeedMore) << n << " at " << i;
    }
    d.feed(f.data() + hdr + 3, f.size() - hdr - 3);
    ASSERT_EQ(d.next(out, nullptr), ws::Decoder::Result::Frame) << n;
    EXPECT_EQ(out.payload, payload) << n;
    EXPECT_EQ(d.buffered(), 0u);
  }
}

TEST(WsFrame, FragmentedMessageWithInterleavedPing) {
  std::string wire = ws::encodeFrame(ws::kText, "{\"type\":", false, nullptr) +
                     ws::encodeFrame(ws::kPing, "p1", true, nullptr) +
                     ws::encodeFrame(ws::kCont, "\"calling\",", false, nullptr) +
                     ws::encodeFrame(ws::kCont, "\"callId\":\"x\"}", true, nullptr) +
                     ws::encodeFrame(ws::kText, "next", true, nullptr);
  ws::Decoder d;
  d.feed(wire.data(), wire.size());
  ws::Assembler a;
  std::vector<std::pair<int, std::string>> got;  // (result, data)
  ws::Frame f;
  while (d.next(f, nullptr) == ws::Decoder::Result::Frame) {
    uint8_t op = 0;
    std::string data;
    auto r = a.add(std::move(f), op, data, nullptr);
    if (r != ws::Assembler::Result::Partial) got.emplace_back(static_cast<int>(r) * 16 + op, data);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], std::make_pair(static_cast<int>(ws::Assembler::Result::Control) * 16 + ws::kPing, std::string("p1")));
  EXPECT_EQ(got[1], std::make_pair(static_cast<int>(ws::Assembler::Result::Message) * 16 + ws::kText,
                                   std::string("{\"type\":\"calling\",\"callId\":\"x\"}")));
  EXPECT_EQ(got[2].second, "next");
}

TEST(WsFrame, ProtocolErrors) {
  ws::Frame f;
  std::string err;
  {  // continuation without a start
    ws::Assembler a;
    uint8_t op;
    std::string data;
    ws::Frame c;
    c.opcode = ws::kCont;
    EXPECT_EQ(a.add(std::move(c), op, data, &err), ws::Assembler::Result::Error);
  }
  {  // control frame longer than 125 bytes
    ws::Decoder d;
    std::string bad = ws::encodeFrame(ws::kPing, std::string(126, 'a'), true, nullptr);
    d.feed(bad.data(), bad.size());
    EXPECT_EQ(d.next(f, &err), ws::Decoder::Result::Error);
  }
  {  // reserved opcode 0x3
    ws::Decoder d;
    const char bad[] = {static_cast<char>(0x83), 0x00};
    d.feed(bad, 2);
    EXPECT_EQ(d.next(f, &err), ws::Decoder::Result::Error);
  }
  {  // RSV1 without an extension
    ws::Decoder d;
    const char bad[] = {static_cast<char>(0xC1), 0x00};
    d.feed(bad, 2);
    EXPECT_EQ(d.next(f, &err), ws::Decoder::Result::Error);
  }
}

TEST(WsClient, HandshakeFragmentsPingAndClose) {
  MiniServer srv;
  std::string gotText, gotPong, gotClose;
  srv.th = std::thread([&] {
    int fd = accept(srv.lfd, nullptr, nullptr);
    std::string req = MiniServer::readUntil(fd, "\r\n\r\n");
    size_t k = req.find("Sec-WebSocket-Key: ");
    std::string key = req.substr(k + 19, req.find("\r\n", k) - k - 19);
    std::string resp = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Accept: " + ws::acceptKey(key) + "\r\n\r\n";
    // The first frame rides in the same segment as the 101.
    resp += ws::encodeFrame(ws::kText, "{\"type\":\"pong\"}", true, nullptr);
    resp += ws::encodeFrame(ws::kText, "frag-", false, nullptr) + ws::encodeFrame(ws::kPing, "hi", true, nullptr) +
            ws::encodeFrame(ws::kCont, "ment", true, nullptr);
    send(fd, resp.data(), resp.size(), 0);
    // Expect: the client's text message, then the pong.
    ws::Decoder d;
    ws::Frame f;
    char buf[4096];
    int frames = 0;
    while (frames < 2) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      d.feed(buf, static_cast<size_t>(n));
      while (d.next(f, nullptr) == ws::Decoder::Result::Frame) {
        ++frames;
        if (f.opcode == ws::kText && f.masked) gotText = f.payload;
        if (f.opcode == ws::kPong && f.masked) gotPong = f.payload;
      }
    }
    std::string close = ws::encodeFrame(ws::kClose, std::string("\x03\xe8", 2) + "bye", true, nullptr);
    send(fd, close.data(), close.size(), 0);
    while (d.next(f, nullptr) != ws::Decoder::Result::Frame) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      d.feed(buf, static_cast<size_t>(n));
    }
    if (f.opcode == ws::kClose) gotClose = f.payload;
    ::close(fd);
  });

  http::Url url;
  ASSERT_TRUE(http::parseUrl("ws://127.0.0.1:" + std::to_string(srv.port) + "/ws?token=abc", url, nullptr));
  WsClient c;
  std::string err;
  ASSERT_TRUE(c.connect(url, 2000, &err)) << err;
  EventLoop loop;
  std::vector<std::string> msgs;
  std::string closedWhy;
  c.attach(loop, [&](const std::string& m) {
    msgs.push_back(m);
    if (m == "frag-ment") c.sendText("{\"type\":\"hangup\",\"callId\":\"x\"}");
  }, [&](const std::string& why) { closedWhy = why; });
  int64_t end = nowNs() + 3'000'000'000LL;
  while (closedWhy.empty() && nowNs() < end) loop.runOnce(50);
  ASSERT_EQ(msgs.size(), 2u);
  EXPECT_EQ(msgs[0], "{\"type\":\"pong\"}");
  EXPECT_EQ(msgs[1], "frag-ment");
  EXPECT_EQ(c.pingsAnswered(), 1u);
  EXPECT_NE(closedWhy.find("1000 bye"), std::string::npos) << closedWhy;
  srv.th.join();
  EXPECT_EQ(gotText, "{\"type\":\"hangup\",\"callId\":\"x\"}");
  EXPECT_EQ(gotPong, "hi");
  EXPECT_EQ(gotClose, std::string("\x03\xe8", 2));
}

TEST(WsClient, RejectsWrongAcceptKey) {
  MiniServer srv;
  srv.th = std::thread([&] {
    int fd = accept(srv.lfd, nullptr, nullptr);
    MiniServer::readUntil(fd, "\r\n\r\n");
    std::string resp = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
    send(fd, resp.data(), resp.size(), 0);
    close(fd);
  });
  http::Url url;
  ASSERT_TRUE(http::parseUrl("ws://127.0.0.1:" + std::to_string(srv.port) + "/ws", url, nullptr));
  WsClient c;
  std::string err;
  EXPECT_FALSE(c.connect(url, 2000, &err));
  EXPECT_NE(err.find("Sec-WebSocket-Accept"), std::string::npos) << err;
}

// The gateway's token rides as a subprotocol: offered in Sec-WebSocket-Protocol, never in the URL; a
// protocol the server selects must be one offered.
static void subprotocolRun(const std::string& selected, std::string& request, bool& ok, std::string& err) {
  MiniServer srv;
  srv.th = std::thread([&] {
    int fd = accept(srv.lfd, nullptr, nullptr);
    request = MiniServer::readUntil(fd, "\r\n\r\n");
    size_t k = request.find("Sec-WebSocket-Key: ");
    std::string key = request.substr(k + 19, request.find("\r\n", k) - k - 19);
    std::string resp = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Accept: " + ws::acceptKey(key) + "\r\nSec-WebSocket-Protocol: " + selected + "\r\n\r\n";
    send(fd, resp.data(), resp.size(), 0);
    close(fd);
  });
  http::Url url;
  ASSERT_TRUE(http::parseUrl("ws://127.0.0.1:" + std::to_string(srv.port) + "/ws", url, nullptr));
  WsClient c;
  ok = c.connect(url, 2000, &err, {"lab.v1", "lab.token.tok-9"});
}

TEST(WsClient, OffersSubprotocolsAndChecksTheSelectedOne) {
  std::string request, err;
  bool ok = false;
  subprotocolRun("lab.v1", request, ok, err);
  EXPECT_TRUE(ok) << err;
  EXPECT_NE(request.find("\r\nSec-WebSocket-Protocol: lab.v1, lab.token.tok-9\r\n"), std::string::npos) << request;
  EXPECT_NE(request.find("GET /ws HTTP/1.1"), std::string::npos) << request;

  subprotocolRun("lab.v2", request, ok, err);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("lab.v2"), std::string::npos) << err;
}
