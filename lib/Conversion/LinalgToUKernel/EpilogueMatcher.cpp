//===- EpilogueMatcher.cpp - Recognize fusable elementwise epilogues ------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "EpilogueMatcher.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using mlir::ukernel::EpilogueKind;

namespace {

/// Evaluates a straight-line block of scalar float arith/math ops on doubles.
/// Booleans (cmpf results) are 0.0 / 1.0.
class ScalarEvaluator {
public:
  explicit ScalarEvaluator(Block &body) : body(body) {}

  /// The value yielded for the given block arguments, or nullopt when the
  /// block holds an op this evaluator does not model.
  std::optional<double> run(llvm::ArrayRef<double> args) {
    values.clear();
    for (auto [arg, value] : llvm::zip(body.getArguments(), args))
      values[arg] = value;
    for (Operation &op : body) {
      if (auto yield = dyn_cast<linalg::YieldOp>(op)) {
        if (yield.getNumOperands() != 1)
          return std::nullopt;
        return lookup(yield.getOperand(0));
      }
      std::optional<double> result = evaluate(op);
      if (!result || op.getNumResults() != 1)
        return std::nullopt;
      values[op.getResult(0)] = *result;
    }
    return std::nullopt;
  }

private:
  std::optional<double> lookup(Value v) {
    auto it = values.find(v);
    if (it == values.end())
      return std::nullopt;
    return it->second;
  }

  std::optional<double> evaluate(Operation &op) {
    llvm::SmallVector<double, 3> in;
    for (Value operand : op.getOperands()) {
      std::optional<double> value = lookup(operand);
      if (!value)
        return std::nullopt;
      in.push_back(*value);
    }
    using R = std::optional<double>;
    return llvm::TypeSwitch<Operation *, R>(&op)
        .Case([&](arith::ConstantOp c) -> R {
          if (auto f = dyn_cast<FloatAttr>(c.getValue()))
            return f.getValueAsDouble();
          return std::nullopt;
        })
        .Case([&](arith::AddFOp) -> R { return in[0] + in[1]; })
        .Case([&](arith::SubFOp) -> R { return in[0] - in[1]; })
        .Case([&](arith::MulFOp) -> R { return in[0] * in[1]; })
        .Case([&](arith::DivFOp) -> R { return in[0] / in[1]; })
        .Case([&](arith::NegFOp) -> R { return -in[0]; })
        .Case<arith::MaximumFOp, arith::MaxNumFOp>(
            [&](auto) -> R { return std::max(in[0], in[1]); })
        .Case<arith::MinimumFOp, arith::MinNumFOp>(
            [&](auto) -> R { return std::min(in[0], in[1]); })
        // Precision changes are modelled as exact: the comparison tolerance
        // absorbs f16/bf16 rounding of an f32 epilogue.
        .Case<arith::ExtFOp, arith::TruncFOp>([&](auto) -> R { return in[0]; })
        .Case([&](arith::CmpFOp cmp) -> R { return compare(cmp, in); })
        .Case([&](arith::SelectOp) -> R { return in[0] != 0 ? in[1] : in[2]; })
        .Case([&](math::ErfOp) -> R { return std::erf(in[0]); })
        .Case([&](math::TanhOp) -> R { return std::tanh(in[0]); })
        .Case([&](math::ExpOp) -> R { return std::exp(in[0]); })
        .Case([&](math::SqrtOp) -> R { return std::sqrt(in[0]); })
        .Case([&](math::RsqrtOp) -> R { return 1.0 / std::sqrt(in[0]); })
        .Case([&](math::AbsFOp) -> R { return std::fabs(in[0]); })
        .Case([&](math::PowFOp) -> R { return std::pow(in[0], in[1]); })
        .Default([](Operation *) -> R { return std::nullopt; });
  }

  static std::optional<double> compare(arith::CmpFOp cmp,
                                       llvm::ArrayRef<double> in) {
    double a = in[0], b = in[1];
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OGT:
    case arith::CmpFPredicate::UGT:
      return a > b;
    case arith::CmpFPredicate::OGE:
    case arith::CmpFPredicate::UGE:
      return a >= b;
    case arith::CmpFPredicate::OLT:
    case arith::CmpFPredicate::ULT:
      return a < b;
    case arith::CmpFPredicate::OLE:
    case arith::CmpFPredicate::ULE:
      return a <= b;
    default:
      return std::nullopt;
    }
  }

  Block &body;
  llvm::DenseMap<Value, double> values;
};

double relu(double x) { return x > 0 ? x : 0; }
double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

} // namespace

std::optional<llvm::SmallVector<EpilogueKind>>
quilt::classifyEpilogueBody(Block &body, bool hasBias) {
  // The contraction value, and the bias element when there is one, plus the
  // output element (linalg.generic's block has one argument per operand).
  unsigned numArgs = hasBias ? 3 : 2;
  if (body.getNumArguments() != numArgs)
    return std::nullopt;
  for (BlockArgument arg : body.getArguments())
    if (!isa<FloatType>(arg.getType()))
      return std::nullopt;

  struct Candidate {
    llvm::SmallVector<EpilogueKind> steps;
    double (*activation)(double);
  };
  llvm::SmallVector<Candidate> candidates;
  auto identity = +[](double x) { return x; };
  if (hasBias) {
    candidates.push_back({{EpilogueKind::bias_add}, identity});
    candidates.push_back({{EpilogueKind::bias_add, EpilogueKind::relu}, relu});
    candidates.push_back({{EpilogueKind::bias_add, EpilogueKind::gelu}, gelu});
  } else {
    candidates.push_back({{EpilogueKind::relu}, relu});
    candidates.push_back({{EpilogueKind::gelu}, gelu});
  }

  // Points on both sides of the activations' kinks and tails; biases that
  // move values across zero. The output argument gets a value no epilogue
  // should read.
  const double xs[] = {-6.0, -3.0, -1.5, -0.7, -0.1, 0.0,
                       0.05, 0.3,  0.9,  1.7,  4.0,  9.0};
  const double biases[] = {0.0, 0.625, -2.25};
  const double kUnreadOutput = 12345.0;
  ScalarEvaluator evaluator(body);
  for (const Candidate &candidate : candidates) {
    bool matches = true;
    for (double x : xs) {
      for (double bias : biases) {
        if (!hasBias && bias != 0.0)
          continue;
        llvm::SmallVector<double, 3> args = {x};
        if (hasBias)
          args.push_back(bias);
        args.push_back(kUnreadOutput);
        std::optional<double> got = evaluator.run(args);
        if (!got)
          return std::nullopt;
        double want = candidate.activation(x + bias);
        if (std::fabs(*got - want) > 1e-6 * (1.0 + std::fabs(want))) {
          matches = false;
          break;
        }
      }
      if (!matches)
        break;
    }
    if (matches)
      return candidate.steps;
  }
  return std::nullopt;
}
