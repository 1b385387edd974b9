//===- Views.h - Facts about memref views -----------------------*- C++ -*-===//
//
// Part of the Quilt project. Layout questions every code generator asks of
// a dispatch's operands.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_VIEWS_H
#define QUILT_CONVERSION_UTILS_VIEWS_H

#include "mlir/IR/Value.h"

namespace mlir::ukernel {

/// `view` (a strided memref) has a static innermost stride of 1: its rows
/// can be read with vector loads.
bool hasContiguousRows(Value view);

/// `view` (a memref) has the identity layout: row-major and dense.
bool hasIdentityLayout(Value view);

/// The buffer `view` is a view of, through every view-like op (subviews,
/// casts, reshapes); `view` itself when it is none.
Value viewRoot(Value view);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_VIEWS_H
