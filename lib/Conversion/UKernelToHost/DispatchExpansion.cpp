//===- DispatchExpansion.cpp - ukernel.dispatch to select + kernel calls --===//
//
// Part of the Quilt project. A dispatch (already guarded by its run-time
// operand checks, Conversion/Utils/OperandChecks.cpp) becomes:
//
//   (b, m, n, k) = GEMM-view sizes (memref.dim; transposes respected; a
//                  convolution's M = N*OH*OW, N = F, K = R*S*C)
//   kernel, remainder, split_m, split_n = ukernel.select b, m, n, k ...
//   main region rows [0, split_m) x cols [0, split_n):
//     scf.index_switch kernel { case i: call @candidate_i(A, B, C, bias,
//                                     fused operands, 0, 0, split_m, split_n) }
//   remainder region (the rest; a patch splits one dimension):
//     scf.index_switch remainder { ... }
// (the regions: forEachSelectedRegion, Conversion/Utils). Under policy
// fixed only that candidate's kernel is built, and called without a switch.
//
// Operands are passed whole and as stored (a transposed A as KxM): the
// kernels are specialized on the transposes and layouts, take the region's
// views themselves and loop over the batch, so a call costs the same for
// one batch element as for many. A convolution's filter without an
// identity layout is copied into one first (the kernels read it as a
// matrix).
//
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

#include "Conversion/Utils/ConvIndex.h"
#include "Conversion/Utils/Views.h"

#include "CostModel/TargetDatabase.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

namespace {

Value dim(OpBuilder &b, Location loc, Value view, int64_t d) {
  return memref::DimOp::create(b, loc, view, d);
}

/// A copy of `source` with an identity layout, and its deallocation after
/// `op`.
Value identityCopy(OpBuilder &b, Location loc, Value source, Operation *op) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(dim(b, loc, source, d));
  Value copy = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes, b.getI64IntegerAttr(64));
  copyElements(b, loc, source, copy);
  OpBuilder after(op->getContext());
  after.setInsertionPointAfter(op);
  memref::DeallocOp::create(after, loc, copy);
  return copy;
}

} // namespace

