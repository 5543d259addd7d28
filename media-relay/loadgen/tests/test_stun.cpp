// STUN codec against the RFC 5769 test vectors (sample request 2.1, IPv4 response 2.2).
#include <gtest/gtest.h>

#include "stun.h"

using namespace lg;

namespace {
const std::string kPassword = "VOkJxbRl1RmTxUk/WvJxBt";

const uint8_t kSampleRequest[] = {
    0x00, 0x01, 0x00, 0x58, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86,
    0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x10, 0x53, 0x54, 0x55, 0x4e, 0x20, 0x74, 0x65, 0x73,
    0x74, 0x20, 0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x00, 0x24, 0x00, 0x04, 0x6e, 0x00, 0x01, 0xff,
    0x80, 0x29, 0x00, 0x08, 0x93, 0x2f, 0xf9, 0xb1, 0x51, 0x26, 0x3b, 0x36, 0x00, 0x06, 0x00, 0x09,
    0x65, 0x76, 0x74, 0x6a, 0x3a, 0x68, 0x36, 0x76, 0x59, 0x20, 0x20, 0x20, 0x00, 0x08, 0x00, 0x14,
    0x9a, 0xea, 0xa7, 0x0c, 0xbf, 0xd8, 0xcb, 0x56, 0x78, 0x1e, 0xf2, 0xb5, 0xb2, 0xd3, 0xf2, 0x49,
    0xc1, 0xb5, 0x71, 0xa2, 0x80, 0x28, 0x00, 0x04, 0xe5, 0x7a, 0x3b, 0xcf};

const uint8_t kSampleIpv4Response[] = {
    0x01, 0x01, 0x00, 0x3c, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86,
    0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x0b, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63,
    0x74, 0x6f, 0x72, 0x20, 0x00, 0x20, 0x00, 0x08, 0x00, 0x01, 0xa1, 0x47, 0xe1, 0x12, 0xa6, 0x43,
    0x00, 0x08, 0x00, 0x14, 0x2b, 0x91, 0xf5, 0x99, 0xfd, 0x9e, 0x90, 0xc3, 0x8c, 0x74, 0x89, 0xf9,
    0x2a, 0xf9, 0xba, 0x53, 0xf0, 0x6b, 0xe7, 0xd7, 0x80, 0x28, 0x00, 0x04, 0xc0, 0x7d, 0x4c, 0x96};
}  // namespace

TEST(Stun, Rfc5769SampleRequest) {
  auto m = stun::parse(kSampleRequest, sizeof kSampleRequest);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, stun::kBindingRequest);
  ASSERT_NE(m->get(stun::kAttrUsername), nullptr);
  EXPECT_EQ(m->get(stun::kAttrUsername)->value, "evtj:h6vY");
  ASSERT_NE(m->get(stun::kAttrPriority), nullptr);
  EXPECT_NE(m->get(stun::kAttrIceControlled), nullptr);
  EXPECT_TRUE(stun::checkIntegrity(kSampleRequest, sizeof kSampleRequest, *m, kPassword));
  EXPECT_FALSE(stun::checkIntegrity(kSampleRequest, sizeof kSampleRequest, *m, "wrong"));
  EXPECT_TRUE(stun::checkFingerprint(kSampleRequest, sizeof kSampleRequest, *m));

  uint8_t tampered[sizeof kSampleRequest];
  std::copy(std::begin(kSampleRequest), std::end(kSampleRequest), tampered);
  tampered[45] ^= 1;  // inside PRIORITY
  auto t = stun::parse(tampered, sizeof tampered);
  ASSERT_TRUE(t);
  EXPECT_FALSE(stun::checkIntegrity(tampered, sizeof tampered, *t, kPassword));
  EXPECT_FALSE(stun::checkFingerprint(tampered, sizeof tampered, *t));
}

TEST(Stun, Rfc5769SampleIpv4Response) {
  auto m = stun::parse(kSampleIpv4Response, sizeof kSampleIpv4Response);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, stun::kBindingSuccess);
  EXPECT_TRUE(stun::checkIntegrity(kSampleIpv4Response, sizeof kSampleIpv4Response, *m, kPassword));
  EXPECT_TRUE(stun::checkFingerprint(kSampleIpv4Response, sizeof kSampleIpv4Response, *m));
  uint32_t ip = 0;
  uint16_t port = 0;
  ASSERT_TRUE(stun::decodeXorMappedV4(*m, ip, port));
  EXPECT_EQ(ip, 0xC0000201u);  // 192.0.2.1
  EXPECT_EQ(port, 32853);
}

