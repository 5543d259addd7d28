#include "ws_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace lg {

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
}  // namespace

WsClient::~WsClient() {
  if (conn_.fd() >= 0 && loop_) loop_->remove(conn_.fd());
}

bool WsClient::connect(const http::Url& url, int timeoutMs, std::string* err, const std::vector<std::string>& protocols) {
  int64_t deadline = nowNs() + static_cast<int64_t>(timeoutMs) * 1'000'000;
  if (!conn_.open(url, timeoutMs, err)) return false;
  std::string key = ws::randomKey();
  std::string offered;
  for (const auto& p : protocols) offered += (offered.empty() ? "" : ", ") + p;
  std::string req = http::buildRequest("GET", url, url.path, "",
                                       "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                                           "\r\nSec-WebSocket-Version: 13\r\n" +
                                           (offered.empty() ? "" : "Sec-WebSocket-Protocol: " + offered + "\r\n"));
  auto fail = [&](const std::string& why) {
    if (err) *err = "websocket " + url.host + ":" + std::to_string(url.port) + ": " + why;
    conn_.close();
    return false;
  };
  http::Response resp;
  std::string rest, why;
  int left = std::max<int64_t>(1, (deadline - nowNs()) / 1'000'000);  // connect and handshake share the bound
  if (!http::exchange(conn_, req, true, static_cast<int>(left), resp, rest, &why)) return fail("handshake: " + why);
  if (resp.status != 101) return fail("upgrade refused: HTTP " + std::to_string(resp.status) + " " + resp.reason);
  if (lower(resp.header("upgrade")) != "websocket" || lower(resp.header("connection")).find("upgrade") == std::string::npos)
    return fail("101 reply without Upgrade: websocket / Connection: Upgrade");
  if (resp.header("sec-websocket-accept") != ws::acceptKey(key))
    return fail("Sec-WebSocket-Accept '" + resp.header("sec-websocket-accept") + "' does not match the key");
  std::string selected = resp.header("sec-websocket-protocol");
  if (!selected.empty() && std::find(protocols.begin(), protocols.end(), selected) == protocols.end())
    return fail("the server selected subprotocol '" + selected + "', which was not offered");
  protocol_ = selected;
  decoder_.feed(rest.data(), rest.size());  // frames that came with the 101
  return true;
}

void WsClient::attach(EventLoop& loop, MessageFn onMessage, ClosedFn onClosed) {
  loop_ = &loop;
  onMessage_ = std::move(onMessage);
  onClosed_ = std::move(onClosed);
  if (conn_.fd() >= 0) loop.add(conn_.fd(), this);
  if (!out_.empty()) flush();  // a backlog from the loop it was detached from
  processFrames();
}

void WsClient::detach() {
  if (loop_ && conn_.fd() >= 0) loop_->remove(conn_.fd());
  loop_ = nullptr;
  wantWrite_ = false;
}

bool WsClient::sendText(const std::string& text) {
  if (!open() || closeSent_) return false;
  ++msgsOut_;
  return queue(ws::encodeClientFrame(ws::kText, text));
}

bool WsClient::queue(const std::string& frame) {
  out_ += frame;
  flush();
  return conn_.fd() >= 0;
}

void WsClient::flush() {
  while (conn_.fd() >= 0 && !out_.empty()) {
    ssize_t n = conn_.send(out_.data(), out_.size());
    if (n > 0) {
      out_.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      break;
    } else {
      return shutdown(std::string("send: ") + std::strerror(errno));
    }
  }
  bool want = conn_.fd() >= 0 && !out_.empty();
  if (loop_ && conn_.fd() >= 0 && want != wantWrite_) {
    loop_->setWantWrite(conn_.fd(), this, want);
    wantWrite_ = want;
  }
}

void WsClient::onWritable() { flush(); }

