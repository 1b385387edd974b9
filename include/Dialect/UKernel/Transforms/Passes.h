//===- Passes.h - ukernel transformation passes -----------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_TRANSFORMS_PASSES_H
#define QUILT_DIALECT_UKERNEL_TRANSFORMS_PASSES_H

#include "Dialect/UKernel/IR/UKernelDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ukernel {

#define GEN_PASS_DECL
#include "Dialect/UKernel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Dialect/UKernel/Transforms/Passes.h.inc"

} // namespace mlir::ukernel

#endif // QUILT_DIALECT_UKERNEL_TRANSFORMS_PASSES_H
