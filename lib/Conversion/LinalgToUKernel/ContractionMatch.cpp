//===- ContractionMatch.cpp - Which linalg ops a dispatch computes --------===//
//
// Part of the Quilt project. Contractions are recognized by structure: the
// body's ops and the indexing maps, never by what they compute on samples.
//
//===----------------------------------------------------------------------===//

#include "ContractionMatch.h"

#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::ukernel;
using quilt::Contraction;

namespace {

/// Element types a dispatch accepts: equal f32/f16/bf16 inputs and an f32
/// or same-typed accumulator, or f64 inputs and an f64 accumulator.
bool hasSupportedTypes(Value lhs, Value rhs, Value init) {
  Type elem = getElementTypeOrSelf(lhs.getType());
  if (elem != getElementTypeOrSelf(rhs.getType()) || !toCostModelElemType(elem))
    return false;
  Type acc = getElementTypeOrSelf(init.getType());
  if (elem.isF64())
    return acc.isF64();
  return acc.isF32() || acc == elem;
}

/// `value` is block argument `index`, read as is or widened (arith.extf).
bool isInput(Value value, Block &body, unsigned index) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    value = ext.getIn();
  return value == body.getArgument(index);
}

/// The body is `yield(out + in0 * in1)` (either order of each), with the
/// inputs at most widened: nothing else, so that a body computing anything
/// more (a negation, a max) is never taken for a product.
bool hasProductBody(linalg::LinalgOp op) {
  Block &body = *op.getBlock();
  if (body.getNumArguments() != 3)
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getRhs() == acc ? add.getLhs() : add.getRhs();
  if ((add.getLhs() == acc) == (add.getRhs() == acc))
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul ||
      !((isInput(mul.getLhs(), body, 0) && isInput(mul.getRhs(), body, 1)) ||
        (isInput(mul.getLhs(), body, 1) && isInput(mul.getRhs(), body, 0))))
    return false;
  // Nothing but the product, its widenings and the sum.
  for (Operation &nested : body.without_terminator())
    if (!isa<arith::ExtFOp, arith::MulFOp, arith::AddFOp>(nested))
      return false;
  return body.getOperations().size() <= 5;
}

/// An operand's map over (batch?, rows, cols): whether it is [batch?, rows,
/// cols] or [batch?, cols, rows] (transposed), and whether it has the
/// batch dimension; nullopt for any other map.
struct OperandLayout {
  bool transposed = false;
  bool batched = false;
};
std::optional<OperandLayout> layoutOf(AffineMap map,
                                      std::optional<unsigned> batch,
                                      unsigned rows, unsigned cols) {
  SmallVector<unsigned> dims;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      return std::nullopt;
    dims.push_back(d.getPosition());
  }
  OperandLayout layout;
  ArrayRef<unsigned> matrix = dims;
  if (batch && !matrix.empty() && matrix.front() == *batch) {
    layout.batched = true;
    matrix = matrix.drop_front();
  }
  if (matrix.size() != 2)
    return std::nullopt;
  if (matrix[0] == rows && matrix[1] == cols)
    return layout;
  if (matrix[0] == cols && matrix[1] == rows) {
    layout.transposed = true;
    return layout;
  }
  return std::nullopt;
}

