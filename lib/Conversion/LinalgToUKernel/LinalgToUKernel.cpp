//===- LinalgToUKernel.cpp - linalg contractions to ukernel.dispatch ------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "ContractionMatch.h"
#include "Conversion/Passes.h"
#include "CostModel/Candidates.h"
#include "CostModel/ResidualModel.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"
#include "Dialect/UKernel/IR/UKernelOps.h"
#include "EpilogueFusion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace quilt {
#define GEN_PASS_DEF_CONVERTLINALGTOUKERNEL
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using namespace mlir::ukernel;
using quilt::Contraction;

namespace {

/// A fill of a contraction's output with a float constant, which the
/// dispatch folds (it starts from `value` and never reads its init).
struct FoldableFill {
  linalg::FillOp op;
  /// The constant, as the output's element type.
  FloatAttr value;
};

/// The fill a dispatch for `c` folds, if any: on tensors, the producer of
/// its init; on buffers, the last op before it that touches memory, if
/// that op fills exactly its output (in between, nothing reads or writes
/// memory, so nothing sees the filled buffer).
std::optional<FoldableFill> foldableFill(const Contraction &c) {
  linalg::FillOp fill;
  if (isa<RankedTensorType>(c.init.getType())) {
    fill = c.init.getDefiningOp<linalg::FillOp>();
  } else {
    Operation *previous = c.op->getPrevNode();
    while (previous && quilt::touchesNoMemory(previous))
      previous = previous->getPrevNode();
    fill = dyn_cast_or_null<linalg::FillOp>(previous);
    if (fill && (!fill.hasPureBufferSemantics() ||
                 fill.getDpsInitOperand(0)->get() != c.init))
      fill = {};
  }
  FloatAttr value;
  if (!fill || !matchPattern(fill.value(), m_Constant(&value)))
    return std::nullopt;
  Type elem = getElementTypeOrSelf(c.init.getType());
  if (value.getType() != elem)
    value = FloatAttr::get(elem, value.getValueAsDouble());
  return FoldableFill{fill, value};
}

/// Erases a temporary buffer that only its deallocations still use.
void eraseIfOnlyDeallocated(RewriterBase &rewriter, Value buffer) {
  Operation *alloc = buffer.getDefiningOp();
  if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(alloc) ||
      !llvm::all_of(buffer.getUsers(), llvm::IsaPred<memref::DeallocOp>))
    return;
  for (Operation *dealloc : llvm::make_early_inc_range(buffer.getUsers()))
    rewriter.eraseOp(dealloc);
  rewriter.eraseOp(alloc);
}

/// (batch, rows, cols) as (batch * rows, cols); the batch is outermost, so
/// this is a view (buffers were checked to allow it).
Value collapseBatchIntoRows(OpBuilder &b, Location loc, Value batched) {
  SmallVector<ReassociationIndices> reassociation = {{0, 1}, {2}};
  if (isa<RankedTensorType>(batched.getType()))
    return tensor::CollapseShapeOp::create(b, loc, batched, reassociation);
  return memref::CollapseShapeOp::create(b, loc, batched, reassociation);
}

/// A (batch * rows, cols) tensor back in the shape of `like`.
Value expandRowsIntoBatch(OpBuilder &b, Location loc, Value matrix,
                          Value like) {
  SmallVector<ReassociationIndices> reassociation = {{0, 1}, {2}};
  return tensor::ExpandShapeOp::create(b, loc, like.getType(), matrix,
                                       reassociation,
                                       tensor::getMixedSizes(b, loc, like));
}

/// A shared (rows, cols) tensor repeated for each of `batch` elements.
Value broadcastToBatch(OpBuilder &b, Location loc, Value matrix, Value batch) {
  auto type = cast<RankedTensorType>(matrix.getType());
  SmallVector<OpFoldResult> sizes = {batch};
  llvm::append_range(sizes, tensor::getMixedSizes(b, loc, matrix));
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::BroadcastOp::create(b, loc, matrix, empty,
                                     ArrayRef<int64_t>{0})
      ->getResult(0);
}

