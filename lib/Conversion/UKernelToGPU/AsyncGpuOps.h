//===- AsyncGpuOps.h - gpu ops in the form gpu-to-llvm lowers ---*- C++ -*-===//
//
// Part of the Quilt project. Internal to the conversion library: host code
// of a GPU program allocates, copies and frees device memory with gpu ops
// issued asynchronously and waited for at once, the only form gpu-to-llvm
// lowers (it leaves a synchronous gpu.alloc or gpu.dealloc alone).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_UKERNELTOGPU_ASYNCGPUOPS_H
#define QUILT_LIB_CONVERSION_UKERNELTOGPU_ASYNCGPUOPS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::ukernel::gpucg {

/// Runs `issue` (which takes and returns an async token) between a
/// `gpu.wait async` and a blocking `gpu.wait`.
void issueAndWait(OpBuilder &b, Location loc,
                  llvm::function_ref<Value(Value token)> issue);

} // namespace mlir::ukernel::gpucg

#endif // QUILT_LIB_CONVERSION_UKERNELTOGPU_ASYNCGPUOPS_H
