//===- Epilogue.cpp - Elementwise steps on finished sums ------------------===//
//
// Part of the Quilt project. The same code serves vectors (the micro-kernel's
// tile update) and scalars (the K = 0 case), since arith and math ops are
// elementwise on both.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/Epilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ukernel;

/// A splat of `value` in x's (scalar or vector) f32 type.
static Value splat(OpBuilder &b, Location loc, Type type, double value) {
  auto attr = b.getF32FloatAttr(static_cast<float>(value));
  if (auto vec = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, type,
                                     DenseElementsAttr::get(vec, attr));
  return arith::ConstantOp::create(b, loc, type, attr);
}

Value mlir::ukernel::applyEpilogue(OpBuilder &b, Location loc,
                                         ArrayRef<EpilogueKind> steps, Value x,
                                         Value bias) {
  Type type = x.getType();
  for (EpilogueKind step : steps) {
    switch (step) {
    case EpilogueKind::bias_add:
      x = arith::AddFOp::create(b, loc, x, bias);
      break;
    case EpilogueKind::relu:
      x = arith::MaximumFOp::create(b, loc, x, splat(b, loc, type, 0.0));
      break;
    case EpilogueKind::gelu: {
      // The exact GELU, 0.5 x (1 + erf(x / sqrt(2))), as the front end
      // matches it. math.erf is later replaced by a polynomial, so the
      // kernels need no libm.
      Value scaled =
          arith::MulFOp::create(b, loc, x, splat(b, loc, type, M_SQRT1_2));
      Value erf = math::ErfOp::create(b, loc, scaled);
      Value onePlus =
          arith::AddFOp::create(b, loc, erf, splat(b, loc, type, 1.0));
      Value half = arith::MulFOp::create(b, loc, x, splat(b, loc, type, 0.5));
      x = arith::MulFOp::create(b, loc, half, onePlus);
      break;
    }
    }
  }
  return x;
}
