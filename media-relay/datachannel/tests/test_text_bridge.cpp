#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include "dcep.h"
#include "text_bridge.h"
#include "rtcp_report.h"
#include "text_sdp.h"

using namespace dc;

namespace {
// The browser leg, faked (unit test only): records what the bridge sends on the SCTP association.
struct FakeBrowser {
  bool isUp = true;
  std::vector<std::tuple<uint16_t, uint32_t, std::string>> sent;
  TextBridge::Browser hooks() {
    return {[this] { return isUp; },
            [this](uint16_t sid, uint32_t ppid, const std::string& m) {
              sent.emplace_back(sid, ppid, m);
              return true;
            }};
  }
  std::string text(uint16_t sid) const {
    std::string t;
    for (const auto& [s, p, m] : sent)
      if (s == sid && p == kPpidString) t += m;
    return t;
  }
};

// A UDP socket playing the RFC 4103 UE.
struct Ue {
  int fd = -1;
  int port = 0;
  explicit Ue(const char* ip = "127.0.0.1") {
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    Addr a;
    EXPECT_TRUE(Addr::parse(ip, 1, a));
    sockaddr_in sa = a.sockaddr();
    sa.sin_port = 0;  // any free port
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
    socklen_t sl = sizeof sa;
    getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &sl);
    port = ntohs(sa.sin_port);
  }
  ~Ue() { close(fd); }
  void sendTo(int toPort, const std::vector<uint8_t>& p) {
    Addr a;
    Addr::parse("127.0.0.1", toPort, a);
    sockaddr_in sa = a.sockaddr();
    sendto(fd, p.data(), p.size(), 0, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  }
  std::vector<std::vector<uint8_t>> receive() {
    std::vector<std::vector<uint8_t>> out;
    uint8_t buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) >= 0;) out.emplace_back(buf, buf + n);
    return out;
  }
  std::string answer(const char* red = "a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\n") const {
    return "v=0\r\no=ue 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=text " + std::to_string(port) +
           " RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n" + red + "a=rtpmap:98 t140/1000\r\n";
  }
};

std::string dcepOpen(const std::string& label, const std::string& protocol) {
  ChannelParams p;
  p.label = label;
  p.protocol = protocol;
  auto b = encodeOpen(p);
  return std::string(b.begin(), b.end());
}
}  // namespace

TEST(TextBridge, ADcepT140ChannelIsAckedAndItsTextGoesOutAsRedundantRtp) {
  lg::EventLoop loop;
  FakeBrowser br;
  TextBridge b("c1", loop, br.hooks());
  std::string sdp, err;
  ASSERT_TRUE(b.offer({}, "127.0.0.1", 41000, 41099, &sdp, &err)) << err;
  auto offered = parseText(sdp, &err);
  ASSERT_TRUE(offered) << err << sdp;
  EXPECT_EQ(offered->port % 2, 0) << "RTP on an even port";
  EXPECT_EQ(offered->redGenerations, 2);
  EXPECT_FALSE(b.fromBrowser(1, kPpidDcep, dcepOpen("chat", ""))) << "a channel that is not T.140 is not the bridge's";
  ASSERT_TRUE(b.fromBrowser(3, kPpidDcep, dcepOpen("rtt", "t140")));
  ASSERT_EQ(br.sent.size(), 1u);
  EXPECT_EQ(std::get<1>(br.sent[0]), kPpidDcep);
  EXPECT_TRUE(isAck(reinterpret_cast<const uint8_t*>(std::get<2>(br.sent[0]).data()), std::get<2>(br.sent[0]).size()))
      << "the bridge acknowledges the T.140 channel's DATA_CHANNEL_OPEN";
  EXPECT_TRUE(b.fromBrowser(3, kPpidString, "Hel")) << "typed before the answer: kept";
  Ue ue;
  ASSERT_TRUE(b.answer(ue.answer(), &err)) << err;
  EXPECT_EQ(b.generations(), 2);
  EXPECT_TRUE(b.fromBrowser(3, kPpidString, "lo"));
  EXPECT_FALSE(b.fromBrowser(5, kPpidString, "other")) << "another stream's message goes on to the IMS leg";
  for (int64_t t = 0; t <= 1200; t += 10) b.tick(t);
  auto pkts = ue.receive();
  ASSERT_EQ(pkts.size(), 3u) << "the text once as primary, then two packets carrying it as redundancy";
  T140Depacketizer rx(98, 100);
  std::string text;
  ASSERT_TRUE(rx.push(pkts[2].data(), pkts[2].size(), &text, &err)) << err;  // only the last one arrives
  EXPECT_EQ(text, "Hello") << "the last packet's redundancy still holds the text";
  EXPECT_EQ(pkts[0][1], 0x80 | 100) << "marker bit and red payload type";
  auto s = b.stats();
  EXPECT_EQ(s["browser-to-ims"]["chars"].i, 5);
  EXPECT_EQ(s["browser-to-ims"]["rtp-packets"].i, 3);
  EXPECT_EQ(s["channel"].i, 3);
}

