//===- Views.cpp - Facts about memref views -------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/Views.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

bool mlir::ukernel::hasIdentityLayout(Value view) {
  return cast<MemRefType>(view.getType()).getLayout().isIdentity();
}

Value mlir::ukernel::viewRoot(Value view) {
  while (auto viewOp = view.getDefiningOp<ViewLikeOpInterface>())
    view = viewOp.getViewSource();
  return view;
}

bool mlir::ukernel::hasContiguousRows(Value view) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}
