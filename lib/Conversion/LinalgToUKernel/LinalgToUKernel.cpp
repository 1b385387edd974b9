//===- LinalgToUKernel.cpp - linalg contractions to ukernel.dispatch ------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "CostModel/Candidates.h"
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

namespace {

/// A linalg op this pass can express as a dispatch, in dispatch terms.
struct Contraction {
  Operation *op = nullptr;
  ContractionKind kind = ContractionKind::matmul;
  Value lhs, rhs, init;
  bool transposeLhs = false, transposeRhs = false;
  DenseI64ArrayAttr strides, dilations;
  /// Position of the N (output channel) dimension in the output.
  unsigned outputNDim = 1;
};

/// Element types a dispatch accepts: equal f32/f16/bf16 inputs, an f32 or
/// same-typed accumulator.
bool hasSupportedTypes(Value lhs, Value rhs, Value init) {
  Type elem = getElementTypeOrSelf(lhs.getType());
  if (elem != getElementTypeOrSelf(rhs.getType()) || !toCostModelElemType(elem))
    return false;
  Type acc = getElementTypeOrSelf(init.getType());
  return acc.isF32() || acc == elem;
}

/// Reads `linalg.matmul`'s indexing maps: (m, k) or (k, m) for the lhs,
/// (k, n) or (n, k) for the rhs, (m, n) for the output. Broadcasting maps
/// are not contractions a dispatch computes.
std::optional<Contraction> matchMatmul(linalg::MatmulOp op) {
  MLIRContext *ctx = op.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(3, 0, results, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[2] != map({m, n}))
    return std::nullopt;
  Contraction c;
  if (maps[0] == map({k, m}))
    c.transposeLhs = true;
  else if (maps[0] != map({m, k}))
    return std::nullopt;
  if (maps[1] == map({n, k}))
    c.transposeRhs = true;
  else if (maps[1] != map({k, n}))
    return std::nullopt;
  c.kind = ContractionKind::matmul;
  c.outputNDim = 1;
  return c;
}

std::optional<Contraction> matchBatchMatmul(linalg::BatchMatmulOp op) {
  if (op.hasUserDefinedMaps())
    return std::nullopt;
  Contraction c;
  c.kind = ContractionKind::batch_matmul;
  c.outputNDim = 2;
  return c;
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
  c.kind = kind;
  c.outputNDim = outputNDim;
  c.strides = nonUnitAttr(b, op.getStrides());
  c.dilations = nonUnitAttr(b, op.getDilations());
  return c;
}

std::optional<Contraction> matchContraction(Operation *op) {
  std::optional<Contraction> c;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    c = matchMatmul(matmul);
  else if (auto bmm = dyn_cast<linalg::BatchMatmulOp>(op))
    c = matchBatchMatmul(bmm);
  else if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op))
    c = matchConv(conv, ContractionKind::conv2d_nhwc, 3);
  else if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
    c = matchConv(conv, ContractionKind::conv2d_nchw, 1);
  if (!c)
    return std::nullopt;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumDpsInits() != 1)
    return std::nullopt;
  c->op = op;
  c->lhs = linalgOp.getDpsInputOperand(0)->get();
  c->rhs = linalgOp.getDpsInputOperand(1)->get();
  c->init = linalgOp.getDpsInitOperand(0)->get();
  bool tensors = linalgOp.hasPureTensorSemantics();
  if (!tensors && !linalgOp.hasPureBufferSemantics())
    return std::nullopt;
  for (Value v : {c->lhs, c->rhs, c->init})
    if (!isa<RankedTensorType, MemRefType>(v.getType()))
      return std::nullopt;
  if (!hasSupportedTypes(c->lhs, c->rhs, c->init))
    return std::nullopt;
  return c;
}

