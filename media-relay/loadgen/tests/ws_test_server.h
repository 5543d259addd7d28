// Unit-test WebSocket server: accepts one connection on 127.0.0.1 (ephemeral port); the test's
// thread scripts it with blocking reads and writes (server frames unmasked, as RFC 6455 wants).
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "loopback_listener.h"
#include "ws_frame.h"

namespace lg::testing {

struct MiniServer {
  int lfd = -1;
  int port = 0;
  std::thread th;
  MiniServer() {
    lfd = listenOnLoopback(1, port);
  }
  ~MiniServer() {
    if (th.joinable()) th.join();
    close(lfd);
  }
  static std::string readUntil(int fd, const std::string& end) {
    std::string buf;
    char c;
    while (buf.find(end) == std::string::npos && recv(fd, &c, 1, 0) == 1) buf += c;
    return buf;
  }
  // accept() + a correct 101 answer to the client's Upgrade; returns the connection.
  int acceptUpgrade() {
    int fd = accept(lfd, nullptr, nullptr);
    std::string req = readUntil(fd, "\r\n\r\n");
    size_t k = req.find("Sec-WebSocket-Key: ");
    std::string key = k == std::string::npos ? "" : req.substr(k + 19, req.find("\r\n", k) - k - 19);
    std::string resp = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Accept: " + ws::acceptKey(key) + "\r\n\r\n";
    send(fd, resp.data(), resp.size(), 0);
    return fd;
  }
  static void sendText(int fd, const std::string& text) {
    std::string f = ws::encodeFrame(ws::kText, text, true, nullptr);
    send(fd, f.data(), f.size(), 0);
  }
  // The next client frame (blocking); false at EOF or on a protocol error.
  static bool readFrame(int fd, ws::Decoder& d, ws::Frame& f) {
    char buf[4096];
    for (;;) {
      switch (d.next(f, nullptr)) {
        case ws::Decoder::Result::Frame: return true;
        case ws::Decoder::Result::Error: return false;
        default: break;
      }
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return false;
      d.feed(buf, static_cast<size_t>(n));
    }
  }
};

}  // namespace lg::testing
