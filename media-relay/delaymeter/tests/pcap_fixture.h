// Builds fake IPv4/UDP/RTP frames and writes them to pcap files, so tests carry no binary fixtures.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dmtest {

constexpr uint32_t kLocalhost = 0x7f000001;

struct FakePacket {
  int64_t ts_ns;
  uint16_t src_port;
  uint16_t dst_port;
  std::vector<uint8_t> payload;
  uint32_t src_ip = kLocalhost;
  uint32_t dst_ip = kLocalhost;
};

std::vector<uint8_t> rtp(uint32_t ssrc, uint16_t seq, uint8_t pt = 0, size_t payload_len = 160);
std::vector<uint8_t> rtcpSenderReport(uint32_t ssrc);
std::vector<uint8_t> ipv4Udp(const FakePacket& p);
// Link-layer header for `linktype` (DLT_EN10MB, DLT_NULL, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW) + ipv4Udp.
std::vector<uint8_t> frame(int linktype, const FakePacket& p);
// nano=false writes a classic microsecond pcap (timestamps truncated to µs).
bool writePcap(const std::string& path, int linktype, const std::vector<FakePacket>& packets, bool nano = true);

// The reference capture (browser 7000 <-> relay 30000 | relay 30002 <-> IMS UE 6000), all delays known:
//  to_ims     ssrc 0x11111111 seq 100..109, delay 100+10*i µs, seq 105 never leaves (lost)
//  to_browser ssrc 0x22222222 seq 65534..3 (wraps), delay 50+i µs except seq 2 held 25 ms (so it
//             leaves after seq 3: 1 reordered), seq 0 leaves twice (1 duplicate)
//  plus RTCP and STUN on relay ports and a SIP datagram elsewhere (all skipped).
std::vector<FakePacket> referenceCall(int64_t t0_ns = 1700000000LL * 1000000000LL);

}  // namespace dmtest
