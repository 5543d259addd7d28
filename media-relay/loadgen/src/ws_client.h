// One RFC 6455 client connection (ws://, or wss:// over OpenSSL). The opening handshake is done blocking (bounded) before the run;
// afterwards the socket is non-blocking and served by the engine's epoll loop: frames are decoded
// and assembled as they arrive, pings answered, writes queued (EPOLLOUT only while a backlog exists).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "event_loop.h"
#include "http.h"
#include "ws_frame.h"

namespace lg {

class WsClient : public EventLoop::Handler {
 public:
  using MessageFn = std::function<void(const std::string& text)>;  // a text or binary message
  using ClosedFn = std::function<void(const std::string& why)>;

  ~WsClient() override;
  // TCP connect + HTTP Upgrade; checks 101, Upgrade/Connection and Sec-WebSocket-Accept. protocols
  // non-empty: offered as Sec-WebSocket-Protocol (the gateway's session token rides there), and a
  // protocol the server selects must be one of them.
  bool connect(const http::Url& url, int timeoutMs, std::string* err, const std::vector<std::string>& protocols = {});
  void attach(EventLoop& loop, MessageFn onMessage, ClosedFn onClosed);
  // Leaves the loop it was attached to (the connection stays open; attach it to another one). SIP over WebSocket
  // registers on a loop of its own before the run and de-registers on one after it (sip_ws_link.h).
  void detach();
  bool sendText(const std::string& text);  // false when the connection is closed
  // Sends a Close frame (once) and waits up to timeoutMs, blocking, for the server's Close or EOF.
  void closeBlocking(int timeoutMs);
  bool open() const { return conn_.fd() >= 0 && !closed_; }
  bool tls() const { return conn_.tls(); }
  const std::string& protocol() const { return protocol_; }  // the subprotocol the server selected ("" = none)
  uint64_t messagesIn() const { return msgsIn_; }
  uint64_t messagesOut() const { return msgsOut_; }
  uint64_t pingsAnswered() const { return pings_; }

  void onReadable() override;
  void onWritable() override;

 private:
  bool queue(const std::string& frame);
  void flush();
  void processFrames();
  void shutdown(const std::string& why);

  http::Stream conn_;        // TCP, or TLS for wss:// (http::configureTls)
  EventLoop* loop_ = nullptr;
  MessageFn onMessage_;
  ClosedFn onClosed_;
  ws::Decoder decoder_;
  ws::Assembler assembler_;
  std::string out_;          // bytes not yet accepted by the kernel
  bool wantWrite_ = false;
  bool closeSent_ = false, closed_ = false;
  std::string protocol_;
  uint64_t msgsIn_ = 0, msgsOut_ = 0, pings_ = 0;
};

}  // namespace lg
