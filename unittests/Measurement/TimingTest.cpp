//===- TimingTest.cpp - How quilt-bench times alternatives ----------------===//
//
// Part of the Quilt project. Checks the visiting order and the sampling of
// interleavedMedianMicros, and that a time is never below what a run
// takes. Nothing here asserts how fast anything is.
//
//===----------------------------------------------------------------------===//

#include "Measurement/Timing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

using namespace quilt::bench;

namespace {

TEST(InterleavedTiming, EveryPassVisitsAllStartingOneFurther) {
  std::vector<size_t> visits;
  std::vector<double> times = interleavedMedianMicros(
      3, [&](size_t i) { visits.push_back(i); }, /*minTime=*/0.0,
      /*rounds=*/3);
  ASSERT_EQ(times.size(), 3u);
  // medianMicros: one warm-up run and three timed ones per alternative and
  // pass (minTime 0), so each visit is four consecutive runs.
  ASSERT_EQ(visits.size(), 3u * 3u * 4u);
  std::vector<size_t> order;
  for (size_t v = 0; v < visits.size(); v += 4) {
    for (size_t r = 1; r < 4; ++r)
      EXPECT_EQ(visits[v + r], visits[v]);
    order.push_back(visits[v]);
  }
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 1, 2, 0, 2, 0, 1}));
}

TEST(InterleavedTiming, TimeIsAtLeastTheRun) {
  using namespace std::chrono_literals;
  std::vector<double> times = interleavedMedianMicros(
      2,
      [](size_t i) {
        if (i == 1)
          std::this_thread::sleep_for(2ms);
      },
      /*minTime=*/0.0, /*rounds=*/2);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_GE(times[1], 2000.0);
  EXPECT_GE(times[0], 0.0);
}

TEST(InterleavedTiming, NoAlternativesNoTimes) {
  int runs = 0;
  EXPECT_TRUE(interleavedMedianMicros(
                  0, [&](size_t) { ++runs; }, 0.1)
                  .empty());
  EXPECT_EQ(runs, 0);
}

} // namespace
