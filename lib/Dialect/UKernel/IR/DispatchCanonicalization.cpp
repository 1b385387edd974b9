//===- DispatchCanonicalization.cpp - ukernel.dispatch patterns -----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::ukernel;

namespace {

/// A dispatch reads the source of a tensor.cast that only erases static
/// sizes, and its result is cast back to the type it had. The tensor
/// dialect's own pattern for destination-style ops does the same for any
/// such op but cannot copy a dispatch with an empty epilogue region (MLIR
/// 22's OpBuilder::cloneRegionBefore reads the front block of the region it
/// clones when a listener is attached), so this one runs first (benefit 2):
/// afterwards no operand is such a cast and that pattern does not apply.
struct FoldTensorCastsIntoDispatch : public OpRewritePattern<DispatchOp> {
  explicit FoldTensorCastsIntoDispatch(MLIRContext *context)
      : OpRewritePattern<DispatchOp>(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(DispatchOp op,
                                PatternRewriter &rewriter) const override {
    IRMapping sources;
    for (Value operand : op->getOperands())
      if (auto cast = operand.getDefiningOp<tensor::CastOp>();
          cast && tensor::canFoldIntoConsumerOp(cast))
        sources.map(cast.getResult(), cast.getSource());
    if (sources.getValueMap().empty())
      return failure();
    auto folded = cast<DispatchOp>(rewriter.clone(*op, sources));
    Value result = folded.getResult();
    if (!result) {
      rewriter.replaceOp(op, folded);
      return success();
    }
    // The result has the (now more static) type of the init it updates.
    Type before = result.getType();
    rewriter.modifyOpInPlace(
        folded, [&] { result.setType(folded.getInit().getType()); });
    Value replacement = result;
    if (result.getType() != before)
      replacement =
          tensor::CastOp::create(rewriter, op.getLoc(), before, result);
    rewriter.replaceOp(op, replacement);
    return success();
  }
};

} // namespace

void DispatchOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<FoldTensorCastsIntoDispatch>(context);
}
