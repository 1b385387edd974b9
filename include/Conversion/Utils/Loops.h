//===- Loops.h - Loop nests over a shape ------------------------*- C++ -*-===//
//
// Part of the Quilt project. Element-by-element loops that the code
// generators and passes share.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_LOOPS_H
#define QUILT_CONVERSION_UTILS_LOOPS_H

#include "mlir/IR/Builders.h"

namespace mlir::ukernel {

/// `body(ivs)` for every index of a `sizes` iteration space, as a nest of
/// scf.for loops (outermost first).
void forEachIndex(OpBuilder &b, Location loc, ArrayRef<Value> sizes,
                  function_ref<void(OpBuilder &, Location, ValueRange)> body);

/// target[ivs] = source[ivs] over `source`'s shape (memrefs of equal
/// shapes and element types, any layouts), element by element.
void copyElements(OpBuilder &b, Location loc, Value source, Value target);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_LOOPS_H
