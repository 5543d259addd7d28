// rtpengine ng control client: "<cookie> <bencoded dict>" over UDP, one socket per loop.
// Requests are retransmitted with the same cookie (rtpengine answers duplicates from its cookie
// cache, so a retransmitted offer does not allocate a second call).
#pragma once
#include <netinet/in.h>

#include <functional>
#include <string>
#include <unordered_map>

#include "bencode.h"
#include "event_loop.h"

namespace lg {

class NgClient : public EventLoop::Handler {
 public:
  // ok=false: timeout, unparsable reply or result != "ok" (err says which).
  using Callback = std::function<void(bool ok, const BValue& reply, const std::string& err)>;

  NgClient(EventLoop& loop, const sockaddr_in& target, std::string cookiePrefix);
  ~NgClient() override;
  bool open(std::string* err);
  void send(const BValue& command, Callback cb);
  void onReadable() override;
  void tick(int64_t now);  // retransmits and times out requests; call every ~50 ms
  size_t pending() const { return pending_.size(); }
  int64_t retransmits() const { return retransmits_; }

  static constexpr int64_t kRetransmitNs = 500'000'000;
  static constexpr int kMaxTries = 6;  // ~3 s

 private:
  struct Pending {
    std::string packet;
    Callback cb;
    int tries = 1;
    int64_t nextSend = 0;
  };
  EventLoop& loop_;
  sockaddr_in target_;
  std::string prefix_;
  int fd_ = -1;
  uint64_t seq_ = 0;
  int64_t retransmits_ = 0;
  std::unordered_map<std::string, Pending> pending_;
};

}  // namespace lg
