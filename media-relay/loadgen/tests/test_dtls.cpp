// Two DtlsSessions handshake through in-memory queues: DTLS-SRTP profile negotiated, fingerprints
// verified and the exported SRTP keys mirrored (client's local = server's remote).
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <vector>

#include "dtls.h"

using namespace lg;

TEST(Dtls, HandshakeExportsMirroredSrtpKeys) {
  std::string err;
  auto ctxA = DtlsContext::create(&err);
  auto ctxB = DtlsContext::create(&err);
  ASSERT_TRUE(ctxA && ctxB) << err;
  EXPECT_EQ(ctxA->fingerprint().size(), 32u * 3 - 1);  // sha-256 "AB:CD:.."
  EXPECT_NE(ctxA->fingerprint(), ctxB->fingerprint());

  std::deque<std::vector<uint8_t>> toServer, toClient;
  DtlsSession client(*ctxA, false, [&](const uint8_t* d, size_t n) { toServer.emplace_back(d, d + n); });
  DtlsSession server(*ctxB, true, [&](const uint8_t* d, size_t n) { toClient.emplace_back(d, d + n); });
  server.start();
  client.start();
  for (int round = 0; round < 50 && !(client.state() == DtlsSession::State::Done &&
                                      server.state() == DtlsSession::State::Done); ++round) {
    while (!toServer.empty()) {
      auto d = std::move(toServer.front());
      toServer.pop_front();
      server.onDatagram(d.data(), d.size());
    }
    while (!toClient.empty()) {
      auto d = std::move(toClient.front());
      toClient.pop_front();
      client.onDatagram(d.data(), d.size());
    }
  }
  ASSERT_EQ(client.state(), DtlsSession::State::Done) << client.error();
  ASSERT_EQ(server.state(), DtlsSession::State::Done) << server.error();
  EXPECT_TRUE(client.verifyPeer("sha-256", ctxB->fingerprint()));
  EXPECT_TRUE(server.verifyPeer("sha-256", ctxA->fingerprint()));

  SrtpKeys ck, sk;
  ASSERT_TRUE(client.exportKeys(ck));
  ASSERT_TRUE(server.exportKeys(sk));
  EXPECT_EQ(std::memcmp(ck.local, sk.remote, 30), 0);
  EXPECT_EQ(std::memcmp(ck.remote, sk.local, 30), 0);
  EXPECT_NE(std::memcmp(ck.local, ck.remote, 30), 0);

  DtlsSession other(*ctxA, false, [](const uint8_t*, size_t) {});
  EXPECT_FALSE(client.verifyPeer("sha-256", ctxA->fingerprint()));  // wrong fingerprint is refused
}
