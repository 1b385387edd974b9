//===- Signature.h - The C ABI shape of a compiled function -----*- C++ -*-===//
//
// Part of the Quilt project. quilt.load checks numpy arguments against the
// function's MLIR type, and needs its result type to pass the result
// descriptor (the first argument of an `_mlir_ciface_` function that
// returns a memref or tensor).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_PYTHON_SIGNATURE_H
#define QUILT_PYTHON_SIGNATURE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quilt::python {

/// A ranked memref or tensor argument or result.
struct BufferType {
  bool isTensor = false;
  /// The numpy dtype name that holds the element type: float32, float64,
  /// float16, uint16 (bf16 bit patterns), int8 ... int64 (index too).
  std::string dtype;
  /// Sizes; kDynamic for `?`.
  std::vector<int64_t> shape;
  /// As MLIR prints it, for messages.
  std::string text;
  static constexpr int64_t kDynamic = INT64_MIN;
};

struct Signature {
  std::vector<BufferType> args;
  std::optional<BufferType> result;
  std::string text;
};

/// From a function type, "(memref<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>".
/// Throws quilt.Error when it is not one or has a type quilt.load cannot
/// pass (scalars, unranked or vector types, more than one result).
Signature parseSignature(const std::string &functionType);

/// Whether two signatures take and return the same buffers: kinds (tensor
/// or memref), element types and shapes.
bool sameSignature(const Signature &a, const Signature &b);

/// The type of `func.func @name` in MLIR source text (parsed with every
/// dialect, so any function Quilt compiles is found).
Signature signatureFromSource(const std::string &source,
                              const std::string &name);

} // namespace quilt::python

#endif // QUILT_PYTHON_SIGNATURE_H
