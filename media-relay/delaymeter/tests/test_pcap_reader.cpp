#include <pcap/pcap.h>

#include <vector>

#include "pcap_fixture.h"
#include "pcap_reader.h"
#include "test_support.h"

namespace {

dmtest::FakePacket sample() { return {0, 7000, 30000, dmtest::rtp(0xabcdef01, 9, 0, 20), 0x7f000001, 0x7f000002}; }

void expectDecoded(int linktype) {
  dm::UdpDatagram d;
  std::vector<uint8_t> f = dmtest::frame(linktype, sample());
  ASSERT_TRUE(dm::decodeFrame(linktype, f.data(), f.size(), d));
  EXPECT_EQ(d.src.addr, 0x7f000001u);
  EXPECT_EQ(d.dst.addr, 0x7f000002u);
  EXPECT_EQ(d.src.port, 7000);
  EXPECT_EQ(d.dst.port, 30000);
  EXPECT_EQ(d.length, 32u);
  EXPECT_EQ(d.payload[11], 0x01);  // last SSRC byte
}

}  // namespace

TEST(PcapReader, DecodesEveryLinkType) {
  for (int lt : {DLT_EN10MB, DLT_NULL, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW}) {
    EXPECT_TRUE(dm::linkTypeSupported(lt));
    expectDecoded(lt);
  }
  EXPECT_FALSE(dm::linkTypeSupported(DLT_IEEE802_11));
}

TEST(PcapReader, SkipsVlanTagAndEthernetPadding) {
  std::vector<uint8_t> f = dmtest::frame(DLT_EN10MB, sample());
  std::vector<uint8_t> tag{0x81, 0x00, 0x00, 0x05};
  f.insert(f.begin() + 12, tag.begin(), tag.end());
  f.insert(f.end(), 6, 0);  // trailer padding must not become payload
  dm::UdpDatagram d;
  ASSERT_TRUE(dm::decodeFrame(DLT_EN10MB, f.data(), f.size(), d));
  EXPECT_EQ(d.length, 32u);
}

TEST(PcapReader, RejectsNonUdpAndTruncated) {
  std::vector<uint8_t> f = dmtest::frame(DLT_EN10MB, sample());
  dm::UdpDatagram d;
  EXPECT_FALSE(dm::decodeFrame(DLT_EN10MB, f.data(), 30, d));  // cut inside the IP header
  std::vector<uint8_t> tcp = f;
  tcp[14 + 9] = 6;
  EXPECT_FALSE(dm::decodeFrame(DLT_EN10MB, tcp.data(), tcp.size(), d));
  std::vector<uint8_t> arp = f;
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_FALSE(dm::decodeFrame(DLT_EN10MB, arp.data(), arp.size(), d));
  std::vector<uint8_t> frag = f;
  frag[14 + 7] = 0x10;  // fragment offset != 0
  EXPECT_FALSE(dm::decodeFrame(DLT_EN10MB, frag.data(), frag.size(), d));
}

TEST(PcapReader, SnaplenCutPayloadIsShortened) {
  std::vector<uint8_t> f = dmtest::frame(DLT_RAW, sample());
  dm::UdpDatagram d;
  ASSERT_TRUE(dm::decodeFrame(DLT_RAW, f.data(), 20 + 8 + 12, d));
  EXPECT_EQ(d.length, 12u);
}

TEST(PcapReader, MissingAndGarbageFilesFail) {
  std::string err;
  EXPECT_TRUE(dm::PacketSource::openFile("/nonexistent/x.pcap", err) == nullptr);
  EXPECT_FALSE(err.empty());
}
