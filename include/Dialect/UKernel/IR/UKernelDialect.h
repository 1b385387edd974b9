//===- UKernelDialect.h - The ukernel dialect -------------------*- C++ -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_DIALECT_UKERNEL_IR_UKERNELDIALECT_H
#define QUILT_DIALECT_UKERNEL_IR_UKERNELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Dialect/UKernel/IR/UKernelDialect.h.inc"

#endif // QUILT_DIALECT_UKERNEL_IR_UKERNELDIALECT_H
