//===- UKernelOps.h - ukernel operations ------------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_UKERNELOPS_H
#define QUILT_DIALECT_UKERNEL_IR_UKERNELOPS_H

#include "Dialect/UKernel/IR/UKernelAttrs.h"
#include "Dialect/UKernel/IR/UKernelDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "Dialect/UKernel/IR/UKernelOps.h.inc"

namespace mlir::ukernel {

/// Whether `op` may appear in a dispatch's fused epilogue body: a scalar
/// elementwise op (or constant) without regions or side effects, which
/// the micro-kernels clone per element or per vector.
bool isFusableEpilogueOp(Operation *op);

} // namespace mlir::ukernel

#endif // QUILT_DIALECT_UKERNEL_IR_UKERNELOPS_H
