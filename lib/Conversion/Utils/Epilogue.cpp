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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ukernel;

/// A splat of `value` in x's (scalar or vector) float type.
static Value splat(OpBuilder &b, Location loc, Type type, double value) {
  auto attr = b.getFloatAttr(getElementTypeOrSelf(type), value);
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

//===----------------------------------------------------------------------===//
// Fused bodies
//===----------------------------------------------------------------------===//

FusedEpilogue FusedEpilogue::of(DispatchOp op) {
  FusedEpilogue epilogue;
  if (!op.hasFusedEpilogue())
    return epilogue;
  epilogue.body = &op.getEpilogueBody().front();
  epilogue.kinds = op.getEpilogueOperandKindList();
  return epilogue;
}

Type FusedEpilogue::accumulatorType() const {
  return body->getArgument(0).getType();
}

Type FusedEpilogue::operandElementType(unsigned i) const {
  return body->getArgument(i + 1).getType();
}

std::string FusedEpilogue::fingerprint() const {
  // Values by position: block argument i is "a<i>", op j's result "r<j>".
  llvm::DenseMap<Value, std::string> names;
  for (BlockArgument arg : body->getArguments())
    names[arg] = "a" + std::to_string(arg.getArgNumber());
  std::string text;
  llvm::raw_string_ostream os(text);
  for (EpilogueOperandKind kind : kinds)
    os << stringifyEpilogueOperandKind(kind) << ";";
  for (BlockArgument arg : body->getArguments())
    os << arg.getType() << ";";
  unsigned index = 0;
  for (Operation &op : *body) {
    os << op.getName() << "(";
    for (Value operand : op.getOperands())
      os << names.lookup(operand) << ",";
    os << ")" << op.getAttrDictionary() << "->";
    for (Value result : op.getResults()) {
      names[result] = "r" + std::to_string(index++);
      os << result.getType() << ",";
    }
    os << "\n";
  }
  std::string hash;
  llvm::raw_string_ostream(hash)
      << llvm::format_hex_no_prefix(llvm::xxh3_64bits(text), 16);
  return hash;
}

std::string mlir::ukernel::epilogueSymbolSuffix(ArrayRef<EpilogueKind> steps,
                                                const FusedEpilogue &fused,
                                                FloatAttr fill) {
  std::string suffix;
  llvm::raw_string_ostream os(suffix);
  for (EpilogueKind step : steps)
    os << "_" << stringifyEpilogueKind(step);
  if (fused)
    os << "_fused_" << fused.fingerprint();
  if (fill)
    os << "_fill"
       << llvm::format_hex_no_prefix(
              fill.getValue().bitcastToAPInt().getZExtValue(), 1);
  return suffix;
}

Value mlir::ukernel::splatTo(OpBuilder &b, Location loc, Value value,
                             int64_t lanes) {
  if (lanes == 0)
    return value;
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({lanes}, value.getType()), value);
}

Value mlir::ukernel::cloneFusedEpilogue(OpBuilder &b, Location loc,
                                        const FusedEpilogue &epilogue,
                                        Value sum, ValueRange elements) {
  auto vecType = dyn_cast<VectorType>(sum.getType());
  int64_t lanes = vecType ? vecType.getNumElements() : 0;
  auto widen = [&](Type type) -> Type {
    return lanes ? Type(VectorType::get({lanes}, type)) : type;
  };

  IRMapping mapping;
  Type accType = epilogue.accumulatorType();
  Value acc = sum;
  if (accType != getElementTypeOrSelf(sum.getType()))
    acc = arith::TruncFOp::create(b, loc, widen(accType), sum);
  mapping.map(epilogue.body->getArgument(0), acc);
  for (auto [i, element] : llvm::enumerate(elements))
    mapping.map(epilogue.body->getArgument(i + 1), element);

  for (Operation &op : epilogue.body->without_terminator()) {
    Value result;
    if (lanes && op.hasTrait<OpTrait::ConstantLike>()) {
      // A splat of the constant (the verifier allows scalar ones only).
      TypedAttr attr;
      if (!matchPattern(op.getResult(0), m_Constant(&attr)))
        llvm_unreachable("a constant-like op folds to its value");
      auto type = VectorType::get({lanes}, attr.getType());
      result = arith::ConstantOp::create(b, op.getLoc(), type,
                                         DenseElementsAttr::get(type, attr));
    } else {
      OperationState state(op.getLoc(), op.getName());
      for (Value operand : op.getOperands())
        state.operands.push_back(mapping.lookup(operand));
      for (Type type : op.getResultTypes())
        state.types.push_back(widen(type));
      state.attributes = op.getAttrs();
      result = b.create(state)->getResult(0);
    }
    mapping.map(op.getResult(0), result);
  }
  return mapping.lookup(epilogue.body->getTerminator()->getOperand(0));
}
