//===- ComputeType.h - The type kernels compute in -------------*- C++ -*-===//
//
// Part of the Quilt project. One rule for the host kernels, their packing
// and the GPU SIMT kernels.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_COMPUTETYPE_H
#define QUILT_CONVERSION_UTILS_COMPUTETYPE_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::ukernel {

/// The type kernels multiply and accumulate products of `inputElem` in:
/// f64 for f64 inputs, f32 otherwise (f16 and bf16 are widened). The cost
/// model's mirror is quilt::computeBytes.
inline Type computeTypeFor(Type inputElem) {
  if (inputElem.isF64())
    return inputElem;
  return Float32Type::get(inputElem.getContext());
}

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_COMPUTETYPE_H
