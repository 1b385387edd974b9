//===- ExpandShapes.cpp - The quilt-expand-shapes-to-casts pass -----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTEXPANDSHAPESTOCASTS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

/// Whether some group expands into more than one dynamic size: the shapes
/// MLIR 22's expand-strided-metadata cannot expand.
bool hasGroupOfDynamicSizes(memref::ExpandShapeOp op) {
  ArrayRef<int64_t> shape = op.getResultType().getShape();
  for (const ReassociationIndices &group : op.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t d) {
          return ShapedType::isDynamic(shape[d]);
        }) > 1)
      return true;
  return false;
}

/// The expanded view: the source's base and offset, the output shape, and
/// each group's strides built outwards from the source dimension's stride.
void rewriteAsCast(memref::ExpandShapeOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  ukernel::IndexMath im{b, loc};
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, op.getSrc());
  SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
  SmallVector<OpFoldResult> strides(sizes.size());
  for (auto [source, group] : llvm::enumerate(op.getReassociationIndices())) {
    Value stride = metadata.getStrides()[source];
    for (int64_t d : llvm::reverse(group)) {
      strides[d] = stride;
      stride =
          im.mul(stride, getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
    }
  }
  // What the result type fixes statically is given as such (the cast's
  // verifier compares them with the type).
  auto [typeStrides, typeOffset] = op.getResultType().getStridesAndOffset();
  for (auto [stride, fixed] : llvm::zip(strides, typeStrides))
    if (!ShapedType::isDynamic(fixed))
      stride = b.getIndexAttr(fixed);
  OpFoldResult offset = metadata.getOffset();
  if (!ShapedType::isDynamic(typeOffset))
    offset = b.getIndexAttr(typeOffset);
  Value view = memref::ReinterpretCastOp::create(b, loc, op.getResultType(),
                                                 metadata.getBaseBuffer(),
                                                 offset, sizes, strides);
  op.replaceAllUsesWith(view);
  op.erase();
}

struct QuiltExpandShapesToCastsPass
    : public quilt::impl::QuiltExpandShapesToCastsBase<
          QuiltExpandShapesToCastsPass> {
  void runOnOperation() override {
    SmallVector<memref::ExpandShapeOp> shapes;
    getOperation().walk([&](memref::ExpandShapeOp op) {
      if (hasGroupOfDynamicSizes(op))
        shapes.push_back(op);
    });
    for (memref::ExpandShapeOp op : shapes)
      rewriteAsCast(op);
  }
};

} // namespace
