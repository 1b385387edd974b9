//===- Explain.h - Why a candidate wins, as a table or JSON ---------------===//
//
// Part of the Quilt project. The logic behind `quiltc targets` and
// `quiltc explain` (and the dialect's cost-report pass): generate the
// candidates for a workload on a target, predict every one with its named
// terms, apply the selection policy, and say in one line why the winner won.
// Kept in the library so every front end prints the same thing.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COSTMODEL_EXPLAIN_H
#define QUILT_COSTMODEL_EXPLAIN_H

#include "CostModel/Candidates.h"
#include "CostModel/CostModel.h"
#include "CostModel/Json.h"
#include "CostModel/ResidualModel.h"
#include "CostModel/TargetDatabase.h"
#include "CostModel/TuningDatabase.h"
#include "CostModel/Workload.h"

#include <string>
#include <vector>

namespace quilt {

struct ExplainOptions {
  CandidateOptions candidates;
  SelectionPolicy policy = SelectionPolicy::CostModel;
  int fixedIndex = 0;
  /// Rows shown (ranked best first); 0 shows every candidate.
  int top = 0;
  /// CPU targets: the cores explainWorkload prices the product on, as the
  /// dispatch of code compiled with `quiltc compile --threads N` does
  /// (restrictToCores; compiling defaults to one thread, so does this).
  /// Pruning sees the whole target, as compiling does. GPUs are whole.
  int64_t threads = 1;
  /// The dispatch's tuned regions (a dispatch's `tuned` attribute).
  std::vector<TunedRegion> tuned;
  /// A tuning database whose entries for the workload (no epilogue) join
  /// the candidates and `tuned`, as compiling with it does.
  const TuningDatabase *tuning = nullptr;
  /// A learned residual: the report adds its corrected prediction of every
  /// candidate and the candidate it ranks first. Selection (what compiled
  /// code runs) stays the analytic model's.
  const ResidualModel *residual = nullptr;
};

struct ExplainReport {
  Workload workload;
  TargetDesc target;
  std::vector<KernelConfig> candidates;
  /// Per candidate, in candidate-index order.
  std::vector<Prediction> predictions;
  /// Candidate indices, cheapest first (ties by index).
  std::vector<int> ranking;
  SelectionPolicy policy = SelectionPolicy::CostModel;
  /// The tuned regions selection consulted; selection.tunedRegion indexes.
  std::vector<TunedRegion> tuned;
  Selection selection;
  /// One line: why the chosen kernel (or patch) beats the runner-up.
  std::string why;
  /// A GPU dispatch's aligned copies of A and B before its kernels, the
  /// same whichever runs (unalignedOperandCopies): not in any candidate's
  /// prediction nor in the selection's.
  OperandCopies copies;
  /// With a residual model: per candidate, the corrected prediction, and
  /// the candidate with the lowest (-1 without a model).
  std::vector<double> learnedUs;
  /// The features the residual read, per candidate (JSON shows them).
  std::vector<ResidualFeatures> residualFeatures;
  int learnedPick = -1;
  std::string residualSource;
};

/// Builds the report; false with `error` when the target has no candidate
/// for the workload's type, the policy's fixed index is out of range, or
/// the tuning database does not apply to the target.
bool explainWorkload(const Workload &workload, const TargetDesc &target,
                     const ExplainOptions &options, ExplainReport &report,
                     std::string &error);

/// The same for a given candidate list (a dispatch's, in IR): false with
/// `error` when a candidate does not fit the target, the list is empty, the
/// fixed index is out of range or the tuning database does not apply.
bool explainCandidates(const Workload &workload, const TargetDesc &target,
                       const std::vector<KernelConfig> &candidates,
                       const ExplainOptions &options, ExplainReport &report,
                       std::string &error);

/// The readable table: header, one row per candidate with every term, the
/// chosen one marked with '*', then the why line.
std::string renderExplainText(const ExplainReport &report, int top = 0);

/// {"workload", "target", "policy", "chosen", "why", "candidates": [...]}.
void writeExplainJson(JsonWriter &json, const ExplainReport &report,
                      int top = 0);

/// A configuration as an object with every field and its "str" form.
void writeConfigJson(JsonWriter &json, const KernelConfig &config);

/// `quiltc targets`: name, vendor, chip, compute units, best peak,
/// bandwidth, description.
std::string renderTargetTable(const TargetDatabase &db);

} // namespace quilt

#endif // QUILT_COSTMODEL_EXPLAIN_H