void mlir::ukernel::host::expandDispatch(DispatchOp op, KernelCache &kernels,
                                         int64_t threads) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  ContractionKind kind = op.getKind();
  Value lhs = op.getLhs(), rhs = op.getRhs(), init = op.getInit();

  KernelSpec base;
  base.kind = kind;
  base.inputType = op.getInputElementType();
  base.accType = getElementTypeOrSelf(init.getType());
  if (Value bias = op.getBias())
    base.biasType = getElementTypeOrSelf(bias.getType());
  base.epilogue = op.getEpilogueSteps();
  base.fused = FusedEpilogue::of(op);
  base.fill = dyn_cast_or_null<FloatAttr>(op.getFillAttr());
  base.parallel = threads != 1;

  // The GEMM view's sizes, as the cost model sees them.
  Value batch, m, n, k;
  if (base.isConv()) {
    bool nhwc = kind == ContractionKind::conv2d_nhwc;
    ConvGeometry attributes = ConvGeometry::fromAttributes(op);
    base.strideH = attributes.strideH;
    base.strideW = attributes.strideW;
    base.dilationH = attributes.dilationH;
    base.dilationW = attributes.dilationW;
    // The nchw filter F x (C*R*S) is B transposed.
    base.transposeB = !nhwc;
    if (!hasIdentityLayout(rhs))
      rhs = identityCopy(b, loc, rhs, op);
    base.stagedConvOutput =
        !nhwc || base.accType != base.computeType() || !hasIdentityLayout(init);
    batch = im.c(1);
    Value images = dim(b, loc, init, 0);
    Value outH = dim(b, loc, init, nhwc ? 1 : 2);
    Value outW = dim(b, loc, init, nhwc ? 2 : 3);
    m = im.mul(images, im.mul(outH, outW));
    n = dim(b, loc, init, nhwc ? 3 : 1);
    // The filter's dimensions other than F.
    k = im.c(1);
    for (int64_t d = nhwc ? 0 : 1, e = d + 3; d < e; ++d)
      k = im.mul(k, dim(b, loc, rhs, d));
  } else {
    bool batched = kind == ContractionKind::batch_matmul;
    unsigned first = batched ? 1 : 0;
    base.transposeA = op.getTransposeLhs();
    base.transposeB = op.getTransposeRhs();
    base.contiguousA = hasContiguousRows(lhs);
    base.contiguousB = hasContiguousRows(rhs);
    base.contiguousC = hasContiguousRows(init);
    batch = batched ? dim(b, loc, init, 0) : im.c(1);
    m = dim(b, loc, init, first);
    n = dim(b, loc, init, first + 1);
    k = dim(b, loc, lhs, base.transposeA ? first : first + 1);
  }

  // The cost model sees the cores the kernels run on: `threads` of the
  // target's (all of them for 0).
  TargetAttr target = op.getTargetAttr();
  if (threads != 0) {
    quilt::TargetDesc desc = toTargetDesc(op.getEffectiveTarget());
    if (desc.computeUnits > threads)
      target =
          getTargetAttr(b.getContext(), quilt::restrictToCores(desc, threads));
  }
  Type indexType = b.getIndexType();
  auto select = SelectOp::create(
      b, loc, TypeRange{indexType, indexType, indexType, indexType}, batch, m,
      n, k, TypeAttr::get(op.getInputElementType()), op.getCandidates(),
      op.getPolicyAttr(), op.getFixedCandidateAttr(), target,
      op.getTunedAttr());

  // One kernel function per candidate a call can run (under a fixed policy
  // only that one: the others would be compiled and never called); all
  // share the argument types.
  SmallVector<int64_t> runnable = op.getRunnableCandidates();
  SmallVector<func::FuncOp> functions;
  for (int64_t index : runnable) {
    auto config = cast<ConfigAttr>(op.getCandidates()[index]);
    KernelSpec spec = base;
    spec.mc = config.getTileM();
    spec.nc = config.getTileN();
    spec.kc = config.getTileK();
    spec.mr = config.getThreadTile()[0];
    spec.nr = config.getThreadTile()[1];
    spec.lanes = config.getVectorWidth();
    functions.push_back(kernels.getOrCreate(spec, loc));
  }
  ArrayRef<Type> argTypes = functions.front().getArgumentTypes();
  SmallVector<Value> operands = {lhs, rhs, init};
  if (Value bias = op.getBias())
    operands.push_back(bias);
  // The kernels read fused operands as vectors along their rows.
  for (Value operand : op.getEpilogueOperands())
    operands.push_back(isa<MemRefType>(operand.getType()) &&
                               !hasContiguousRows(operand)
                           ? identityCopy(b, loc, operand, op)
                           : operand);
  for (size_t i = 0; i < operands.size(); ++i)
    if (operands[i].getType() != argTypes[i])
      operands[i] = memref::CastOp::create(b, loc, argTypes[i], operands[i]);

  // Calls the selected candidate on rows [r0, r0 + rows) x cols
  // [c0, c0 + cols); an empty region runs nothing.
  auto emitRegion = [&](Value which, Value r0, Value c0, Value rows,
                        Value cols) {
    Value zero = im.c(0);
    Value nonEmpty =
        arith::AndIOp::create(b, loc, im.lt(zero, rows), im.lt(zero, cols));
    scf::IfOp::create(b, loc, nonEmpty, [&](OpBuilder &tb, Location l) {
      SmallVector<Value> args = operands;
      args.append({r0, c0, rows, cols});
      emitSelectedCandidate(tb, l, which, runnable,
                            [&](OpBuilder &cb, size_t i) {
                              func::CallOp::create(cb, l, functions[i], args);
                            });
      scf::YieldOp::create(tb, l);
    });
  };

  forEachSelectedRegion(b, loc, select, m, n, emitRegion);
  op.erase();
}
