//===- InitAllPasses.h - Register Quilt's passes ----------------*- C++ -*-===//
//
// Part of the Quilt project. Inline so that any tool, Quilt's own or a
// downstream compiler's, registers exactly the same set.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_INITALLPASSES_H
#define QUILT_INITALLPASSES_H

#include "Conversion/Passes.h"
#include "Dialect/UKernel/Transforms/Passes.h"
#include "Pipelines/Pipelines.h"

namespace quilt {

inline void registerAllPasses() {
  mlir::ukernel::registerUKernelPasses();
  registerQuiltConversionPasses();
  registerQuiltPipelines();
  registerQuiltGpuPipelines();
}

} // namespace quilt

#endif // QUILT_INITALLPASSES_H
