//===- NestedModules.h - The nested-module diagnostic ----------*- C++ -*-===//
//
// Part of the Quilt project. quilt-check-input (first in Quilt's
// pipelines) and quilt-check-lowered (last, also after the upstream
// baseline pipeline) refuse a nested builtin.module with the same words.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_LIB_CONVERSION_WHOLEPROGRAM_NESTEDMODULES_H
#define QUILT_LIB_CONVERSION_WHOLEPROGRAM_NESTEDMODULES_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace quilt {

/// The error at `nested`, a builtin.module inside the one compiled.
inline mlir::InFlightDiagnostic emitNestedModuleError(mlir::Operation *nested) {
  return nested->emitError()
         << "nested 'builtin.module' is not lowered: Quilt's pipelines "
            "compile the ops of the top-level module";
}

} // namespace quilt

#endif // QUILT_LIB_CONVERSION_WHOLEPROGRAM_NESTEDMODULES_H