TEST(TextBridge, RtpTextFromTheUeReachesTheNegotiatedChannelOnceTheBrowserIsUp) {
  lg::EventLoop loop;
  FakeBrowser br;
  br.isUp = false;
  TextBridge b("c2", loop, br.hooks());
  TextBridge::Options o;
  o.channel = 7;
  std::string sdp, err;
  ASSERT_TRUE(b.offer(o, "127.0.0.1", 41100, 41199, &sdp, &err)) << err;
  int port = parseText(sdp, &err)->port;
  Ue ue;
  ASSERT_TRUE(b.answer(ue.answer(), &err)) << err;
  T140Packetizer::Config c;
  c.ssrc = 99;
  T140Packetizer tx(c);
  std::vector<uint8_t> p;
  tx.add("yes");
  ASSERT_TRUE(tx.poll(0, &p));
  ue.sendTo(port, p);
  tx.add(" no");
  ASSERT_TRUE(tx.poll(300, &p));  // lost
  ASSERT_TRUE(tx.poll(600, &p));  // carries " no" as redundancy
  ue.sendTo(port, p);
  for (int i = 0; i < 5; ++i) loop.runOnce(20);
  EXPECT_TRUE(br.sent.empty()) << "nothing is sent while the browser leg is not up";
  br.isUp = true;
  b.tick(0);
  EXPECT_EQ(br.text(7), "yes no") << "the lost packet's text comes from the redundancy, on the negotiated stream";
  auto s = b.stats();
  EXPECT_EQ(s["ims-to-browser"]["recovered"].i, 1);
  EXPECT_EQ(s["ims-to-browser"]["lost"].i, 0);
  EXPECT_EQ(s["ims-to-browser"]["chars"].i, 6);
}

TEST(TextBridge, RtpFromAnotherAddressOrOfAnotherPayloadTypeIsRefused) {
  lg::EventLoop loop;
  FakeBrowser br;
  TextBridge b("c3", loop, br.hooks());
  TextBridge::Options o;
  o.channel = 1;
  std::string sdp, err;
  ASSERT_TRUE(b.offer(o, "127.0.0.1", 41200, 41299, &sdp, &err)) << err;
  int port = parseText(sdp, &err)->port;
  Ue ue, stranger("127.0.0.2");
  ASSERT_TRUE(b.answer(ue.answer(""), &err)) << err;
  EXPECT_EQ(b.generations(), 0) << "an answer without red: plain t140";
  std::vector<uint8_t> t140 = {0x80, 0x80 | 98, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 'x'};
  stranger.sendTo(port, t140);
  std::vector<uint8_t> pcmu = {0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF};
  ue.sendTo(port, pcmu);
  for (int i = 0; i < 5; ++i) loop.runOnce(20);
  b.tick(0);
  EXPECT_EQ(br.text(1), "");
  auto s = b.stats();
  EXPECT_EQ(s["ims-to-browser"]["refused"].i, 2);
  EXPECT_NE(s["ims-to-browser"]["last-refusal"].s.find("payload type 0"), std::string::npos);
  ue.sendTo(port, t140);
  for (int i = 0; i < 5; ++i) loop.runOnce(20);
  b.tick(0);
  EXPECT_EQ(br.text(1), "x");
}

TEST(TextBridge, AnswersOutOfTurnOrWithoutUsableTextAreRefused) {
  lg::EventLoop loop;
  FakeBrowser br;
  TextBridge b("c4", loop, br.hooks());
  std::string sdp, err;
  EXPECT_FALSE(b.answer("v=0\r\n", &err));
  EXPECT_NE(err.find("text-offer first"), std::string::npos) << err;
  ASSERT_TRUE(b.offer({}, "127.0.0.1", 41300, 41399, &sdp, &err)) << err;
  EXPECT_FALSE(b.offer({}, "127.0.0.1", 41300, 41399, &sdp, &err));
  EXPECT_FALSE(b.answer("v=0\r\nc=IN IP4 127.0.0.1\r\nm=text 0 RTP/AVP 98\r\n", &err));
  EXPECT_NE(err.find("rejected"), std::string::npos) << err;
  EXPECT_FALSE(b.answer("v=0\r\nc=IN IP6 ::1\r\nm=text 5000 RTP/AVP 98\r\na=rtpmap:98 t140/1000\r\n", &err));
  EXPECT_NE(err.find("not IPv4"), std::string::npos) << err;
  TextBridge none("c5", loop, br.hooks());
  EXPECT_FALSE(none.offer({}, "127.0.0.1", 41400, 41400, &sdp, &err));
  EXPECT_NE(err.find("no RTP/RTCP pair"), std::string::npos) << err;
}

