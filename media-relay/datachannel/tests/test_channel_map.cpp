#include <gtest/gtest.h>

#include "channel_map.h"

using namespace dc;

TEST(ChannelMap, NegotiatedChannelsKeepTheirIdOnBothLegs) {
  ChannelMap m;
  ChannelParams p;
  p.label = "app";
  ASSERT_TRUE(m.addNegotiated(1000, p));
  EXPECT_FALSE(m.addNegotiated(1000, p)) << "the same id twice must be refused";
  const Route* r = m.route(kBrowser, 1000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->to, kIms);
  EXPECT_EQ(r->sid, 1000);
  EXPECT_TRUE(r->negotiated);
  r = m.route(kIms, 1000);
  ASSERT_TRUE(r) << "the reverse direction must exist too";
  EXPECT_EQ(r->to, kBrowser);
}

TEST(ChannelMap, DcepOpensGetTheParityOfOurDtlsRoleOnTheOtherLeg) {
  ChannelMap m;
  ChannelParams p;
  std::string err;
  EXPECT_FALSE(m.openFromPeer(kBrowser, 0, p, &err)) << "the IMS leg's DTLS role is not known yet";
  m.setDtlsClient(kIms, false);  // server on the IMS leg: odd ids (RFC 8832 §6)
  auto id = m.openFromPeer(kBrowser, 0, p, &err);
  ASSERT_TRUE(id) << err;
  EXPECT_EQ(*id, 1);
  auto id2 = m.openFromPeer(kBrowser, 2, p, &err);
  ASSERT_TRUE(id2) << err;
  EXPECT_EQ(*id2, 3) << "the next free odd id";
  EXPECT_FALSE(m.openFromPeer(kBrowser, 2, p, &err)) << "stream 2 is already open";
  m.setDtlsClient(kBrowser, true);  // client on the browser leg: even ids
  auto id3 = m.openFromPeer(kIms, 5, p, &err);
  ASSERT_TRUE(id3) << err;
  EXPECT_EQ(*id3, 4) << "0 and 2 are taken on the browser leg, so 4";
}

TEST(ChannelMap, SendsOrderedUntilTheAckThenAsConfigured) {
  ChannelMap m;
  m.setDtlsClient(kIms, true);
  ChannelParams p;
  p.ordered = false;
  std::string err;
  auto id = m.openFromPeer(kBrowser, 1, p, &err);
  ASSERT_TRUE(id);
  EXPECT_FALSE(m.route(kBrowser, 1)->acked) << "our OPEN on the IMS leg is not acknowledged yet";
  EXPECT_TRUE(m.route(kIms, *id)->acked) << "toward the browser, our own ACK settled the channel";
  m.markAcked(kIms, *id);
  EXPECT_TRUE(m.route(kBrowser, 1)->acked) << "the IMS peer's ACK settles browser -> IMS";
}

TEST(ChannelMap, CloseRemovesBothDirections) {
  ChannelMap m;
  m.setDtlsClient(kIms, false);
  std::string err;
  auto id = m.openFromPeer(kBrowser, 4, ChannelParams{}, &err);
  ASSERT_TRUE(id);
  auto far = m.close(kBrowser, 4);
  ASSERT_TRUE(far);
  EXPECT_EQ(far->first, kIms);
  EXPECT_EQ(far->second, *id);
  EXPECT_EQ(m.route(kIms, *id), nullptr) << "the IMS end must be gone too";
  EXPECT_FALSE(m.close(kBrowser, 4)) << "closing twice finds nothing";
}
