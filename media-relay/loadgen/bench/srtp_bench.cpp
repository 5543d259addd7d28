// Microbenchmark: loadgen's SrtpSession protect + unprotect per packet (AES_CM_128_HMAC_SHA1_80),
// with the libsrtp2 loadgen is linked against (docs/loadgen.md "SRTP library").
//   srtp_bench [--packets N] [--payload BYTES] [--rounds R] [--sessions S] [--json]
// Each round creates S session pairs (as S concurrent calls hold) and sends N packets round-robin
// across them. Prints the best and the median of R rounds (µs per protect+unprotect pair); the best
// round is the figure least disturbed by other jobs on a shared host. Exit 1 if any packet fails to
// round-trip.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rtp.h"
#include "srtp_session.h"

int main(int argc, char** argv) {
  long packets = 200000;
  int payload = 120, rounds = 5, sessions = 1;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](long lo, long hi) {
      if (i + 1 >= argc) { std::fprintf(stderr, "srtp_bench: %s needs a value\n", a.c_str()); std::exit(2); }
      char* end = nullptr;
      long v = std::strtol(argv[++i], &end, 10);
      if (*end || v < lo || v > hi) {
        std::fprintf(stderr, "srtp_bench: %s must be an integer in [%ld, %ld]\n", a.c_str(), lo, hi);
        std::exit(2);
      }
      return v;
    };
    if (a == "--packets") packets = next(1, 100000000);
    else if (a == "--payload") payload = static_cast<int>(next(1, 1400));
    else if (a == "--rounds") rounds = static_cast<int>(next(1, 100));
    else if (a == "--sessions") sessions = static_cast<int>(next(1, 100000));
    else if (a == "--json") json = true;
    else { std::fprintf(stderr, "usage: srtp_bench [--packets N] [--payload BYTES] [--rounds R] [--sessions S] [--json]\n"); return 2; }
  }
  uint8_t ka[30], kb[30];
  for (int i = 0; i < 30; ++i) { ka[i] = static_cast<uint8_t>(0x10 + i); kb[i] = static_cast<uint8_t>(0x80 + i); }
  std::string err;
  std::vector<double> perPair;
  double createMs = 0, freeMs = 0;  // last round: creating / freeing the S session pairs
  std::vector<uint8_t> pkt(12 + payload + lg::kSrtpMaxTrailer);
  for (int r = 0; r < rounds; ++r) {
    // Fresh sessions per round (sequence numbers wrap at 2^16 within one session pair).
    std::vector<std::unique_ptr<lg::SrtpSession>> alice, bob;
    auto c0 = std::chrono::steady_clock::now();
    for (int k = 0; k < sessions; ++k) {
      alice.push_back(std::make_unique<lg::SrtpSession>());
      bob.push_back(std::make_unique<lg::SrtpSession>());
      if (!alice.back()->init(ka, kb, &err) || !bob.back()->init(kb, ka, &err)) {
        std::fprintf(stderr, "srtp_bench: %s\n", err.c_str());
        return 1;
      }
    }
    auto t0 = std::chrono::steady_clock::now();
    createMs = std::chrono::duration<double, std::milli>(t0 - c0).count();
    for (long n = 0; n < packets; ++n) {
      int k = static_cast<int>(n % sessions);
      uint16_t seq = static_cast<uint16_t>(n / sessions);
      lg::writeRtpHeader(pkt.data(), 111, seq, static_cast<uint32_t>(seq) * 960u, 0x11223344);
      std::memset(pkt.data() + 12, static_cast<int>(n & 0xff), payload);
      int len = 12 + payload;
      if (!alice[k]->protect(pkt.data(), len) || !bob[k]->unprotect(pkt.data(), len) || len != 12 + payload) {
        std::fprintf(stderr, "srtp_bench: packet %ld did not round-trip\n", n);
        return 1;
      }
    }
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    perPair.push_back(us / static_cast<double>(packets));
    auto f0 = std::chrono::steady_clock::now();
    alice.clear();
    bob.clear();
    freeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count();
    if (!json) std::fprintf(stderr, "round %d: %.3f us/pair\n", r + 1, perPair.back());
  }
  std::vector<double> sorted = perPair;
  std::sort(sorted.begin(), sorted.end());
  double best = sorted.front(), median = sorted[sorted.size() / 2];
  if (json) {
    std::printf("{\"library\":\"%s\",\"crypto\":\"%s\",\"sessions\":%d,\"payload_bytes\":%d,\"packets\":%ld,\"rounds\":%d,"
                "\"us_per_pair_best\":%.3f,\"us_per_pair_median\":%.3f,\"create_ms\":%.1f,\"free_ms\":%.1f}\n",
                lg::srtpLibrary().c_str(), lg::srtpCrypto(), sessions, payload, packets, rounds, best, median, createMs, freeMs);
  } else {
    std::printf("%s (%s crypto), %d session pairs, %d B payload, %ld packets x %d rounds: protect+unprotect %.3f us/pair best, %.3f median; create %.1f ms, free %.1f ms (last round)\n",
                lg::srtpLibrary().c_str(), lg::srtpCrypto(), sessions, payload, packets, rounds, best, median, createMs, freeMs);
  }
  return 0;
}
