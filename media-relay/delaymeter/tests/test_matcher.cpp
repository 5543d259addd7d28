#include "matcher.h"
#include "test_support.h"

using dm::Direction;
using dm::Role;

namespace {

const int64_t kUs = 1000;

dm::RtpObservation in(int64_t t_us, Direction d, uint32_t ssrc, uint16_t seq) {
  return {t_us * kUs, Role::In, d, ssrc, seq};
}
dm::RtpObservation out(int64_t t_us, Direction d, uint32_t ssrc, uint16_t seq) {
  return {t_us * kUs, Role::Out, d, ssrc, seq};
}
const dm::StreamStats& stream(const dm::MatchResult& r, Direction d, uint32_t ssrc) {
  static const dm::StreamStats empty;
  auto it = r.streams.find({d, ssrc});
  return it == r.streams.end() ? empty : it->second;
}

}  // namespace

TEST(Matcher, PairsInAndOut) {
  dm::Matcher m({});
  m.add(in(0, Direction::ToIms, 1, 10));
  m.add(out(120, Direction::ToIms, 1, 10));
  m.add(in(20000, Direction::ToIms, 1, 11));
  m.add(out(20080, Direction::ToIms, 1, 11));
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 1);
  EXPECT_EQ(s.matched, 2u);
  EXPECT_EQ(s.lost, 0u);
  ASSERT_EQ(r.packets.size(), 2u);
  EXPECT_EQ(r.packets[0].delay_ns, 120 * kUs);
  EXPECT_EQ(r.packets[1].delay_ns, 80 * kUs);
  EXPECT_EQ(r.packets[1].t_in_ns, 20000 * kUs);
}

TEST(Matcher, OrderOfAddDoesNotMatter) {
  dm::Matcher m({});
  m.add(out(120, Direction::ToIms, 1, 10));  // pcapng from two interfaces may be unordered
  m.add(in(0, Direction::ToIms, 1, 10));
  dm::MatchResult r = m.finish();
  EXPECT_EQ(stream(r, Direction::ToIms, 1).matched, 1u);
}

TEST(Matcher, CountsLossDuplicateAndUnmatched) {
  dm::Matcher m({});
  m.add(in(0, Direction::ToIms, 1, 1));
  m.add(out(50, Direction::ToIms, 1, 1));
  m.add(out(60, Direction::ToIms, 1, 1));  // duplicate
  m.add(in(20000, Direction::ToIms, 1, 2));  // lost
  m.add(out(30000, Direction::ToIms, 1, 7));  // no in copy at all
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 1);
  EXPECT_EQ(s.matched, 1u);
  EXPECT_EQ(s.duplicates, 1u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.unmatched_out, 1u);
}

TEST(Matcher, InCopyOlderThanWindowIsLost) {
  dm::MatcherConfig cfg;
  cfg.window_ns = 1000 * kUs;
  dm::Matcher m(cfg);
  m.add(in(0, Direction::ToIms, 1, 5));
  m.add(out(5000, Direction::ToIms, 1, 5));  // 5 ms later: not the same packet (e.g. after seq wrap)
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 1);
  EXPECT_EQ(s.matched, 0u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.unmatched_out, 1u);
}

TEST(Matcher, ReorderOnEgressAcrossWrap) {
  dm::Matcher m({});
  const uint16_t seqs[] = {65534, 65535, 0, 1};
  for (int i = 0; i < 4; ++i) m.add(in(i * 20000, Direction::ToBrowser, 9, seqs[i]));
  m.add(out(100, Direction::ToBrowser, 9, 65534));
  m.add(out(40100, Direction::ToBrowser, 9, 0));      // 65535 held back...
  m.add(out(40200, Direction::ToBrowser, 9, 65535));  // ...and sent late: reordered
  m.add(out(60100, Direction::ToBrowser, 9, 1));
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToBrowser, 9);
  EXPECT_EQ(s.matched, 4u);
  EXPECT_EQ(s.reordered, 1u);
  EXPECT_EQ(s.reordered_in, 0u);
  EXPECT_EQ(s.lost, 0u);
}

TEST(Matcher, TwoSsrcsTwoDirections) {
  dm::Matcher m({});
  for (int i = 0; i < 5; ++i) {
    m.add(in(i * 20000, Direction::ToIms, 0xA, uint16_t(i)));
    m.add(out(i * 20000 + 100, Direction::ToIms, 0xA, uint16_t(i)));
    m.add(in(i * 20000 + 5, Direction::ToBrowser, 0xB, uint16_t(i)));
    if (i != 3) m.add(out(i * 20000 + 205, Direction::ToBrowser, 0xB, uint16_t(i)));
  }
  dm::MatchResult r = m.finish();
  EXPECT_EQ(r.streams.size(), 2u);
  EXPECT_EQ(stream(r, Direction::ToIms, 0xA).matched, 5u);
  EXPECT_EQ(stream(r, Direction::ToBrowser, 0xB).matched, 4u);
  EXPECT_EQ(stream(r, Direction::ToBrowser, 0xB).lost, 1u);
  EXPECT_EQ(r.total(Direction::ToIms).delays_ns, std::vector<int64_t>(5, 100 * kUs));
  EXPECT_EQ(r.total(Direction::ToBrowser).delays_ns, std::vector<int64_t>(4, 200 * kUs));
}

TEST(Matcher, EchoedPacketPairsPerDirection) {
  // SIPp rtp_echo returns the same SSRC+seq: in->out toward IMS, then again toward the browser.
  dm::Matcher m({});
  m.add(in(0, Direction::ToIms, 5, 1));
  m.add(out(100, Direction::ToIms, 5, 1));
  m.add(in(300, Direction::ToBrowser, 5, 1));
  m.add(out(350, Direction::ToBrowser, 5, 1));
  dm::MatchResult r = m.finish();
  EXPECT_EQ(stream(r, Direction::ToIms, 5).delays_ns, std::vector<int64_t>{100 * kUs});
  EXPECT_EQ(stream(r, Direction::ToBrowser, 5).delays_ns, std::vector<int64_t>{50 * kUs});
  EXPECT_EQ(stream(r, Direction::ToBrowser, 5).duplicates, 0u);
}

TEST(Matcher, MapSsrcRewrittenByRelay) {
  dm::MatcherConfig cfg;
  cfg.out_to_in_ssrc[0xBBBB] = 0xAAAA;
  dm::Matcher m(cfg);
  m.add(in(0, Direction::ToIms, 0xAAAA, 3));
  m.add(out(70, Direction::ToIms, 0xBBBB, 3));
  dm::MatchResult r = m.finish();
  EXPECT_EQ(stream(r, Direction::ToIms, 0xAAAA).matched, 1u);
  EXPECT_EQ(r.packets.at(0).delay_ns, 70 * kUs);
}
