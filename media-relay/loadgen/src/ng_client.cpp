#include "ng_client.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace lg {

NgClient::NgClient(EventLoop& loop, const sockaddr_in& target, std::string cookiePrefix)
    : loop_(loop), target_(target), prefix_(std::move(cookiePrefix)) {}

NgClient::~NgClient() {
  if (fd_ >= 0) {
    loop_.remove(fd_);
    close(fd_);
  }
}

bool NgClient::open(std::string* err) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  // connect() so ICMP port-unreachable surfaces as ECONNREFUSED instead of silent timeouts only.
  if (fd_ < 0 || connect(fd_, reinterpret_cast<const sockaddr*>(&target_), sizeof target_) != 0 ||
      !loop_.add(fd_, this)) {
    if (err) *err = std::string("ng socket: ") + std::strerror(errno);
    return false;
  }
  return true;
}

void NgClient::send(const BValue& command, Callback cb) {
  std::string cookie = prefix_ + std::to_string(++seq_);
  Pending p;
  p.packet = cookie + " " + bencode(command);
  p.cb = std::move(cb);
  p.nextSend = nowNs() + kRetransmitNs;
  ::send(fd_, p.packet.data(), p.packet.size(), 0);  // a lost datagram is retried by tick()
  pending_.emplace(std::move(cookie), std::move(p));
}

void NgClient::onReadable() {
  static thread_local std::vector<char> buf(65536);
  for (;;) {
    ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // EAGAIN, or ECONNREFUSED before rtpengine listens: retransmission handles it
    }
    std::string text(buf.data(), static_cast<size_t>(n));
    size_t sp = text.find(' ');
    if (sp == std::string::npos) continue;
    auto it = pending_.find(text.substr(0, sp));
    if (it == pending_.end()) continue;  // duplicate answer to a retransmission
    Callback cb = std::move(it->second.cb);
    pending_.erase(it);
    BValue reply;
    if (!bdecode(text.substr(sp + 1), reply) || reply.type != BValue::Type::Dict) {
      cb(false, reply, "unparsable ng reply");
    } else if (reply.str("result") != "ok") {
      std::string why = reply.str("error-reason");
      cb(false, reply, "rtpengine: " + reply.str("result") + (why.empty() ? "" : ": " + why));
    } else {
      cb(true, reply, "");
    }
  }
}

void NgClient::tick(int64_t now) {
  std::vector<Callback> expired;
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    if (p.nextSend > now) {
      ++it;
      continue;
    }
    if (p.tries >= kMaxTries) {
      expired.push_back(std::move(p.cb));
      it = pending_.erase(it);
      continue;
    }
    ::send(fd_, p.packet.data(), p.packet.size(), 0);
    ++p.tries;
    ++retransmits_;
    p.nextSend = now + kRetransmitNs;
    ++it;
  }
  BValue none;
  for (auto& cb : expired) cb(false, none, "no ng reply from rtpengine");
}

}  // namespace lg
