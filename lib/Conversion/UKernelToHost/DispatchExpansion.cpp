//===- DispatchExpansion.cpp - ukernel.dispatch to select + kernel calls --===//
//
// Part of the Quilt project. A dispatch becomes:
//
//   (b, m, n, k) = GEMM-view sizes (memref.dim, transposes respected)
//   kernel, remainder, split_m, split_n = ukernel.select b, m, n, k ...
//   for each batch index:
//     main region rows [0, split_m) x cols [0, split_n):
//       scf.index_switch kernel { case i: call @candidate_i(views) }
//     remainder region (the rest; a patch splits one dimension):
//       scf.index_switch remainder { ... }
//
// Operands are passed as stored (a transposed A as KxM): the kernels are
// specialized on the transposes, so that packing reads every operand along
// its contiguous dimension.
//
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

namespace {

/// The 2-D operands of one (batch element of a) dispatch, in GEMM terms.
struct GemmViews {
  Value a, b, c, bias;
};

/// Batch element `index` of a rank-3 memref as a rank-2 view.
Value batchElement(OpBuilder &b, Location loc, Value source, Value index) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                     memref::getMixedSize(b, loc, source, 1),
                                     memref::getMixedSize(b, loc, source, 2)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, resultType, source, offsets, sizes,
                                   strides);
}

/// A [offsets, offsets + sizes) window of `view`, cast to `type`.
Value window(OpBuilder &b, Location loc, Value view, ArrayRef<Value> offsets,
             ArrayRef<Value> sizes, Type type) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  Value sub = memref::SubViewOp::create(
      b, loc, view, getAsOpFoldResult(ValueRange(offsets)),
      getAsOpFoldResult(ValueRange(sizes)), strides);
  if (sub.getType() == type)
    return sub;
  return memref::CastOp::create(b, loc, type, sub);
}

bool hasContiguousRows(Value view) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

} // namespace

void mlir::ukernel::host::expandDispatch(DispatchOp op, KernelCache &kernels) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  IndexMath im{b, loc};
  bool batched = op.getKind() == ContractionKind::batch_matmul;
  unsigned first = batched ? 1 : 0;
  bool transposeA = op.getTransposeLhs(), transposeB = op.getTransposeRhs();

  Value lhs = op.getLhs(), rhs = op.getRhs(), init = op.getInit();
  Value batch =
      batched ? Value(memref::DimOp::create(b, loc, init, 0)) : im.c(1);
  Value m = memref::DimOp::create(b, loc, init, first);
  Value n = memref::DimOp::create(b, loc, init, first + 1);
  Value k = memref::DimOp::create(b, loc, lhs, transposeA ? first : first + 1);

  Type indexType = b.getIndexType();
  auto select = SelectOp::create(
      b, loc, TypeRange{indexType, indexType, indexType, indexType}, batch, m,
      n, k, TypeAttr::get(op.getInputElementType()), op.getCandidates(),
      op.getPolicyAttr(), op.getFixedCandidateAttr(), op.getTargetAttr());

  // One kernel function per candidate; all share the argument types.
  KernelSpec base;
  base.inputType = op.getInputElementType();
  base.accType = getElementTypeOrSelf(init.getType());
  if (Value bias = op.getBias())
    base.biasType = getElementTypeOrSelf(bias.getType());
  for (Attribute step : op.getEpilogue())
    base.epilogue.push_back(cast<EpilogueKindAttr>(step).getValue());
  // A rank-reducing view of a batch keeps the inner stride of the source.
  base.transposeA = transposeA;
  base.transposeB = transposeB;
  base.contiguousA = hasContiguousRows(lhs);
  base.contiguousB = hasContiguousRows(rhs);
  base.contiguousC = hasContiguousRows(init);
  SmallVector<func::FuncOp> functions;
  for (Attribute attr : op.getCandidates()) {
    auto config = cast<ConfigAttr>(attr);
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

  // Calls the selected candidate on rows [r0, r0 + rows) x cols
  // [c0, c0 + cols) of the views; an empty region runs nothing.
  auto emitRegion = [&](OpBuilder &rb, const GemmViews &v, Value which,
                        Value r0, Value c0, Value rows, Value cols) {
    IndexMath rm{rb, loc};
    Value zero = rm.c(0);
    Value nonEmpty =
        arith::AndIOp::create(rb, loc, rm.lt(zero, rows), rm.lt(zero, cols));
    scf::IfOp::create(rb, loc, nonEmpty, [&](OpBuilder &tb, Location l) {
      Value a = transposeA
                    ? window(tb, l, v.a, {zero, r0}, {k, rows}, argTypes[0])
                    : window(tb, l, v.a, {r0, zero}, {rows, k}, argTypes[0]);
      Value bView =
          transposeB ? window(tb, l, v.b, {c0, zero}, {cols, k}, argTypes[1])
                     : window(tb, l, v.b, {zero, c0}, {k, cols}, argTypes[1]);
      SmallVector<Value> args = {
          a, bView, window(tb, l, v.c, {r0, c0}, {rows, cols}, argTypes[2])};
      if (v.bias)
        args.push_back(window(tb, l, v.bias, {c0}, {cols}, argTypes[3]));
      SmallVector<int64_t> cases;
      for (int64_t i = 0, e = functions.size(); i < e; ++i)
        cases.push_back(i);
      auto sw = scf::IndexSwitchOp::create(tb, l, TypeRange{}, which, cases,
                                           cases.size());
      for (auto [i, func] : llvm::enumerate(functions)) {
        Block *block = tb.createBlock(&sw.getCaseRegions()[i]);
        tb.setInsertionPointToStart(block);
        func::CallOp::create(tb, l, func, args);
        scf::YieldOp::create(tb, l);
      }
      // The runtime always returns a candidate index; nothing else runs.
      tb.createBlock(&sw.getDefaultRegion());
      scf::YieldOp::create(tb, l);
      tb.setInsertionPointAfter(sw);
      scf::YieldOp::create(tb, l);
    });
  };

  auto emitBatchElement = [&](OpBuilder &eb, Value index) {
    IndexMath em{eb, loc};
    GemmViews v;
    v.a = index ? batchElement(eb, loc, lhs, index) : lhs;
    v.b = index ? batchElement(eb, loc, rhs, index) : rhs;
    v.c = index ? batchElement(eb, loc, init, index) : init;
    v.bias = op.getBias();
    Value splitM = select.getSplitM(), splitN = select.getSplitN();
    emitRegion(eb, v, select.getKernel(), em.c(0), em.c(0), splitM, splitN);
    // The remainder: rows [split_m, m) x all columns when M is split, else
    // all rows x columns [split_n, n). Without a patch one of them is empty.
    Value patchM = em.lt(splitM, m);
    Value zero = em.c(0);
    auto pick = [&](Value ifM, Value ifN) {
      return arith::SelectOp::create(eb, loc, patchM, ifM, ifN);
    };
    emitRegion(eb, v, select.getRemainder(), pick(splitM, zero),
               pick(zero, splitN), pick(em.sub(m, splitM), m),
               pick(n, em.sub(n, splitN)));
  };

  if (batched) {
    scf::ForOp::create(b, loc, im.c(0), batch, im.c(1), ValueRange{},
                       [&](OpBuilder &lb, Location l, Value index, ValueRange) {
                         emitBatchElement(lb, index);
                         scf::YieldOp::create(lb, l);
                       });
  } else {
    emitBatchElement(b, Value());
  }
  op.erase();
}
