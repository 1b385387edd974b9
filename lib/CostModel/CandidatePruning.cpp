//===- CandidatePruning.cpp - Keeping the few candidates that matter ------===//
//
// Part of the Quilt project. Every kept candidate is compiled ahead of time
// and evaluated at run time, so the set must be small; it must also leave
// every shape a candidate close to the best of the full enumeration. A
// greedy regret cover over a fixed spread of shapes does both, and being
// deterministic it yields the same set on every build.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "CostModel/ResidualModel.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace quilt {

namespace {

/// "Best on a shape" tolerance for the first pick.
constexpr double kNearBest = 1.01;
/// Below this worst-case ratio, pick for the geometric mean instead.
constexpr double kWorstGoodEnough = 1.05;

/// cost[c * shapes + s]: predicted time of candidate c on shape s,
/// corrected by `residual` when there is one.
std::vector<double> costMatrix(const std::vector<KernelConfig> &all,
                               ElemType elem, const TargetDesc &target,
                               const std::vector<GemmShape> &shapes,
                               const ResidualModel *residual) {
  std::vector<double> cost(all.size() * shapes.size(), 0.0);
  for (size_t begin = 0; begin < all.size(); begin += kMaxPreparedCandidates) {
    size_t end = std::min(all.size(), begin + size_t(kMaxPreparedCandidates));
    std::vector<KernelConfig> chunk(all.begin() + begin, all.begin() + end);
    PreparedTable table;
    std::string error;
    if (!prepareTable(chunk, elem, target, target.calibration, table, error))
      continue; // Cannot happen for enumerated candidates; cost stays 0.
    for (size_t c = begin; c < end; ++c)
      for (size_t s = 0; s < shapes.size(); ++s) {
        Prediction p;
        p.totalUs = evaluateCandidate(table, int(c - begin), shapes[s],
                                      residual ? &p.terms : nullptr);
        cost[c * shapes.size() + s] =
            residual ? residual->correctedUs(shapes[s], elem, all[c], target, p)
                     : p.totalUs;
      }
  }
  return cost;
}

} // namespace

std::vector<GemmShape> representativeShapes(OpKind op) {
  std::vector<GemmShape> shapes;
  switch (op) {
  case OpKind::Matmul:
    // Sequence-length-like M (16T for small T, odd MikPoly sizes), hidden
    // sizes and vocabularies for N, and short to long reductions.
    for (int64_t m :
         {1, 5, 24, 43, 80, 128, 257, 688, 1000, 1024, 2048, 4096, 8192, 36458})
      for (int64_t n : {5, 64, 84, 400, 768, 1024, 2560, 3072, 8457})
        for (int64_t k : {35, 64, 768, 1632, 4096})
          shapes.push_back({1, m, n, k});
    break;
  case OpKind::BatchMatmul:
    // Attention: many heads x batch of small products.
    for (int64_t m : {5, 24, 43, 62, 64, 81, 128, 512})
      for (int64_t n : {5, 24, 43, 64, 128, 512})
        for (int64_t k : {5, 43, 64, 128, 512})
          shapes.push_back({192, m, n, k});
    break;
  case OpKind::Conv2dNhwcHwcf:
  case OpKind::Conv2dNchwFchw:
    // Implicit GEMM: M = N*OH*OW is large, N = F, K = C*R*S.
    for (int64_t m : {3136, 12544, 1838736, 6553600})
      for (int64_t n : {64, 128, 256, 512})
        for (int64_t k : {128, 1152, 3200, 6272})
          shapes.push_back({1, m, n, k});
    break;
  }
  return shapes;
}

std::vector<KernelConfig>
pruneCandidates(const std::vector<KernelConfig> &all, ElemType elem,
                const TargetDesc &target, const std::vector<GemmShape> &shapes,
                int maxCandidates, const ResidualModel *residual) {
  int limit = std::clamp(maxCandidates, 1, kMaxPreparedCandidates);
  if (all.size() <= size_t(limit) || shapes.empty())
    return std::vector<KernelConfig>(
        all.begin(), all.begin() + std::min(all.size(), size_t(limit)));

  const size_t numShapes = shapes.size();
  std::vector<double> cost = costMatrix(all, elem, target, shapes, residual);
  std::vector<double> best(numShapes, std::numeric_limits<double>::infinity());
  for (size_t c = 0; c < all.size(); ++c)
    for (size_t s = 0; s < numShapes; ++s)
      best[s] = std::min(best[s], cost[c * numShapes + s]);
  // Ratio to the per-shape best; shapes with zero cost count as matched.
  auto ratio = [&](double us, size_t s) {
    return best[s] > 0 ? us / best[s] : 1.0;
  };

  std::vector<KernelConfig> kept;
  std::vector<bool> taken(all.size(), false);
  std::vector<double> current(numShapes,
                              std::numeric_limits<double>::infinity());

  // First pick: near-best on the most shapes; ties by geometric mean ratio.
  {
    size_t pick = 0;
    int bestCount = -1;
    double bestLog = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < all.size(); ++c) {
      int count = 0;
      double logSum = 0;
      for (size_t s = 0; s < numShapes; ++s) {
        double r = ratio(cost[c * numShapes + s], s);
        count += r <= kNearBest;
        logSum += std::log(r);
      }
      if (count > bestCount || (count == bestCount && logSum < bestLog)) {
        pick = c, bestCount = count, bestLog = logSum;
      }
    }
    taken[pick] = true;
    kept.push_back(all[pick]);
    for (size_t s = 0; s < numShapes; ++s)
      current[s] = cost[pick * numShapes + s];
  }

  while (kept.size() < size_t(limit)) {
    double worstNow = 1.0;
    for (size_t s = 0; s < numShapes; ++s)
      worstNow = std::max(worstNow, ratio(current[s], s));
    if (worstNow <= 1.0 + 1e-9)
      break; // Every shape already has its best candidate.
    bool byWorst = worstNow > kWorstGoodEnough;
    size_t pick = all.size();
    double pickWorst = std::numeric_limits<double>::infinity();
    double pickLog = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < all.size(); ++c) {
      if (taken[c])
        continue;
      double worst = 1.0, logSum = 0.0;
      for (size_t s = 0; s < numShapes; ++s) {
        double r = ratio(std::min(current[s], cost[c * numShapes + s]), s);
        worst = std::max(worst, r);
        logSum += std::log(r);
      }
      double primary = byWorst ? worst : logSum;
      double secondary = byWorst ? logSum : worst;
      double pickPrimary = byWorst ? pickWorst : pickLog;
      double pickSecondary = byWorst ? pickLog : pickWorst;
      if (primary < pickPrimary - 1e-12 ||
          (primary <= pickPrimary + 1e-12 && secondary < pickSecondary)) {
        pick = c, pickWorst = worst, pickLog = logSum;
      }
    }
    if (pick == all.size())
      break;
    taken[pick] = true;
    kept.push_back(all[pick]);
    for (size_t s = 0; s < numShapes; ++s)
      current[s] = std::min(current[s], cost[pick * numShapes + s]);
  }
  return kept;
}

