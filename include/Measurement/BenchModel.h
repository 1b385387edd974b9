//===- BenchModel.h - The cost model's view of a benchmark ------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_MEASUREMENT_BENCHMODEL_H
#define QUILT_MEASUREMENT_BENCHMODEL_H

#include "CostModel/Explain.h"

#include <string>

namespace quilt::bench {

/// The model's report on `workload` as compiled code selects: the
/// candidates the compiler generates for `generatedFor` (the target as
/// attached), priced on `pricedOn` (the cores the benchmark runs on; the
/// same target for a GPU). False, with `error`, when there is none.
bool explainAsCompiled(const Workload &workload, const TargetDesc &generatedFor,
                       const TargetDesc &pricedOn,
                       const ExplainOptions &options, ExplainReport &report,
                       std::string &error);

/// The chosen kernel(s) in one line: "<config>", or "<main> + <remainder>
/// (patch M at <extent>)".
std::string describeChoice(const ExplainReport &report);

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_BENCHMODEL_H
