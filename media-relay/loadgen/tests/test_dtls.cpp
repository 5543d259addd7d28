// Two DtlsSessions handshake through in-memory queues: DTLS-SRTP profile negotiated, fingerprints
// verified and the exported SRTP keys mirrored (client's local = server's remote). The shared
// DtlsContext (dtls_context.h, also the data-channel endpoint's) takes its CN and profile list.
#include <gtest/gtest.h>
#include <openssl/x509.h>

#include <cstring>
#include <deque>
#include <vector>

#include "dtls.h"

using namespace lg;

TEST(Dtls, HandshakeExportsMirroredSrtpKeys) {
  std::string err;
  auto ctxA = DtlsContext::create("loadgen", kSrtpProfile, &err);
  auto ctxB = DtlsContext::create("loadgen", kSrtpProfile, &err);
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

namespace {
std::vector<std::string> offeredProfiles(const DtlsContext& ctx) {
  std::vector<std::string> names;
  SSL* ssl = SSL_new(ctx.ctx());
  STACK_OF(SRTP_PROTECTION_PROFILE)* list = SSL_get_srtp_profiles(ssl);
  for (int i = 0; list && i < sk_SRTP_PROTECTION_PROFILE_num(list); ++i)
    names.emplace_back(sk_SRTP_PROTECTION_PROFILE_value(list, i)->name);
  SSL_free(ssl);
  return names;
}

std::string commonName(const DtlsContext& ctx) {
  char cn[64] = "";
  X509_NAME_get_text_by_NID(X509_get_subject_name(SSL_CTX_get0_certificate(ctx.ctx())), NID_commonName, cn,
                            sizeof cn);
  return cn;
}
}  // namespace

TEST(DtlsContext, OffersTheGivenSrtpProfilesUnderTheGivenName) {
  std::string err;
  auto lgCtx = DtlsContext::create("loadgen", kSrtpProfile, &err);
  ASSERT_TRUE(lgCtx) << err;
  EXPECT_EQ(offeredProfiles(*lgCtx), std::vector<std::string>{"SRTP_AES128_CM_SHA1_80"})
      << "loadgen must offer only SRTP_AES128_CM_SHA1_80 (the profile it keys, the A-SRTP bench's)";
  EXPECT_EQ(commonName(*lgCtx), "loadgen") << "the certificate's CN is not the name given";

  auto twoCtx = DtlsContext::create("datachannel", "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80", &err);
  ASSERT_TRUE(twoCtx) << err;
  EXPECT_EQ(offeredProfiles(*twoCtx), (std::vector<std::string>{"SRTP_AEAD_AES_128_GCM", "SRTP_AES128_CM_SHA1_80"}))
      << "a two-profile list is not offered as given, in its order";
  EXPECT_EQ(commonName(*twoCtx), "datachannel") << "the certificate's CN is not the name given";
}

TEST(DtlsContext, RefusesAnUnknownSrtpProfileWithAReason) {
  std::string err;
  EXPECT_FALSE(DtlsContext::create("loadgen", "SRTP_NO_SUCH_PROFILE", &err))
      << "a context was created with an unknown use_srtp profile";
  EXPECT_NE(err.find("cannot create the DTLS certificate/context"), std::string::npos) << "error was: " << err;
}
