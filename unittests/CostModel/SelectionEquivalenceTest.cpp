//===- SelectionEquivalenceTest.cpp - selectKernel against a plain reference
//===//
//
// Part of the Quilt project. selectKernel evaluates candidates in packs,
// batches the patch search and skips what lower bounds rule out; none of
// that may change what it picks. The reference here is the selection
// written out plainly on the public API: one evaluateCandidate per
// candidate and part, every group of the patch search tried in turn.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace quilt;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Best {
  int32_t index = -1;
  double us = kInf;
};

/// Argmin of `us(i)` over the candidates in `mask` (ties: lowest index).
template <typename F> Best argmin(uint64_t mask, F us) {
  Best best;
  for (int i = 0; i < 64; ++i)
    if (mask >> i & 1)
      if (double u = us(i); u < best.us)
        best = {i, u};
  return best;
}

uint64_t allOf(const PreparedTable &t) {
  return t.count >= 64 ? ~uint64_t(0) : (uint64_t(1) << t.count) - 1;
}

/// The patch search as documented in docs/cost-model.md.
void referencePatch(const PreparedTable &t, const GemmShape &shape, bool alongM,
                    const double *times, Selection &best) {
  int32_t groups = alongM ? t.numGroupsM : t.numGroupsN;
  const auto &tiles = alongM ? t.groupTileM : t.groupTileN;
  const auto &masks = alongM ? t.groupMaskM : t.groupMaskN;
  int64_t extent = alongM ? shape.m : shape.n;
  for (int32_t g = 0; g + 1 < groups; ++g) {
    int64_t mainExtent = extent / tiles[g] * tiles[g];
    int64_t rest = extent - mainExtent;
    if (mainExtent == 0 || rest == 0)
      continue;
    GemmShape mainShape = shape, restShape = shape;
    (alongM ? mainShape.m : mainShape.n) = mainExtent;
    (alongM ? restShape.m : restShape.n) = rest;
    Best main = argmin(
        masks[g], [&](int i) { return evaluateCandidate(t, i, mainShape); });
    if (main.us + t.launchUs + t.tileOverheadUs >= best.predictedUs)
      continue;
    // One remainder candidate per smaller tile: the cheapest with that
    // tile on the whole shape.
    Best remainder;
    for (int32_t h = g + 1; h < groups; ++h) {
      int32_t i = argmin(masks[h], [&](int j) { return times[j]; }).index;
      if (double us = evaluateCandidate(t, i, restShape); us < remainder.us)
        remainder = {i, us};
    }
    if (main.us + remainder.us < best.predictedUs) {
      best.candidate = main.index;
      best.remainder = remainder.index;
      best.patchDim = alongM ? PatchDim::M : PatchDim::N;
      best.mainExtent = mainExtent;
      best.predictedUs = main.us + remainder.us;
    }
  }
}

bool padsEnough(int64_t extent, double tile) {
  double padded = std::ceil(double(extent) / tile) * tile;
  return padded - double(extent) >= 0.05 * padded;
}

/// selectKernel for a valid, non-empty shape, plainly.
Selection referenceSelect(const PreparedTable &t, const GemmShape &shape) {
  Selection out;
  if (t.policy == SelectionPolicy::Fixed) {
    out.candidate = t.fixedIndex;
    out.predictedUs = out.bestSingleUs =
        evaluateCandidate(t, t.fixedIndex, shape);
    return out;
  }
  if (t.policy == SelectionPolicy::Pad) {
    Best best =
        argmin(allOf(t), [&](int i) { return evaluatePadded(t, i, shape); });
    out.candidate = best.index;
    out.padded = true;
    out.predictedUs = out.bestSingleUs = best.us;
    return out;
  }
  double times[kMaxPreparedCandidates];
  for (int i = 0; i < t.count; ++i)
    times[i] = evaluateCandidate(t, i, shape);
  Best single = argmin(allOf(t), [&](int i) { return times[i]; });
  out.candidate = single.index;
  out.predictedUs = out.bestSingleUs = single.us;
  bool forced = t.policy == SelectionPolicy::Patch;
  if (!forced && (t.cpu || 2.0 * (t.launchUs + t.tileOverheadUs) >= single.us))
    return out;
  Selection patch;
  patch.predictedUs = forced ? kInf : single.us;
  if (forced || padsEnough(shape.m, t.candidates.tileM[single.index]))
    referencePatch(t, shape, /*alongM=*/true, times, patch);
  if (forced || padsEnough(shape.n, t.candidates.tileN[single.index]))
    referencePatch(t, shape, /*alongM=*/false, times, patch);
  if (patch.patchDim != PatchDim::None) {
    patch.bestSingleUs = single.us;
    out = patch;
  }
  return out;
}

