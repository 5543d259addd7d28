#include <gtest/gtest.h>

#include "sdp.h"

using namespace dc;

namespace {
const char* kBrowserOffer =
    "v=0\r\n"
    "o=- 4611731400430051336 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=fingerprint:SHA-256 AA:BB:CC\r\n"
    "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=mid:a\r\n"
    "a=ice-ufrag:audioufrag\r\n"
    "a=ice-pwd:audiopwdaudiopwdaudiopwd\r\n"
    "m=application 50000 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 127.0.0.1\r\n"
    "a=mid:1\r\n"
    "a=ice-ufrag:Ufrg\r\n"
    "a=ice-pwd:pwdpwdpwdpwdpwdpwdpwdpwd\r\n"
    "a=setup:actpass\r\n"
    "a=candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host\r\n"
    "a=candidate:2 1 udp 2130706431 abcd.local 50001 typ host\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:262144\r\n";
}

TEST(Sdp, ParsesTheDataChannelSectionOnly) {
  std::string err;
  auto a = parseApp(kBrowserOffer, &err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(a->port, 50000);
  EXPECT_EQ(a->mid, "1") << "the audio section's mid must not leak into the application section";
  EXPECT_EQ(a->iceUfrag, "Ufrg");
  EXPECT_EQ(a->fpHash, "sha-256") << "the session-level fingerprint applies, hash name lowercased";
  EXPECT_EQ(a->fingerprint, "AA:BB:CC");
  EXPECT_EQ(a->setup, "actpass");
  EXPECT_EQ(a->sctpPort, 5000);
  EXPECT_EQ(a->maxMessageSize, 262144u);
  ASSERT_EQ(a->candidates.size(), 1u) << "mDNS (.local) candidates cannot be used by the endpoint";
  EXPECT_EQ(a->candidates[0].addr, "127.0.0.1");
}

TEST(Sdp, ParsesDcmapAndDcsaWith3gppReqApp) {
  std::string sdp = std::string(kBrowserOffer) +
                    "a=dcmap:1000 label=\"app\";subprotocol=\"x\";ordered=false;max-retr=2;priority=128\r\n"
                    "a=dcsa:1000 3gpp-req-app:chatapp\r\n"
                    "a=dcmap:2 label=\"a%22b\";max-time=150\r\n";
  std::string err;
  auto a = parseApp(sdp, &err);
  ASSERT_TRUE(a) << err;
  ASSERT_EQ(a->dcmaps.size(), 2u);
  const auto& m = a->dcmaps[0];
  EXPECT_EQ(m.id, 1000);
  EXPECT_EQ(m.params.label, "app");
  EXPECT_EQ(m.params.protocol, "x");
  EXPECT_FALSE(m.params.ordered);
  EXPECT_EQ(m.params.reliability, Reliability::Rexmit);
  EXPECT_EQ(m.params.reliabilityParam, 2u);
  EXPECT_EQ(m.params.priority, 128);
  EXPECT_EQ(m.reqApp(), "chatapp") << "a=dcsa:1000 3gpp-req-app:chatapp (TS 24.186)";
  EXPECT_EQ(a->dcmaps[1].params.label, "a\"b") << "percent-encoded quote in a label (RFC 8864)";
  EXPECT_EQ(a->dcmaps[1].params.reliability, Reliability::Timed);
}

TEST(Sdp, RefusesBadDataChannelSections) {
  std::string err;
  EXPECT_FALSE(parseApp("v=0\r\nm=audio 9 RTP/AVP 0\r\n", &err));
  EXPECT_NE(err.find("no m=application"), std::string::npos) << err;
  std::string noFp = kBrowserOffer;
  noFp.replace(noFp.find("a=fingerprint"), std::string("a=fingerprint:SHA-256 AA:BB:CC\r\n").size(), "");
  EXPECT_FALSE(parseApp(noFp, &err)) << "DTLS needs the peer's fingerprint";
  EXPECT_FALSE(parseApp(std::string(kBrowserOffer) + "a=dcmap:x label=\"a\"\r\n", &err)) << "non-numeric stream id";
  EXPECT_FALSE(parseApp(std::string(kBrowserOffer) + "a=dcmap:3 max-retr=1;max-time=2\r\n", &err))
      << "max-retr and max-time together are not allowed";
  EXPECT_FALSE(parseApp(std::string(kBrowserOffer) + "a=dcsa:7 3gpp-req-app:x\r\n", &err))
      << "a=dcsa for a stream without a=dcmap";
  EXPECT_FALSE(parseApp(std::string(kBrowserOffer) + "a=sctp-port:0\r\n", &err));
}

TEST(Sdp, ProducesAnIceLiteApplicationSectionThatParsesBack) {
  LocalMedia m;
  m.addr = "127.0.0.1";
  m.port = 31010;
  m.mid = "1";
  m.iceUfrag = "uf12";
  m.icePwd = "pw34pw34pw34pw34pw34pw34";
  m.fingerprint = "01:02";
  m.setup = "actpass";
  DcMap d;
  d.id = 1000;
  d.params.label = "app";
  d.params.ordered = false;
  d.params.reliability = Reliability::Rexmit;
  d.params.reliabilityParam = 0;
  d.dcsa.push_back("3gpp-req-app:chatapp");
  m.dcmaps.push_back(d);
  std::string sdp = produce(m);
  EXPECT_NE(sdp.find("m=application 31010 UDP/DTLS/SCTP webrtc-datachannel\r\n"), std::string::npos) << sdp;
  EXPECT_NE(sdp.find("a=ice-lite\r\n"), std::string::npos) << sdp;
  EXPECT_NE(sdp.find("a=sctp-port:5000\r\n"), std::string::npos) << sdp;
  EXPECT_NE(sdp.find("a=dcmap:1000 label=\"app\";max-retr=0;ordered=false\r\n"), std::string::npos) << sdp;
  EXPECT_NE(sdp.find("a=dcsa:1000 3gpp-req-app:chatapp\r\n"), std::string::npos) << sdp;
  std::string err;
  auto back = parseApp(sdp, &err);
  ASSERT_TRUE(back) << err << "\n" << sdp;
  EXPECT_TRUE(back->iceLite);
  EXPECT_EQ(back->setup, "actpass");
  ASSERT_EQ(back->dcmaps.size(), 1u);
  EXPECT_TRUE(back->dcmaps[0].params == d.params) << "the dcmap did not survive produce -> parse";
  EXPECT_EQ(back->dcmaps[0].reqApp(), "chatapp");
}
