//===- Candidates.h - Hardware-friendly micro-kernel candidates -----------===//
//
// Part of the Quilt project. For an (op, element type, target) the generator
// enumerates configurations that the hardware runs well by construction
// (threads that fill warps and sub-partitions, tiles that are multiples of
// the instruction shape, shared memory and registers within limits at the
// wanted occupancy, 16-byte vector accesses), using the best instruction the
// target has for the element type. Pruning then keeps the few that cover a
// deterministic spread of shapes (greedy regret cover), so every shape has a
// candidate close to the best of the full set.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_CANDIDATES_H
#define QUILT_COSTMODEL_CANDIDATES_H

#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "CostModel/Workload.h"

#include <vector>

namespace quilt {

class ResidualModel;

struct CandidateOptions {
  /// Most candidates kept after pruning (clamped to [1, 64]).
  int maxCandidates = 16;
  /// f32 on NVIDIA through mma.sync tf32 (10-bit mantissa inputs). Off by
  /// default: default f32 candidates compute in exact f32.
  bool allowTf32 = false;
  /// A learned residual (ResidualModel.h) that corrects the predictions
  /// pruning compares; null prunes on the analytic model alone.
  const ResidualModel *residual = nullptr;
};

/// Every configuration the generator considers valid for the target, in a
/// deterministic order. Each passes checkForTarget.
std::vector<KernelConfig> enumerateCandidates(OpKind op, ElemType elem,
                                              const TargetDesc &target,
                                              const CandidateOptions &options);

/// The deterministic shape spread pruning optimizes over: small odd sizes to
/// large powers of two, plus the kinds of sizes the workload suites use.
std::vector<GemmShape> representativeShapes(OpKind op);

/// Greedy regret cover: first the candidate within 1% of the best on the
/// most shapes, then repeatedly the one that most reduces the worst ratio to
/// the per-shape best (the geometric-mean ratio once the worst is within
/// 5%). Stops at `maxCandidates` or when every shape has its best. With a
/// residual model, the costs compared are the corrected predictions.
std::vector<KernelConfig>
pruneCandidates(const std::vector<KernelConfig> &all, ElemType elem,
                const TargetDesc &target, const std::vector<GemmShape> &shapes,
                int maxCandidates, const ResidualModel *residual = nullptr);

/// GPU variants whose blocks share tiles, for grids of few tiles on many
/// compute units: split-K (split_k 2, 4, 8) of the kept kernel with the
/// smallest tile, and (but for convolutions) stream-K of each kept kernel
/// over the blocks the target holds at once (compute units x blocks per
/// unit). In up to a
/// quarter of the `maxCandidates` budget (at most three): each one kept
/// where it is the fastest on some of `shapes` by at least 10% over the
/// kernels before it, most gain first. They follow the kernels, whose
/// order does not change; a variant takes the place of a kernel from the
/// end of `kept` only when the budget is full. Split-K variants share
/// their kernel (the split count is a launch operand, docs/gpu-codegen.md,
/// "Split-K"), so they cost one kernel, not one kernel each.
std::vector<KernelConfig>
withSharedTileVariants(std::vector<KernelConfig> kept, OpKind op, ElemType elem,
                       const TargetDesc &target,
                       const std::vector<GemmShape> &shapes, int maxCandidates,
                       const ResidualModel *residual = nullptr);

/// enumerateCandidates + pruneCandidates over representativeShapes(op),
/// then (GPUs) withSharedTileVariants.
std::vector<KernelConfig>
generateCandidates(OpKind op, ElemType elem, const TargetDesc &target,
                   const CandidateOptions &options = {});

} // namespace quilt

#endif // QUILT_COSTMODEL_CANDIDATES_H
