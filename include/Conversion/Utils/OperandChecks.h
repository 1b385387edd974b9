//===- OperandChecks.h - Run-time checks of a dispatch's operands -*- C++ -*-===//
//
// Part of the Quilt project. The one implementation of the checks every
// code generator puts in front of a dispatch: sizes that must agree and
// non-null data pointers, reported through Quilt's runtime
// (quilt_rt_report_operand_error in QuiltRuntime.h).
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_OPERANDCHECKS_H
#define QUILT_CONVERSION_UTILS_OPERANDCHECKS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::ukernel {

/// Guards every ukernel.dispatch on memrefs in `module` with run-time
/// checks of its operands, evaluated where the dispatch is:
///
///   %check, %got, %expected = the first failed check (0 when none)
///   scf.if %check != 0 {
///     func.call @quilt_rt_report_operand_error(@description, %check,
///                                             %got, %expected)
///   } else {
///     ukernel.dispatch ...          (moved here)
///   }
///
/// The checks: every pair of sizes that must agree for the dispatch's kind
/// (transposes respected; a convolution's output size from its input,
/// filter, strides and dilations), the bias's length, and a non-null data
/// pointer for every operand with elements. The description is an internal
/// constant string, "@<function> dispatch <i> (<kind> <type>...)" with the
/// dispatches numbered per function from 0. Fails (with a diagnostic) when
/// the module declares quilt_rt_report_operand_error with another type.
LogicalResult guardDispatchOperands(ModuleOp module);

/// Guards every memref.alloc with dynamic sizes in `module`: a negative
/// size, or sizes whose product with the element's bytes exceeds 2^62 (and
/// would wrap the allocation's 64-bit size computation), is reported the
/// same way (QUILT_RT_CHECK_BUFFER_NEGATIVE_SIZE, _TOO_LARGE; the
/// description "@<function>: a new <memref type>") and the allocation gets
/// 0 for every dynamic size instead. A size of 0 anywhere makes any product
/// valid. Fails like guardDispatchOperands.
LogicalResult guardAllocationSizes(ModuleOp module);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_OPERANDCHECKS_H
