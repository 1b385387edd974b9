//===- Views.cpp - Facts about memref views -------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/Views.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

bool mlir::ukernel::hasIdentityLayout(Value view) {
  return cast<MemRefType>(view.getType()).getLayout().isIdentity();
}

bool mlir::ukernel::hasContiguousRows(Value view) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}
