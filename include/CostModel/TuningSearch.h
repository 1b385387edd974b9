//===- TuningSearch.h - Coordinate descent over kernel configurations -----===//
//
// Part of the Quilt project. `quiltc tune` starts from the cost model's best
// few candidates for a shape and moves one knob at a time (a register
// block, a cache block, ...) to a neighbouring value while that measures
// faster, until no single move helps: a local optimum of the measured
// times, found with few measurements (droplet search's observation that
// descent around the best samples beats random sampling). The search is
// independent of how configurations are measured, so that it can be tested
// on a synthetic cost surface.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_TUNINGSEARCH_H
#define QUILT_COSTMODEL_TUNINGSEARCH_H

#include "CostModel/KernelConfig.h"
#include "CostModel/Target.h"
#include "CostModel/Types.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace quilt {

/// One dimension of the configuration space: its name and the valid
/// configurations one step away along it.
struct TuningKnob {
  std::string name;
  std::function<std::vector<KernelConfig>(const KernelConfig &)> neighbours;
};

/// The knobs tuning moves on a target, each neighbour passing
/// checkForTarget for `elem`. CPUs: register block M and N, tile K, tile M,
/// tile N (dependent sizes follow: the cache blocks stay multiples of the
/// register block, the B micro-panel within half the L1). Empty for GPUs,
/// which `quiltc tune` does not measure yet.
std::vector<TuningKnob> tuningKnobs(const TargetDesc &target, ElemType elem);

/// Times for a batch of configurations, in microseconds, one per
/// configuration in order; nullopt for one that could not be measured (it
/// failed to compile or computed a wrong result).
using MeasureBatch = std::function<std::vector<std::optional<double>>(
    const std::vector<KernelConfig> &)>;

struct TuningSearchOptions {
  /// Most configurations measured in all (starts included); a batch is cut
  /// to what is left.
  int maxMeasurements = 64;
  /// Checked before each batch: true stops the search (a time budget).
  std::function<bool()> outOfTime;
  /// Told, when the search arrives at a configuration, every neighbour not
  /// measured yet: the measurer may prepare them together (compile one
  /// library for a round of moves). Not every one is measured.
  std::function<void(const std::vector<KernelConfig> &)> prepare;
  /// A move is taken only when it is faster by this fraction: measurement
  /// noise must not walk the search around.
  double minGain = 0.02;
};

struct TuningStep {
  std::string knob; ///< "start" for the starting configurations
  KernelConfig config;
  std::optional<double> us;
  bool taken = false; ///< became the search's current configuration
};

struct TuningSearchResult {
  KernelConfig best;
  double bestUs = 0;
  /// Every configuration measured, in order.
  std::vector<TuningStep> steps;
  /// No single move from `best` is faster (every knob's neighbours were
  /// measured); false when the budget ended the search first.
  bool localOptimum = false;
  bool found = false; ///< some configuration could be measured
};

/// Measures `starts`, then moves from the fastest as described above.
/// `progress` (may be empty) sees every step as it is measured.
TuningSearchResult
coordinateDescent(const std::vector<KernelConfig> &starts,
                  const std::vector<TuningKnob> &knobs,
                  const MeasureBatch &measure,
                  const TuningSearchOptions &options,
                  const std::function<void(const TuningStep &)> &progress = {});

} // namespace quilt

#endif // QUILT_COSTMODEL_TUNINGSEARCH_H
