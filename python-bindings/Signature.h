//===- Signature.h - The C ABI shape of a compiled function -----*- C++ -*-===//
//
// Part of the Quilt project. quilt.load checks Python arguments against the
// function's MLIR type, and needs its results' types to lay out what the
// compiled function returns.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_PYTHON_SIGNATURE_H
#define QUILT_PYTHON_SIGNATURE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quilt::python {

/// A ranked memref or tensor, or a scalar, argument or result.
struct ValueType {
  enum class Kind { MemRef, Tensor, Scalar };
  Kind kind = Kind::MemRef;
  /// The numpy dtype name that holds the (element) type: float32, float64,
  /// float16, uint16 (bf16 bit patterns), int8 ... int64 (index too), bool.
  std::string dtype;
  /// Sizes, empty for a scalar; kDynamic for `?`.
  std::vector<int64_t> shape;
  /// As MLIR prints it, for messages.
  std::string text;
  static constexpr int64_t kDynamic = INT64_MIN;

  bool isScalar() const { return kind == Kind::Scalar; }
  bool isTensor() const { return kind == Kind::Tensor; }
};

struct Signature {
  std::vector<ValueType> args;
  std::vector<ValueType> results;
  std::string text;
};

/// From a function type, "(memref<?x?xf32>, index) -> (tensor<?xf32>, f32)".
/// Throws quilt.Error when it is not one or has a type quilt.load cannot
/// pass (unranked or vector types, complex numbers, ...).
Signature parseSignature(const std::string &functionType);

/// Whether two signatures take and return the same values: kinds, element
/// types and shapes.
bool sameSignature(const Signature &a, const Signature &b);

/// The type of `func.func @name` in MLIR source text (parsed with every
/// dialect, so any function Quilt compiles is found).
Signature signatureFromSource(const std::string &source,
                              const std::string &name);

} // namespace quilt::python

#endif // QUILT_PYTHON_SIGNATURE_H
