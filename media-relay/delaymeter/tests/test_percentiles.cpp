#include <vector>

#include "percentiles.h"
#include "test_support.h"

using dm::nearestRank;

TEST(Percentiles, NearestRankOnOneToTwenty) {
  std::vector<int64_t> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  EXPECT_EQ(nearestRank(v, 0), 1);
  EXPECT_EQ(nearestRank(v, 5), 1);    // rank ceil(1) = 1
  EXPECT_EQ(nearestRank(v, 50), 10);  // rank 10
  EXPECT_EQ(nearestRank(v, 95), 19);  // rank 19, not 20 despite 0.95*20 rounding in floating point
  EXPECT_EQ(nearestRank(v, 99), 20);  // rank ceil(19.8) = 20
  EXPECT_EQ(nearestRank(v, 100), 20);
}

TEST(Percentiles, WikipediaExample) {
  // Classic nearest-rank example: {15, 20, 35, 40, 50}.
  std::vector<int64_t> v{15, 20, 35, 40, 50};
  EXPECT_EQ(nearestRank(v, 5), 15);
  EXPECT_EQ(nearestRank(v, 30), 20);
  EXPECT_EQ(nearestRank(v, 40), 20);
  EXPECT_EQ(nearestRank(v, 50), 35);
  EXPECT_EQ(nearestRank(v, 100), 50);
}

TEST(Percentiles, SummarizeSortsAndAverages) {
  dm::DelaySummary s = dm::summarize({300, 100, 200, 1000});
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.min, 100);
  EXPECT_EQ(s.p50, 200);   // rank 2
  EXPECT_EQ(s.p95, 1000);  // rank ceil(3.8) = 4
  EXPECT_EQ(s.p99, 1000);
  EXPECT_EQ(s.max, 1000);
  EXPECT_NEAR(s.mean, 400.0, 1e-9);
}

TEST(Percentiles, SingleValueAndEmpty) {
  dm::DelaySummary one = dm::summarize({42});
  EXPECT_EQ(one.p50, 42);
  EXPECT_EQ(one.p99, 42);
  EXPECT_EQ(dm::summarize({}).count, 0u);
}

TEST(Percentiles, HundredValues) {
  std::vector<int64_t> v;
  for (int i = 100; i >= 1; --i) v.push_back(i * 10);
  dm::DelaySummary s = dm::summarize(v);
  EXPECT_EQ(s.p50, 500);
  EXPECT_EQ(s.p95, 950);
  EXPECT_EQ(s.p99, 990);
  EXPECT_EQ(s.max, 1000);
}
