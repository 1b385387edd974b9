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

  // Math functions become polynomials: fused epilogue bodies may use any
  // of them (tanh, exp, erf, ...), and GPU targets have no libm (AMDGPU's
  // backend has no lowering of tanh at all). Only math ops are rewritten.
  SmallVector<Operation *> mathOps;
  module.walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect()))
      mathOps.push_back(op);
  });
  if (mathOps.empty())
    return success();
  RewritePatternSet patterns(module.getContext());
  populateMathPolynomialApproximationPatterns(patterns);
  return applyOpPatternsGreedily(mathOps, std::move(patterns));
}
