#include "event_loop.h"

#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

namespace lg {

int64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

EventLoop::EventLoop() : epfd_(epoll_create1(EPOLL_CLOEXEC)) {}
EventLoop::~EventLoop() {
  if (epfd_ >= 0) close(epfd_);
}

bool EventLoop::add(int fd, Handler* h) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = h;
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) return false;
  handlers_[fd] = h;
  return true;
}

bool EventLoop::setWantWrite(int fd, Handler* h, bool wantWrite) {
  epoll_event ev{};
  ev.events = EPOLLIN | (wantWrite ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  ev.data.ptr = h;
  return epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void EventLoop::remove(int fd) {
  epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
  auto it = handlers_.find(fd);
  if (it == handlers_.end()) return;
  if (dispatching_) removed_.insert(it->second);
  handlers_.erase(it);
}

void EventLoop::runOnce(int maxWaitMs) {
  int64_t now = nowNs();
  int wait = maxWaitMs;
  if (!timers_.empty()) {
    int64_t dueMs = (timers_.top().when - now + 999999) / 1000000;  // round up: never spin early
    if (dueMs < wait) wait = dueMs < 0 ? 0 : static_cast<int>(dueMs);
  }
  epoll_event events[256];
  int n = epoll_wait(epfd_, events, 256, wait);
  dispatching_ = true;
  for (int i = 0; i < n; ++i) {
    auto* h = static_cast<Handler*>(events[i].data.ptr);
    if (removed_.count(h)) continue;  // removed by an earlier handler of this batch: may be freed already
    if (events[i].events & EPOLLOUT) h->onWritable();
    if (removed_.count(h)) continue;  // it removed itself while writing
    if (events[i].events & ~static_cast<uint32_t>(EPOLLOUT)) h->onReadable();  // IN, ERR, HUP
  }
  dispatching_ = false;
  removed_.clear();
  now = nowNs();
  // Fire everything due; handlers may schedule new timers (only future ones are popped next round).
  while (!timers_.empty() && timers_.top().when <= now) {
    Timer t = timers_.top();
    timers_.pop();
    if (timerFn_) timerFn_(t.key, t.when);
  }
}

}  // namespace lg
