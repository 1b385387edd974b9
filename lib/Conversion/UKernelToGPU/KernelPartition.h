//===- KernelPartition.h - A device module's kernels, one by one -*- C++
//-*-===//
//
// Part of the Quilt project. Quilt lowers and compiles the kernels of a
// device module one at a time (so that each can come from the kernel
// cache): each kernel goes with the module-level functions and variables
// it uses.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UKERNELTOGPU_KERNELPARTITION_H
#define QUILT_CONVERSION_UKERNELTOGPU_KERNELPARTITION_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace quilt {

/// The parts `module`'s ops are compiled in, each in module order: one per
/// kernel (`gpu.func ... kernel`, or a function marked `gpu.kernel`,
/// `nvvm.kernel` or `rocdl.kernel`) with the ops it uses, directly or
/// through others. One part of every op instead when there is no kernel,
/// when the module holds an op that is not a symbol (no part would carry
/// it), when a kernel's part would hold another kernel, or when kernels
/// share a variable in device memory (a non-constant global outside shared
/// memory): compiled apart, each would assume it alone uses it.
llvm::SmallVector<llvm::SmallVector<mlir::Operation *>>
partitionKernels(mlir::gpu::GPUModuleOp module);

} // namespace quilt

#endif // QUILT_CONVERSION_UKERNELTOGPU_KERNELPARTITION_H