/// The float constant a contraction's init (a tensor) is filled with, as
/// the init's element type, if it is such a fill.
std::optional<FloatAttr> fillConstant(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr value;
  if (!fill || !matchPattern(fill.value(), m_Constant(&value)))
    return std::nullopt;
  Type elem = getElementTypeOrSelf(init.getType());
  if (value.getType() == elem)
    return value;
  return FloatAttr::get(elem, value.getValueAsDouble());
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

    // Match each op only when converting it: fusing an epilogue replaces
    // values that later contractions may read. Only contractions are
    // collected: converting one erases its fused epilogue, a linalg op the
    // list must not hold (ASan found the loop reading an erased generic).
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNhwcHwcfOp,
              linalg::Conv2DNchwFchwOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (std::optional<Contraction> c = matchContraction(op))
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
    std::optional<FloatAttr> fill = fillConstant(c.init);
    if (fuseEpilogues && fill)
      chain = quilt::collectEpilogueChain(
          rewriter, cast<linalg::LinalgOp>(c.op), c.outputNDim, elemType);
    if (!chain.empty() &&
        !canRefill(*fill, getElementTypeOrSelf(chain.output().getType())))
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
      init = c.init.getDefiningOp<linalg::FillOp>().getDpsInitOperand(0)->get();
      fillValue = *fill;
    }
    SmallVector<Value> epilogueOperands;
    SmallVector<Attribute> operandKinds;
    if (!chain.empty()) {
      // The chain's output becomes the accumulator, filled like the
      // contraction's was.
      init = chain.output();
      Type outElem = getElementTypeOrSelf(init.getType());
      if (fill->getType() != outElem)
        fillValue = cast<TypedAttr>(rewriter.getZeroAttr(outElem));
      for (auto [operand, kind] : llvm::zip(chain.operands, chain.kinds)) {
        // A rank-0 tensor is read once, as the scalar it holds.
        if (auto tensor = dyn_cast<RankedTensorType>(operand.getType());
            tensor && tensor.getRank() == 0)
          operand =
              tensor::ExtractOp::create(rewriter, loc, operand, ValueRange{});
        epilogueOperands.push_back(operand);
        operandKinds.push_back(
            EpilogueOperandKindAttr::get(&getContext(), kind));
      }
    }

    Type resultType =
        isa<RankedTensorType>(init.getType()) ? init.getType() : Type();
    auto dispatch = DispatchOp::create(
        rewriter, loc, resultType,
        ContractionKindAttr::get(&getContext(), c.kind), c.lhs, c.rhs, init,
        /*bias=*/Value(), epilogueOperands, *candidates,
        SelectionPolicyAttr::get(&getContext(), selectionPolicy),
        selectionPolicy == SelectionPolicy::fixed
            ? rewriter.getI64IntegerAttr(fixedIndex)
            : IntegerAttr(),
        /*epilogue=*/rewriter.getArrayAttr({}),
        c.transposeLhs ? rewriter.getUnitAttr() : UnitAttr(),
        c.transposeRhs ? rewriter.getUnitAttr() : UnitAttr(), c.strides,
        c.dilations, /*target=*/TargetAttr(),
        rewriter.getArrayAttr(operandKinds), fillValue);
    if (!chain.empty()) {
      dispatch.getEpilogueBody().push_back(chain.body.release());
      rewriter.replaceOp(chain.consumers.back(), dispatch->getResults());
      for (linalg::GenericOp consumer :
           llvm::reverse(ArrayRef(chain.consumers).drop_back()))
        rewriter.eraseOp(consumer);
      rewriter.eraseOp(c.op);
    } else {
      rewriter.replaceOp(c.op, dispatch->getResults());
    }
    // The folded fill, unless something else reads it.
    if (Operation *oldFill = c.init.getDefiningOp();
        fill && oldFill && oldFill->use_empty())
      rewriter.eraseOp(oldFill);
    return success();
  }

  SelectionPolicy selectionPolicy = SelectionPolicy::cost_model;
  int64_t fixedIndex = 0;
  std::map<std::tuple<const void *, int, int>, ArrayAttr> cache;
};

} // namespace
