// FarEnd (the IMS UE loadgen plays): echoes RTP to its sender or only counts it; counts non-silent
// payloads and remembers the first sequence number.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "event_loop.h"
#include "far_end.h"
#include "rtp.h"

using namespace lg;

namespace {

struct Peer {  // rtpengine's IMS-side socket, as the far end sees it
  int fd = -1;
  uint16_t port = 0;
  Peer() {
    std::string err;
    EXPECT_TRUE(openUdp("127.0.0.1", fd, port, &err)) << err;
  }
  ~Peer() { close(fd); }
  void sendRtp(uint16_t farPort, uint16_t seq, uint8_t fill, uint8_t first) {
    uint8_t pkt[12 + 40];
    writeRtpHeader(pkt, 8, seq, 0, 0x1234);
    std::fill(pkt + 12, pkt + sizeof pkt, fill);
    pkt[12] = first;
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(farPort);
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    sendto(fd, pkt, sizeof pkt, 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
  }
  int received(int waitMs) {
    int n = 0;
    uint8_t buf[2048];
    pollfd p{fd, POLLIN, 0};
    while (poll(&p, 1, waitMs) == 1 && recv(fd, buf, sizeof buf, 0) > 0) ++n;
    return n;
  }
};

void pump(EventLoop& loop, FarEnd& far, uint64_t rx) {
  int64_t end = nowNs() + 2'000'000'000LL;
  while (far.rx < rx && nowNs() < end) loop.runOnce(10);
}

}  // namespace

TEST(FarEnd, EchoesToTheSenderAndCountsVoicedPackets) {
  EventLoop loop;
  FarEnd far;
  std::string err;
  ASSERT_TRUE(far.open(loop, "127.0.0.1", 0, true, &err)) << err;
  ASSERT_GT(far.port(), 0);
  Peer peer;
  peer.sendRtp(far.port(), 1000, 0xD5, 0xD5);  // PCMA silence: one byte repeated
  peer.sendRtp(far.port(), 1001, 0x55, 0x12);  // a tone
  peer.sendRtp(far.port(), 1002, 0x55, 0x34);
  pump(loop, far, 3);
  EXPECT_EQ(far.rx, 3u);
  EXPECT_EQ(far.tx, 3u);
  EXPECT_EQ(far.voiced, 2u);
  EXPECT_TRUE(far.haveFirstSeq);
  EXPECT_EQ(far.firstSeq, 1000);
  EXPECT_EQ(peer.received(200), 3);
  far.close(loop);
}

TEST(FarEnd, SinkOnlyCounts) {
  EventLoop loop;
  FarEnd far;
  std::string err;
  ASSERT_TRUE(far.open(loop, "127.0.0.1", 0, false, &err)) << err;
  Peer peer;
  peer.sendRtp(far.port(), 7, 0x55, 0x01);
  pump(loop, far, 1);
  EXPECT_EQ(far.rx, 1u);
  EXPECT_EQ(far.tx, 0u);
  EXPECT_EQ(peer.received(100), 0);
  far.close(loop);
}

TEST(FarEnd, PortInUseIsAnError) {
  EventLoop loop;
  Peer peer;  // holds a port
  FarEnd far;
  std::string err;
  EXPECT_FALSE(far.open(loop, "127.0.0.1", peer.port, true, &err));
  EXPECT_NE(err.find("udp socket 127.0.0.1:" + std::to_string(peer.port)), std::string::npos) << err;
}
