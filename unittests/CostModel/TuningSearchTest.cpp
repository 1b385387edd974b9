//===- TuningSearchTest.cpp - Coordinate descent on synthetic surfaces ----===//
//
// Part of the Quilt project. The search finds the optimum of a smooth cost
// surface from a poor start, stops at a local optimum of a rugged one,
// stays within its measurement and time budgets, never measures a
// configuration twice, and survives configurations that cannot be measured.
//
//===----------------------------------------------------------------------===//

#include "CostModel/TuningSearch.h"
#include "TestUtil.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>

using namespace quilt;

namespace {

/// A bowl in log space around `target`'s register block and cache blocks.
double bowl(const KernelConfig &c, const KernelConfig &target) {
  auto d = [](double a, double b) { return std::log2(a) - std::log2(b); };
  return 100.0 * (1.0 +
                  10 * d(c.threadTileM, target.threadTileM) *
                      d(c.threadTileM, target.threadTileM) +
                  10 * d(c.threadTileN, target.threadTileN) *
                      d(c.threadTileN, target.threadTileN) +
                  10 * d(c.tileK, target.tileK) * d(c.tileK, target.tileK) +
                  d(c.tileM, target.tileM) * d(c.tileM, target.tileM) +
                  d(c.tileN, target.tileN) * d(c.tileN, target.tileN));
}

struct Counter {
  int measured = 0;
  std::set<std::string> seen;
  bool duplicate = false;
};

MeasureBatch
measureWith(Counter &counter,
            std::function<std::optional<double>(const KernelConfig &)> cost) {
  return [&counter, cost](const std::vector<KernelConfig> &configs) {
    std::vector<std::optional<double>> times;
    for (const KernelConfig &c : configs) {
      counter.duplicate |= !counter.seen.insert(c.str()).second;
      ++counter.measured;
      times.push_back(cost(c));
    }
    return times;
  };
}

TEST(TuningSearch, EveryNeighbourIsValidAndOneStepAway) {
  const TargetDesc &target = builtinTarget("host-avx512");
  std::vector<TuningKnob> knobs = tuningKnobs(target, ElemType::F32);
  ASSERT_EQ(knobs.size(), 5u);
  KernelConfig start = parseOrDie("96x1024x128 t1 w1x1 tt6x32 v16 s1 cpu_fma");
  for (const TuningKnob &knob : knobs) {
    std::vector<KernelConfig> next = knob.neighbours(start);
    EXPECT_FALSE(next.empty()) << knob.name;
    for (const KernelConfig &c : next) {
      EXPECT_EQ(checkForTarget(c, ElemType::F32, target), "") << c.str();
      EXPECT_FALSE(c == start);
    }
  }
  // Register block M moves to the neighbouring rows; tile M keeps its 16
  // register blocks.
  std::vector<KernelConfig> rows = knobs[0].neighbours(start);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].threadTileM, 5);
  EXPECT_EQ(rows[0].tileM, 80);
  EXPECT_EQ(rows[1].threadTileM, 7);
  EXPECT_EQ(rows[1].tileM, 112);
  EXPECT_TRUE(tuningKnobs(builtinTarget("h100"), ElemType::F16).empty());
}

TEST(TuningSearch, FindsTheOptimumOfASmoothSurface) {
  const TargetDesc &target = builtinTarget("host-avx512");
  KernelConfig optimum =
      parseOrDie("192x512x192 t1 w1x1 tt12x32 v16 s1 cpu_fma");
  ASSERT_EQ(checkForTarget(optimum, ElemType::F32, target), "");
  KernelConfig start = parseOrDie("64x2048x64 t1 w1x1 tt4x16 v16 s1 cpu_fma");
  Counter counter;
  TuningSearchOptions options;
  options.maxMeasurements = 500;
  TuningSearchResult r = coordinateDescent(
      {start}, tuningKnobs(target, ElemType::F32),
      measureWith(counter,
                  [&](const KernelConfig &c) { return bowl(c, optimum); }),
      options);
  ASSERT_TRUE(r.found);
  EXPECT_TRUE(r.localOptimum);
  EXPECT_EQ(r.best.str(), optimum.str());
  EXPECT_DOUBLE_EQ(r.bestUs, 100.0);
  EXPECT_FALSE(counter.duplicate);
  EXPECT_EQ(counter.measured, int(r.steps.size()));
  EXPECT_LT(counter.measured, 120);
  // The taken steps only ever get faster, by at least the minimum gain.
  double last = INFINITY;
  for (const TuningStep &step : r.steps)
    if (step.taken) {
      EXPECT_LT(*step.us, last * (1 - options.minGain) + 1e-9);
      last = *step.us;
    }
}