/// A few hundred deterministic shapes: the benchmark's, tile multiples and
/// their neighbours, skinny, batched and large ones, and pseudo-random
/// dims from 1 to 2^17.
std::vector<GemmShape> testShapes() {
  std::vector<GemmShape> shapes = {
      {1, 1000, 768, 3072},  {1, 35, 8457, 4096},   {192, 43, 64, 43},
      {1, 8191, 1000, 513},  {1, 1040, 8192, 8192}, {178, 292, 1920, 35637},
      {1, 209, 13840, 7422}, {1, 12924, 392, 855},  {1, 840, 78, 29167},
      {1, 1, 1, 1},          {1, 1, 65536, 1},      {7, 1, 1, 100000},
      {1, 4096, 4096, 4096}, {1, 4097, 4095, 4096}, {64, 128, 128, 64},
      {1, 16, 8192, 16},     {1, 131072, 16, 8},    {1, 1 << 20, 64, 64},
  };
  for (int64_t m : {64, 127, 128, 129, 255, 256, 257, 1024, 1025})
    for (int64_t n : {64, 96, 256, 257, 4000})
      shapes.push_back({1, m, n, 512});
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  // Log-uniform up to 2^maxLog.
  auto dim = [&](int maxLog) {
    int64_t base = int64_t(1) << (next() % uint64_t(maxLog + 1));
    return base + int64_t(next() % uint64_t(base));
  };
  while (shapes.size() < 300) {
    GemmShape s;
    s.b = next() % 4 == 0 ? dim(8) : 1;
    s.m = dim(16), s.n = dim(16), s.k = dim(16);
    shapes.push_back(s);
  }
  return shapes;
}

std::string describe(const char *target, ElemType elem, SelectionPolicy policy,
                     const GemmShape &s) {
  return std::string(target) + " " + (elem == ElemType::F16 ? "f16" : "f32") +
         " " + std::string(stringify(policy)) + " b=" + std::to_string(s.b) +
         " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
         " k=" + std::to_string(s.k);
}

void expectClose(double actual, double expected, const std::string &what) {
  EXPECT_LE(std::fabs(actual - expected), 1e-9 * std::fabs(expected))
      << what << ": " << actual << " vs " << expected;
}

