//===- HostEpilogue.cpp - A dispatch's epilogue in the host kernels -------===//
//
// Part of the Quilt project. The epilogue of one element of C, or of one
// vector of them in a register block's update: named steps with the
// region's padded bias, or the fused body (Conversion/Utils/Epilogue.h) on
// the elements of its operands that the element of C at (row, col) reads.
//
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

/// `lanes` elements of `view` from `indices` along its last dimension (one
/// element for `lanes` 0), the lanes outside `mask` (if given) unread.
static Value loadElements(OpBuilder &b, Location loc, Value view,
                          ValueRange indices, int64_t lanes, Value mask) {
  if (lanes == 0)
    return memref::LoadOp::create(b, loc, view, indices);
  Type elem = cast<MemRefType>(view.getType()).getElementType();
  auto type = VectorType::get({lanes}, elem);
  if (!mask)
    return vector::LoadOp::create(b, loc, type, view, indices);
  Value passThru = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  return vector::MaskedLoadOp::create(b, loc, type, view, indices, mask,
                                      passThru);
}

SmallVector<Value> mlir::ukernel::host::loadColumnEpilogueInputs(
    OpBuilder &b, Location loc, const KernelSpec &spec,
    const EpilogueSources &sources, Value col, int64_t lanes, Value mask) {
  if (!spec.fused) {
    // The bias buffer is padded past the region's columns: no mask.
    if (!sources.bias)
      return {};
    return {loadElements(b, loc, sources.bias, ValueRange{col}, lanes,
                         /*mask=*/Value())};
  }
  SmallVector<Value> inputs;
  for (auto [source, kind] : llvm::zip(sources.fused, spec.fused.kinds)) {
    if (kind == EpilogueOperandKind::scalar)
      inputs.push_back(splatTo(b, loc, source, lanes));
    else if (kind == EpilogueOperandKind::per_column)
      inputs.push_back(
          loadElements(b, loc, source, ValueRange{col}, lanes, mask));
    else
      inputs.push_back(Value());
  }
  return inputs;
}

Value mlir::ukernel::host::emitElementEpilogue(OpBuilder &b, Location loc,
                                               const KernelSpec &spec,
                                               const EpilogueSources &sources,
                                               ArrayRef<Value> columnInputs,
                                               Value sum, Value row, Value col,
                                               int64_t lanes, Value mask) {
  if (!spec.fused)
    return applyEpilogue(b, loc, spec.epilogue, sum,
                         columnInputs.empty() ? Value() : columnInputs.front());

  // The operands that vary by row, read here; the others were read for
  // the column block.
  SmallVector<Value> elements(columnInputs);
  for (auto [element, source, kind] :
       llvm::zip(elements, sources.fused, spec.fused.kinds)) {
    if (kind == EpilogueOperandKind::per_row)
      element = splatTo(b, loc,
                        memref::LoadOp::create(b, loc, source, ValueRange{row}),
                        lanes);
    else if (kind == EpilogueOperandKind::per_element)
      element = loadElements(b, loc, source, ValueRange{row, col}, lanes, mask);
  }
  Value result = cloneFusedEpilogue(b, loc, spec.fused, sum, elements);
  // The kernels update C in f32 (a low-precision C through an f32 copy):
  // widening the body's rounded result keeps its rounding.
  if (getElementTypeOrSelf(result.getType()) ==
      getElementTypeOrSelf(sum.getType()))
    return result;
  return arith::ExtFOp::create(b, loc, sum.getType(), result);
}
