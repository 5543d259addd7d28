// Delay statistics. Percentiles use the nearest-rank method: the p-th percentile of N sorted values
// is the value at 1-based rank ceil(p/100 * N) (rank 1 for p = 0). It always returns a measured
// value, never an interpolation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dm {

struct DelaySummary {
  size_t count = 0;  // when 0 every other field is meaningless
  int64_t min = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;
  double mean = 0;
};

// `sorted` must be ascending and non-empty; p in [0, 100].
int64_t nearestRank(const std::vector<int64_t>& sorted, double p);
DelaySummary summarize(std::vector<int64_t> values);

}  // namespace dm