TEST(SelectionEquivalence, MatchesThePlainReference) {
  std::vector<GemmShape> shapes = testShapes();
  int patches = 0;
  for (const char *target :
       {"h100", "a100", "mi300x", "host-avx512", "host-avx2"}) {
    const TargetDesc &desc = builtinTarget(target);
    for (ElemType elem : {ElemType::F16, ElemType::F32}) {
      std::vector<KernelConfig> cands =
          generateCandidates(OpKind::Matmul, elem, desc);
      for (SelectionPolicy policy :
           {SelectionPolicy::CostModel, SelectionPolicy::Pad,
            SelectionPolicy::Patch, SelectionPolicy::Fixed}) {
        PreparedTable table;
        table.policy = policy;
        table.fixedIndex = int(cands.size()) / 2;
        std::string error;
        ASSERT_TRUE(
            prepareTable(cands, elem, desc, desc.calibration, table, error))
            << target << ": " << error;
        for (const GemmShape &shape : shapes) {
          std::string what = describe(target, elem, policy, shape);
          Selection sel;
          ASSERT_EQ(selectKernel(table, shape, sel), SelectStatus::Ok) << what;
          Selection ref = referenceSelect(table, shape);
          EXPECT_EQ(sel.candidate, ref.candidate) << what;
          EXPECT_EQ(sel.remainder, ref.remainder) << what;
          EXPECT_EQ(sel.patchDim, ref.patchDim) << what;
          EXPECT_EQ(sel.mainExtent, ref.mainExtent) << what;
          EXPECT_EQ(sel.padded, ref.padded) << what;
          expectClose(sel.predictedUs, ref.predictedUs, what + " predicted");
          expectClose(sel.bestSingleUs, ref.bestSingleUs,
                      what + " best single");
          patches += sel.patchDim != PatchDim::None;
        }
      }
    }
  }
  // The patch search must have been exercised, not only skipped.
  EXPECT_GT(patches, 1000);
}

