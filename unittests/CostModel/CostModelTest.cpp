//===- CostModelTest.cpp - Behaviour of the analytic model ----------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/CostModel.h"
#include "CostModel/Candidates.h"
#include "CostModel/TargetDatabase.h"
#include "TestUtil.h"

#include <cmath>

using namespace quilt;

namespace {

struct Case {
  const char *target;
  ElemType elem;
  KernelConfig config;
};

std::vector<Case> monotoneCases() {
  return {{"h100", ElemType::F16, wgmmaConfig()},
          {"a100", ElemType::F16, mmaConfig()},
          {"host-avx2", ElemType::F32, avx2Config()}};
}

void expectFinite(const Prediction &p) {
  EXPECT_TRUE(std::isfinite(p.totalUs));
  for (int t = 0; t < kNumTerms; ++t)
    EXPECT_TRUE(std::isfinite(p.terms[t])) << termName(t);
}

TEST(CostModel, GrowsWithWorkInEveryDimension) {
  const int64_t sizes[] = {1,   7,    64,   100,  127,  128,   129,
                           333, 1000, 1024, 4097, 8192, 20000, 65536};
  for (const Case &c : monotoneCases()) {
    const TargetDesc &t = builtinTarget(c.target);
    ASSERT_EQ(checkForTarget(c.config, c.elem, t), "") << c.target;
    for (int dim = 0; dim < 3; ++dim) {
      double previous = 0;
      for (int64_t s : sizes) {
        GemmShape shape{1, 512, 512, 512};
        (dim == 0 ? shape.m : dim == 1 ? shape.n : shape.k) = s;
        double us = predict(shape, c.elem, c.config, t).totalUs;
        EXPECT_GE(us, previous * (1 - 1e-12))
            << c.target << " dim " << dim << " size " << s;
        previous = us;
      }
    }
  }
}

TEST(CostModel, WaveQuantizationAtComputeUnitBoundary) {
  const TargetDesc &h100 = builtinTarget("h100");
  ASSERT_EQ(h100.computeUnits, 132);
  KernelConfig c = wgmmaConfig();
  // 12 x 11 = 132 tiles of 128x128 against 7 x 19 = 133: the same work to
  // within 1%, no padding, and K long enough to be compute-bound.
  Prediction full =
      predict({1, 12 * 128, 11 * 128, 8192}, ElemType::F16, c, h100);
  Prediction over =
      predict({1, 7 * 128, 19 * 128, 8192}, ElemType::F16, c, h100);
  EXPECT_EQ(full[Term::Tiles], 132);
  EXPECT_EQ(over[Term::Tiles], 133);
  EXPECT_DOUBLE_EQ(full[Term::WaveEfficiency], 1.0);
  EXPECT_NEAR(over[Term::WaveEfficiency], 133.0 / 264.0, 1e-12);
  EXPECT_GT(over.totalUs, 1.5 * full.totalUs);
  EXPECT_GT(over[Term::ComputeUs], 1.9 * full[Term::ComputeUs]);
}

TEST(CostModel, PaddingWasteCountsWorkOutsideTheProblem) {
  const TargetDesc &a100 = builtinTarget("a100");
  Prediction exact =
      predict({1, 128, 128, 64}, ElemType::F16, mmaConfig(), a100);
  Prediction ragged =
      predict({1, 129, 128, 64}, ElemType::F16, mmaConfig(), a100);
  EXPECT_DOUBLE_EQ(exact[Term::PaddingWaste], 0.0);
  EXPECT_NEAR(ragged[Term::PaddingWaste], 1.0 - 129.0 / 256.0, 1e-12);
}

TEST(CostModel, ZeroDimsAreZeroWork) {
  for (const Case &c : monotoneCases()) {
    const TargetDesc &t = builtinTarget(c.target);
    for (GemmShape s : {GemmShape{1, 0, 16, 16}, GemmShape{1, 16, 0, 16},
                        GemmShape{1, 16, 16, 0}, GemmShape{0, 16, 16, 16}}) {
      Prediction p = predict(s, c.elem, c.config, t);
      EXPECT_EQ(p.totalUs, 0.0);
      for (double term : p.terms)
        EXPECT_EQ(term, 0.0);
    }
  }
}

TEST(CostModel, HugeDimsStayFinite) {
  for (const Case &c : monotoneCases()) {
    const TargetDesc &t = builtinTarget(c.target);
    expectFinite(predict({1, int64_t(1) << 40, 2, 2}, c.elem, c.config, t));
    expectFinite(predict({1 << 20, 1 << 20, 1 << 20, 1}, c.elem, c.config, t));
    expectFinite(predict({1, 1, 1, int64_t(1) << 50}, c.elem, c.config, t));
  }
}

TEST(CostModel, TotalCombinesTheTerms) {
  Prediction p = predict({1, 1000, 768, 3072}, ElemType::F16, wgmmaConfig(),
                         builtinTarget("h100"));
  expectFinite(p);
  double chip =
      std::max(p[Term::ComputeUs], p[Term::OnChipUs]) + p[Term::PackUs];
  double memory = p[Term::MemoryUs];
  double body =
      std::max(chip, memory) + (1 - p[Term::Overlap]) * std::min(chip, memory);
  EXPECT_NEAR(p.totalUs, p[Term::LaunchUs] + p[Term::TileOverheadUs] + body,
              1e-9 * p.totalUs);
  EXPECT_EQ(p[Term::TotalUs], p.totalUs);
  EXPECT_STREQ(termName(Term::WaveEfficiency), "wave_efficiency");
}

TEST(CostModel, GpuSplitKIsOneLaunchThatWritesAndReadsItsPartialSums) {
  // A GPU split-K candidate launches its kernel over split x the tiles, the
  // last block of each tile finishing it: one launch, and the partial sums
  // written and read back once each.
  const TargetDesc &h100 = builtinTarget("h100");
  KernelConfig whole = wgmmaConfig(), split = wgmmaConfig();
  split.splitK = 4;
  GemmShape shape{1, 16, 4096, 4096};
  Prediction one = predict(shape, ElemType::F16, whole, h100);
  Prediction four = predict(shape, ElemType::F16, split, h100);
  EXPECT_EQ(four[Term::Tiles], 4 * one[Term::Tiles]);
  EXPECT_EQ(four[Term::LaunchUs], one[Term::LaunchUs]);
  EXPECT_DOUBLE_EQ(four[Term::DramMB], one[Term::DramMB]);
  EXPECT_DOUBLE_EQ(one[Term::PartialMB], 0.0);
  EXPECT_NEAR(four[Term::PartialMB], 16.0 * 4096 * 4 * 2 * 4 * 1e-6, 1e-9);
  EXPECT_GT(four[Term::ActiveCUFraction], one[Term::ActiveCUFraction]);
}

TEST(CostModel, PartialSumsThatFitInL2MoveAtItsRate) {
  // The same split-K candidate on an h100 that gives no L2 rate: its
  // partial sums (2.1 MB, well inside half of 50 MB) are priced at the
  // DRAM rate instead, and the memory term grows by exactly the difference.
  TargetDesc h100 = builtinTarget("h100");
  ASSERT_GT(h100.l2BytesPerClock * h100.clockGHz, h100.memBandwidthGBs);
  TargetDesc noL2Rate = h100;
  noL2Rate.l2BytesPerClock = 0;
  KernelConfig split = wgmmaConfig();
  split.splitK = 4;
  GemmShape shape{1, 16, 4096, 4096};
  Prediction l2 = predict(shape, ElemType::F16, split, h100);
  Prediction dram = predict(shape, ElemType::F16, split, noL2Rate);
  double bytes = l2[Term::PartialMB] * 1e6;
  double memoryEfficiency = h100.calibration.memoryEfficiency;
  double saved = bytes * (1.0 / (h100.memBandwidthGBs * 1e3) -
                          1.0 / (h100.l2BytesPerClock * h100.clockGHz * 1e3));
  EXPECT_NEAR(dram[Term::MemoryUs] - l2[Term::MemoryUs],
              saved / memoryEfficiency, 1e-9);

  // Partial sums larger than the L2's share make the round trip to DRAM
  // whatever the L2's rate: 64 batches of 256 x 4096 in 4 splits store
  // 1.07 GB.
  GemmShape big{64, 256, 4096, 4096};
  Prediction bigL2 = predict(big, ElemType::F16, split, h100);
  Prediction bigDram = predict(big, ElemType::F16, split, noL2Rate);
  EXPECT_GT(bigL2[Term::PartialMB] * 1e6 * 0.5, double(h100.l2Bytes));
  EXPECT_DOUBLE_EQ(bigL2[Term::MemoryUs], bigDram[Term::MemoryUs]);
}

TEST(CostModel, CpuReadsAInPlaceWithFewColumnsPerBlock) {
  // At most kCpuInPlaceAMaxColumns register-block columns and
  // kCpuInPlaceAMaxRows rows, f32 only.
  EXPECT_TRUE(cpuReadsAInPlace(128, 2, 64, ElemType::F32));
  EXPECT_TRUE(cpuReadsAInPlace(8 * 16, 8, 16, ElemType::F32));
  EXPECT_FALSE(cpuReadsAInPlace(9 * 16, 8, 16, ElemType::F32));
  EXPECT_FALSE(cpuReadsAInPlace(32, 12, 16, ElemType::F32));
  EXPECT_FALSE(cpuReadsAInPlace(4096, 4, 32, ElemType::F32));
  EXPECT_FALSE(cpuReadsAInPlace(128, 2, 64, ElemType::F16));
  EXPECT_FALSE(cpuReadsAInPlace(128, 2, 64, ElemType::BF16));
  EXPECT_FALSE(cpuReadsAInPlace(128, 2, 64, ElemType::F64));
  EXPECT_FALSE(cpuReadsAInPlace(128, 2, 0, ElemType::F32));
}

TEST(CostModel, APackedOnlyByWideBlocks) {
  // One cache block either way (M <= mc): packing B costs the same at any
  // M, packing A grows with the rows packed.
  TargetDesc host = builtinTarget("host-avx512");
  auto packUs = [&](const char *config, ElemType elem, int64_t m) {
    std::string error;
    std::optional<KernelConfig> cfg = parseKernelConfig(config, error);
    EXPECT_TRUE(cfg) << error;
    return predict({1, m, 128, 512}, elem, *cfg, host)[Term::PackUs];
  };
  const char *narrow = "1024x128x64 t1 w1x1 tt2x64 v16 s1 cpu_fma";
  const char *wide = "1024x4096x128 t1 w1x1 tt4x32 v16 s1 cpu_fma";
  EXPECT_DOUBLE_EQ(packUs(narrow, ElemType::F32, 100),
                   packUs(narrow, ElemType::F32, 900));
  EXPECT_GT(packUs(narrow, ElemType::F16, 900),
            2.0 * packUs(narrow, ElemType::F16, 100));
  EXPECT_GT(packUs(wide, ElemType::F32, 900),
            2.0 * packUs(wide, ElemType::F32, 100));
}

TEST(CostModel, CpuEdgeBlockCostsItsVectorsOrOneFmaLatency) {
  // Compute time in units of a whole block column strip, K long enough to
  // be compute-bound. The edge block multiplies only the vectors that hold
  // columns: a few-row block is then bound by one FMA's latency and costs
  // what a whole block does; a many-row block costs its vectors. With an
  // L1 that holds the in-place A block, compute is the math alone (the
  // stall beyond it: CpuInPlaceABeyondReachStallsEachRowStart).
  TargetDesc host = builtinTarget("host-avx512");
  host.l1Bytes = int64_t(1) << 40;
  auto computeUs = [&](const char *config, int64_t n) {
    std::string error;
    std::optional<KernelConfig> cfg = parseKernelConfig(config, error);
    EXPECT_TRUE(cfg) << error;
    return predict({1, 240, n, 4096}, ElemType::F32, *cfg,
                   host)[Term::ComputeUs];
  };
  const char *fewRows = "240x512x256 t1 w1x1 tt2x64 v16 s1 cpu_fma";
  EXPECT_DOUBLE_EQ(computeUs(fewRows, 65), computeUs(fewRows, 128));
  EXPECT_DOUBLE_EQ(computeUs(fewRows, 80), computeUs(fewRows, 128));
  const char *manyRows = "240x512x256 t1 w1x1 tt6x64 v16 s1 cpu_fma";
  // Six rows by one vector: six FMAs on two units, under the six cycles
  // between an accumulator's FMAs (kCpuFmaLatency).
  EXPECT_NEAR(computeUs(manyRows, 80),
              computeUs(manyRows, 64) * (1.0 + 6.0 / 12.0), 1e-9);
  // Three vectors: nine FMA cycles of the twelve of a whole block.
  EXPECT_NEAR(computeUs(manyRows, 112),
              computeUs(manyRows, 64) * (1.0 + 9.0 / 12.0), 1e-9);
  EXPECT_DOUBLE_EQ(computeUs(manyRows, 128), 2.0 * computeUs(manyRows, 64));
}

TEST(CostModel, CpuLastCacheBlockHoldsWhatIsLeft) {
  // M one register block past the cache block: a second, one-block cache
  // block, not a second whole one.
  TargetDesc host = restrictToCores(builtinTarget("host-avx512"), 1);
  std::string error;
  std::optional<KernelConfig> cfg =
      parseKernelConfig("96x512x256 t1 w1x1 tt6x64 v16 s1 cpu_fma", error);
  ASSERT_TRUE(cfg) << error;
  auto computeUs = [&](int64_t m) {
    return predict({1, m, 512, 1024}, ElemType::F32, *cfg,
                   host)[Term::ComputeUs];
  };
  EXPECT_NEAR(computeUs(102), computeUs(96) * 102.0 / 96.0,
              1e-9 * computeUs(96));
  EXPECT_NEAR(computeUs(97), computeUs(102), 1e-9 * computeUs(96));
}

TEST(CostModel, CpuInPlaceABeyondReachStallsEachRowStart) {
  // host-avx512: 48 KiB L1, so in-place A blocks are within reach up to
  // 96 KiB and wholly beyond it from 192 KiB. The same target with an L1
  // that holds any block prices the math alone.
  TargetDesc host = restrictToCores(builtinTarget("host-avx512"), 1);
  TargetDesc roomy = host;
  roomy.l1Bytes = int64_t(1) << 40;
  std::string error;
  std::optional<KernelConfig> inPlace =
      parseKernelConfig("1024x128x64 t1 w1x1 tt4x64 v16 s1 cpu_fma", error);
  std::optional<KernelConfig> packed =
      parseKernelConfig("1024x4096x128 t1 w1x1 tt8x32 v16 s1 cpu_fma", error);
  ASSERT_TRUE(inPlace && packed) << error;
  ASSERT_TRUE(cpuReadsAInPlace(*inPlace, ElemType::F32));
  ASSERT_FALSE(cpuReadsAInPlace(*packed, ElemType::F32));
  auto stallUs = [&](const KernelConfig &cfg, GemmShape shape) {
    return predict(shape, ElemType::F32, cfg, host)[Term::ComputeUs] -
           predict(shape, ElemType::F32, cfg, roomy)[Term::ComputeUs];
  };
  // 40 cycles at 2.3 GHz per row start, at the calibrated compute rate.
  double perRowStart = 40.0 / 2.3e3 / host.calibration.computeEfficiency;
  // M = 1024, K = 128 in two 64-deep blocks: 256 KiB blocks, wholly beyond;
  // each of 4 register-block columns starts all 1024 rows per K block.
  EXPECT_NEAR(stallUs(*inPlace, {1, 1024, 256, 128}),
              1024 * 4 * 2 * perRowStart, 1e-9);
  // 144 KiB (576 rows): halfway from the reach to twice it.
  EXPECT_NEAR(stallUs(*inPlace, {1, 576, 256, 128}),
              576 * 4 * 2 * perRowStart * 0.5, 1e-9);
  // 96 KiB (384 rows) and less: within reach.
  EXPECT_EQ(stallUs(*inPlace, {1, 384, 256, 128}), 0.0);
  // A packed A block streams from its packed copy: no stall.
  EXPECT_EQ(stallUs(*packed, {1, 1024, 256, 128}), 0.0);
  // f16 blocks are packed (widened once): no stall either.
  EXPECT_EQ(predict({1, 1024, 256, 128}, ElemType::F16, *inPlace,
                    host)[Term::ComputeUs],
            predict({1, 1024, 256, 128}, ElemType::F16, *inPlace,
                    roomy)[Term::ComputeUs]);
}

TEST(CostModel, BusiestCpuCoreRunsTheLargestTileOrItsShare) {
  std::string error;
  std::optional<KernelConfig> cfg =
      parseKernelConfig("96x512x256 t1 w1x1 tt6x64 v16 s1 cpu_fma", error);
  ASSERT_TRUE(cfg) << error;
  auto computeUs = [&](int64_t cores, GemmShape shape) {
    TargetDesc host = restrictToCores(builtinTarget("host-avx512"), cores);
    return predict(shape, ElemType::F32, *cfg, host)[Term::ComputeUs];
  };
  // Two tiles, of 512 and 256 columns, on two cores: the larger one's time.
  EXPECT_DOUBLE_EQ(computeUs(2, {1, 96, 768, 1024}),
                   computeUs(2, {1, 96, 512, 1024}));
  // 48 x 7 tiles, six rows of 96 and one of 1 (a register block): half the
  // work each, and at most one tile more.
  GemmShape heads{48, 577, 512, 64};
  double oneCore = computeUs(1, heads);
  double tileUs = computeUs(1, {1, 96, 512, 64});
  EXPECT_GE(computeUs(2, heads), oneCore / 2.0);
  EXPECT_LE(computeUs(2, heads), oneCore / 2.0 + tileUs);
}

TEST(CostModel, PreparedTableMatchesPredict) {
  const TargetDesc &t = builtinTarget("a100");
  std::vector<KernelConfig> cands =
      generateCandidates(OpKind::Matmul, ElemType::F16, t);
  PreparedTable table;
  std::string error;
  ASSERT_TRUE(
      prepareTable(cands, ElemType::F16, t, t.calibration, table, error))
      << error;
  GemmShape shape{3, 333, 517, 129};
  for (int i = 0; i < table.count; ++i) {
    TermArray terms;
    double us = evaluateCandidate(table, i, shape, &terms);
    Prediction p = predict(shape, ElemType::F16, cands[i], t);
    EXPECT_DOUBLE_EQ(us, p.totalUs);
    EXPECT_EQ(terms, p.terms);
  }
}

class SelectionTest : public ::testing::Test {
protected:
  void prepare(const char *target, ElemType elem,
               SelectionPolicy policy = SelectionPolicy::CostModel,
               int fixedIndex = 0) {
    const TargetDesc &t = builtinTarget(target);
    cands = generateCandidates(OpKind::Matmul, elem, t);
    table.policy = policy;
    table.fixedIndex = fixedIndex;
    std::string error;
    ASSERT_TRUE(prepareTable(cands, elem, t, t.calibration, table, error))
        << error;
  }
  std::vector<KernelConfig> cands;
  PreparedTable table;
};

TEST_F(SelectionTest, CostModelPicksTheArgmin) {
  prepare("a100", ElemType::F16);
  GemmShape shape{1, 1000, 768, 3072};
  Selection sel;
  ASSERT_EQ(selectKernel(table, shape, sel), SelectStatus::Ok);
  ASSERT_EQ(sel.patchDim, PatchDim::None);
  for (int i = 0; i < table.count; ++i)
    EXPECT_LE(sel.predictedUs, evaluateCandidate(table, i, shape));
}

TEST_F(SelectionTest, PatchWinsWhenTheRemainderIsThin) {
  // N = 4103: 4096 columns of 128x256 tiles and a remainder of 7. (Where
  // the last wave is what leaves SMs idle, as at M=1040 N=4096 K=8192,
  // stream-K now wins instead.)
  prepare("h100", ElemType::F16);
  Selection sel;
  ASSERT_EQ(selectKernel(table, {1, 6241, 4103, 3726}, sel), SelectStatus::Ok);
  EXPECT_EQ(sel.patchDim, PatchDim::N);
  EXPECT_GE(sel.remainder, 0);
  EXPECT_EQ(sel.mainExtent % cands[sel.candidate].tileN, 0);
  EXPECT_LT(sel.predictedUs, sel.bestSingleUs);
  // Main and remainder predictions add up to the patch's.
  double main =
      evaluateCandidate(table, sel.candidate, {1, 6241, sel.mainExtent, 3726});
  double rest = evaluateCandidate(table, sel.remainder,
                                  {1, 6241, 4103 - sel.mainExtent, 3726});
  EXPECT_NEAR(sel.predictedUs, main + rest, 1e-9 * sel.predictedUs);
}

TEST_F(SelectionTest, PatchPolicyAlwaysPatchesRaggedShapes) {
  prepare("h100", ElemType::F16, SelectionPolicy::Patch);
  Selection sel;
  ASSERT_EQ(selectKernel(table, {1, 1000, 768, 3072}, sel), SelectStatus::Ok);
  EXPECT_NE(sel.patchDim, PatchDim::None);
  EXPECT_GE(sel.predictedUs, sel.bestSingleUs); // the model disagrees
}

TEST_F(SelectionTest, PadPolicyPadsAndChargesTheCopies) {
  prepare("a100", ElemType::F16, SelectionPolicy::Pad);
  Selection sel;
  ASSERT_EQ(selectKernel(table, {1, 1000, 768, 3000}, sel), SelectStatus::Ok);
  EXPECT_TRUE(sel.padded);
  EXPECT_GT(sel.predictedUs,
            evaluateCandidate(table, sel.candidate, {1, 1000, 768, 3000}));
}

TEST_F(SelectionTest, FixedPolicy) {
  prepare("a100", ElemType::F16, SelectionPolicy::Fixed, 3);
  Selection sel;
  ASSERT_EQ(selectKernel(table, {1, 64, 64, 64}, sel), SelectStatus::Ok);
  EXPECT_EQ(sel.candidate, 3);
  prepare("a100", ElemType::F16, SelectionPolicy::Fixed, 60);
  EXPECT_EQ(selectKernel(table, {1, 64, 64, 64}, sel),
            SelectStatus::BadFixedIndex);
  SelectionPolicy policy;
  int index = -1;
  EXPECT_TRUE(parseSelectionPolicy("fixed=2", policy, index));
  EXPECT_EQ(policy, SelectionPolicy::Fixed);
  EXPECT_EQ(index, 2);
  EXPECT_FALSE(parseSelectionPolicy("fixed=-1", policy, index));
  EXPECT_FALSE(parseSelectionPolicy("fastest", policy, index));
}

TEST_F(SelectionTest, ZeroDimsChooseCandidateZero) {
  prepare("h100", ElemType::F16);
  Selection sel;
  ASSERT_EQ(selectKernel(table, {1, 0, 768, 3072}, sel), SelectStatus::Ok);
  EXPECT_EQ(sel.candidate, 0);
  EXPECT_EQ(sel.predictedUs, 0.0);
  EXPECT_EQ(sel.patchDim, PatchDim::None);
}

TEST_F(SelectionTest, BadShapesAreRejected) {
  prepare("host", ElemType::F32);
  Selection sel;
  EXPECT_EQ(selectKernel(table, {1, -1, 4, 4}, sel),
            SelectStatus::NegativeDimension);
  EXPECT_EQ(
      selectKernel(table, {1, int64_t(1) << 40, 4, int64_t(1) << 40}, sel),
      SelectStatus::ShapeOverflow);
  PreparedTable empty;
  EXPECT_EQ(selectKernel(empty, {1, 4, 4, 4}, sel), SelectStatus::EmptyTable);
}

TEST(CostModel, PrepareRejectsInvalidCandidates) {
  PreparedTable table;
  std::string error;
  const TargetDesc &a100 = builtinTarget("a100");
  EXPECT_FALSE(prepareTable({wgmmaConfig()}, ElemType::F16, a100,
                            a100.calibration, table, error));
  EXPECT_EQ(error, "candidate 0 (128x128x64 t128 w4x1 tt4x32 v8 s4 wgmma): "
                   "target a100 (sm_80) has no wgmma instruction");
  EXPECT_FALSE(
      prepareTable({}, ElemType::F16, a100, a100.calibration, table, error));
  EXPECT_EQ(error, "no candidates to prepare");
}

} // namespace
