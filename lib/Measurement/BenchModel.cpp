//===- BenchModel.cpp - The cost model's view of a benchmark --------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Measurement/BenchModel.h"

#include "CostModel/Candidates.h"

namespace quilt::bench {

bool explainAsCompiled(const Workload &workload, const TargetDesc &generatedFor,
                       const TargetDesc &pricedOn,
                       const ExplainOptions &options, ExplainReport &report,
                       std::string &error) {
  std::vector<KernelConfig> candidates = generateCandidates(
      workload.op, workload.elem, generatedFor, options.candidates);
  if (candidates.empty()) {
    error = "no candidates for " + workload.str() + " on " + generatedFor.name;
    return false;
  }
  return explainCandidates(workload, pricedOn, candidates, options, report,
                           error);
}

std::string describeChoice(const ExplainReport &report) {
  const Selection &s = report.selection;
  std::string chosen = report.candidates[s.candidate].str();
  if (s.remainder >= 0)
    chosen += " + " + report.candidates[s.remainder].str() +
              (s.patchDim == PatchDim::M ? " (patch M at " : " (patch N at ") +
              std::to_string(s.mainExtent) + ")";
  return chosen;
}

} // namespace quilt::bench
