//===- EpilogueMatcher.h - Recognize fusable elementwise epilogues -*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_LINALGTOUKERNEL_EPILOGUEMATCHER_H
#define QUILT_LIB_CONVERSION_LINALGTOUKERNEL_EPILOGUEMATCHER_H

#include "Dialect/UKernel/IR/UKernelAttrs.h"

#include "mlir/IR/Block.h"

#include <optional>

namespace quilt {

/// Classifies the scalar body of an elementwise `linalg.generic` as one of
/// the epilogues a dispatch can fuse: `relu`, `gelu`, `bias_add`,
/// `bias_add, relu` or `bias_add, gelu`. The body's first argument is the
/// contraction's value and, when `hasBias`, its second the bias element.
///
/// The body is *evaluated* (arith and math on doubles) on sample points and
/// compared with each epilogue's definition, so any spelling of GELU
/// (erf-based, with or without a folded 1/sqrt(2)) or ReLU (maximumf,
/// maxnumf, cmpf + select) is recognized, and anything that differs, such as
/// the tanh approximation of GELU, is not. Returns nullopt when the body
/// uses an op the evaluator does not know or matches no epilogue.
std::optional<llvm::SmallVector<mlir::ukernel::EpilogueKind>>
classifyEpilogueBody(mlir::Block &body, bool hasBias);

} // namespace quilt

#endif // QUILT_LIB_CONVERSION_LINALGTOUKERNEL_EPILOGUEMATCHER_H