/// Whether a product whose batch folds into M (a shared B) can run `chain`
/// as its epilogue on the folded (batch * M) x N result: a per-row vector
/// has M elements, not batch * M; a per-element operand would be folded the
/// same way, which buffers of any layout do not allow; and a buffer the
/// chain writes instead of C must fold as C was checked to.
bool canFoldIntoRows(const quilt::EpilogueChain &chain, bool onBuffers) {
  if (llvm::any_of(chain.kinds, [&](EpilogueOperandKind kind) {
        return kind == EpilogueOperandKind::per_row ||
               (onBuffers && kind == EpilogueOperandKind::per_element);
      }))
    return false;
  auto buffer = chain.destination
                    ? dyn_cast<MemRefType>(chain.destination.getType())
                    : MemRefType();
  return !buffer || memref::CollapseShapeOp::isGuaranteedCollapsible(
                        buffer, {{0, 1}, {2}});
}

/// Whether a fused dispatch may start from the contraction's fill value in
/// its new output's element type: always for zero, otherwise only where
/// the value keeps its type (the epilogue sees fill + A x B).
bool canRefill(FloatAttr value, Type outElem) {
  return value.getValue().isZero() || value.getType() == outElem;
}

struct ConvertLinalgToUKernelPass
    : public quilt::impl::ConvertLinalgToUKernelBase<
          ConvertLinalgToUKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(parsePolicy(module)))
      return signalPassFailure();
    if (!residualModel.empty()) {
      std::string error;
      if (!residual.load(residualModel, error)) {
        module.emitError() << "residual-model: " << error;
        return signalPassFailure();
      }
    }

    // Match each op again when converting it: fusing an epilogue replaces
    // values that later contractions may read. Only contractions are
    // collected: converting one erases its fused epilogue, a linalg op the
    // list must not hold (ASan found the loop reading an erased generic);
    // a contraction is never an elementwise consumer.
    SmallVector<Operation *> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (quilt::matchContraction(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (std::optional<Contraction> c = quilt::matchContraction(op))
        if (failed(convert(*c)))
          return signalPassFailure();
  }

private:
  LogicalResult parsePolicy(ModuleOp module) {
    StringRef text = policy;
    if (text.consume_front("fixed=")) {
      if (text.getAsInteger(10, fixedIndex) || fixedIndex < 0)
        return module.emitError() << "policy 'fixed=" << text
                                  << "' needs a non-negative candidate index";
      selectionPolicy = SelectionPolicy::fixed;
      return success();
    }
    std::string normalized = text.str();
    std::replace(normalized.begin(), normalized.end(), '-', '_');
    std::optional<SelectionPolicy> parsed =
        symbolizeSelectionPolicy(normalized);
    if (!parsed || *parsed == SelectionPolicy::fixed)
      return module.emitError()
             << "unknown policy '" << policy
             << "' (expected cost_model, pad, patch or fixed=<index>)";
    selectionPolicy = *parsed;
    return success();
  }

  /// The candidates for (kind, element type) on the op's target, generated
  /// once per pass run.
  FailureOr<ArrayAttr> candidatesFor(const Contraction &c, Type elemType) {
    TargetAttr target;
    for (Operation *p = c.op->getParentOp(); p && !target; p = p->getParentOp())
      target =
          p->getAttrOfType<TargetAttr>(UKernelDialect::getTargetAttrName());
    if (!target)
      return c.op->emitError()
             << "no target to generate micro-kernels for: run "
                "ukernel-attach-target first";
    quilt::ElemType elem = *toCostModelElemType(elemType);
    auto key =
        std::make_tuple(target.getAsOpaquePointer(), static_cast<int>(c.kind),
                        static_cast<int>(elem));
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;

    quilt::CandidateOptions options;
    options.maxCandidates = static_cast<int>(maxCandidates);
    if (!residualModel.empty())
      options.residual = &residual;
    std::vector<quilt::KernelConfig> configs = quilt::generateCandidates(
        toCostModel(c.kind), elem, toTargetDesc(target), options);
    SmallVector<Attribute> attrs;
    for (const quilt::KernelConfig &cfg : configs)
      attrs.push_back(getConfigAttr(&getContext(), cfg));
    ArrayAttr result = ArrayAttr::get(&getContext(), attrs);
    cache[key] = result;
    return result;
  }

  LogicalResult convert(const Contraction &c) {
    Type elemType = getElementTypeOrSelf(c.lhs.getType());
    FailureOr<ArrayAttr> candidates = candidatesFor(c, elemType);
    if (failed(candidates))
      return failure();
    if (candidates->empty()) {
      // Not an error: the op stays as it is and runs however the rest of
      // the pipeline lowers linalg.
      c.op->emitWarning() << "no micro-kernel candidate for "
                          << stringifyContractionKind(c.kind) << " on "
                          << elemType << "; left as it is";
      return success();
    }
    if (selectionPolicy == SelectionPolicy::fixed &&
        fixedIndex >= static_cast<int64_t>(candidates->size()))
      return c.op->emitError()
             << "policy fixed=" << fixedIndex << " is out of range: there are "
             << candidates->size() << " candidates";

    IRRewriter rewriter(&getContext());
    quilt::EpilogueChain chain;
    std::optional<FoldableFill> foldable = foldableFill(c);
    std::optional<FloatAttr> fill;
    if (foldable)
      fill = foldable->value;
    bool onBuffers = !isa<RankedTensorType>(c.init.getType());
    // A product with a shared operand runs broadcast (its epilogue as on
    // any batch matmul) or with the batch folded into M, where its consumers
    // and their operands are folded with it. A shared A is broadcast on
    // tensors only.
    if (fuseEpilogues && fill)
      chain = quilt::collectEpilogueChain(
          rewriter, cast<linalg::LinalgOp>(c.op),
          onBuffers ? foldable->op.getOperation() : nullptr, c.outputNDim,
          elemType);
    if (!chain.empty() && chain.destination &&
        !canRefill(*fill, getElementTypeOrSelf(chain.destination.getType())))
      chain = quilt::EpilogueChain();
    if (!chain.empty() && c.broadcast == Contraction::Broadcast::FoldIntoM &&
        !canFoldIntoRows(chain, onBuffers))
      chain = quilt::EpilogueChain();

    Operation *replaced =
        chain.empty() ? c.op : chain.consumers.back().getOperation();
    rewriter.setInsertionPoint(replaced);
    Location loc = replaced->getLoc();
    // A fill of the accumulator folds into the dispatch: it starts from the
    // constant and never reads init.
    Value init = c.init;
    TypedAttr fillValue;
    if (fill) {
      if (!onBuffers)
        init = foldable->op.getDpsInitOperand(0)->get();
      fillValue = *fill;
    }
    SmallVector<Value> epilogueOperands;
    SmallVector<Attribute> operandKinds;
    if (!chain.empty()) {
      // The chain's output becomes the accumulator, filled like the
      // contraction's was (its own destination when the consumers wrote
      // into the values they read).
      if (chain.destination)
        init = chain.destination;
      Type outElem = getElementTypeOrSelf(init.getType());
      if (fill->getType() != outElem)
        fillValue = cast<TypedAttr>(rewriter.getZeroAttr(outElem));
      for (auto [operand, kind] : llvm::zip(chain.operands, chain.kinds)) {
        // A rank-0 tensor or buffer is read once, as the scalar it holds.
        if (auto tensor = dyn_cast<RankedTensorType>(operand.getType());
            tensor && tensor.getRank() == 0)
          operand =
              tensor::ExtractOp::create(rewriter, loc, operand, ValueRange{});
        if (auto buffer = dyn_cast<MemRefType>(operand.getType());
            buffer && buffer.getRank() == 0)
          operand =
              memref::LoadOp::create(rewriter, loc, operand, ValueRange{});
        // With the batch folded into M, so are per-element operands.
        if (c.broadcast == Contraction::Broadcast::FoldIntoM &&
            kind == EpilogueOperandKind::per_element)
          operand = collapseBatchIntoRows(rewriter, loc, operand);
        epilogueOperands.push_back(operand);
        operandKinds.push_back(
            EpilogueOperandKindAttr::get(&getContext(), kind));
      }
    }

    Value lhs = c.lhs, rhs = c.rhs, batchedInit = init;
    ContractionKind kind = c.kind;
    if (c.broadcast == Contraction::Broadcast::FoldIntoM) {
      // (batch, M, K) x (K, N) is one (batch * M) x K by K x N product.
      kind = ContractionKind::matmul;
      lhs = collapseBatchIntoRows(rewriter, loc, lhs);
      init = collapseBatchIntoRows(rewriter, loc, init);
    } else if (c.broadcast == Contraction::Broadcast::Materialize) {
      Value batch = tensor::DimOp::create(rewriter, loc, batchedInit, 0);
      if (cast<ShapedType>(lhs.getType()).getRank() == 2)
        lhs = broadcastToBatch(rewriter, loc, lhs, batch);
      else
        rhs = broadcastToBatch(rewriter, loc, rhs, batch);
    }

    Type resultType =
        isa<RankedTensorType>(init.getType()) ? init.getType() : Type();
    auto dispatch = DispatchOp::create(
        rewriter, loc, resultType,
        ContractionKindAttr::get(&getContext(), kind), lhs, rhs, init,
        /*bias=*/Value(), epilogueOperands, *candidates,
        SelectionPolicyAttr::get(&getContext(), selectionPolicy),
        selectionPolicy == SelectionPolicy::fixed
            ? rewriter.getI64IntegerAttr(fixedIndex)
            : IntegerAttr(),
        /*epilogue=*/rewriter.getArrayAttr({}),
        c.transposeLhs ? rewriter.getUnitAttr() : UnitAttr(),
        c.transposeRhs ? rewriter.getUnitAttr() : UnitAttr(), c.strides,
        c.dilations, /*target=*/TargetAttr(),
        rewriter.getArrayAttr(operandKinds), fillValue, /*tuned=*/ArrayAttr());
    SmallVector<Value> results(dispatch->getResults());
    if (c.broadcast == Contraction::Broadcast::FoldIntoM && resultType)
      results = {expandRowsIntoBatch(rewriter, loc, dispatch.getResult(),
                                     batchedInit)};
    if (!chain.empty()) {
      dispatch.getEpilogueBody().push_back(chain.body.release());
      rewriter.replaceOp(chain.consumers.back(), results);
      for (linalg::GenericOp consumer :
           llvm::reverse(ArrayRef(chain.consumers).drop_back()))
        rewriter.eraseOp(consumer);
      rewriter.eraseOp(c.op);
    } else {
      rewriter.replaceOp(c.op, results);
    }
    // The folded fill: on buffers the dispatch overwrites what it wrote; on
    // tensors it goes unless something else reads it. A temporary buffer
    // that the chain wrote past is left with its deallocations only.
    if (foldable && (onBuffers || foldable->op->use_empty()))
      rewriter.eraseOp(foldable->op);
    if (onBuffers && chain.destination)
      eraseIfOnlyDeallocated(rewriter, c.init);
    return success();
  }

  SelectionPolicy selectionPolicy = SelectionPolicy::cost_model;
  int64_t fixedIndex = 0;
  std::map<std::tuple<const void *, int, int>, ArrayAttr> cache;
  quilt::ResidualModel residual;
};

} // namespace
