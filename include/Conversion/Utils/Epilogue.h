//===- Epilogue.h - Elementwise epilogue steps ------------------*- C++ -*-===//
//
// Part of the Quilt project. The one implementation of a dispatch's fused
// epilogue, used by every code generator.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_EPILOGUE_H
#define QUILT_CONVERSION_UTILS_EPILOGUE_H

#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::ukernel {

/// The epilogue steps on `x` (f32 or a vector of f32); `bias` has x's type
/// and is only read by bias_add. GELU is emitted with math.erf: run
/// math-polynomial-approximation afterwards on targets without libm.
Value applyEpilogue(OpBuilder &b, Location loc, ArrayRef<EpilogueKind> steps,
                    Value x, Value bias);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_EPILOGUE_H
