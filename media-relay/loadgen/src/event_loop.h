// One epoll loop per thread plus a min-heap of timers. Timers carry an opaque key; stale entries
// are filtered by the owner (cheaper than cancelling inside the heap).
#pragma once
#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace lg {

int64_t nowNs();  // CLOCK_MONOTONIC
// Milliseconds from a to b (ns timestamps); -1 when either is unset (0).
inline double msBetween(int64_t a, int64_t b) { return a && b ? (b - a) / 1e6 : -1; }

class EventLoop {
 public:
  struct Handler {
    virtual ~Handler() = default;
    virtual void onReadable() = 0;
    virtual void onWritable() {}  // only for fds registered with wantWrite (the WebSocket)
  };
  using TimerFn = std::function<void(uint64_t key, int64_t when)>;

  EventLoop();
  ~EventLoop();
  bool ok() const { return epfd_ >= 0; }
  bool add(int fd, Handler* h);
  bool setWantWrite(int fd, Handler* h, bool wantWrite);  // EPOLLOUT on/off for an added fd
  // Unregisters fd. Safe inside a handler: a handler removed (and perhaps deleted) while a batch of events is being
  // dispatched gets none of that batch's remaining events (e.g. the control socket's `delete` ends a session whose
  // socket also had a datagram in the same epoll_wait).
  void remove(int fd);
  void schedule(int64_t whenNs, uint64_t key) { timers_.push({whenNs, key}); }
  void setTimerFn(TimerFn fn) { timerFn_ = std::move(fn); }
  // Waits for at most maxWaitMs (less when a timer is due), dispatches I/O, then due timers.
  void runOnce(int maxWaitMs);

 private:
  struct Timer {
    int64_t when;
    uint64_t key;
    bool operator>(const Timer& o) const { return when > o.when; }
  };
  int epfd_ = -1;
  std::unordered_map<int, Handler*> handlers_;  // fd -> its handler, to know which one a remove() retires
  std::unordered_set<Handler*> removed_;        // handlers removed during the current batch: skipped until it ends
  bool dispatching_ = false;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  TimerFn timerFn_;
};

}  // namespace lg
