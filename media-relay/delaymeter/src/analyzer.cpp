#include "analyzer.h"

#include "rtp_header.h"

namespace dm {

void Analyzer::feed(const UdpDatagram& d) {
  counters_.udp++;
  Classification c = classifier_.classify(d.src, d.dst);
  if (c.role == Role::None) {
    counters_.not_relay++;
    return;
  }
  RtpHeader h;
  if (parseRtp(d.payload, d.length, h) != RtpParse::Ok) {
    counters_.not_rtp++;
    return;
  }
  (c.role == Role::In ? counters_.rtp_in : counters_.rtp_out)++;
  matcher_.add({d.ts_ns, c.role, c.dir, h.ssrc, h.seq, h.timestamp, c.role == Role::In ? d.dst.port : d.src.port});
}

}  // namespace dm
