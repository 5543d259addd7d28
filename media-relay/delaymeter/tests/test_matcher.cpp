#include "matcher.h"
#include "test_support.h"

#include <fstream>
#include <string>
#include <vector>

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
  m.add(in(20000, Direction::ToIms, 1, 2));  // lost (a later packet went through)
  m.add(out(30000, Direction::ToIms, 1, 7));  // no in copy at all
  m.add(in(40000, Direction::ToIms, 1, 3));
  m.add(out(40050, Direction::ToIms, 1, 3));
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 1);
  EXPECT_EQ(s.matched, 2u);
  EXPECT_EQ(s.duplicates, 1u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_EQ(s.in_flight_at_end, 0u);
  EXPECT_EQ(s.unmatched_out, 1u);
}

TEST(Matcher, LastPacketsAfterTheLastForwardedAreInFlightAtEndNotLoss) {
  // the browser's last packets reach the relay as the BYE's delete ends the call: no out copy
  dm::Matcher m({});
  m.add(in(0, Direction::ToIms, 1, 1));
  m.add(out(60, Direction::ToIms, 1, 1));
  m.add(in(20000, Direction::ToIms, 1, 2));
  m.add(in(40000, Direction::ToIms, 1, 3));
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 1);
  EXPECT_EQ(s.matched, 1u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.in_flight_at_end, 2u);
}

TEST(Matcher, MoreThanTwoTrailingInCopiesAreLoss) {
  // a relay that stopped forwarding before the end: beyond kMaxInFlightAtEnd the trailing copies are lost
  dm::Matcher m({});
  m.add(in(0, Direction::ToBrowser, 9, 100));
  m.add(out(50, Direction::ToBrowser, 9, 100));
  for (uint16_t i = 1; i <= 5; i++) m.add(in(20000 * i, Direction::ToBrowser, 9, uint16_t(100 + i)));
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToBrowser, 9);
  EXPECT_EQ(s.in_flight_at_end, dm::kMaxInFlightAtEnd);
  EXPECT_EQ(s.lost, 5u - dm::kMaxInFlightAtEnd);
}

TEST(Matcher, AStreamNeverForwardedIsAllLoss) {
  dm::Matcher m({});
  m.add(in(0, Direction::ToIms, 3, 1));
  m.add(in(20000, Direction::ToIms, 3, 2));
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 3);
  EXPECT_EQ(s.lost, 2u);
  EXPECT_EQ(s.in_flight_at_end, 0u);
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

// ---- transcoded streams (--call-ports): rtpengine 10.5 re-encodes Opus <-> PCMA with a new SSRC,
// the same sequence numbers and timestamps scaled from the same origin (48 kHz <-> 8 kHz).
namespace {

const uint16_t kB = 30010, kI = 30000;  // rtpengine's browser-side and IMS-side ports of the call

dm::RtpObservation obs(int64_t t_us, Role role, Direction d, uint32_t ssrc, uint16_t seq, uint32_t ts, uint16_t port) {
  return {t_us * kUs, role, d, ssrc, seq, ts, port};
}

// n packets of one call both ways, 20 ms apart, out copy `delay_us` after the in copy.
std::vector<dm::RtpObservation> transcodedCall(int n, int64_t delay_us) {
  std::vector<dm::RtpObservation> v;
  for (int k = 0; k < n; ++k) {
    int64_t t = 20000 * k;
    uint16_t seq = uint16_t(65530 + k);  // wraps
    uint32_t ts = 4000000000u;
    v.push_back(obs(t, Role::In, Direction::ToIms, 0xB1, seq, ts + 960u * k, kB));          // opus from the browser
    v.push_back(obs(t + delay_us, Role::Out, Direction::ToIms, 0xA1, seq, ts + 160u * k, kI));  // PCMA to IMS
    int64_t echo = t + delay_us + 50;  // the far end echoes the PCMA packet as it is
    v.push_back(obs(echo, Role::In, Direction::ToBrowser, 0xA1, seq, ts + 160u * k, kI));
    v.push_back(obs(echo + delay_us, Role::Out, Direction::ToBrowser, 0xB2, seq, ts + 960u * k, kB));
  }
  return v;
}

}  // namespace

