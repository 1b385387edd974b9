//===- Reference.h - Checks results and runs the BLAS baseline --*- C++ -*-===//
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

/// Whether OpenBLAS was found when quilt-bench was built.
bool haveOpenBlas();
/// Sets OpenBLAS's thread count.
void setBlasThreads(int threads);
/// Whether LLVM's OpenMP runtime, which Quilt's multi-threaded kernels
/// call, was found when quilt-bench was built (and is linked in).
bool haveOpenMP();

/// The same contraction with OpenBLAS's sgemm on the float values of the
/// inputs (convolutions through im2col, which is part of the timed work),
/// writing `operands.out` (overwritten, not accumulated).
void runOpenBlas(const Workload &workload, Operands &operands,
                 std::vector<float> &scratch);

} // namespace quilt::bench

#endif // QUILT_TOOLS_QUILTBENCH_REFERENCE_H