std::vector<KernelConfig>
withSharedTileVariants(std::vector<KernelConfig> kept, OpKind op, ElemType elem,
                       const TargetDesc &target,
                       const std::vector<GemmShape> &shapes, int maxCandidates,
                       const ResidualModel *residual) {
  constexpr int64_t kSplitCounts[] = {2, 4, 8};
  constexpr int kMaxVariants = 3;
  constexpr double kVariantGain = 0.9;
  int budget = std::clamp(maxCandidates, 1, kMaxPreparedCandidates);
  int room = std::min(kMaxVariants, budget / 4);
  if (room == 0 || kept.empty() || shapes.empty())
    return kept;
  // The kernels a variant must beat; the one split-K splits: the smallest
  // tile, which the model keeps for small products.
  size_t fixed = std::min(kept.size(), size_t(budget - room));
  std::vector<KernelConfig> prefix(kept.begin(), kept.begin() + fixed);
  const KernelConfig *base = &prefix.front();
  for (const KernelConfig &cfg : prefix)
    if (cfg.splitK == 1 && cfg.tileM * cfg.tileN < base->tileM * base->tileN)
      base = &cfg;
  std::vector<KernelConfig> variants;
  auto offer = [&](const KernelConfig &variant) {
    if (checkForTarget(variant, elem, target).empty())
      variants.push_back(variant);
  };
  if (base->splitK == 1 && base->streamK == 0)
    for (int64_t splits : kSplitCounts) {
      KernelConfig variant = *base;
      variant.splitK = splits;
      offer(variant);
    }
  // Stream-K of every kernel, over as many blocks as the target holds at
  // once: each block runs an equal share of the tiles' K steps. Not for
  // convolutions, whose gather state and the persistent loop's spilled
  // registers (a100, t4), nor on AMD chips, where LLVM spilled 11 to 26
  // SGPRs of the MFMA stream-K kernels (docs/gpu-codegen.md, "Known gaps").
  bool convolution =
      op == OpKind::Conv2dNhwcHwcf || op == OpKind::Conv2dNchwFchw;
  bool offerStreamK = !convolution && target.vendor != Vendor::AMD;
  for (const KernelConfig &cfg : prefix) {
    if (cfg.sharesTiles() || !offerStreamK)
      continue;
    KernelConfig variant = cfg;
    variant.streamK =
        target.computeUnits * estimateResources(cfg, elem, target).blocksPerCU;
    if (variant.streamK > 0)
      offer(variant);
  }
  const size_t numShapes = shapes.size();
  std::vector<double> prefixCost =
      costMatrix(prefix, elem, target, shapes, residual);
  std::vector<double> variantCost =
      costMatrix(variants, elem, target, shapes, residual);
  std::vector<double> current(numShapes,
                              std::numeric_limits<double>::infinity());
  for (size_t c = 0; c < prefix.size(); ++c)
    for (size_t s = 0; s < numShapes; ++s)
      current[s] = std::min(current[s], prefixCost[c * numShapes + s]);

  std::vector<KernelConfig> chosen;
  std::vector<bool> taken(variants.size(), false);
  while (chosen.size() < size_t(room)) {
    size_t pick = variants.size();
    double pickGain = 0.0;
    for (size_t v = 0; v < variants.size(); ++v) {
      if (taken[v])
        continue;
      bool wins = false;
      double gain = 0.0;
      for (size_t s = 0; s < numShapes; ++s) {
        double us = variantCost[v * numShapes + s];
        if (us > 0 && us < kVariantGain * current[s]) {
          wins = true;
          gain += std::log(current[s] / us);
        }
      }
      if (wins && gain > pickGain)
        pick = v, pickGain = gain;
    }
    if (pick == variants.size())
      break;
    taken[pick] = true;
    chosen.push_back(variants[pick]);
    for (size_t s = 0; s < numShapes; ++s)
      current[s] = std::min(current[s], variantCost[pick * numShapes + s]);
  }
  if (chosen.empty())
    return kept;
  // The kernels in their order, as many as leave room for the variants.
  size_t kernels = std::min(kept.size(), size_t(budget) - chosen.size());
  kept.resize(kernels);
  kept.insert(kept.end(), chosen.begin(), chosen.end());
  return kept;
}

} // namespace quilt
