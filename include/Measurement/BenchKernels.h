//===- BenchKernels.h - Compiled kernels quilt-bench runs -------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_MEASUREMENT_BENCHKERNELS_H
#define QUILT_MEASUREMENT_BENCHKERNELS_H

#include "Compiler/Compiler.h"
#include "CostModel/Workload.h"
#include "Measurement/HostBuffers.h"

#include <memory>
#include <string>

namespace quilt::bench {

/// Why `workload` cannot be measured, or "" when it can: the host buffers,
/// the reference and the libraries' baselines hold f32, f16 and bf16 values
/// (f64 products compile and are explained, but are not measured yet).
std::string unmeasurableReason(const Workload &workload);

/// The shapes of one workload's operands as the linalg op reads them
/// (convolution inputs already padded); the output is f32.
struct OperandShapes {
  std::vector<int64_t> lhs, rhs, out;
};
OperandShapes operandShapes(const Workload &workload);

/// The operands of one workload, shaped by operandShapes.
struct Operands {
  HostTensor lhs, rhs, out;
};
Operands makeOperands(const Workload &workload);

/// Compiles the dynamic-shape function for `workload`'s kind (see
/// BenchKernel::keyFor) into the shared library `outputPath`, for `base`'s
/// target. Its C entry is `_mlir_ciface_quilt_bench(lhs, rhs, out)` over
/// memref descriptors, computing out = lhs * rhs. `microKernels` and
/// `threads` as for BenchKernel::compile.
bool compileBenchLibrary(const Workload &workload, bool microKernels,
                         int threads, const CompileOptions &base,
                         const std::string &outputPath, std::string &error);

/// A shared library compiled from one dynamic-shape linalg function per
/// (op, element type, convolution stride), loaded into the process. Built
/// once and run on every workload of that kind: nothing is compiled per
/// shape.
class BenchKernel {
public:
  /// `microKernels` false compiles the same function with upstream MLIR's
  /// default lowering, the baseline. `threads` other than 1 builds Quilt's
  /// multi-threaded kernels (OpenMP; the library links libomp).
  static std::unique_ptr<BenchKernel> compile(const Workload &workload,
                                              bool microKernels, int threads,
                                              const CompileOptions &base,
                                              const std::string &directory,
                                              std::string &error);
  ~BenchKernel();

  /// Computes operands.out = lhs * rhs: one call, the whole product.
  void run(Operands &operands) const;

  /// The linalg source compiled, for --verbose and error messages.
  const std::string &source() const { return text; }

  /// Identifies the kernel a workload needs: same key, same library.
  static std::string keyFor(const Workload &workload);

private:
  BenchKernel() = default;
  void *handle = nullptr;
  void (*entry)(void *, void *, void *) = nullptr;
  int rank = 2;
  std::string text;
};

} // namespace quilt::bench

#endif // QUILT_MEASUREMENT_BENCHKERNELS_H
