// Two DtlsTransports (one leg each side) handshake through in-memory queues with the endpoint's own
// context settings, check each other's fingerprint, carry a record both ways and close with close_notify.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "dtls.h"

using namespace dc;

namespace {
using Queue = std::deque<std::vector<uint8_t>>;

void deliver(Queue& q, DtlsTransport& to) {
  while (!q.empty()) {
    auto d = std::move(q.front());
    q.pop_front();
    to.onDatagram(d.data(), d.size());
  }
}
}  // namespace

TEST(Dtls, HandshakeVerifiesFingerprintsAndCarriesRecordsBothWays) {
  std::string err;
  auto ctxA = DtlsContext::create(kDtlsCertName, kDtlsSrtpProfiles, &err);
  auto ctxB = DtlsContext::create(kDtlsCertName, kDtlsSrtpProfiles, &err);
  ASSERT_TRUE(ctxA && ctxB) << err;

  Queue toServer, toClient;
  std::string atClient, atServer;
  DtlsTransport client(
      *ctxA, true, [&](const uint8_t* d, size_t n) { toServer.emplace_back(d, d + n); },
      [&](const uint8_t* d, size_t n) { atClient.append(reinterpret_cast<const char*>(d), n); });
  DtlsTransport server(
      *ctxB, false, [&](const uint8_t* d, size_t n) { toClient.emplace_back(d, d + n); },
      [&](const uint8_t* d, size_t n) { atServer.append(reinterpret_cast<const char*>(d), n); });
  server.start();
  client.start();
  for (int round = 0; round < 50 && !(client.state() == DtlsTransport::State::Done &&
                                      server.state() == DtlsTransport::State::Done); ++round) {
    deliver(toServer, server);
    deliver(toClient, client);
  }
  ASSERT_EQ(client.state(), DtlsTransport::State::Done) << "client: " << client.error();
  ASSERT_EQ(server.state(), DtlsTransport::State::Done) << "server: " << server.error();
  EXPECT_TRUE(client.verifyPeer("sha-256", ctxB->fingerprint())) << client.error();
  EXPECT_TRUE(server.verifyPeer("sha-256", ctxA->fingerprint())) << server.error();

  const std::string ping = "sctp packet 1", pong = "sctp packet 2";
  ASSERT_TRUE(client.send(reinterpret_cast<const uint8_t*>(ping.data()), ping.size())) << "client send refused";
  ASSERT_TRUE(server.send(reinterpret_cast<const uint8_t*>(pong.data()), pong.size())) << "server send refused";
  deliver(toServer, server);
  deliver(toClient, client);
  EXPECT_EQ(atServer, ping) << "the client's record did not reach the server intact";
  EXPECT_EQ(atClient, pong) << "the server's record did not reach the client intact";

  client.close();
  deliver(toServer, server);
  EXPECT_EQ(server.state(), DtlsTransport::State::Closed) << "close_notify did not close the server: " << server.error();

  EXPECT_FALSE(client.verifyPeer("sha-256", ctxA->fingerprint())) << "a wrong peer fingerprint was accepted";
}