TEST(MatcherTranscoded, CallPortsMapTheNewSsrcBack) {
  dm::MatcherConfig cfg;
  cfg.call_ports = {{kB, kI}};
  dm::Matcher m(cfg);
  for (const auto& o : transcodedCall(50, 35000)) m.add(o);
  dm::MatchResult r = m.finish();
  const auto& up = stream(r, Direction::ToIms, 0xB1);
  const auto& down = stream(r, Direction::ToBrowser, 0xA1);
  EXPECT_EQ(up.matched, 50u);
  EXPECT_EQ(down.matched, 50u);
  EXPECT_EQ(up.lost + down.lost + up.unmatched_out + down.unmatched_out, 0u);
  EXPECT_EQ(up.ts_mismatch + down.ts_mismatch, 0u);
  for (const auto& p : r.packets) EXPECT_EQ(p.delay_ns, 35000 * kUs);
  ASSERT_EQ(r.ssrc_map.entries.size(), 2u);
  EXPECT_EQ(r.ssrc_map.out_to_in.at(0xA1), 0xB1u);
  EXPECT_EQ(r.ssrc_map.out_to_in.at(0xB2), 0xA1u);
  EXPECT_EQ(r.ssrc_map.ambiguous, 0u);
}

TEST(MatcherTranscoded, LastFramesHeldByTheCodecAreNotLoss) {
  dm::MatcherConfig cfg;
  cfg.call_ports = {{kB, kI}};
  dm::Matcher m(cfg);
  // 50 frames (seq 65530 .. 65535, 0 .. 43): drop the to_ims out copies of frame 20 (lost mid-stream)
  // and of the last three frames (the codec held them when the call ended).
  auto lostOut = [](const dm::RtpObservation& o) {
    int k = (uint16_t(o.seq - 65530));
    return o.role == Role::Out && o.dir == Direction::ToIms && (k == 20 || k >= 47);
  };
  for (const auto& o : transcodedCall(50, 35000))
    if (!lostOut(o)) m.add(o);
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 0xB1);
  EXPECT_EQ(s.matched, 46u);
  EXPECT_EQ(s.held_at_end, 2u);  // at most kMaxHeldAtEnd
  EXPECT_EQ(s.lost, 2u);         // frame 20 and the third trailing one
}

TEST(MatcherTranscoded, WithoutCallPortsNothingPairs) {
  dm::Matcher m({});
  for (const auto& o : transcodedCall(20, 35000)) m.add(o);
  dm::MatchResult r = m.finish();
  dm::StreamStats up = r.total(Direction::ToIms);
  EXPECT_EQ(up.matched, 0u);
  EXPECT_EQ(up.lost, 20u);
  EXPECT_EQ(up.unmatched_out, 20u);
}

TEST(MatcherTranscoded, SequenceRunningAheadOfTheAudioPairsByTimestamp) {
  // Seen with rtpengine 10.5 under load: in seq 103 yields no packet, and from then on out seq n+1
  // carries the audio (timestamp) of in seq n; the last frame stays queued when the call ends.
  dm::MatcherConfig cfg;
  cfg.call_ports = {{kB, kI}};
  dm::Matcher m(cfg);
  for (int k = 0; k < 10; ++k) {
    m.add(obs(20000 * k, Role::In, Direction::ToIms, 0xB1, uint16_t(100 + k), 5000u + 960u * k, kB));
    if (k == 9) continue;
    uint16_t outSeq = uint16_t(100 + k + (k >= 3 ? 1 : 0));
    m.add(obs(20000 * k + 30000 + (k >= 3 ? 20000 : 0), Role::Out, Direction::ToIms, 0xA1, outSeq, 5000u + 160u * k, kI));
  }
  dm::MatchResult r = m.finish();
  EXPECT_EQ(r.clock_mapped, 1u);
  const auto& s = stream(r, Direction::ToIms, 0xB1);
  EXPECT_EQ(s.matched, 9u);
  EXPECT_EQ(s.seq_shift, 6u);  // frames 3..8
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.held_at_end, 1u);
  EXPECT_EQ(s.unmatched_out, 0u);
  ASSERT_EQ(r.packets.size(), 9u);
  EXPECT_EQ(r.packets[2].delay_ns, 30000 * kUs);
  EXPECT_EQ(r.packets[3].delay_ns, 50000 * kUs);  // one frame behind from the slip on
  EXPECT_EQ(r.packets[3].seq, 103);               // reported under the ingress seq
}

