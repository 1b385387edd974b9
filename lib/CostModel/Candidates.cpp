//===- Candidates.cpp - Enumerating hardware-friendly configurations ------===//
//
// Part of the Quilt project. The enumeration is constructive: thread counts
// are whole warps, warp tiles whole instructions, per-thread tiles follow the
// instruction's accumulator layout, and each tile gets the deepest pipeline
// that still leaves the wanted number of blocks per compute unit. What is
// left is filtered through checkForTarget, the same check the verifier uses.
//
//===----------------------------------------------------------------------===//

#include "CostModel/Candidates.h"

#include <algorithm>

namespace quilt {

namespace {

/// Largest tile edge the code generator emits.
constexpr int64_t kMaxTileEdge = 256;
/// GPU accesses are at most 16 bytes per thread.
constexpr int64_t kAccessBytes = 16;

/// cp.async (sm_80+) makes multi-stage shared-memory pipelines cheap; other
/// GPUs double-buffer through registers.
int64_t maxStages(const TargetDesc &t) { return t.hasAsyncCopies() ? 4 : 2; }

/// The best instruction(s) the target has for the element type.
std::vector<InstKind> instructionsFor(ElemType elem, const TargetDesc &t,
                                      const CandidateOptions &options) {
  if (!t.isGpu())
    return {InstKind::CpuFma};
  if (elem == ElemType::F64) {
    // No matrix instruction takes f64; SIMT needs the target's f64 rate.
    if (t.peak(InstKind::SimtFma, elem) > 0)
      return {InstKind::SimtFma};
    return {};
  }
  if (elem == ElemType::F32) {
    std::vector<InstKind> insts = {InstKind::SimtFma};
    if (options.allowTf32 && t.hasInst(InstKind::MmaSyncTf32))
      insts.push_back(InstKind::MmaSyncTf32);
    return insts;
  }
  if (t.hasInst(InstKind::Wgmma))
    return {InstKind::Wgmma};
  if (t.hasInst(InstKind::MmaSyncF16))
    return {InstKind::MmaSyncF16};
  std::vector<InstKind> amd;
  for (InstKind k :
       {InstKind::Mfma32x32x8, InstKind::Mfma16x16x16, InstKind::Wmma16x16x16})
    if (t.hasInst(k))
      amd.push_back(k);
  if (!amd.empty())
    return amd;
  return {InstKind::SimtFma};
}

struct WarpTile {
  int64_t m, n;
};

/// Per-warp tiles worth trying for an instruction.
std::vector<WarpTile> warpTiles(InstKind inst, int64_t warpSize) {
  std::vector<int64_t> ms, ns;
  switch (inst) {
  case InstKind::Wgmma:
    ms = {16, 32, 64}, ns = {64, 128, 256};
    break;
  case InstKind::Mfma32x32x8:
    ms = {32, 64, 128}, ns = {32, 64, 128};
    break;
  case InstKind::MmaSyncF16:
  case InstKind::MmaSyncTf32:
  case InstKind::Mfma16x16x16:
  case InstKind::Wmma16x16x16:
    ms = {16, 32, 64}, ns = {16, 32, 64};
    break;
  case InstKind::SimtFma: {
    // Threads of a warp form a rows x cols grid; each owns a 4x4 or 8x8
    // accumulator tile.
    int64_t rows = warpSize >= 64 ? 8 : 4, cols = warpSize / rows;
    for (int64_t tt : {4, 8})
      ms.push_back(rows * tt), ns.push_back(cols * tt);
    break;
  }
  case InstKind::CpuFma:
    break;
  }
  std::vector<WarpTile> tiles;
  for (int64_t m : ms)
    for (int64_t n : ns)
      tiles.push_back({m, n});
  return tiles;
}

std::vector<int64_t> tileKs(InstKind inst) {
  switch (inst) {
  case InstKind::SimtFma:
    return {8, 16, 32};
  case InstKind::MmaSyncTf32:
    return {16, 32};
  case InstKind::Wgmma:
    // One 128-byte swizzled row of halves: the K tile the wgmma engine
    // issues natively (canIssueWgmma). Candidates with a K tile of 32 ran
    // as mma.sync, at 60-128 TFLOP/s where the native kernels reached
    // 153-253 on the same H100 products (docs/benchmarks.md, GPU), while
    // the model priced both as wgmma.
    return {64};
  default:
    return {32, 64};
  }
}

/// Adds `cfg` with the deepest pipeline that keeps the wanted occupancy:
/// two blocks per CU for tiles up to 128x128 (one hides the other's
/// prologue and epilogue), one for larger tiles. Falls back to the deepest
/// that fits at all.
void addWithDeepestPipeline(KernelConfig cfg, ElemType elem,
                            const TargetDesc &t,
                            std::vector<KernelConfig> &out) {
  int64_t wanted = cfg.tileM * cfg.tileN > 128 * 128 ? 1 : 2;
  int64_t fallback = 0;
  for (int64_t s = maxStages(t); s >= 1; --s) {
    cfg.stages = s;
    if (!checkForTarget(cfg, elem, t).empty())
      continue;
    if (estimateResources(cfg, elem, t).blocksPerCU >= wanted) {
      out.push_back(cfg);
      return;
    }
    if (!fallback)
      fallback = s;
  }
  if (fallback) {
    cfg.stages = fallback;
    out.push_back(cfg);
  }
}

void enumerateGpu(InstKind inst, ElemType elem, const TargetDesc &t,
                  std::vector<KernelConfig> &out) {
  int64_t w = t.warpSize;
  for (int64_t threads : {64, 128, 256}) {
    if (threads % w != 0 || threads > t.maxThreadsPerBlock)
      continue;
    int64_t warps = threads / w;
    for (int64_t warpsM = 1; warpsM <= warps; warpsM *= 2) {
      if (warps % warpsM != 0)
        continue;
      int64_t warpsN = warps / warpsM;
      if (inst == InstKind::Wgmma && warpsM % 4 != 0)
        continue;
      for (WarpTile wt : warpTiles(inst, w)) {
        int64_t tileM = warpsM * wt.m, tileN = warpsN * wt.n;
        if (tileM > kMaxTileEdge || tileN > kMaxTileEdge)
          continue;
        for (int64_t tileK : tileKs(inst)) {
          KernelConfig cfg;
          cfg.inst = inst;
          cfg.tileM = tileM, cfg.tileN = tileN, cfg.tileK = tileK;
          cfg.threads = threads;
          cfg.warpsM = warpsM, cfg.warpsN = warpsN;
          if (inst == InstKind::SimtFma) {
            int64_t rows = w >= 64 ? 8 : 4;
            cfg.threadTileM = wt.m / rows, cfg.threadTileN = wt.n / (w / rows);
          } else {
            // Matrix-instruction accumulators: 8 thread rows per warp tile.
            cfg.threadTileM = wt.m / 8, cfg.threadTileN = wt.n / (w / 8);
          }
          int64_t vw = kAccessBytes / elemBytes(elem);
          while (vw > 1 && (tileK % vw != 0 || tileN % vw != 0))
            vw /= 2;
          cfg.vectorWidth = vw;
          addWithDeepestPipeline(cfg, elem, t, out);
        }
      }
    }
  }
}

/// Largest multiple of `step` that is at most `limit` (0 if none).
int64_t largestMultiple(int64_t step, int64_t limit) {
  return limit >= step ? limit / step * step : 0;
}

/// BLIS-style blocking: an mr x nr register block of accumulators, a
/// kc x nr micro-panel of B in half of L1, an mc x kc block of A in half of
/// L2, a kc x nc panel of B within the core's share of the last level.
void enumerateCpu(ElemType elem, const TargetDesc &t,
                  std::vector<KernelConfig> &out) {
  int64_t lanes = t.cpuLanes(elem);
  int64_t packedBytes = computeBytes(elem);
  int64_t llcPerCore = t.l3Bytes > 0
                           ? t.l3Bytes / std::max<int64_t>(t.computeUnits, 1)
                           : t.l2Bytes;
  for (int64_t mr : {1, 2, 4, 6, 8, 12, 14, 16}) {
    for (int64_t nrVectors = 1; nrVectors <= 4; ++nrVectors) {
      int64_t nr = nrVectors * lanes;
      if (mr * nrVectors + nrVectors + 1 > t.maxRegistersPerThread)
        continue;
      int64_t kc = 0;
      for (int64_t candidate : {512, 384, 256, 128, 64})
        if (candidate * nr * packedBytes <= t.l1Bytes / 2 &&
            candidate % lanes == 0) {
          kc = candidate;
          break;
        }
      if (!kc)
        continue;
      int64_t mcMax = std::min<int64_t>(
          largestMultiple(mr, t.l2Bytes / 2 / (kc * packedBytes)), 1024);
      int64_t ncMax = std::min<int64_t>(
          largestMultiple(nr, llcPerCore / 2 / (kc * packedBytes)), 4096);
      std::vector<int64_t> mcs, ncs;
      for (int64_t mc : {mr * 4, mr * 16, mcMax})
        if (mc > 0 && mc <= mcMax &&
            std::find(mcs.begin(), mcs.end(), mc) == mcs.end())
          mcs.push_back(mc);
      for (int64_t nc : {nr * 2, nr * 8, ncMax})
        if (nc > 0 && nc <= std::max(ncMax, nr) &&
            std::find(ncs.begin(), ncs.end(), nc) == ncs.end())
          ncs.push_back(nc);
      for (int64_t mc : mcs) {
        for (int64_t nc : ncs) {
          KernelConfig cfg;
          cfg.inst = InstKind::CpuFma;
          cfg.tileM = mc, cfg.tileN = nc, cfg.tileK = kc;
          cfg.threadTileM = mr, cfg.threadTileN = nr;
          cfg.vectorWidth = lanes;
          if (checkForTarget(cfg, elem, t).empty())
            out.push_back(cfg);
        }
      }
    }
  }
}

} // namespace

std::vector<KernelConfig> enumerateCandidates(OpKind op, ElemType elem,
                                              const TargetDesc &target,
                                              const CandidateOptions &options) {
  (void)op; // All ops run as (batched) GEMM tiles; op only shapes pruning.
  std::vector<KernelConfig> out;
  if (!target.isGpu()) {
    enumerateCpu(elem, target, out);
    return out;
  }
  for (InstKind inst : instructionsFor(elem, target, options))
    enumerateGpu(inst, elem, target, out);
  return out;
}

std::vector<KernelConfig> generateCandidates(OpKind op, ElemType elem,
                                             const TargetDesc &target,
                                             const CandidateOptions &options) {
  std::vector<GemmShape> shapes = representativeShapes(op);
  std::vector<KernelConfig> kept =
      pruneCandidates(enumerateCandidates(op, elem, target, options), elem,
                      target, shapes, options.maxCandidates, options.residual);
  if (!target.isGpu())
    return kept;
  return withSharedTileVariants(std::move(kept), op, elem, target, shapes,
                                options.maxCandidates, options.residual);
}

} // namespace quilt
