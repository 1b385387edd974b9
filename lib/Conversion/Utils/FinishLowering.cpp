//===- FinishLowering.cpp - After the dispatches are expanded -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/FinishLowering.h"
#include "Conversion/Utils/SelectLowering.h"

#include "Dialect/UKernel/IR/UKernelDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

LogicalResult mlir::ukernel::finishDispatchLowering(ModuleOp module) {
  if (failed(lowerSelectOps(module)))
    return failure();

  StringRef targetAttr = UKernelDialect::getTargetAttrName();
  bool ukernelLeft = false;
  module.walk([&](Operation *op) {
    if (isa<UKernelDialect>(op->getDialect()))
      ukernelLeft = true;
  });
  if (!ukernelLeft)
    module.walk([&](Operation *op) { op->removeAttr(targetAttr); });

  // Only the erf ops: the rest of the module is left as it was.
  SmallVector<Operation *> erfs;
  module.walk([&](math::ErfOp op) { erfs.push_back(op); });
  if (erfs.empty())
    return success();
  RewritePatternSet patterns(module.getContext());
  populatePolynomialApproximateErfPattern(patterns);
  return applyOpPatternsGreedily(erfs, std::move(patterns));
}
