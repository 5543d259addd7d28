#include "pcap_fixture.h"

#include <pcap/pcap.h>

#include <algorithm>

namespace dmtest {
namespace {

void put16(std::vector<uint8_t>& v, uint16_t x) {
  v.push_back(uint8_t(x >> 8));
  v.push_back(uint8_t(x));
}
void put32(std::vector<uint8_t>& v, uint32_t x) {
  put16(v, uint16_t(x >> 16));
  put16(v, uint16_t(x));
}

}  // namespace

std::vector<uint8_t> rtp(uint32_t ssrc, uint16_t seq, uint8_t pt, size_t payload_len) {
  std::vector<uint8_t> v{0x80, pt};
  put16(v, seq);
  put32(v, uint32_t(seq) * 160);
  put32(v, ssrc);
  v.resize(v.size() + payload_len, 0xd5);
  return v;
}

std::vector<uint8_t> rtcpSenderReport(uint32_t ssrc) {
  std::vector<uint8_t> v{0x80, 200};
  put16(v, 6);  // length in 32-bit words minus one
  put32(v, ssrc);
  v.resize(28, 0);
  return v;
}

std::vector<uint8_t> ipv4Udp(const FakePacket& p) {
  std::vector<uint8_t> v{0x45, 0};
  put16(v, uint16_t(20 + 8 + p.payload.size()));
  put32(v, 0x00004000);  // id 0, DF, offset 0
  v.push_back(64);
  v.push_back(17);
  put16(v, 0);  // checksum is not checked by the reader
  put32(v, p.src_ip);
  put32(v, p.dst_ip);
  put16(v, p.src_port);
  put16(v, p.dst_port);
  put16(v, uint16_t(8 + p.payload.size()));
  put16(v, 0);
  v.insert(v.end(), p.payload.begin(), p.payload.end());
  return v;
}

std::vector<uint8_t> frame(int linktype, const FakePacket& p) {
  std::vector<uint8_t> v;
  switch (linktype) {
    case DLT_EN10MB:
      v.assign(12, 0);  // loopback uses all-zero MACs
      put16(v, 0x0800);
      break;
    case DLT_NULL:
      v = {2, 0, 0, 0};  // AF_INET in little-endian host order
      break;
    case DLT_LINUX_SLL:
      put16(v, 0);           // packet type: to us
      put16(v, 772);         // ARPHRD_LOOPBACK
      put16(v, 6);           // address length
      v.resize(14, 0);       // address (8 bytes)
      put16(v, 0x0800);
      break;
    case DLT_LINUX_SLL2:
      put16(v, 0x0800);
      put16(v, 0);           // reserved
      put32(v, 1);           // interface index
      put16(v, 772);
      v.push_back(0);        // packet type
      v.push_back(6);
      v.resize(20, 0);
      break;
    default:  // DLT_RAW: the IP header comes first
      break;
  }
  std::vector<uint8_t> ip = ipv4Udp(p);
  v.insert(v.end(), ip.begin(), ip.end());
  return v;
}

bool writePcap(const std::string& path, int linktype, const std::vector<FakePacket>& packets, bool nano) {
  pcap_t* dead = pcap_open_dead_with_tstamp_precision(
      linktype, 65535, nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
  if (!dead) return false;
  pcap_dumper_t* dumper = pcap_dump_open(dead, path.c_str());
  if (!dumper) {
    pcap_close(dead);
    return false;
  }
  for (const FakePacket& p : packets) {
    std::vector<uint8_t> f = frame(linktype, p);
    pcap_pkthdr hdr{};
    hdr.ts.tv_sec = p.ts_ns / 1000000000;
    // With a nano-precision handle pcap_dump stores tv_usec as nanoseconds.
    hdr.ts.tv_usec = nano ? p.ts_ns % 1000000000 : (p.ts_ns % 1000000000) / 1000;
    hdr.caplen = hdr.len = uint32_t(f.size());
    pcap_dump(reinterpret_cast<u_char*>(dumper), &hdr, f.data());
  }
  pcap_dump_close(dumper);
  pcap_close(dead);
  return true;
}

std::vector<FakePacket> referenceCall(int64_t t0) {
  const int64_t us = 1000, ms = 1000000;
  std::vector<FakePacket> v;
  // to_ims: browser 7000 -> relay 30000, relay 30002 -> IMS 6000.
  for (int i = 0; i < 10; ++i) {
    uint16_t seq = uint16_t(100 + i);
    int64_t t = t0 + i * 20 * ms;
    v.push_back({t, 7000, 30000, rtp(0x11111111, seq, 111)});
    if (seq != 105) v.push_back({t + (100 + 10 * i) * us, 30002, 6000, rtp(0x11111111, seq, 111)});
  }
  // to_browser: IMS 6000 -> relay 30002, relay 30000 -> browser 7000.
  const uint16_t seqs[] = {65534, 65535, 0, 1, 2, 3};
  for (int i = 0; i < 6; ++i) {
    int64_t t = t0 + 10 * ms + i * 20 * ms;
    v.push_back({t, 6000, 30002, rtp(0x22222222, seqs[i], 8)});
    int64_t delay = seqs[i] == 2 ? 25 * ms : (50 + i) * us;
    v.push_back({t + delay, 30000, 7000, rtp(0x22222222, seqs[i], 8)});
    if (seqs[i] == 0) v.push_back({t + delay + 5 * us, 30000, 7000, rtp(0x22222222, seqs[i], 8)});
  }
  // Noise the tool must skip: RTCP on the IMS leg's RTCP port, STUN on the browser leg, SIP.
  v.push_back({t0 + 1 * ms, 6001, 30003, rtcpSenderReport(0x22222222)});
  v.push_back({t0 + 2 * ms, 7000, 30000, {0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}});
  v.push_back({t0 + 3 * ms, 5060, 5080, std::vector<uint8_t>(300, 'S')});
  // A capture file is in time order.
  std::stable_sort(v.begin(), v.end(), [](const FakePacket& a, const FakePacket& b) { return a.ts_ns < b.ts_ns; });
  return v;
}

}  // namespace dmtest
