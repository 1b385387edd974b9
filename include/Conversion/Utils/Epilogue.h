//===- Epilogue.h - Elementwise epilogue steps ------------------*- C++ -*-===//
//
// Part of the Quilt project. The one implementation of a dispatch's fused
// epilogue, used by every code generator: named steps (bias_add, relu,
// gelu) and fused bodies, cloned per element or per vector.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_EPILOGUE_H
#define QUILT_CONVERSION_UTILS_EPILOGUE_H

#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::ukernel {

/// The epilogue steps on `x` (f32 or a vector of f32); `bias` has x's type
/// and is only read by bias_add. GELU is emitted with math.erf: run
/// math-polynomial-approximation afterwards on targets without libm.
Value applyEpilogue(OpBuilder &b, Location loc, ArrayRef<EpilogueKind> steps,
                    Value x, Value bias);

/// A dispatch's fused epilogue body, as the code generators see it: the
/// body (owned by the dispatch, which outlives the kernels built from it)
/// and how each of its operands is indexed.
struct FusedEpilogue {
  Block *body = nullptr;
  SmallVector<EpilogueOperandKind> kinds;

  static FusedEpilogue of(DispatchOp op);
  explicit operator bool() const { return body != nullptr; }
  /// The type the body takes the accumulated value in.
  Type accumulatorType() const;
  /// The element type of fused operand `i` (the body's argument i + 1).
  Type operandElementType(unsigned i) const;
  /// A short name that tells kernels with different bodies apart: a hash
  /// of the body's structure (ops, attributes, types, operand wiring) and
  /// of the operand kinds.
  std::string fingerprint() const;
};

/// The part of a kernel's symbol name that tells what it does to C after
/// the product: its named steps, its fused body's fingerprint and its
/// folded fill (empty for none of them), e.g. "_fused_<hash>_fill0".
std::string epilogueSymbolSuffix(ArrayRef<EpilogueKind> steps,
                                 const FusedEpilogue &fused, FloatAttr fill);

/// Clones `epilogue`'s body at `b` and returns the value it yields. `sum` is
/// the f32 accumulated value, a scalar or a vector of N lanes; `elements`
/// holds one value per fused operand, each its body argument's type, or a
/// vector of N of them. With vectors, every value the body computes is a
/// vector of N lanes (arith and math ops are elementwise on both).
Value cloneFusedEpilogue(OpBuilder &b, Location loc,
                         const FusedEpilogue &epilogue, Value sum,
                         ValueRange elements);

/// `value` (a scalar) as a vector of `lanes` copies; `value` itself for
/// `lanes` 0.
Value splatTo(OpBuilder &b, Location loc, Value value, int64_t lanes);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_EPILOGUE_H