void WsClient::onReadable() {
  char chunk[16384];
  // (TLS: SSL_read drains its record buffer before it reports EAGAIN, so nothing read waits in OpenSSL)
  while (conn_.fd() >= 0) {
    ssize_t n = conn_.recv(chunk, sizeof chunk);
    if (n > 0) {
      decoder_.feed(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    processFrames();  // whatever arrived before the end
    return shutdown(n == 0 ? "connection closed by the gateway" : std::string("recv: ") + std::strerror(errno));
  }
  processFrames();
}

void WsClient::processFrames() {
  ws::Frame f;
  std::string err;
  for (;;) {
    if (conn_.fd() < 0) return;
    ws::Decoder::Result r = decoder_.next(f, &err);
    if (r == ws::Decoder::Result::NeedMore) return;
    if (r == ws::Decoder::Result::Error) return shutdown(err);
    if (f.masked) return shutdown("server frame is masked (RFC 6455 §5.1 forbids it)");
    uint8_t op = 0;
    std::string data;
    switch (assembler_.add(std::move(f), op, data, &err)) {
      case ws::Assembler::Result::Error: return shutdown(err);
      case ws::Assembler::Result::Partial: break;
      case ws::Assembler::Result::Message:
        ++msgsIn_;
        // text, or binary (RFC 7118 §5.1: a SIP message may come in either; the gateway sends text only)
        if ((op == ws::kText || op == ws::kBinary) && onMessage_) onMessage_(data);
        break;
      case ws::Assembler::Result::Control:
        if (op == ws::kPing) {
          ++pings_;
          queue(ws::encodeClientFrame(ws::kPong, data));
        } else if (op == ws::kClose) {
          // Echo the status code (first 2 bytes) as RFC 6455 §5.5.1 asks, then we are done.
          std::string reason = data.size() > 2 ? data.substr(2) : "";
          int code = data.size() >= 2 ? (static_cast<uint8_t>(data[0]) << 8 | static_cast<uint8_t>(data[1])) : 1005;
          if (!closeSent_) {
            closeSent_ = true;
            queue(ws::encodeClientFrame(ws::kClose, data.substr(0, std::min<size_t>(2, data.size()))));
          }
          return shutdown("gateway closed the websocket (" + std::to_string(code) + (reason.empty() ? "" : " " + reason) + ")");
        }
        break;
    }
  }
}

void WsClient::shutdown(const std::string& why) {
  if (closed_) return;
  closed_ = true;
  if (conn_.fd() >= 0) {
    if (loop_) loop_->remove(conn_.fd());
    conn_.close();
  }
  if (onClosed_) onClosed_(why);
}

void WsClient::closeBlocking(int timeoutMs) {
  if (conn_.fd() < 0) return;
  if (loop_) {
    loop_->remove(conn_.fd());
    loop_ = nullptr;
  }
  onClosed_ = nullptr;
  onMessage_ = nullptr;
  if (!closeSent_) {
    closeSent_ = true;
    const char normal[2] = {0x03, static_cast<char>(0xE8)};  // 1000
    out_ += ws::encodeClientFrame(ws::kClose, std::string(normal, 2));
  }
  int64_t deadline = nowNs() + static_cast<int64_t>(timeoutMs) * 1'000'000;
  char chunk[4096];
  while (conn_.fd() >= 0) {
    int left = static_cast<int>((deadline - nowNs()) / 1'000'000);
    if (left <= 0) break;
    pollfd p{conn_.fd(), static_cast<short>(out_.empty() ? POLLIN : POLLOUT), 0};
    if (poll(&p, 1, left) <= 0) break;
    if (!out_.empty()) {
      ssize_t n = conn_.send(out_.data(), out_.size());
      if (n < 0 && errno == EAGAIN) continue;
      if (n <= 0) break;
      out_.erase(0, static_cast<size_t>(n));
      continue;
    }
    ssize_t n = conn_.recv(chunk, sizeof chunk);
    if (n < 0 && errno == EAGAIN) continue;
    if (n <= 0) break;  // EOF after the server's Close: done
  }
  conn_.close();
  closed_ = true;
}

}  // namespace lg
