// Writes the reference capture (see pcap_fixture.h) for the CLI tests.
// usage: make_sample_pcap OUT.pcap [--no-rtp]   --no-rtp keeps only the RTCP/STUN/SIP noise.
#include <pcap/pcap.h>

#include <cstdio>
#include <string>

#include "pcap_fixture.h"
#include "rtp_header.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_sample_pcap OUT.pcap [--no-rtp]\n");
    return 2;
  }
  auto packets = dmtest::referenceCall();
  if (argc > 2 && std::string(argv[2]) == "--no-rtp") {
    std::vector<dmtest::FakePacket> noise;
    dm::RtpHeader h;
    for (auto& p : packets)
      if (dm::parseRtp(p.payload.data(), p.payload.size(), h) != dm::RtpParse::Ok) noise.push_back(p);
    packets = noise;
  }
  if (!dmtest::writePcap(argv[1], DLT_EN10MB, packets)) {
    std::fprintf(stderr, "make_sample_pcap: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