std::optional<Contraction> matchProduct(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !hasProductBody(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1 || dims->batch.size() > 1)
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<unsigned, 2> ms = dims->m, ns = dims->n;
  std::optional<unsigned> batch;
  if (!dims->batch.empty())
    batch = dims->batch.front();
  // A batch loop that one input lacks is not a batch dimension to
  // inferContractionDims but a second M (B shared) or N (A shared) loop:
  // the output's outer one of the two is the batch.
  auto splitBatch = [&](SmallVector<unsigned, 2> &twoLoops) {
    AffineMap out = maps[2];
    auto position = [&](unsigned loop) {
      return *out.getResultPosition(getAffineDimExpr(loop, op.getContext()));
    };
    bool firstOuter = position(twoLoops[0]) < position(twoLoops[1]);
    batch = twoLoops[firstOuter ? 0 : 1];
    twoLoops = {twoLoops[firstOuter ? 1 : 0]};
  };
  if (!batch && ms.size() == 2 && ns.size() == 1)
    splitBatch(ms);
  else if (!batch && ns.size() == 2 && ms.size() == 1)
    splitBatch(ns);
  if (ms.size() != 1 || ns.size() != 1)
    return std::nullopt;
  unsigned m = ms.front(), n = ns.front(), k = dims->k.front();
  std::optional<OperandLayout> a = layoutOf(maps[0], batch, m, k);
  std::optional<OperandLayout> b = layoutOf(maps[1], batch, k, n);
  std::optional<OperandLayout> c = layoutOf(maps[2], batch, m, n);
  if (!a || !b || !c || (batch && !c->batched))
    return std::nullopt;

  Contraction contraction;
  contraction.op = op;
  contraction.lhs = op.getDpsInputOperand(0)->get();
  contraction.rhs = op.getDpsInputOperand(1)->get();
  contraction.init = op.getDpsInitOperand(0)->get();
  contraction.transposeLhs = a->transposed;
  contraction.transposeRhs = b->transposed;
  bool lhsBatched = a->batched, rhsBatched = b->batched;
  if (c->transposed) {
    // C^T = A x B is C = B^T x A^T: B, read transposed, is the new A.
    std::swap(contraction.lhs, contraction.rhs);
    contraction.transposeLhs = !b->transposed;
    contraction.transposeRhs = !a->transposed;
    std::swap(lhsBatched, rhsBatched);
  }
  contraction.kind =
      batch ? ContractionKind::batch_matmul : ContractionKind::matmul;
  contraction.outputNDim = batch ? 2 : 1;
  if (batch && !(lhsBatched && rhsBatched))
    contraction.broadcast = lhsBatched && !contraction.transposeLhs
                                ? Contraction::Broadcast::FoldIntoM
                                : Contraction::Broadcast::Materialize;
  return contraction;
}

DenseI64ArrayAttr nonUnitAttr(Builder &b, DenseIntElementsAttr attr) {
  SmallVector<int64_t> values(attr.getValues<int64_t>());
  if (llvm::all_of(values, [](int64_t v) { return v == 1; }))
    return {};
  return b.getDenseI64ArrayAttr(values);
}

template <typename ConvOp>
Contraction matchConv(ConvOp op, ContractionKind kind, unsigned outputNDim) {
  Builder b(op.getContext());
  Contraction c;
  c.op = op;
  c.kind = kind;
  c.outputNDim = outputNDim;
  c.lhs = op.getDpsInputOperand(0)->get();
  c.rhs = op.getDpsInputOperand(1)->get();
  c.init = op.getDpsInitOperand(0)->get();
  c.strides = nonUnitAttr(b, op.getStrides());
  c.dilations = nonUnitAttr(b, op.getDilations());
  return c;
}

} // namespace

std::optional<Contraction> quilt::matchContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 2 ||
      linalgOp.getNumDpsInits() != 1)
    return std::nullopt;
  bool tensors = linalgOp.hasPureTensorSemantics();
  if (!tensors && !linalgOp.hasPureBufferSemantics())
    return std::nullopt;
  std::optional<Contraction> c;
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op))
    c = matchConv(conv, ContractionKind::conv2d_nhwc, 3);
  else if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
    c = matchConv(conv, ContractionKind::conv2d_nchw, 1);
  else
    c = matchProduct(linalgOp);
  if (!c)
    return std::nullopt;
  for (Value v : {c->lhs, c->rhs, c->init})
    if (!isa<RankedTensorType, MemRefType>(v.getType()))
      return std::nullopt;
  // A static size of 0 anywhere leaves nothing to multiply (no output, or
  // an empty sum that keeps the output as it is): the op stays linalg, whose
  // loops do nothing, rather than a dispatch with kernels and views of
  // empty operands.
  for (Value v : {c->lhs, c->rhs, c->init})
    if (llvm::is_contained(cast<ShapedType>(v.getType()).getShape(), 0))
      return std::nullopt;
  // Broadcasting a shared operand needs a new buffer: tensors only. Folding
  // the batch into M views A and C as matrices, which buffers must allow.
  if (c->broadcast == Contraction::Broadcast::Materialize && !tensors)
    return std::nullopt;
  if (c->broadcast == Contraction::Broadcast::FoldIntoM && !tensors) {
    SmallVector<ReassociationIndices> batchIntoRows = {{0, 1}, {2}};
    for (Value v : {c->lhs, c->init})
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
              cast<MemRefType>(v.getType()), batchIntoRows))
        return std::nullopt;
  }
  if (!hasSupportedTypes(c->lhs, c->rhs, c->init))
    return std::nullopt;
  return c;
}
