// EventLoop: a handler removed while a batch of events is dispatched gets none of that batch's remaining events
// (the data-channel endpoint's control `delete` freed a session whose socket had a datagram in the same batch:
// the loop then called into freed memory).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "event_loop.h"

namespace {

struct Pair {
  int fds[2] = {-1, -1};
  Pair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds), 0); }
  ~Pair() { for (int fd : fds) if (fd >= 0) close(fd); }
  void poke() const { EXPECT_EQ(write(fds[1], "x", 1), 1); }
};

struct Counting : lg::EventLoop::Handler {
  int fd;
  int* reads;
  Counting(int f, int* r) : fd(f), reads(r) {}
  void onReadable() override {
    char b[8];
    if (read(fd, b, sizeof b) > 0) ++*reads;
  }
};

// Reads its own datagram, then removes the other handler (as `delete` ends a session; the endpoint then frees it).
struct Remover : lg::EventLoop::Handler {
  lg::EventLoop& loop;
  int fd, victimFd;
  bool fired = false;
  Remover(lg::EventLoop& l, int f, int v) : loop(l), fd(f), victimFd(v) {}
  void onReadable() override {
    char b[8];
    (void)!read(fd, b, sizeof b);
    fired = true;
    loop.remove(victimFd);
  }
};

TEST(EventLoop, AHandlerRemovedDuringTheBatchGetsNoMoreEventsOfIt) {
  lg::EventLoop loop;
  ASSERT_TRUE(loop.ok());
  Pair a, b;
  int victimReads = 0;
  Counting victim(b.fds[0], &victimReads);
  Remover remover(loop, a.fds[0], b.fds[0]);
  ASSERT_TRUE(loop.add(b.fds[0], &victim));
  ASSERT_TRUE(loop.add(a.fds[0], &remover));
  // both ready before the loop waits, the remover's first (epoll lists ready fds in the order they became ready):
  // one batch with the remover's event, then the victim's
  a.poke();
  b.poke();
  loop.runOnce(100);
  ASSERT_TRUE(remover.fired) << "the remover's datagram was not dispatched in the first batch";
  EXPECT_EQ(victimReads, 0) << "the loop dispatched an event to a handler removed earlier in the same batch "
                               "(in the endpoint that handler is freed by then)";
  b.poke();  // no longer registered: a new datagram reaches no handler
  loop.runOnce(50);
  EXPECT_EQ(victimReads, 0) << "a removed fd still reaches its handler";
}

TEST(EventLoop, RemovingAnUnknownFdIsHarmless) {
  lg::EventLoop loop;
  loop.remove(12345);
  loop.runOnce(0);
  SUCCEED();
}

}  // namespace
