//===- BenchModel.cpp - The cost model's view of a benchmark --------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Measurement/BenchModel.h"

namespace quilt::bench {

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