/// The model's total for candidate i, transcribed plainly from
/// docs/cost-model.md: divisions, std::ceil and std::floor, no shortcuts.
double plainEvaluate(const PreparedTable &t, int i, const GemmShape &shape) {
  const PreparedCandidates &c = t.candidates;
  double b = double(shape.b), m = double(shape.m), n = double(shape.n),
         k = double(shape.k);
  double tilesM = std::ceil(m / c.tileM[i]), tilesN = std::ceil(n / c.tileN[i]);
  double kPerSplit = std::ceil(k / c.splitK[i]);
  double paddedM, paddedN, paddedK, workN;
  if (t.cpu) {
    paddedM = std::ceil(m / c.granM[i]) * c.granM[i];
    paddedN = std::ceil(n / c.granN[i]) * c.granN[i];
    paddedK = kPerSplit;
    double wholeBlocks = std::floor(n / c.granN[i]);
    double edgeCols = n - wholeBlocks * c.granN[i];
    double edgeVectors = std::ceil(edgeCols / c.vectorCols[i]);
    double edgeWork = std::max(
        {edgeVectors * c.edgeFmaCols[i], c.edgeLatencyCols[i],
         c.edgeLoadCols[i] + edgeVectors * c.edgeLoadColsPerVector[i]});
    workN = wholeBlocks * c.granN[i] + (edgeCols > 0 ? edgeWork : 0.0);
  } else {
    paddedM = tilesM * c.tileM[i];
    paddedN = workN = tilesN * c.tileN[i];
    paddedK = std::ceil(kPerSplit / c.tileK[i]) * c.tileK[i];
  }
  double tileM = std::min(c.tileM[i], paddedM);
  double tileN = std::min(c.tileN[i], paddedN);
  double workTileN = std::min(c.tileN[i], workN);
  double tiles = b * tilesM * tilesN * c.splitK[i];
  double cus = t.computeUnits;
  double rounds = std::ceil(tiles / cus);
  // A CPU core: rounds of the largest tile, or its share of the sum over
  // the tiles plus one largest tile's imbalance.
  auto busiest = [&](double total, double largest) {
    return t.cpu ? std::min(rounds * largest, b * c.splitK[i] * total / cus +
                                                  largest * (1.0 - 1.0 / cus))
                 : rounds * largest;
  };
  double resident = std::min(c.blocksPerCU[i], rounds);
  // Stream-K: min(G, U) blocks share the U = tiles x K steps units; the
  // busiest compute unit runs ceil(G / CUs) of them, ceil(U / G) units
  // each.
  double workers = 0, overheadRounds = rounds;
  if (!t.cpu && c.streamK[i] > 0.0) {
    double kSteps = std::max(std::ceil(k / c.tileK[i]), 1.0);
    double units = tiles * kSteps;
    workers = std::max(std::min(c.streamK[i], units), 1.0);
    double gridBlocksPerCU = std::ceil(workers / cus);
    double unitsPerBlock = std::ceil(units / workers);
    rounds = unitsPerBlock * gridBlocksPerCU / kSteps;
    resident = std::min(c.blocksPerCU[i], gridBlocksPerCU);
    // A tile's overhead per segment: at most ceil(units / steps) + 1 of
    // them per block, and no more than its units.
    overheadRounds =
        gridBlocksPerCU *
        std::min(std::ceil(unitsPerBlock / kSteps) + 1.0, unitsPerBlock);
  }
  double invLatency =
      t.cpu ? 1.0 : std::max(1.0, c.invLatencyWarps[i] / resident);
  double math = busiest(paddedM * workN, tileM * workTileN) * 2.0 * paddedK *
                c.usPerFlop[i] * invLatency;
  if (t.cpu) {
    // An in-place A block beyond the prefetchers' reach: a stall per row a
    // register block starts, ramped in from the reach to twice it.
    double kc = std::min(c.tileK[i], paddedK);
    double aBlockBytes = tileM * kc * t.elemBytes;
    double beyond =
        std::clamp(aBlockBytes * t.invInPlaceAReachBytes - 1.0, 0.0, 1.0) *
        (1.0 - c.packsA[i]);
    double rowStarts =
        busiest(paddedM * paddedN / c.granN[i], tileM * tileN / c.granN[i]) *
        std::ceil(paddedK / c.tileK[i]);
    math += rowStarts * beyond * t.usPerRowStartStall;
  }
  double compute = math / (1.0 / t.invComputeEfficiency);
  double onChip, pack = 0;
  if (t.cpu) {
    onChip = busiest(paddedM * paddedN / c.granN[i] + tilesM * paddedN,
                     tileM * tileN / c.granN[i] + tileN) *
             paddedK * 4.0 * t.usPerOnChipByte * t.invComputeEfficiency;
    pack = busiest(paddedM * tilesN * c.packsA[i] + tilesM * paddedN,
                   tileM * c.packsA[i] + tileN) *
           paddedK * (t.elemBytes + 4.0) * t.usPerOnChipByte *
           t.invComputeEfficiency;
  } else {
    onChip = rounds * paddedK *
             (tileM * c.onChipUsPerKA[i] + tileN * c.onChipUsPerKB[i]) *
             t.invComputeEfficiency;
  }
  // DRAM: operands re-read per footprint row / column group unless they
  // stay in the shared cache.
  double eb = t.elemBytes;
  bool aFits = m * k * eb <= t.sharedCacheBytes;
  bool bFits = k * n * eb <= t.sharedCacheBytes;
  double waveTiles = std::min(tiles, cus * c.blocksPerCU[i]);
  double wn = std::clamp(
      std::floor(std::sqrt(waveTiles * c.tileM[i] / c.tileN[i]) + 0.5), 1.0,
      tilesN);
  double wm = std::clamp(std::floor(waveTiles / wn), 1.0, tilesM);
  double readsA = aFits ? 1.0 : std::ceil(tilesN / wn);
  double readsB = bFits ? 1.0 : std::ceil(tilesM / wm);
  // Stream-K's blocks work a range apart: every one of the tiles / G
  // periods touches min(rows, G) tile rows and min(columns, G) columns.
  if (workers > 0) {
    double periods = std::max(tiles / workers, 1.0);
    double rows = b * tilesM, cols = b * tilesN;
    readsA =
        aFits ? 1.0 : std::max(periods * std::min(rows, workers) / rows, 1.0);
    readsB =
        bFits ? 1.0 : std::max(periods * std::min(cols, workers) / cols, 1.0);
  }
  double dramBytes = b * eb * (m * k * readsA + k * n * readsB + m * n);
  double partialBytes = 0.0;
  if (c.splitK[i] > 1.0)
    partialBytes = b * m * n * 4.0 * 2.0 * c.splitK[i];
  // Stream-K: a tile shared at each boundary between blocks' ranges (at
  // most), each contributor's f32 partial sums written and read.
  if (workers > 0) {
    double partialTiles = (workers - 1.0) + std::min(tiles, workers - 1.0);
    partialBytes = partialTiles * c.tileM[i] * c.tileN[i] * 4.0 * 2.0;
  }
  // Read back from L2 while their stores fit in its share.
  double partialUs = partialBytes * (partialBytes / 2.0 <= t.sharedCacheBytes
                                         ? t.usPerL2Byte
                                         : 1.0 / t.dramBytesPerUs);
  double tileBytes = (tileM + tileN) * paddedK * eb;
  double latencyBound =
      t.cpu ? busiest(paddedM * tilesN + tilesM * paddedN, tileM + tileN) *
                  paddedK * eb * cus / t.dramBytesPerUs / 4.0
            : rounds * tileBytes * c.invInFlightBytes[i] *
                  (aFits && bFits ? t.cacheLatencyUs : t.dramLatencyUs) /
                  resident;
  double memory =
      std::max(dramBytes / t.dramBytesPerUs + partialUs, latencyBound) *
      t.invMemoryEfficiency;
  double chip = std::max(compute, onChip) + pack;
  double exposed = t.cpu ? 1.0 : c.invStages[i] / resident;
  // A GPU launch's grid z holds at most 65535 (matrix, split) pairs: a
  // larger batch runs in chunks, a launch each.
  double launches =
      t.cpu ? 1.0 : std::ceil(b / std::floor(65535.0 / c.splitK[i]));
  return launches * t.launchUs + overheadRounds * t.tileOverheadUs +
         std::max(chip, memory) + exposed * std::min(chip, memory);
}

