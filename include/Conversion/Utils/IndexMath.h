//===- IndexMath.h - Index arithmetic shorthands ----------------*- C++ -*-===//
//
// Part of the Quilt project. Shared by the host and GPU code generators to
// keep their loop nests legible.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_INDEXMATH_H
#define QUILT_CONVERSION_UTILS_INDEXMATH_H

#include "mlir/IR/Builders.h"

namespace mlir::ukernel {

/// `index`-typed arithmetic at one insertion point and location.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value c(int64_t v);
  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value min(Value x, Value y);
  /// Unsigned quotient and remainder (of non-negative sizes and indices).
  Value div(Value x, Value y);
  Value rem(Value x, Value y);
  Value ceilDiv(Value x, Value y);
  Value eq(Value x, Value y);
  Value lt(Value x, Value y);
  Value le(Value x, Value y);
};

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_INDEXMATH_H
