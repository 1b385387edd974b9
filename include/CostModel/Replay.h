//===- Replay.h - The model's picks replayed on measured times -----------===//
//
// Part of the Quilt project. A change to the cost model changes both which
// candidates pruning keeps and which of them the dispatch picks, so it
// cannot be judged on the candidates one library was compiled with.
// Replaying judges it on times measured once: for each measured product,
// prune as compiling for the target does, pick as the dispatch does on the
// cores it runs on, and compare the measured time of the pick with the best
// kept candidate (regret) and with the best measured one (loss).
//
// Measurements are quilt-bench --measurements CSVs (CalibrationFit.h).
// Several runs join per product: a later run's times are scaled by the
// geometric mean ratio of the candidates it shares with the runs before it
// (the machine's speed drifts between runs), and repeated times average in
// log space.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_REPLAY_H
#define QUILT_COSTMODEL_REPLAY_H

#include "CostModel/CalibrationFit.h"
#include "CostModel/Json.h"
#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "CostModel/Workload.h"

#include <string>
#include <vector>

namespace quilt {

struct ReplayOptions {
  /// The dispatch prices the product on this many of a CPU target's cores
  /// (restrictToCores; GPUs whole); pruning sees the target as compiled
  /// for.
  int threads = 1;
  /// Candidates pruning keeps, as --max-candidates when compiling.
  int maxCandidates = 16;
};

struct ReplayedProduct {
  OpKind op = OpKind::Matmul;
  ElemType elem = ElemType::F32;
  GemmShape shape;
  /// The pick, the fastest kept candidate and the fastest measured one,
  /// with their measured times (scored products only).
  KernelConfig picked, bestKept, best;
  double pickedUs = 0, bestKeptUs = 0, bestUs = 0;
  /// Kept candidates without a time: the product is not scored; time them.
  std::vector<KernelConfig> unmeasured;
};

struct ReplayReport {
  std::string target;
  int threads = 1, maxCandidates = 16;
  std::vector<ReplayedProduct> scored, unscored;
  /// Geometric means over the scored products, minus 1: picked over best
  /// kept, picked over best measured, best kept over best measured.
  double regret = 0, loss = 0, keptLoss = 0;
};

/// Replays `runs` (each one quilt-bench run's measurements, in order) for
/// `target`. Fails on a configuration invalid for the target or a
/// non-positive time.
bool replayMeasurements(const std::vector<std::vector<Measurement>> &runs,
                        const TargetDesc &target, const ReplayOptions &options,
                        ReplayReport &report, std::string &error);

std::string renderReplayText(const ReplayReport &report);
void writeReplayJson(JsonWriter &json, const ReplayReport &report);

} // namespace quilt

#endif // QUILT_COSTMODEL_REPLAY_H
