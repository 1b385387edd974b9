//===- ResidualModelTest.cpp - The learned residual's file and features ---===//
//
// Part of the Quilt project. A model file is read back into the trees it
// describes and evaluates them exactly (body plus the target's head); every
// malformed or stale file is an error naming file and line; the features
// mean what their names say; and a residual model changes the explain
// report's learned pick and pruning's costs, nothing else.
//
//===----------------------------------------------------------------------===//

#include "CostModel/ResidualModel.h"
#include "CostModel/Candidates.h"
#include "CostModel/Explain.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

using namespace quilt;

namespace {

int featureIndex(const std::string &name) {
  for (int i = 0; i < kNumResidualFeatures; ++i)
    if (name == residualFeatureName(i))
      return i;
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

std::string header(int count = kNumResidualFeatures) {
  std::string text = "quilt-residual-model 1\ntrained_on a hand-written "
                     "test model\nfeatures " +
                     std::to_string(count) + "\n";
  for (int i = 0; i < count && i < kNumResidualFeatures; ++i)
    text += "feature " + std::string(residualFeatureName(i)) + "\n";
  return text;
}

/// The body adds 0.5 where thread_tile_m <= 4, else -0.25; the host-avx2
/// head adds 0.1 for every row.
std::string twoTreeModel() {
  int tm = featureIndex("thread_tile_m");
  return header() + "body bias=0.125 trees=1\n" + "tree 3\n" + "node " +
         std::to_string(tm) + " 4.5 1 2\n" + "leaf 0.5\n" + "leaf -0.25\n" +
         "head host-avx2 bias=0.1 trees=0\n";
}

KernelConfig cpuConfig(int64_t mr, int64_t nr) {
  KernelConfig c;
  c.tileM = 64, c.tileN = 256, c.tileK = 128;
  c.threadTileM = mr, c.threadTileN = nr, c.vectorWidth = 16;
  c.inst = InstKind::CpuFma;
  return c;
}

/// The error parsing `text` gives, or nullopt when it parses.
std::optional<std::string> parseError(const std::string &text) {
  ResidualModel model;
  std::string error;
  if (model.parse(text, "m.qrm", error))
    return std::nullopt;
  return error;
}

TEST(ResidualModelTest, EvaluatesBodyAndTheTargetsHead) {
  ResidualModel model;
  std::string error;
  ASSERT_TRUE(model.parse(twoTreeModel(), "m.qrm", error)) << error;
  EXPECT_EQ(model.provenance(), "a hand-written test model");
  EXPECT_TRUE(model.hasHead("host-avx2"));
  EXPECT_FALSE(model.hasHead("host-avx512"));

  ResidualFeatures small{}, large{};
  small[featureIndex("thread_tile_m")] = 4;
  large[featureIndex("thread_tile_m")] = 8;
  EXPECT_DOUBLE_EQ(model.logResidual(small, "host-avx512"), 0.625);
  EXPECT_DOUBLE_EQ(model.logResidual(large, "host-avx512"), -0.125);
  EXPECT_DOUBLE_EQ(model.logResidual(large, "host-avx2"), -0.025);

  // The correction multiplies the analytic prediction by exp(residual).
  const TargetDesc &target = builtinTarget("host-avx512");
  GemmShape shape{1, 100, 200, 300};
  KernelConfig config = cpuConfig(4, 32);
  Prediction p = predict(shape, ElemType::F32, config, target);
  EXPECT_NEAR(model.correctedUs(shape, ElemType::F32, config, target, p),
              p.totalUs * std::exp(0.625), 1e-9 * p.totalUs);
}

TEST(ResidualModelTest, ThresholdsCompareAtSinglePrecision) {
  // 0.1 as a float is 0.100000001490116...; a tree trained on floats puts
  // it on the left of that threshold, where double 0.1 also goes.
  int f = featureIndex("m_remainder");
  std::string text = header() + "body bias=0 trees=1\ntree 3\nnode " +
                     std::to_string(f) +
                     " 0.10000000149011612 1 2\nleaf 1\nleaf 2\n";
  ResidualModel model;
  std::string error;
  ASSERT_TRUE(model.parse(text, "m.qrm", error)) << error;
  ResidualFeatures x{};
  x[f] = 0.1;
  EXPECT_EQ(model.logResidual(x, "host"), 1.0);
  x[f] = 0.1000001;
  EXPECT_EQ(model.logResidual(x, "host"), 2.0);
}

TEST(ResidualModelTest, EveryMalformedFileIsAnErrorWithItsLine) {
  auto expect = [](const std::string &text, const std::string &message) {
    std::optional<std::string> error = parseError(text);
    ASSERT_TRUE(error) << "parsed: " << text;
    EXPECT_NE(error->find(message), std::string::npos) << *error;
    EXPECT_EQ(error->rfind("m.qrm:", 0), 0u) << *error;
  };
  expect("", "m.qrm: empty file");
  expect("quilt-residual-model 2\n", "m.qrm:1: format version 2 is not");
  expect("quilt-tuning-db 1\n", "m.qrm:1: expected 'quilt-residual-model 1'");
  expect("quilt-residual-model 1\nfeatures 3\n",
         "m.qrm:2: the model uses 3 features; this Quilt computes");
  std::string swapped = header();
  size_t at = swapped.find("feature log2_m");
  swapped.replace(at, 14, "feature log2_x");
  expect(swapped, "m.qrm:5: feature 1 is 'log2_x'; this Quilt computes "
                  "'log2_m' there");
  expect(header(), "the file has no 'body'");
  std::string body = header() + "body bias=0 trees=1\ntree 3\n";
  expect(body + "node 0 1.5 1 2\nleaf 1\n", "the file ends inside a tree");
  expect(body + "node 0 1.5 0 2\nleaf 1\nleaf 2\n",
         "node 0's children 0 and 2 must follow it");
  expect(body + "node 0 1.5 1 3\nleaf 1\nleaf 2\n",
         "node 0's children 1 and 3 must follow it");
  expect(body + "node 99 1.5 1 2\nleaf 1\nleaf 2\n",
         "feature index 99 is out of range");
  expect(body + "node 0 x 1 2\nleaf 1\nleaf 2\n",
         "expected 'node FEATURE THRESHOLD LEFT RIGHT' or 'leaf VALUE'");
  expect(body + "node 0 1 1 2\nleaf nan\nleaf 2\n",
         "leaf value 'nan' is not a number");
  expect(header() + "body bias=0 trees=2\ntree 1\nleaf 0\n",
         "expected 'tree N' with 1 to");
  expect(header() + "body bias=0 trees=0\nbody bias=0 trees=0\n",
         "a second body");
  expect(header() + "body trees=0\n", "expected bias=B and trees=T");
  expect(header() + "body bias=x trees=0\n", "bias 'x' is not a number");
  expect(header() + "body bias=0 trees=-1\n", "trees '-1' is not a count");
  expect(header() + "body bias=0 trees=0 depth=3\n", "unexpected 'depth=3'");
  expect(header() + "body bias=0 trees=0\nhead h bias=0 trees=0\nhead h "
                    "bias=0 trees=0\n",
         "a second head for target 'h'");
  expect(header() + "body bias=0 trees=0\nforest\n",
         "expected 'body' or 'head', got 'forest'");

  ResidualModel model;
  std::string error;
  EXPECT_FALSE(model.load("/nonexistent/m.qrm", error));
  EXPECT_NE(error.find("/nonexistent/m.qrm: cannot read"), std::string::npos);
}

TEST(ResidualModelTest, EveryTruncationOrCorruptedWordIsAnErrorNotACrash) {
  // Cut the file after every character, and replace every word in turn by
  // a number out of range: each either parses or names the file.
  std::string text = twoTreeModel();
  for (size_t cut = 0; cut < text.size(); ++cut) {
    std::optional<std::string> error = parseError(text.substr(0, cut));
    if (error) {
      EXPECT_EQ(error->rfind("m.qrm", 0), 0u) << *error;
    }
  }
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find_first_of(" \n", begin);
    if (end == std::string::npos)
      break;
    for (const char *word : {"-7", "99999999999999999999", "1e308", "x"}) {
      std::string corrupted = text;
      corrupted.replace(begin, end - begin, word);
      std::optional<std::string> error = parseError(corrupted);
      if (error) {
        EXPECT_EQ(error->rfind("m.qrm", 0), 0u) << *error;
      }
    }
    begin = end + 1;
  }
}

TEST(ResidualModelTest, FeaturesMeanWhatTheyAreNamed) {
  const TargetDesc &target = builtinTarget("host-avx512");
  GemmShape shape{1, 13, 100, 300};
  KernelConfig config = cpuConfig(4, 32); // 4 rows x 2 vectors of 16
  Prediction p = predict(shape, ElemType::F32, config, target);
  ResidualFeatures x =
      residualFeatures(shape, ElemType::F32, config, target, p);
  auto at = [&](const char *name) { return x[featureIndex(name)]; };
  EXPECT_DOUBLE_EQ(at("log2_m"), std::log2(14.0));
  EXPECT_DOUBLE_EQ(at("elem_bytes"), 4);
  EXPECT_DOUBLE_EQ(at("target_lanes"), 16);
  EXPECT_DOUBLE_EQ(at("thread_tile_m"), 4);
  EXPECT_DOUBLE_EQ(at("thread_tile_n_vectors"), 2);
  // 8 accumulators of 32 registers; 4 + 2 loads feed 8 vector FMAs.
  EXPECT_DOUBLE_EQ(at("accumulator_fraction"), 8.0 / 32.0);
  EXPECT_DOUBLE_EQ(at("loads_per_fma"), 6.0 / 8.0);
  // 13 rows in blocks of 4: 16 computed, 3 wasted; 100 columns in 32s: 128.
  EXPECT_DOUBLE_EQ(at("m_remainder"), 3.0 / 16.0);
  EXPECT_DOUBLE_EQ(at("n_remainder"), 28.0 / 128.0);
  EXPECT_DOUBLE_EQ(at("k_remainder"), (384.0 - 300.0) / 384.0);
  EXPECT_DOUBLE_EQ(at("log2_predicted_us"), std::log2(p.totalUs));
  EXPECT_DOUBLE_EQ(at("compute_share"), p[Term::ComputeUs] / p.totalUs);
  for (double v : x)
    EXPECT_TRUE(std::isfinite(v));

  // An empty problem has finite features too.
  GemmShape empty{1, 0, 100, 300};
  Prediction none = predict(empty, ElemType::F32, config, target);
  for (double v : residualFeatures(empty, ElemType::F32, config, target, none))
    EXPECT_TRUE(std::isfinite(v));
}

TEST(ResidualModelTest, ExplainReportsTheLearnedPickAndKeepsTheSelection) {
  // A body that makes every candidate with 2 accumulator rows or fewer
  // look 4x slower than predicted (and the others as predicted).
  int tm = featureIndex("thread_tile_m");
  std::string text = header() + "body bias=0 trees=1\ntree 3\nnode " +
                     std::to_string(tm) + " 2.5 1 2\nleaf 1.3862943611198906" +
                     "\nleaf 0\n";
  ResidualModel model;
  std::string error;
  ASSERT_TRUE(model.parse(text, "slow-narrow.qrm", error)) << error;

  const TargetDesc &target = builtinTarget("host-avx512");
  Workload w;
  ASSERT_TRUE(parseWorkload("matmul f32 M=2048 N=2048 K=2048", w, error));
  ExplainOptions plain;
  ExplainReport analytic;
  ASSERT_TRUE(explainWorkload(w, target, plain, analytic, error)) << error;
  EXPECT_TRUE(analytic.learnedUs.empty());
  EXPECT_EQ(analytic.learnedPick, -1);

  ExplainOptions learned;
  learned.residual = &model;
  ExplainReport report;
  ASSERT_TRUE(explainWorkload(w, target, learned, report, error)) << error;
  ASSERT_EQ(report.learnedUs.size(), report.candidates.size());
  EXPECT_EQ(report.selection.candidate, analytic.selection.candidate);
  EXPECT_GT(report.candidates[report.learnedPick].threadTileM, 2);
  for (size_t i = 0; i < report.candidates.size(); ++i)
    EXPECT_NEAR(report.learnedUs[i],
                report.predictions[i].totalUs *
                    (report.candidates[i].threadTileM <= 2 ? 4.0 : 1.0),
                1e-9 * report.learnedUs[i]);
  std::string rendered = renderExplainText(report);
  EXPECT_NE(rendered.find("learned_us"), std::string::npos);
  EXPECT_NE(rendered.find("learned: #" + std::to_string(report.learnedPick)),
            std::string::npos);
  EXPECT_NE(rendered.find("(residual model slow-narrow.qrm)"),
            std::string::npos);

  // Pruning with the model keeps fewer narrow register blocks than
  // without: it sees them 4x slower on every shape.
  auto narrow = [](const std::vector<KernelConfig> &configs) {
    int count = 0;
    for (const KernelConfig &c : configs)
      count += c.threadTileM <= 2;
    return count;
  };
  CandidateOptions options;
  std::vector<KernelConfig> before =
      generateCandidates(OpKind::Matmul, ElemType::F32, target, options);
  options.residual = &model;
  std::vector<KernelConfig> after =
      generateCandidates(OpKind::Matmul, ElemType::F32, target, options);
  EXPECT_GT(narrow(before), 0);
  EXPECT_LT(narrow(after), narrow(before));
}

} // namespace