TEST(Stun, BuilderRoundTripLikeAnIceCheck) {
  stun::TxId tx = stun::randomTxId();
  stun::Builder b(stun::kBindingRequest, tx);
  b.add(stun::kAttrUsername, "remote:local");  // 12 bytes, no padding
  b.add(0x8022, "x");                          // SOFTWARE, odd length: exercises padding
  b.addU32(stun::kAttrPriority, 1853824767u);
  b.addU64(stun::kAttrIceControlling, 0x0102030405060708ull);
  b.add(stun::kAttrUseCandidate, "");
  auto pkt = b.finish("secretpwd");
  ASSERT_EQ(pkt.size() % 4, 0u);
  auto m = stun::parse(pkt.data(), pkt.size());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->tx, tx);
  EXPECT_EQ(m->get(stun::kAttrUsername)->value, "remote:local");
  EXPECT_NE(m->get(stun::kAttrUseCandidate), nullptr);
  EXPECT_EQ(m->get(stun::kAttrIceControlling)->value.size(), 8u);
  EXPECT_TRUE(stun::checkIntegrity(pkt.data(), pkt.size(), *m, "secretpwd"));
  EXPECT_TRUE(stun::checkFingerprint(pkt.data(), pkt.size(), *m));

  stun::Builder r(stun::kBindingSuccess, tx);
  r.addXorMappedV4(0x7F000001, 30002);
  auto resp = r.finish("secretpwd");
  auto rm = stun::parse(resp.data(), resp.size());
  ASSERT_TRUE(rm);
  uint32_t ip;
  uint16_t port;
  ASSERT_TRUE(stun::decodeXorMappedV4(*rm, ip, port));
  EXPECT_EQ(ip, 0x7F000001u);
  EXPECT_EQ(port, 30002);
}

TEST(Stun, RejectsGarbage) {
  const uint8_t shortMsg[] = {0x00, 0x01, 0x00};
  EXPECT_FALSE(stun::parse(shortMsg, sizeof shortMsg));
  uint8_t badCookie[sizeof kSampleRequest];
  std::copy(std::begin(kSampleRequest), std::end(kSampleRequest), badCookie);
  badCookie[4] = 0;
  EXPECT_FALSE(stun::parse(badCookie, sizeof badCookie));
  EXPECT_EQ(stun::crc32(reinterpret_cast<const uint8_t*>("123456789"), 9), 0xCBF43926u);
}

// ICE role in our checks: MO (and MT toward an ICE-lite rtpengine) controls and nominates; MT toward a
// full-ICE rtpengine is controlled: ICE-CONTROLLED, no USE-CANDIDATE (else rtpengine answers 487).
TEST(Stun, CheckOfTheControlledAgentCarriesNoNomination) {
  stun::TxId tx = stun::randomTxId();
  auto pkt = stun::buildCheck(tx, "theirs", "ours", "theirpwd", 1853824767u, false, 42);
  auto m = stun::parse(pkt.data(), pkt.size());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, stun::kBindingRequest);
  EXPECT_EQ(m->get(stun::kAttrUsername)->value, "theirs:ours");
  ASSERT_NE(m->get(stun::kAttrIceControlled), nullptr);
  EXPECT_EQ(m->get(stun::kAttrIceControlled)->value.size(), 8u);
  EXPECT_EQ(m->get(stun::kAttrIceControlling), nullptr);
  EXPECT_EQ(m->get(stun::kAttrUseCandidate), nullptr);
  EXPECT_TRUE(stun::checkIntegrity(pkt.data(), pkt.size(), *m, "theirpwd"));
  EXPECT_TRUE(stun::checkFingerprint(pkt.data(), pkt.size(), *m));
}

TEST(Stun, CheckOfTheControllingAgentNominates) {
  stun::TxId tx = stun::randomTxId();
  auto pkt = stun::buildCheck(tx, "theirs", "ours", "theirpwd", 1853824767u, true, 42);
  auto m = stun::parse(pkt.data(), pkt.size());
  ASSERT_TRUE(m);
  ASSERT_NE(m->get(stun::kAttrIceControlling), nullptr);
  EXPECT_EQ(m->get(stun::kAttrIceControlled), nullptr);
  EXPECT_NE(m->get(stun::kAttrUseCandidate), nullptr);
  EXPECT_EQ(m->get(stun::kAttrPriority)->value.size(), 4u);
  EXPECT_TRUE(stun::checkIntegrity(pkt.data(), pkt.size(), *m, "theirpwd"));
}
