#include <gtest/gtest.h>

#include "ice_lite.h"
#include "stun.h"

using namespace dc;

namespace {
const Addr kPeer{0x7f000001, 50000};  // 127.0.0.1:50000
}

TEST(IceLite, AnswersASignedCheckAndRemembersTheNominatedAddress) {
  IceLite ice("locU", "localpasswordlocalpasswd");
  auto tx = lg::stun::randomTxId();
  auto req = lg::stun::buildCheck(tx, "locU", "remU", "localpasswordlocalpasswd", 1234, true, 42);
  std::vector<uint8_t> resp;
  bool nominated = false;
  ASSERT_EQ(ice.onStun(req.data(), req.size(), kPeer, &resp, &nominated), IceLite::Result::Answered) << ice.lastError();
  EXPECT_TRUE(nominated) << "a controlling check with USE-CANDIDATE nominates";
  EXPECT_TRUE(ice.validated(kPeer));
  EXPECT_FALSE(ice.validated(Addr{0x7f000001, 50001})) << "only the checked address is validated";
  auto m = lg::stun::parse(resp.data(), resp.size());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->type, lg::stun::kBindingSuccess);
  EXPECT_EQ(m->tx, tx) << "the response carries the request's transaction id";
  EXPECT_TRUE(lg::stun::checkIntegrity(resp.data(), resp.size(), *m, "localpasswordlocalpasswd"))
      << "the response is signed with our password (RFC 8445 §7.2.5.2)";
  uint32_t ip = 0;
  uint16_t port = 0;
  ASSERT_TRUE(lg::stun::decodeXorMappedV4(*m, ip, port));
  EXPECT_EQ(ip, kPeer.ip);
  EXPECT_EQ(port, kPeer.port) << "XOR-MAPPED-ADDRESS is where the check came from";
}

TEST(IceLite, RefusesChecksForOtherCredentials) {
  IceLite ice("locU", "localpasswordlocalpasswd");
  std::vector<uint8_t> resp;
  bool nominated = false;
  auto wrongPwd = lg::stun::buildCheck(lg::stun::randomTxId(), "locU", "remU", "notourpasswordnotourpass", 1, true, 1);
  EXPECT_EQ(ice.onStun(wrongPwd.data(), wrongPwd.size(), kPeer, &resp, &nominated), IceLite::Result::Invalid);
  EXPECT_NE(ice.lastError().find("MESSAGE-INTEGRITY"), std::string::npos) << ice.lastError();
  auto wrongUser = lg::stun::buildCheck(lg::stun::randomTxId(), "othr", "remU", "localpasswordlocalpasswd", 1, true, 1);
  EXPECT_EQ(ice.onStun(wrongUser.data(), wrongUser.size(), kPeer, &resp, &nominated), IceLite::Result::Invalid);
  EXPECT_FALSE(ice.validated(kPeer)) << "no address may be validated by a refused check";
  uint8_t notStun[] = {0x16, 0xfe, 0xfd, 0, 0};
  EXPECT_EQ(ice.onStun(notStun, sizeof notStun, kPeer, &resp, &nominated), IceLite::Result::NotStun);
}

TEST(IceLite, CredentialsAreIceChars) {
  std::string s = randomIceString(24);
  ASSERT_EQ(s.size(), 24u);
  EXPECT_EQ(s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"), std::string::npos) << s;
  EXPECT_NE(randomIceString(24), s) << "two random passwords must differ";
}
