//===- RunPipeline.h - Run a quilt-opt pipeline on source text --*- C++ -*-===//
//
// Part of the Quilt project. What `quilt-opt --pass-pipeline=...` does to a
// file, as a library call: the Python module's run_pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COMPILER_RUNPIPELINE_H
#define QUILT_COMPILER_RUNPIPELINE_H

#include "Compiler/Compiler.h"

#include <string_view>

namespace quilt {

/// Parses `source` (named `sourceName` in diagnostics) with every upstream
/// and Quilt dialect, runs `pipeline` (quilt-opt's --pass-pipeline syntax,
/// anchored: "builtin.module(ukernel-attach-target{target=h100}, ...)") and
/// returns the printed module in `artifact`, or every diagnostic in `error`.
/// Never aborts on bad input or a bad pipeline.
CompileResult runPipelineOnSource(std::string_view source,
                                  std::string_view sourceName,
                                  std::string_view pipeline);

} // namespace quilt

#endif // QUILT_COMPILER_RUNPIPELINE_H
