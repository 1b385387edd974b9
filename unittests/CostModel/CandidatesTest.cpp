//===- CandidatesTest.cpp - Candidate generation and pruning --------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "TestUtil.h"

#include <algorithm>
#include <cmath>

using namespace quilt;

namespace {

TEST(Candidates, EveryTargetTypeAndOpGetsValidCandidates) {
  for (const TargetDesc &t : TargetDatabase::builtin().targets()) {
    for (ElemType e : {ElemType::F32, ElemType::F16, ElemType::BF16}) {
      for (OpKind op :
           {OpKind::Matmul, OpKind::BatchMatmul, OpKind::Conv2dNhwcHwcf}) {
        std::vector<KernelConfig> cands = generateCandidates(op, e, t);
        SCOPED_TRACE(t.name + " " + std::string(stringify(e)) + " " +
                     std::string(stringify(op)));
        ASSERT_FALSE(cands.empty());
        EXPECT_LE(cands.size(), 16u);
        for (const KernelConfig &c : cands)
          EXPECT_EQ(checkForTarget(c, e, t), "") << c.str();
      }
    }
  }
}

TEST(Candidates, EnumerationPassesTheVerifierCheck) {
  for (const TargetDesc &t : TargetDatabase::builtin().targets())
    for (const KernelConfig &c : enumerateCandidates(
             OpKind::Matmul, ElemType::F16, t, CandidateOptions{16, true}))
      EXPECT_EQ(checkForTarget(c, ElemType::F16, t), "")
          << t.name << " " << c.str();
}

TEST(Candidates, DeterministicAndBounded) {
  const TargetDesc &h100 = builtinTarget("h100");
  for (int max : {1, 4, 16, 64}) {
    CandidateOptions options;
    options.maxCandidates = max;
    std::vector<KernelConfig> a =
        generateCandidates(OpKind::Matmul, ElemType::F32, h100, options);
    std::vector<KernelConfig> b =
        generateCandidates(OpKind::Matmul, ElemType::F32, h100, options);
    EXPECT_EQ(a, b);
    EXPECT_LE(a.size(), size_t(max));
    EXPECT_GE(a.size(), 1u);
  }
}

TEST(Candidates, GpusGetSharedTileVariantsOfTheirKernels) {
  // After the kernels, in their order, in a quarter of the budget at most:
  // split-K variants of the kept kernel with the smallest tile, and
  // stream-K variants of kept kernels over the blocks the target holds at
  // once; none on a CPU or with a budget under 4.
  const TargetDesc &h100 = builtinTarget("h100");
  std::vector<KernelConfig> kernels,
      all = generateCandidates(OpKind::Matmul, ElemType::F16, h100);
  std::vector<KernelConfig> variants;
  for (const KernelConfig &c : all)
    (c.sharesTiles() ? variants : kernels).push_back(c);
  ASSERT_FALSE(variants.empty());
  EXPECT_LE(variants.size(), 3u);
  EXPECT_EQ(all.size(), 16u);
  for (size_t i = 0; i < kernels.size(); ++i)
    EXPECT_EQ(all[i], kernels[i]) << "kernels come first";
  const KernelConfig *smallest = &kernels.front();
  for (const KernelConfig &c : kernels)
    if (c.tileM * c.tileN < smallest->tileM * smallest->tileN)
      smallest = &c;
  int streamed = 0, split = 0;
  for (KernelConfig v : variants) {
    if (v.streamK > 0) {
      ++streamed;
      EXPECT_EQ(v.splitK, 1) << v.str();
      EXPECT_EQ(v.streamK,
                h100.computeUnits *
                    estimateResources(v, ElemType::F16, h100).blocksPerCU)
          << v.str();
      v.streamK = 0;
      // (Of a kernel pruning kept, which may have been displaced.)
      EXPECT_TRUE(checkForTarget(v, ElemType::F16, h100).empty()) << v.str();
      continue;
    }
    ++split;
    EXPECT_TRUE(v.splitK == 2 || v.splitK == 4 || v.splitK == 8) << v.str();
    v.splitK = 1;
    EXPECT_EQ(v, *smallest);
  }
  // Both kinds earn a place on h100's representative matmuls.
  EXPECT_GT(streamed, 0);
  EXPECT_GT(split, 0);
  // The kernels are the ones pruning keeps, less those the variants
  // displaced from the end.
  CandidateOptions options;
  std::vector<KernelConfig> pruned = pruneCandidates(
      enumerateCandidates(OpKind::Matmul, ElemType::F16, h100, options),
      ElemType::F16, h100, representativeShapes(OpKind::Matmul),
      options.maxCandidates);
  ASSERT_GE(pruned.size(), kernels.size());
  EXPECT_TRUE(std::equal(kernels.begin(), kernels.end(), pruned.begin()));

  auto shared = [](const std::vector<KernelConfig> &cands) {
    return std::count_if(cands.begin(), cands.end(),
                         [](const KernelConfig &c) { return c.sharesTiles(); });
  };
  options.maxCandidates = 3;
  EXPECT_EQ(
      shared(generateCandidates(OpKind::Matmul, ElemType::F16, h100, options)),
      0);
  EXPECT_EQ(shared(generateCandidates(OpKind::Matmul, ElemType::F32,
                                      builtinTarget("host-avx512"))),
            0);
}

TEST(Candidates, BatchesPastTheGridZAreLaunchedInChunks) {
  // A grid's z holds at most 65535 (matrix, split) pairs: a larger batch
  // runs in chunks of floor(65535 / splits) matrices, a launch each.
  const TargetDesc &h100 = builtinTarget("h100");
  KernelConfig split = wgmmaConfig();
  split.splitK = 8;
  auto launches = [&](const KernelConfig &config, int64_t batch) {
    auto launchUs = [&](int64_t b) {
      return predict({b, 16, 16, 4096}, ElemType::F16, config,
                     h100)[Term::LaunchUs];
    };
    return launchUs(batch) / launchUs(1);
  };
  EXPECT_DOUBLE_EQ(launches(split, 8191), 1.0);
  EXPECT_DOUBLE_EQ(launches(split, 8192), 2.0);
  EXPECT_DOUBLE_EQ(launches(split, 3 * 8191 + 1), 4.0);
  KernelConfig whole = wgmmaConfig();
  EXPECT_DOUBLE_EQ(launches(whole, 65535), 1.0);
  EXPECT_DOUBLE_EQ(launches(whole, 100000), 2.0);
}

/// 128 x 128 x 64 wgmma tiles over two warpgroups: one block per h100 SM.
KernelConfig squareWgmmaConfig() {
  KernelConfig c = wgmmaConfig();
  c.threads = 256, c.warpsM = 8, c.threadTileM = 2;
  return c;
}

TEST(Candidates, KernelsWalkTheFootprintTheModelPrices) {
  // The GPU kernels group their tiles by waveFootprintRows: the rows of the
  // full-wave footprint the prepared table prices reads by.
  for (const char *name : {"h100", "a100", "mi300x", "rx7900xtx"}) {
    const TargetDesc &t = builtinTarget(name);
    std::vector<KernelConfig> cands =
        generateCandidates(OpKind::Matmul, ElemType::F16, t);
    PreparedTable table;
    std::string error;
    ASSERT_TRUE(
        prepareTable(cands, ElemType::F16, t, t.calibration, table, error))
        << error;
    for (size_t i = 0; i < cands.size(); ++i)
      EXPECT_EQ(double(waveFootprintRows(cands[i], ElemType::F16, t)),
                table.candidates.fullWaveM[i])
          << name << " " << cands[i].str();
  }
  // 128 x 128 tiles, one block per SM of an h100: 12 rows by 11 columns.
  EXPECT_EQ(waveFootprintRows(squareWgmmaConfig(), ElemType::F16, builtinTarget("h100")),
            12);
}

TEST(Candidates, StreamKBlocksReReadOperandsThatLeaveL2) {
  // 6241 x 4103 x 3726 in 128 x 128 tiles: 49 x 33 = 1617 tiles, 12.25 per
  // block of 132. The blocks work on tiles a range apart, touching every
  // tile row and column in each of the 12.25 periods: A (46.5 MB) and B
  // (30.6 MB), neither within half of the 50 MB L2, are read 12.25 times;
  // whole tiles walk a wave's compact footprint (12 rows x 11 columns of
  // tiles: A read ceil(33 / 11) = 3 times, B ceil(49 / 12) = 5 times).
  const TargetDesc &h100 = builtinTarget("h100");
  KernelConfig whole = squareWgmmaConfig();
  KernelConfig streamed = whole;
  streamed.streamK = 132;
  GemmShape shape{1, 6241, 4103, 3726};
  Prediction w = predict(shape, ElemType::F16, whole, h100);
  Prediction s = predict(shape, ElemType::F16, streamed, h100);
  double a = 6241.0 * 3726 * 2, b = 3726.0 * 4103 * 2, c = 6241.0 * 4103 * 2;
  EXPECT_NEAR(s[Term::DramMB], ((a + b) * 1617.0 / 132 + c) * 1e-6, 1e-6);
  EXPECT_NEAR(w[Term::DramMB], (a * 3 + b * 5 + c) * 1e-6, 1e-6);
  // Once both fit (M = 1024: A 7.6 MB, B within the share at N = 3000),
  // each is read once either way.
  GemmShape fits{1, 1024, 3000, 3726};
  EXPECT_DOUBLE_EQ(predict(fits, ElemType::F16, streamed, h100)[Term::DramMB],
                   predict(fits, ElemType::F16, whole, h100)[Term::DramMB]);
}

TEST(Candidates, StreamKFillsTheLastWave) {
  // 384 x 3072 x 768 in 128 x 128 tiles: 72 tiles of 12 K steps on 132
  // SMs. Whole tiles leave 60 SMs idle; stream-K over 132 blocks gives
  // each ceil(864 / 132) = 7 of the 864 steps: 864 / (7 x 132) busy.
  const TargetDesc &h100 = builtinTarget("h100");
  KernelConfig whole = squareWgmmaConfig();
  KernelConfig streamed = whole;
  streamed.streamK = 132;
  ASSERT_EQ(checkForTarget(streamed, ElemType::F16, h100), "");
  ASSERT_EQ(estimateResources(whole, ElemType::F16, h100).blocksPerCU, 1);
  ASSERT_EQ(estimateResources(streamed, ElemType::F16, h100).blocksPerCU, 1);
  GemmShape shape{1, 384, 3072, 768};
  Prediction w = predict(shape, ElemType::F16, whole, h100);
  Prediction s = predict(shape, ElemType::F16, streamed, h100);
  EXPECT_DOUBLE_EQ(w[Term::Tiles], 72.0);
  EXPECT_DOUBLE_EQ(s[Term::Tiles], 72.0);
  EXPECT_NEAR(w[Term::WaveEfficiency], 72.0 / 132.0, 1e-12);
  EXPECT_NEAR(s[Term::WaveEfficiency], 864.0 / (7.0 * 132.0), 1e-12);
  EXPECT_DOUBLE_EQ(s[Term::ActiveCUFraction], 1.0);
  EXPECT_LT(s[Term::ComputeUs], w[Term::ComputeUs]);
  // Partial sums: at most 131 block boundaries inside tiles and 72 shared
  // tiles, each a 128 x 128 tile of f32 written and read once.
  EXPECT_DOUBLE_EQ(s[Term::DramMB], w[Term::DramMB]);
  EXPECT_NEAR(s[Term::PartialMB], (131.0 + 72.0) * 128 * 128 * 4 * 2 * 1e-6,
              1e-9);
  // A tile's overhead per segment: a block's 7 steps span 2 tiles at most.
  EXPECT_NEAR(s[Term::TileOverheadUs] / w[Term::TileOverheadUs], 2.0, 1e-12);
  // Fewer units than blocks: one block per unit.
  Prediction few = predict({1, 128, 128, 128}, ElemType::F16, streamed, h100);
  EXPECT_DOUBLE_EQ(few[Term::ActiveCUFraction], 2.0 / 132.0);
}

TEST(Candidates, BestInstructionPerTarget) {
  auto instOf = [](const char *target, ElemType e) {
    std::vector<KernelConfig> c =
        generateCandidates(OpKind::Matmul, e, builtinTarget(target));
    return c.empty() ? InstKind::SimtFma : c.front().inst;
  };
  EXPECT_EQ(instOf("h100", ElemType::F16), InstKind::Wgmma);
  EXPECT_EQ(instOf("a100", ElemType::BF16), InstKind::MmaSyncF16);
  EXPECT_EQ(instOf("rtx4090", ElemType::F16), InstKind::MmaSyncF16);
  EXPECT_EQ(instOf("t4", ElemType::F16), InstKind::SimtFma);
  EXPECT_EQ(instOf("v100", ElemType::F16), InstKind::SimtFma);
  InstKind mi300 = instOf("mi300x", ElemType::F16);
  EXPECT_TRUE(mi300 == InstKind::Mfma32x32x8 ||
              mi300 == InstKind::Mfma16x16x16);
  EXPECT_EQ(instOf("rx7900xtx", ElemType::F16), InstKind::Wmma16x16x16);
  EXPECT_EQ(instOf("host", ElemType::F16), InstKind::CpuFma);
}

TEST(Candidates, DefaultF32IsExactOnGpus) {
  const TargetDesc &a100 = builtinTarget("a100");
  for (const KernelConfig &c :
       generateCandidates(OpKind::Matmul, ElemType::F32, a100))
    EXPECT_EQ(c.inst, InstKind::SimtFma) << c.str();
  CandidateOptions tf32;
  tf32.allowTf32 = true;
  bool anyTf32 = false;
  for (const KernelConfig &c :
       enumerateCandidates(OpKind::Matmul, ElemType::F32, a100, tf32))
    anyTf32 |= c.inst == InstKind::MmaSyncTf32;
  EXPECT_TRUE(anyTf32);
}

/// The selection among a target's default matmul candidates for one
/// workload, and those candidates.
Selection selectFor(const char *target, GemmShape shape, ElemType elem,
                    std::vector<KernelConfig> &cands) {
  const TargetDesc &t = builtinTarget(target);
  cands = generateCandidates(OpKind::Matmul, elem, t);
  PreparedTable table;
  std::string error;
  EXPECT_TRUE(prepareTable(cands, elem, t, t.calibration, table, error));
  Selection sel;
  EXPECT_EQ(selectKernel(table, shape, sel), SelectStatus::Ok);
  return sel;
}

/// The selected configuration for one workload on a target.
KernelConfig chosenFor(const char *target, GemmShape shape, ElemType elem) {
  std::vector<KernelConfig> cands;
  return cands[selectFor(target, shape, elem, cands).candidate];
}

TEST(Candidates, F64RunsOnSimtOrCpuLanesAtItsOwnRate) {
  // Every built-in target has an f64 rate: GPUs their f64_tflops, CPUs half
  // their f32 lanes.
  for (const TargetDesc &t : TargetDatabase::builtin().targets()) {
    SCOPED_TRACE(t.name);
    std::vector<KernelConfig> cands =
        generateCandidates(OpKind::Matmul, ElemType::F64, t);
    ASSERT_FALSE(cands.empty());
    for (const KernelConfig &c : cands) {
      EXPECT_EQ(checkForTarget(c, ElemType::F64, t), "") << c.str();
      EXPECT_EQ(c.inst, t.isGpu() ? InstKind::SimtFma : InstKind::CpuFma);
      if (t.isGpu())
        EXPECT_LE(c.vectorWidth, 2) << "16-byte accesses hold two f64";
      else
        EXPECT_EQ(c.vectorWidth, t.cpuLanes() / 2);
    }
  }
  const TargetDesc &avx512 = builtinTarget("host-avx512");
  EXPECT_EQ(avx512.cpuLanes(ElemType::F64), 8);
  EXPECT_DOUBLE_EQ(avx512.peak(InstKind::CpuFma, ElemType::F64),
                   avx512.peak(InstKind::CpuFma) / 2);
  const TargetDesc &h100 = builtinTarget("h100");
  EXPECT_DOUBLE_EQ(h100.peak(InstKind::SimtFma, ElemType::F64), 34);
  EXPECT_DOUBLE_EQ(h100.peak(InstKind::Wgmma, ElemType::F64), 0);

  // An f64 product predicts slower than f32 where the rate is lower: at
  // half rate on an H100, at 1/32 of it on an RDNA 3 card.
  auto predicted = [](const char *target, ElemType e) {
    std::vector<KernelConfig> cands;
    return selectFor(target, GemmShape{1, 4096, 4096, 4096}, e, cands)
        .predictedUs;
  };
  EXPECT_GT(predicted("h100", ElemType::F64),
            1.5 * predicted("h100", ElemType::F32));
  EXPECT_GT(predicted("rx7900xtx", ElemType::F64),
            8 * predicted("rx7900xtx", ElemType::F32));

  // A GPU without the figure gets no f64 candidates, and says why.
  TargetDesc noRate = h100;
  noRate.f64PeakTflops = 0;
  EXPECT_TRUE(
      generateCandidates(OpKind::Matmul, ElemType::F64, noRate).empty());
  KernelConfig simt =
      generateCandidates(OpKind::Matmul, ElemType::F32, noRate).front();
  EXPECT_EQ(checkForTarget(simt, ElemType::F64, noRate),
            "target h100 has no f64 rate for simt_fma (f64_tflops in its "
            "target description)");
}

TEST(Candidates, CpuBlockingFollowsTheCaches) {
  const TargetDesc &t = builtinTarget("host-avx2");
  for (const KernelConfig &c :
       generateCandidates(OpKind::Matmul, ElemType::F32, t)) {
    EXPECT_EQ(c.threadTileN % t.cpuLanes(), 0);
    EXPECT_LE(c.tileK * c.threadTileN * 4, t.l1Bytes / 2);
    EXPECT_LE(c.tileM * c.tileK * 4, t.l2Bytes);
  }
}

TEST(Candidates, ChoicesDifferAcrossHardware) {
  GemmShape shape{1, 1000, 768, 3072};
  KernelConfig h100 = chosenFor("h100", shape, ElemType::F16);
  KernelConfig t4 = chosenFor("t4", shape, ElemType::F16);
  KernelConfig avx2 = chosenFor("host-avx2", shape, ElemType::F16);
  KernelConfig mi300 = chosenFor("mi300x", shape, ElemType::F16);
  EXPECT_EQ(h100.inst, InstKind::Wgmma);
  EXPECT_EQ(t4.inst, InstKind::SimtFma);
  EXPECT_EQ(avx2.inst, InstKind::CpuFma);
  EXPECT_NE(h100.str(), t4.str());
  EXPECT_NE(t4.str(), avx2.str());
  EXPECT_NE(h100.str(), mi300.str());
  // Same instruction, different resources: shared memory and SM count.
  KernelConfig a100 = chosenFor("a100", {1, 8192, 8192, 8192}, ElemType::F16);
  KernelConfig r3090 =
      chosenFor("rtx3090", {1, 8192, 8192, 8192}, ElemType::F16);
  EXPECT_EQ(a100.inst, r3090.inst);
}

} // namespace
