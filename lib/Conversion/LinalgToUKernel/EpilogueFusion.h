//===- EpilogueFusion.h - Elementwise consumers into a dispatch -*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_LINALGTOUKERNEL_EPILOGUEFUSION_H
#define QUILT_LIB_CONVERSION_LINALGTOUKERNEL_EPILOGUEFUSION_H

#include "Dialect/UKernel/IR/UKernelOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <memory>

namespace quilt {

/// The chain of elementwise consumers of a contraction's result that a
/// dispatch absorbs as its fused epilogue, and that epilogue's body.
///
/// A consumer is a `linalg.generic` (or an elementwise named op, which is
/// generalized) whose loops are all parallel, that reads the chain's
/// current value with the identity map, writes one output with the
/// identity map, and whose body holds only ops a fused body may (see
/// `mlir::ukernel::isFusableEpilogueOp`). Its other inputs become operands
/// of the body: rank-0 tensors and scalars defined above the consumer as
/// `scalar`, 1-D tensors along the output's N dimension as `per_column`,
/// along M as `per_row`, and tensors of the output's shape as
/// `per_element` (not on convolutions); constants defined above are
/// cloned into the body.
///
/// On tensors, each consumer must be the only user of the previous value.
/// On buffers (memrefs), a consumer is the first op after the previous
/// writer that touches memory (what lies between only computes values or
/// allocates), so the dispatch may run in the last consumer's place; it
/// either updates the current buffer in place (reading it as an input or
/// through its init) or writes another buffer, in which case the current
/// one must be a `memref.alloc`/`alloca` that nothing but the chain, the
/// folded fill and deallocations uses, since the dispatch never writes it.
/// Epilogue operands and the product's inputs must not be views of the
/// buffer written; distinct allocations and distinct function arguments
/// are taken not to overlap, as for the product's own operands.
///
/// Nothing is evaluated: what a consumer computes is copied, op by op.
struct EpilogueChain {
  /// The consumers, in order; the last one's result is what the dispatch
  /// replaces.
  llvm::SmallVector<mlir::linalg::GenericOp> consumers;
  /// The body's operands (before scalars are extracted from rank-0
  /// tensors) and their kinds.
  llvm::SmallVector<mlir::Value> operands;
  llvm::SmallVector<mlir::ukernel::EpilogueOperandKind> kinds;
  /// The body: the accumulated value, then one argument per operand. Moved
  /// into the dispatch.
  std::unique_ptr<mlir::Block> body;

  /// What the chain's result is written into: the init of the last
  /// consumer whose init is not the value it reads (converters such as
  /// convert-elementwise-to-linalg pass the input as the init, for its
  /// shape); null when every consumer's is, and the contraction's own
  /// destination is the chain's.
  mlir::Value destination;

  bool empty() const { return consumers.empty(); }
};

/// Collects the chain of consumers of `contraction`'s result (a matmul,
/// batch matmul or convolution with its output's N dimension at
/// `outputNDim`), generalizing elementwise named ops on the way; an empty
/// chain when the first consumer cannot be fused. `inputElemType` is the
/// contraction's input element type: each consumer's output must be f32 or
/// that type. On buffers, `bufferFill` is the fill of the contraction's
/// output that the dispatch folds.
EpilogueChain collectEpilogueChain(mlir::RewriterBase &rewriter,
                                   mlir::linalg::LinalgOp contraction,
                                   mlir::Operation *bufferFill,
                                   unsigned outputNDim,
                                   mlir::Type inputElemType);

/// Whether `op` neither reads nor writes memory (it may allocate): ops
/// like it may lie between a buffer's writer and its reader without
/// seeing or changing what the reader reads.
bool touchesNoMemory(mlir::Operation *op);

} // namespace quilt

#endif // QUILT_LIB_CONVERSION_LINALGTOUKERNEL_EPILOGUEFUSION_H
