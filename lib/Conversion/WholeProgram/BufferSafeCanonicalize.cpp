//===- BufferSafeCanonicalize.cpp - quilt-buffer-safe-canonicalize --------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTBUFFERSAFECANONICALIZE
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltBufferSafeCanonicalizePass
    : public quilt::impl::QuiltBufferSafeCanonicalizeBase<
          QuiltBufferSafeCanonicalizePass> {
  /// Collects patterns the way upstream's canonicalizer does, from every
  /// loaded dialect and registered op, except the ops whose patterns read
  /// a tensor in place of the buffer it was turned into.
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owning(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owning);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      if (!readsTensorForBuffer(op))
        op.getCanonicalizationPatterns(owning, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owning));
    return success();
  }

  void runOnOperation() override {
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Normal);
    // Like the canonicalizer, a rewrite that does not converge is not an
    // error: the IR stays valid.
    (void)applyPatternsGreedily(getOperation(), *patterns, config);
  }

private:
  /// `bufferization.to_buffer` registers the fold of `memref.load` through
  /// its result into `tensor.extract` of its operand (and the folds of
  /// to_buffer(to_tensor) and of casts, which bufferization does itself).
  static bool readsTensorForBuffer(RegisteredOperationName op) {
    return op.getTypeID() == TypeID::get<bufferization::ToBufferOp>();
  }

  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};

} // namespace
