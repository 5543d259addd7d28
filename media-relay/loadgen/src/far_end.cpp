#include "far_end.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace lg {

bool openUdp(const std::string& ip, int& fd, uint16_t& port, std::string* err) {  // port 0 = any
  fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (err) *err = "udp socket " + ip + ":" + std::to_string(port) + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    fd = -1;
    return false;
  }
  port = ntohs(a.sin_port);
  return true;
}

bool FarEnd::open(EventLoop& loop, const std::string& ip, uint16_t port, bool echo, std::string* err) {
  echo_ = echo;
  port_ = port;
  if (!openUdp(ip, fd_, port_, err)) return false;
  return loop.add(fd_, this);
}

void FarEnd::close(EventLoop& loop) {
  if (fd_ < 0) return;
  loop.remove(fd_);
  ::close(fd_);
  fd_ = -1;
}

void FarEnd::onReadable() {
  uint8_t buf[2048];
  while (fd_ >= 0) {
    sockaddr_in from{};
    socklen_t flen = sizeof from;
    ssize_t n = recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    ++rx;
    if (!haveFirstSeq && n >= 12) {
      haveFirstSeq = true;
      firstSeq = static_cast<uint16_t>(buf[2] << 8 | buf[3]);
    }
    // Transcoded audio (PCMA/AMR-WB from rtpengine's encoder): silence or a failed decode of our Opus
    // is one byte repeated (PCMA 0xD5); the test tone is not. Counted past the 12-byte header.
    if (n > 13 && std::any_of(buf + 13, buf + n, [&](uint8_t b) { return b != buf[12]; })) ++voiced;
    // Echo to the sender: that is rtpengine's IMS-side port, which forwards back to the browser leg.
    if (echo_ && sendto(fd_, buf, static_cast<size_t>(n), 0, reinterpret_cast<sockaddr*>(&from), flen) == n)
      ++tx;
  }
}

}  // namespace lg
