//===- Reference.h - Checks results against a double reference --*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_TOOLS_QUILTBENCH_REFERENCE_H
#define QUILT_TOOLS_QUILTBENCH_REFERENCE_H

#include "BenchKernels.h"

namespace quilt::bench {

/// The largest error of `operands.out` over a deterministic sample of output
/// elements (every element of small outputs), each recomputed independently
/// in double precision from the inputs. The error of an element is
/// |got - exact| / sum_k |a_k * b_k|: rounding relative to the size of the
/// terms, so cancellation does not inflate it.
double maxRelativeError(const Workload &workload, const Operands &operands,
                        int samples = 2048);

/// Whether LLVM's OpenMP runtime, which Quilt's multi-threaded kernels
/// call, was found when quilt-bench was built (and is linked in).
bool haveOpenMP();

} // namespace quilt::bench

#endif // QUILT_TOOLS_QUILTBENCH_REFERENCE_H
