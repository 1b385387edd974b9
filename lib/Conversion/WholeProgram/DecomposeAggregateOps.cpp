//===- DecomposeAggregateOps.cpp - quilt-decompose-aggregate-ops ----------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
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
