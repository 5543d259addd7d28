// The IMS UE played by loadgen in raw mode: a plain UDP socket that echoes or just counts RTP.
#pragma once
#include <cstdint>
#include <string>

#include "event_loop.h"

namespace lg {

// A bound non-blocking UDP socket on ip:port (port 0 = any; the bound port is written back).
bool openUdp(const std::string& ip, int& fd, uint16_t& port, std::string* err);

class FarEnd : public EventLoop::Handler {
 public:
  bool open(EventLoop& loop, const std::string& ip, uint16_t port, bool echo, std::string* err);
  void close(EventLoop& loop);
  void onReadable() override;
  uint16_t port() const { return port_; }
  uint64_t rx = 0, tx = 0;
  uint64_t voiced = 0;  // RTP packets whose payload is not one repeated byte (silence)
  bool haveFirstSeq = false;
  uint16_t firstSeq = 0;  // first RTP seq seen: shows whether the call's first packets were dropped

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  bool echo_ = true;
};

}  // namespace lg
