//===- ReplayTest.cpp - Replaying the model on measured times -------------===//
//
// Part of the Quilt project. The times here are made up around what the
// test asks the library itself: which candidates pruning keeps and which
// one the dispatch picks, so they hold whatever the model's terms are.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Replay.h"

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "TestUtil.h"

#include <algorithm>

using namespace quilt;

namespace {

constexpr GemmShape kShape{1, 688, 3072, 768};

struct MeasuredHost {
  TargetDesc target = builtinTarget("host-avx512");
  std::vector<KernelConfig> kept, notKept;
  int picked = -1;

  MeasuredHost() {
    kept = generateCandidates(OpKind::Matmul, ElemType::F32, target);
    for (const KernelConfig &c :
         enumerateCandidates(OpKind::Matmul, ElemType::F32, target, {}))
      if (std::none_of(kept.begin(), kept.end(), [&](const KernelConfig &k) {
            return k.str() == c.str();
          }))
        notKept.push_back(c);
    TargetDesc oneCore = restrictToCores(target, 1);
    PreparedTable table;
    std::string error;
    EXPECT_TRUE(prepareTable(kept, ElemType::F32, oneCore, oneCore.calibration,
                             table, error))
        << error;
    Selection selection;
    EXPECT_EQ(selectKernel(table, kShape, selection), SelectStatus::Ok);
    picked = selection.candidate;
  }

  Measurement at(const KernelConfig &c, double us,
                 GemmShape shape = kShape) const {
    Measurement m;
    m.op = OpKind::Matmul, m.elem = ElemType::F32, m.shape = shape;
    m.config = c, m.measuredUs = us;
    return m;
  }
};

TEST(Replay, ScoresThePickAgainstTheKeptAndTheMeasured) {
  MeasuredHost s;
  ASSERT_GE(s.kept.size(), 2u);
  ASSERT_FALSE(s.notKept.empty());
  std::vector<Measurement> run;
  for (size_t i = 0; i < s.kept.size(); ++i)
    run.push_back(s.at(s.kept[i], int(i) == s.picked ? 150.0 : 100.0 + i));
  run.push_back(s.at(s.notKept.front(), 80.0));
  double bestKept = s.picked == 0 ? 101.0 : 100.0;

  ReplayReport report;
  std::string error;
  ASSERT_TRUE(replayMeasurements({run}, s.target, {}, report, error)) << error;
  ASSERT_EQ(report.scored.size(), 1u);
  EXPECT_TRUE(report.unscored.empty());
  const ReplayedProduct &p = report.scored.front();
  EXPECT_EQ(p.picked.str(), s.kept[s.picked].str());
  EXPECT_NEAR(p.pickedUs, 150.0, 1e-9);
  EXPECT_NEAR(p.bestKeptUs, bestKept, 1e-9);
  EXPECT_EQ(p.best.str(), s.notKept.front().str());
  EXPECT_NEAR(report.regret, 150.0 / bestKept - 1.0, 1e-12);
  EXPECT_NEAR(report.loss, 150.0 / 80.0 - 1.0, 1e-12);
  EXPECT_NEAR(report.keptLoss, bestKept / 80.0 - 1.0, 1e-12);
  EXPECT_NE(renderReplayText(report).find("regret"), std::string::npos);
}

TEST(Replay, JoinsRunsByTheCandidatesTheyShare) {
  // The second run ran everything twice as slow. Its extra candidate, timed
  // twice (80 and 320 us: 160 in log space), is 80 us on the first run's
  // scale; the candidates both timed average to the first run's 100 us.
  MeasuredHost s;
  std::vector<Measurement> first, second;
  for (const KernelConfig &c : s.kept) {
    first.push_back(s.at(c, 100.0));
    second.push_back(s.at(c, 200.0));
  }
  second.push_back(s.at(s.notKept.front(), 80.0));
  second.push_back(s.at(s.notKept.front(), 320.0));

  ReplayReport report;
  std::string error;
  ASSERT_TRUE(replayMeasurements({first, second}, s.target, {}, report, error))
      << error;
  ASSERT_EQ(report.scored.size(), 1u);
  const ReplayedProduct &p = report.scored.front();
  EXPECT_EQ(p.best.str(), s.notKept.front().str());
  EXPECT_NEAR(p.bestUs, 80.0, 1e-9);
  EXPECT_NEAR(p.pickedUs, 100.0, 1e-9);
  EXPECT_NEAR(report.regret, 0.0, 1e-12);
  EXPECT_NEAR(report.loss, 0.25, 1e-12);
}

TEST(Replay, ListsKeptCandidatesThatWereNotMeasured) {
  MeasuredHost s;
  ReplayReport report;
  std::string error;
  ASSERT_TRUE(replayMeasurements({{s.at(s.kept.front(), 10.0)}}, s.target, {},
                                 report, error))
      << error;
  EXPECT_TRUE(report.scored.empty());
  ASSERT_EQ(report.unscored.size(), 1u);
  EXPECT_EQ(report.unscored.front().unmeasured.size(), s.kept.size() - 1);
  EXPECT_NE(renderReplayText(report).find("kept but not measured"),
            std::string::npos);

  // Fewer kept candidates, fewer to measure.
  ReplayOptions two;
  two.maxCandidates = 2;
  ASSERT_TRUE(replayMeasurements({{s.at(s.kept.front(), 10.0)}}, s.target, two,
                                 report, error))
      << error;
  ASSERT_EQ(report.unscored.size(), 1u);
  EXPECT_LE(report.unscored.front().unmeasured.size(), 2u);
}

TEST(Replay, SkipsEmptyProducts) {
  MeasuredHost s;
  ReplayReport report;
  std::string error;
  ASSERT_TRUE(replayMeasurements({{s.at(s.kept.front(), 1.0, {1, 0, 8, 8})}},
                                 s.target, {}, report, error))
      << error;
  EXPECT_TRUE(report.scored.empty());
  EXPECT_TRUE(report.unscored.empty());
}

TEST(Replay, RejectsWhatCannotBeReplayed) {
  MeasuredHost s;
  ReplayReport report;
  std::string error;
  EXPECT_FALSE(replayMeasurements({{s.at(s.kept.front(), 0.0)}}, s.target, {},
                                  report, error));
  EXPECT_NE(error.find("must be positive"), std::string::npos) << error;

  EXPECT_FALSE(replayMeasurements({{s.at(wgmmaConfig(), 5.0)}}, s.target, {},
                                  report, error));
  EXPECT_NE(error.find("is not a candidate for host-avx512"), std::string::npos)
      << error;

  ReplayOptions none;
  none.threads = 0;
  EXPECT_FALSE(replayMeasurements({}, s.target, none, report, error));
  EXPECT_NE(error.find("threads"), std::string::npos) << error;
}

} // namespace