TEST(TuningSearch, StartsFromTheFastestStart) {
  const TargetDesc &target = builtinTarget("host-avx512");
  KernelConfig optimum =
      parseOrDie("192x512x192 t1 w1x1 tt12x32 v16 s1 cpu_fma");
  Counter counter;
  TuningSearchOptions options;
  options.maxMeasurements = 2;
  TuningSearchResult r = coordinateDescent(
      {parseOrDie("64x2048x64 t1 w1x1 tt4x16 v16 s1 cpu_fma"),
       parseOrDie("192x512x128 t1 w1x1 tt12x32 v16 s1 cpu_fma")},
      tuningKnobs(target, ElemType::F32),
      measureWith(counter,
                  [&](const KernelConfig &c) { return bowl(c, optimum); }),
      options);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.best.tileK, 128);
  EXPECT_TRUE(r.steps[1].taken);
  EXPECT_FALSE(r.localOptimum); // the budget ended it
}

TEST(TuningSearch, RespectsTheMeasurementBudget) {
  const TargetDesc &target = builtinTarget("host-avx512");
  KernelConfig optimum =
      parseOrDie("192x512x192 t1 w1x1 tt12x32 v16 s1 cpu_fma");
  for (int budget : {1, 3, 7, 20}) {
    Counter counter;
    TuningSearchOptions options;
    options.maxMeasurements = budget;
    TuningSearchResult r = coordinateDescent(
        {parseOrDie("64x2048x64 t1 w1x1 tt4x16 v16 s1 cpu_fma")},
        tuningKnobs(target, ElemType::F32),
        measureWith(counter,
                    [&](const KernelConfig &c) { return bowl(c, optimum); }),
        options);
    EXPECT_LE(counter.measured, budget);
    EXPECT_FALSE(r.localOptimum);
  }
}

TEST(TuningSearch, RespectsTheTimeBudget) {
  const TargetDesc &target = builtinTarget("host-avx512");
  KernelConfig optimum =
      parseOrDie("192x512x192 t1 w1x1 tt12x32 v16 s1 cpu_fma");
  Counter counter;
  int batches = 0;
  TuningSearchOptions options;
  options.maxMeasurements = 1000;
  // The clock runs out after three batches (the start and two knobs).
  options.outOfTime = [&] { return batches >= 3; };
  MeasureBatch inner = measureWith(
      counter, [&](const KernelConfig &c) { return bowl(c, optimum); });
  TuningSearchResult r = coordinateDescent(
      {parseOrDie("64x2048x64 t1 w1x1 tt4x16 v16 s1 cpu_fma")},
      tuningKnobs(target, ElemType::F32),
      [&](const std::vector<KernelConfig> &configs) {
        ++batches;
        return inner(configs);
      },
      options);
  EXPECT_EQ(batches, 3);
  EXPECT_FALSE(r.localOptimum);
  EXPECT_TRUE(r.found);
}

TEST(TuningSearch, SkipsWhatCannotBeMeasured) {
  const TargetDesc &target = builtinTarget("host-avx512");
  KernelConfig optimum =
      parseOrDie("192x512x192 t1 w1x1 tt12x32 v16 s1 cpu_fma");
  Counter counter;
  TuningSearchOptions options;
  options.maxMeasurements = 500;
  // Every register block N of 48 fails (say, a miscompile caught by the
  // reference check): the search measures it once and moves on.
  TuningSearchResult r = coordinateDescent(
      {parseOrDie("64x2048x64 t1 w1x1 tt4x16 v16 s1 cpu_fma")},
      tuningKnobs(target, ElemType::F32),
      measureWith(counter,
                  [&](const KernelConfig &c) -> std::optional<double> {
                    if (c.threadTileN == 48)
                      return std::nullopt;
                    return bowl(c, optimum);
                  }),
      options);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.best.str(), optimum.str());
  EXPECT_TRUE(std::any_of(r.steps.begin(), r.steps.end(), [](auto &step) {
    return !step.us && step.config.threadTileN == 48;
  }));
  EXPECT_FALSE(counter.duplicate);

  Counter none;
  TuningSearchResult nothing = coordinateDescent(
      {optimum}, tuningKnobs(target, ElemType::F32),
      measureWith(none, [](const KernelConfig &) { return std::nullopt; }),
      options);
  EXPECT_FALSE(nothing.found);
  EXPECT_EQ(none.measured, 1);
}

TEST(TuningSearch, StopsAtALocalOptimum) {
  const TargetDesc &target = builtinTarget("host-avx512");
  KernelConfig start = parseOrDie("96x1024x128 t1 w1x1 tt6x32 v16 s1 cpu_fma");
  // Every move is slower than the start: one round of neighbours, then stop.
  Counter counter;
  TuningSearchOptions options;
  TuningSearchResult r =
      coordinateDescent({start}, tuningKnobs(target, ElemType::F32),
                        measureWith(counter,
                                    [&](const KernelConfig &c) {
                                      return c == start ? 1.0 : 2.0;
                                    }),
                        options);
  EXPECT_TRUE(r.localOptimum);
  EXPECT_EQ(r.best, start);
  size_t neighbours = 0;
  for (const TuningKnob &knob : tuningKnobs(target, ElemType::F32))
    neighbours += knob.neighbours(start).size();
  EXPECT_EQ(r.steps.size(), 1 + neighbours);
}

} // namespace
