// Glue between capture and matcher: classifies each UDP datagram, parses RTP, counts what it skips.
#pragma once
#include <cstdint>

#include "classifier.h"
#include "matcher.h"
#include "pcap_reader.h"

namespace dm {

struct CaptureCounters {
  uint64_t udp = 0;        // IPv4/UDP datagrams seen
  uint64_t not_relay = 0;  // neither end is a relay port (or both are)
  uint64_t not_rtp = 0;    // on a relay port but RTCP, STUN, DTLS or too short
  uint64_t rtp_in = 0;     // RTP arriving at the relay
  uint64_t rtp_out = 0;    // RTP leaving the relay
};

class Analyzer {
 public:
  Analyzer(Classifier classifier, MatcherConfig config) : classifier_(classifier), matcher_(std::move(config)) {}
  void feed(const UdpDatagram& d);
  const CaptureCounters& counters() const { return counters_; }
  MatchResult finish() { return matcher_.finish(); }

 private:
  Classifier classifier_;
  Matcher matcher_;
  CaptureCounters counters_;
};

}  // namespace dm
