//===- EpilogueWriter.cpp - The writes of C after the K loop --------------===//
//
// Part of the Quilt project. One element of C at a time: C = epilogue(C +
// acc) in the accumulators' type, with the dispatch's named steps (bias,
// activations) or its fused body cloned per element. The kernels' vector
// runs (KernelBuilder.cpp) and the split-K fixup (SplitKFixup.cpp) write
// through the same code; a writer of partial sums stores them unchanged.
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

SmallVector<Value> EpilogueWriter::index(OpBuilder &b, Location loc, Value gr,
                                         Value gc) const {
  // A workspace is laid out as the GEMM view.
  if (!spec.isConv() || partialSums)
    return {gr, gc};
  // C(m, f) is output pixel m's element of filter f.
  IndexMath im{b, loc};
  Value pixelRow = im.add(rowOrigin, gr);
  return llvm::to_vector(conv->outputIndex(conv->pixel(im, pixelRow), gc));
}

Value EpilogueWriter::element(OpBuilder &b, Location loc, Value old, Value acc,
                              Value gr, Value gc) const {
  if (partialSums)
    return acc;
  Type computeType = spec.computeType();
  // A folded fill starts from its value: C is not read.
  if (spec.fill)
    old = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(computeType, spec.fill.getValueAsDouble()));
  if (old.getType() != computeType)
    old = arith::ExtFOp::create(b, loc, computeType, old);
  Value sum = arith::AddFOp::create(b, loc, old, acc);
  if (spec.fused) {
    // The body's operands at this element: windows of the region, like C's.
    SmallVector<Value> elements;
    for (auto [operand, kind] : llvm::zip(fusedOperands, spec.fused.kinds)) {
      if (kind == EpilogueOperandKind::scalar)
        elements.push_back(operand);
      else if (kind == EpilogueOperandKind::per_column)
        elements.push_back(
            memref::LoadOp::create(b, loc, operand, ValueRange{gc}));
      else if (kind == EpilogueOperandKind::per_row)
        elements.push_back(
            memref::LoadOp::create(b, loc, operand, ValueRange{gr}));
      else
        elements.push_back(
            memref::LoadOp::create(b, loc, operand, ValueRange{gr, gc}));
    }
    // The body yields C's element type.
    return cloneFusedEpilogue(b, loc, spec.fused, sum, elements);
  }
  Value biasValue;
  if (bias) {
    biasValue = memref::LoadOp::create(b, loc, bias, ValueRange{gc});
    if (biasValue.getType() != computeType)
      biasValue = arith::ExtFOp::create(b, loc, computeType, biasValue);
  }
  Value result = applyEpilogue(b, loc, spec.epilogue, sum, biasValue);
  if (spec.accType != computeType)
    result = arith::TruncFOp::create(b, loc, spec.accType, result);
  return result;
}

void EpilogueWriter::store(OpBuilder &b, Location loc, Value acc, Value gr,
                           Value gc, Value m, Value n) const {
  IndexMath im{b, loc};
  Value colIn = im.lt(gc, n);
  Value rowIn = im.lt(gr, m);
  Value in = arith::AndIOp::create(b, loc, rowIn, colIn);
  scf::IfOp::create(b, loc, in, [&](OpBuilder &tb, Location l) {
    storeInside(tb, l, acc, gr, gc);
    scf::YieldOp::create(tb, l);
  });
}

void EpilogueWriter::storeInside(OpBuilder &b, Location loc, Value acc,
                                 Value gr, Value gc) const {
  SmallVector<Value> idx = index(b, loc, gr, gc);
  Value old =
      readsOld() ? Value(memref::LoadOp::create(b, loc, target, idx)) : Value();
  Value result = element(b, loc, old, acc, gr, gc);
  memref::StoreOp::create(b, loc, result, target, idx);
}
