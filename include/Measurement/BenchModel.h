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

/// The chosen kernel(s) in one line: "<config>", or "<main> + <remainder>
/// (patch M at <extent>)".
std::string describeChoice(const ExplainReport &report);

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_BENCHMODEL_H
