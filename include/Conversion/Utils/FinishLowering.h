//===- FinishLowering.h - After the dispatches are expanded -----*- C++ -*-===//
//
// Part of the Quilt project. What every code generator does once its
// dispatches are gone.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_FINISHLOWERING_H
#define QUILT_CONVERSION_UTILS_FINISHLOWERING_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::ukernel {

/// Lowers every ukernel.select to the runtime call (lowerSelectOps), drops
/// the dead `ukernel.target` attributes once no ukernel op is left (so tools
/// without the dialect, such as mlir-runner and mlir-translate, read the
/// result), and replaces math functions (tanh, exp, erf, ...) by
/// polynomials so generated code needs no libm or device math library. Fails
/// after a diagnostic.
LogicalResult finishDispatchLowering(ModuleOp module);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_FINISHLOWERING_H