TEST(Matcher, MappedSsrcPairedBySeqFlagsATimestampMismatch) {
  // --map-ssrc (no call ports) pairs by seq: a renumbered output shows up in ts_mismatch.
  dm::MatcherConfig cfg;
  cfg.out_to_in_ssrc[0xA1] = 0xB1;
  dm::Matcher m(cfg);
  uint16_t outSeq = 100;
  for (int k = 0; k < 10; ++k) {
    m.add(obs(20000 * k, Role::In, Direction::ToIms, 0xB1, uint16_t(100 + k), 960u * k, kB));
    if (k == 3) continue;  // lost before the encoder; the out stream continues with the next seq
    m.add(obs(20000 * k + 30000, Role::Out, Direction::ToIms, 0xA1, outSeq++, 160u * k, kI));
  }
  dm::MatchResult r = m.finish();
  const auto& s = stream(r, Direction::ToIms, 0xB1);
  EXPECT_EQ(s.matched, 9u);
  EXPECT_EQ(s.ts_mismatch, 6u);  // out seq 103..108 carry frames 4..9
}

TEST(MatcherTranscoded, UnequalSsrcCountsAreLeftUnmapped) {
  dm::MatcherConfig cfg;
  cfg.call_ports = {{kB, kI}};
  dm::Matcher m(cfg);
  m.add(obs(0, Role::In, Direction::ToIms, 0xB1, 1, 0, kB));
  m.add(obs(10, Role::In, Direction::ToIms, 0xB3, 1, 0, kB));
  m.add(obs(20, Role::Out, Direction::ToIms, 0xA1, 1, 0, kI));
  dm::MatchResult r = m.finish();
  EXPECT_EQ(r.ssrc_map.ambiguous, 1u);
  EXPECT_TRUE(r.ssrc_map.entries.empty());
}

TEST(MatcherTranscoded, ForwardedStreamsNeedNoMap) {
  dm::MatcherConfig cfg;
  cfg.call_ports = {{kB, kI}};
  dm::Matcher m(cfg);
  m.add(obs(0, Role::In, Direction::ToIms, 0xB1, 1, 960, kB));
  m.add(obs(90, Role::Out, Direction::ToIms, 0xB1, 1, 960, kI));
  dm::MatchResult r = m.finish();
  EXPECT_TRUE(r.ssrc_map.entries.empty());
  EXPECT_EQ(stream(r, Direction::ToIms, 0xB1).matched, 1u);
}

TEST(CallPorts, ReadsPairsAndRejectsBadLines) {
  std::string path = "call_ports_test.txt";
  std::vector<dm::CallPorts> v;
  std::string err;
  { std::ofstream(path) << "# browser ims\n30010 30000\n\n30022 30004\n"; }
  ASSERT_TRUE(dm::readCallPorts(path, v, err));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].browser_side, 30022);
  EXPECT_EQ(v[1].ims_side, 30004);
  { std::ofstream(path) << "30010 30000 7\n"; }
  v.clear();
  EXPECT_FALSE(dm::readCallPorts(path, v, err));
  EXPECT_TRUE(err.find(":1:") != std::string::npos);
  EXPECT_FALSE(dm::readCallPorts("no/such/file", v, err));
}
