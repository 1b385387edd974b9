//===- GpuBundle.h - What bench/gpu runs on a GPU machine -------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_TOOLS_QUILTBENCH_GPUBUNDLE_H
#define QUILT_TOOLS_QUILTBENCH_GPUBUNDLE_H

#include "Compiler/Compiler.h"
#include "CostModel/Explain.h"
#include "CostModel/Target.h"
#include "CostModel/Workload.h"

#include <string>
#include <vector>

namespace quilt::bench {

/// Writes into `directory` everything bench/gpu/run.py needs to run
/// `workloads` on a machine with the target's GPU and nothing else: one
/// shared library per (op, element type) compiled for `target` (device code
/// and host launches, never per shape), the Quilt runtime libraries they
/// link against, and manifest.json describing each workload (operand shapes,
/// library, the model's pick and prediction, every candidate's prediction).
/// Workloads whose kind does not compile are listed with the compiler's
/// error. Returns false, with `error`, only when the directory or the
/// manifest cannot be written.
bool writeGpuBundle(const std::vector<Workload> &workloads,
                    const TargetDesc &target, const CompileOptions &base,
                    const ExplainOptions &explainOptions,
                    const std::string &directory, std::string &error);

} // namespace quilt::bench

#endif // QUILT_TOOLS_QUILTBENCH_GPUBUNDLE_H
