//===- DecomposeAggregateOps.cpp - quilt-decompose-aggregate-ops ----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTDECOMPOSEAGGREGATEOPS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltDecomposeAggregateOpsPass
    : public quilt::impl::QuiltDecomposeAggregateOpsBase<
          QuiltDecomposeAggregateOpsPass> {
  /// linalg.pack and linalg.unpack, which nothing bufferizes, as the pad,
  /// reshape and transpose (or transpose, reshape and slice) they are.
  LogicalResult lowerRelayouts(IRRewriter &rewriter) {
    SmallVector<Operation *> relayouts;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        relayouts.push_back(op);
    });
    for (Operation *op : relayouts) {
      rewriter.setInsertionPoint(op);
      bool lowered =
          isa<linalg::PackOp>(op)
              ? succeeded(linalg::lowerPack(rewriter, cast<linalg::PackOp>(op)))
              : succeeded(
                    linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op)));
      if (!lowered)
        return op->emitError() << "'" << op->getName()
                               << "' cannot be lowered to a pad, reshape and "
                                  "transpose (static inner tiles only)";
    }
    return success();
  }

  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    if (failed(lowerRelayouts(rewriter)))
      return signalPassFailure();
    for (linalg::AggregatedOpInterface op : aggregates) {
      // Upstream decomposes on tensors only (on buffers it would build
      // invalid IR); say so rather than let the verifier fail.
      auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
      if (dps && !dps.hasPureTensorSemantics()) {
        op->emitError() << "'" << op->getName()
                        << "' on buffers cannot be decomposed; write it on "
                           "tensors";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
      if (failed(parts)) {
        op->emitError() << "'" << op->getName()
                        << "' cannot be decomposed into ops that lower "
                           "(its decomposition failed)";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *parts);
    }
  }
};

} // namespace