TEST(TextBridge, ReportsToThePeersRtcpPortAndTakesItsReports) {
  lg::EventLoop loop;
  FakeBrowser br;
  TextBridge b("c6", loop, br.hooks());
  TextBridge::Options o;
  o.channel = 1;
  std::string sdp, err;
  ASSERT_TRUE(b.offer(o, "127.0.0.1", 41500, 41599, &sdp, &err)) << err;
  int port = parseText(sdp, &err)->port;
  Ue rtcp;  // the UE's RTCP socket: its RTP port is the one below
  std::string answer = "v=0\r\nc=IN IP4 127.0.0.1\r\nm=text " + std::to_string(rtcp.port - 1) +
                       " RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n";
  ASSERT_TRUE(b.answer(answer, &err)) << err;
  // the UE's own sender report arrives at the bridge's RTCP port (its RTP port + 1)
  RtcpSender ue;
  ue.ssrc = 5;
  ue.sent = true;
  ue.ntp = 0x0000AAAABBBB0000ULL;
  ue.cname = "ue";
  rtcp.sendTo(port + 1, buildRtcpReport(ue, nullptr, {}, 0));
  for (int i = 0; i < 5; ++i) loop.runOnce(20);
  b.fromBrowser(1, kPpidString, "a");
  int64_t now = lg::nowNs() / 1000000;
  b.tick(now);
  EXPECT_TRUE(rtcp.receive().empty()) << "no report before the first interval";
  b.tick(now + 4000);  // past the first interval (1.25-3.75 s)
  auto got = rtcp.receive();
  ASSERT_EQ(got.size(), 1u) << "one compound report";
  const auto& r = got[0];
  EXPECT_EQ(r[1], 200) << "an SR: the bridge has sent text";
  uint32_t ssrc, mid;
  ASSERT_TRUE(findRtcpSr(r.data(), r.size(), &ssrc, &mid));
  std::string all(r.begin(), r.end());
  EXPECT_NE(all.find("datachannel@127.0.0.1"), std::string::npos) << "the SDES CNAME";
  auto s = b.stats();
  EXPECT_EQ(s["browser-to-ims"]["rtcp-packets"].i, 1);
  EXPECT_EQ(s["ims-to-browser"]["rtcp-packets"].i, 1) << "the UE's report was taken";
}

// MT: the bridge answers the IMS side's m=text offer with the offer's payload types and bridges both ways.
TEST(TextBridge, AnswersAnImsOfferWithItsPayloadTypesAndBridgesBothWays) {
  lg::EventLoop loop;
  FakeBrowser br;
  TextBridge b("c9", loop, br.hooks());
  Ue ue;
  const std::string offer = "v=0\r\no=ue 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=text " + std::to_string(ue.port) +
                            " RTP/AVP 101 99\r\nc=IN IP4 127.0.0.1\r\na=rtpmap:101 red/1000\r\na=fmtp:101 99/99/99\r\n"
                            "a=rtpmap:99 t140/1000\r\n";
  TextBridge::Options o;
  o.channel = 1001;
  std::string sdp, err;
  ASSERT_TRUE(b.answerOffer(o, offer, "127.0.0.1", 41500, 41599, &sdp, &err)) << err;
  auto mine = parseText(sdp, &err);
  ASSERT_TRUE(mine) << err;
  EXPECT_EQ(mine->t140Pt, 99) << "an answer keeps the offer's payload types (RFC 3264 §6.1): " << sdp;
  EXPECT_EQ(mine->redPt, 101) << sdp;
  EXPECT_EQ(mine->redGenerations, 2) << sdp;
  // the UE sends with its payload types: accepted, text to the channel
  T140Packetizer::Config c;
  c.ssrc = 5;
  c.t140Pt = 99;
  c.redPt = 101;
  T140Packetizer tx(c);
  std::vector<uint8_t> p;
  tx.add("hi");
  ASSERT_TRUE(tx.poll(0, &p));
  ue.sendTo(mine->port, p);
  for (int i = 0; i < 5; ++i) loop.runOnce(20);
  b.tick(0);
  EXPECT_EQ(br.text(1001), "hi");
  // the browser's text goes to the UE in red packets of its payload type
  ASSERT_TRUE(b.fromBrowser(1001, kPpidString, "ok"));
  b.tick(0);
  b.tick(400);
  auto got = ue.receive();
  ASSERT_FALSE(got.empty()) << "no RTP to the UE";
  EXPECT_EQ(got[0][1] & 0x7F, 101) << "red with the offer's payload type";
  EXPECT_FALSE(b.answer(offer, &err)) << "an answered bridge takes no answer";
  TextBridge plain("c10", loop, br.hooks());
  const std::string noRed = "v=0\r\nc=IN IP4 127.0.0.1\r\nm=text 5000 RTP/AVP 99\r\na=rtpmap:99 t140/1000\r\n";
  ASSERT_TRUE(plain.answerOffer(o, noRed, "127.0.0.1", 41600, 41699, &sdp, &err)) << err;
  EXPECT_EQ(plain.generations(), 0) << "an offer without red: plain t140";
  EXPECT_EQ(sdp.find("red/1000"), std::string::npos) << sdp;
  TextBridge bad("c11", loop, br.hooks());
  EXPECT_FALSE(bad.answerOffer(o, "v=0\r\nc=IN IP4 127.0.0.1\r\nm=text 5000 RTP/AVP 96\r\na=rtpmap:96 red/1000\r\n", "127.0.0.1", 41700, 41799, &sdp, &err));
  EXPECT_NE(err.find("no t140/1000"), std::string::npos) << err;
}
