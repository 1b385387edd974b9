//===- SelectLowering.h - ukernel.select to the runtime ---------*- C++ -*-===//
//
// Part of the Quilt project. Host code of every target selects through
// Quilt's runtime, so that compiled code and `quiltc explain` agree.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_SELECTLOWERING_H
#define QUILT_CONVERSION_UTILS_SELECTLOWERING_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::ukernel {

/// Replaces every ukernel.select in the module (outside GPU modules) by a
/// call of the runtime's quilt_rt_select. Fails (with a diagnostic) on a
/// select without a target.
LogicalResult lowerSelectOps(ModuleOp module);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_SELECTLOWERING_H
