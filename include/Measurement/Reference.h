//===- Reference.h - Checks results against a double reference --*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_MEASUREMENT_REFERENCE_H
#define QUILT_MEASUREMENT_REFERENCE_H

#include "Measurement/BenchKernels.h"

namespace quilt::bench {

/// The largest error of `operands.out` over a deterministic sample of output
/// elements (every element of small outputs), each recomputed independently
/// in double precision from the inputs. The error of an element is
/// |got - exact| / sum_k |a_k * b_k|: rounding relative to the size of the
/// terms, so cancellation does not inflate it.
/// The largest relative error of an output against a double-precision
/// reference, over every element (or `samples` of them, corners included).
double maxRelativeError(const Workload &workload, const Operands &operands,
                        int samples = 2048);

/// The largest maxRelativeError of a correct output, for Quilt and every
/// baseline alike.
constexpr double kTolerance = 1e-4;

/// Fills an output with NaNs before a checked run: an element the run does
/// not write fails the check.
void poison(HostTensor &out);

/// Whether LLVM's OpenMP runtime, which Quilt's multi-threaded kernels
/// call, was found when quilt-bench was built (and is linked in).
bool haveOpenMP();

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_REFERENCE_H