TEST(SelectionEquivalence, EvaluateCandidateMatchesThePlainFormula) {
  // The shortcuts of the shared formula (whole-number rounding in adds, a
  // full wave's footprint prepared with the table, reciprocals) change no
  // prediction beyond rounding.
  std::vector<GemmShape> shapes = testShapes();
  for (const char *target :
       {"h100", "a100", "mi300x", "host-avx512", "host-avx2"})
    for (ElemType elem : {ElemType::F16, ElemType::F32}) {
      const TargetDesc &desc = builtinTarget(target);
      PreparedTable table;
      std::string error;
      ASSERT_TRUE(prepareTable(generateCandidates(OpKind::Matmul, elem, desc),
                               elem, desc, desc.calibration, table, error))
          << error;
      for (const GemmShape &shape : shapes)
        for (int i = 0; i < table.count; ++i)
          expectClose(evaluateCandidate(table, i, shape),
                      plainEvaluate(table, i, shape),
                      describe(target, elem, SelectionPolicy::Fixed, shape) +
                          " candidate " + std::to_string(i));
    }
}

TEST(SelectionEquivalence, EvaluateCandidateMatchesPredict) {
  // The table's scalar path (explain) and predict() share the formula; so
  // does the packed selection path, which the test above compares with it.
  for (const char *target : {"h100", "mi300x", "host-avx2"}) {
    const TargetDesc &desc = builtinTarget(target);
    std::vector<KernelConfig> cands =
        generateCandidates(OpKind::Matmul, ElemType::F32, desc);
    PreparedTable table;
    std::string error;
    ASSERT_TRUE(prepareTable(cands, ElemType::F32, desc, desc.calibration,
                             table, error))
        << error;
    for (GemmShape shape :
         {GemmShape{1, 1040, 8192, 8192}, GemmShape{3, 333, 517, 129},
          GemmShape{1, 35, 8457, 4096}})
      for (int i = 0; i < table.count; ++i)
        EXPECT_EQ(evaluateCandidate(table, i, shape),
                  predict(shape, ElemType::F32, cands[i], desc).totalUs)
            << target << " candidate " << i;
  }
}

} // namespace
