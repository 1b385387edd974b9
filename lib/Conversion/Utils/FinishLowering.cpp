//===- FinishLowering.cpp - After the dispatches are expanded -------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/FinishLowering.h"
#include "Conversion/Utils/SelectLowering.h"

#include "Dialect/UKernel/IR/UKernelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// f64 tanh(x) as -expm1(-2|x|) / (2 + expm1(-2|x|)) with the sign of x.
/// AMDGPU's backend has no f64 tanh (LLVM's intrinsic is a libcall it does
/// not have), while expm1 lowers everywhere (the ROCm and CUDA device
/// libraries, libm); expm1 keeps small |x| accurate, where 1 - exp(-2|x|)
/// would cancel. Every target computes f64 tanh this one way.
struct F64TanhFromExpm1 : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF64())
      return failure();
    Location loc = op.getLoc();
    auto constant = [&](double value) -> Value {
      TypedAttr attr = rewriter.getF64FloatAttr(value);
      if (auto shaped = dyn_cast<ShapedType>(type))
        attr = DenseElementsAttr::get(shaped, attr);
      return arith::ConstantOp::create(rewriter, loc, type, attr);
    };
    Value x = op.getOperand();
    Value magnitude = math::AbsFOp::create(rewriter, loc, x);
    Value scaled =
        arith::MulFOp::create(rewriter, loc, magnitude, constant(-2.0));
    Value t = math::ExpM1Op::create(rewriter, loc, scaled);
    Value numerator = arith::NegFOp::create(rewriter, loc, t);
    Value denominator = arith::AddFOp::create(rewriter, loc, t, constant(2.0));
    Value result = arith::DivFOp::create(rewriter, loc, numerator, denominator);
    rewriter.replaceOpWithNewOp<math::CopySignOp>(op, result, x);
    return success();
  }
};

} // namespace

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

  // Math functions on f32 become polynomials: fused epilogue bodies may use
  // any of them (tanh, exp, erf, ...), and GPU targets have no libm
  // (AMDGPU's backend has no lowering of tanh at all). On f64 they stay
  // calls into the device libraries, except tanh (F64TanhFromExpm1). Only
  // math ops are rewritten.
  SmallVector<Operation *> mathOps;
  module.walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect()))
      mathOps.push_back(op);
  });
  if (mathOps.empty())
    return success();
  RewritePatternSet patterns(module.getContext());
  populateMathPolynomialApproximationPatterns(patterns);
  patterns.add<F64TanhFromExpm1>(module.getContext());
  return applyOpPatternsGreedily(mathOps, std::move(patterns));
}
