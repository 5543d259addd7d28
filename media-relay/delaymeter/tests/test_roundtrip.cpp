// Writes the reference capture to disk, reads it back through the real reader + classifier +
// matcher, and checks every delay to the nanosecond.
#include <pcap/pcap.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "analyzer.h"
#include "pcap_fixture.h"
#include "percentiles.h"
#include "test_support.h"

namespace {

struct Analysis {
  dm::MatchResult result;
  dm::CaptureCounters counters;
  uint64_t frames = 0;
};

Analysis analyze(int linktype, bool nano) {
  std::string path = "roundtrip_" + std::to_string(getpid()) + "_" + std::to_string(linktype) + ".pcap";
  Analysis run;
  if (!dmtest::writePcap(path, linktype, dmtest::referenceCall(), nano)) return run;
  std::string err;
  auto src = dm::PacketSource::openFile(path, err);
  if (!src) return run;
  dm::Analyzer a(dm::Classifier(dmtest::kLocalhost, {30000, 30100}, {6000, 6299}), {});
  dm::UdpDatagram d;
  while (src->next(d) == dm::PacketSource::Status::Datagram) a.feed(d);
  run.frames = src->frames();
  run.counters = a.counters();
  run.result = a.finish();
  std::remove(path.c_str());
  return run;
}

}  // namespace

TEST(RoundTrip, ExactDelaysFromNanosecondPcap) {
  Analysis run = analyze(DLT_EN10MB, true);
  EXPECT_EQ(run.frames, 10u + 9 + 6 + 6 + 1 + 3);
  EXPECT_EQ(run.counters.not_rtp, 2u);    // RTCP + STUN
  EXPECT_EQ(run.counters.not_relay, 1u);  // SIP
  EXPECT_EQ(run.counters.rtp_in, 16u);
  EXPECT_EQ(run.counters.rtp_out, 16u);

  dm::StreamStats ims = run.result.total(dm::Direction::ToIms);
  EXPECT_EQ(ims.matched, 9u);
  EXPECT_EQ(ims.lost, 1u);
  EXPECT_EQ(ims.duplicates, 0u);
  EXPECT_EQ(ims.reordered, 0u);
  std::vector<int64_t> want;
  for (int i = 0; i < 10; ++i)
    if (i != 5) want.push_back((100 + 10 * i) * 1000);
  EXPECT_EQ(ims.delays_ns, want);
  dm::DelaySummary s = dm::summarize(ims.delays_ns);
  EXPECT_EQ(s.p50, 140000);
  EXPECT_EQ(s.p95, 190000);
  EXPECT_EQ(s.max, 190000);

  dm::StreamStats br = run.result.total(dm::Direction::ToBrowser);
  EXPECT_EQ(br.matched, 6u);
  EXPECT_EQ(br.lost, 0u);
  EXPECT_EQ(br.duplicates, 1u);
  EXPECT_EQ(br.reordered, 1u);
  dm::DelaySummary b = dm::summarize(br.delays_ns);
  EXPECT_EQ(b.min, 50000);
  EXPECT_EQ(b.p50, 52000);
  EXPECT_EQ(b.max, 25000000);
  EXPECT_EQ(run.result.streams.size(), 2u);
}

TEST(RoundTrip, OtherLinkTypesAndMicrosecondFiles) {
  for (int lt : {DLT_NULL, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW}) {
    Analysis run = analyze(lt, true);
    EXPECT_EQ(run.result.total(dm::Direction::ToIms).matched, 9u);
    EXPECT_EQ(run.result.total(dm::Direction::ToBrowser).matched, 6u);
  }
  // Reference delays are whole microseconds, so a µs file must give the same numbers.
  Analysis micro = analyze(DLT_EN10MB, false);
  EXPECT_EQ(dm::summarize(micro.result.total(dm::Direction::ToIms).delays_ns).p50, 140000);
}
