#include "percentiles.h"

#include <algorithm>
#include <cmath>

namespace dm {

int64_t nearestRank(const std::vector<int64_t>& sorted, double p) {
  // The small epsilon keeps e.g. 0.95 * 20 = 19.000000000000004 at rank 19, as exact arithmetic would.
  double r = std::ceil(p / 100.0 * double(sorted.size()) - 1e-9);
  size_t rank = r < 1 ? 1 : size_t(r);
  if (rank > sorted.size()) rank = sorted.size();
  return sorted[rank - 1];
}

DelaySummary summarize(std::vector<int64_t> values) {
  DelaySummary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  long double sum = 0;
  for (int64_t v : values) sum += v;
  s.min = values.front();
  s.max = values.back();
  s.p50 = nearestRank(values, 50);
  s.p95 = nearestRank(values, 95);
  s.p99 = nearestRank(values, 99);
  s.mean = double(sum / values.size());
  return s;
}

}  // namespace dm
