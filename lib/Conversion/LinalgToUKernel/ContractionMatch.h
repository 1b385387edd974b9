//===- ContractionMatch.h - Linalg ops a dispatch computes -----*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_LINALGTOUKERNEL_CONTRACTIONMATCH_H
#define QUILT_LIB_CONVERSION_LINALGTOUKERNEL_CONTRACTIONMATCH_H

#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/IR/Operation.h"

#include <optional>

namespace quilt {

/// A linalg op a dispatch computes, in the dispatch's terms.
struct Contraction {
  /// How a batched product whose operand has no batch dimension (the same
  /// matrix for every batch element) is computed.
  enum class Broadcast {
    /// Every operand has the batch dimension.
    None,
    /// B is shared and A is not transposed: the batch folds into M, so the
    /// product is one matmul of (batch * M) x K by K x N.
    FoldIntoM,
    /// A or B is shared otherwise: it is broadcast to every batch element
    /// first (on tensors).
    Materialize,
  };

  mlir::Operation *op = nullptr;
  mlir::ukernel::ContractionKind kind = mlir::ukernel::ContractionKind::matmul;
  /// The dispatch's A, B and C. For a product written with its output
  /// transposed (C^T = A x B), A and B are the op's B and A: C = B^T x A^T.
  mlir::Value lhs, rhs, init;
  bool transposeLhs = false, transposeRhs = false;
  Broadcast broadcast = Broadcast::None;
  mlir::DenseI64ArrayAttr strides, dilations;
  /// Position of the N (output channel) dimension in the output.
  unsigned outputNDim = 1;
};

/// What `op` is as a dispatch, if it is one a dispatch computes:
///  - any linalg op (`linalg.matmul`, `linalg.batch_matmul`,
///    `linalg.contract`, `linalg.generic`, ...) whose body multiplies its
///    two inputs (each at most extended, `arith.extf`) and adds the product
///    to its output, and whose indexing maps are a matmul's or a batch
///    matmul's up to a permutation: one M, N and K loop and at most one
///    batch loop, A and B transposed or not, the output (batch, M, N) or
///    (batch, N, M), A or B without the batch dimension;
///  - `linalg.conv_2d_nhwc_hwcf` and `linalg.conv_2d_nchw_fchw`;
/// on tensors or memrefs with equal f32, f16 or bf16 inputs and an f32 or
/// same-typed output, none with a static size of 0 (nothing to multiply:
/// such an op stays linalg). The IR is read, never changed.
std::optional<Contraction> matchContraction(mlir::Operation *op);

} // namespace quilt

#endif // QUILT_LIB_CONVERSION_LINALGTOUKERNEL_CONTRACTIONMATCH_H
