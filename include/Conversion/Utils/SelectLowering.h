//===- SelectLowering.h - ukernel.select to the runtime ---------*- C++ -*-===//
//
// Part of the Quilt project. Host code of every target selects through
// Quilt's runtime, so that compiled code and `quiltc explain` agree.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_UTILS_SELECTLOWERING_H
#define QUILT_CONVERSION_UTILS_SELECTLOWERING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::ukernel {

class SelectOp;

/// Replaces every ukernel.select in the module (outside GPU modules) by a
/// call of the runtime's quilt_rt_select. Fails (with a diagnostic) on a
/// select without a target.
LogicalResult lowerSelectOps(ModuleOp module);

/// The regions a select's results cover on an m x n problem, each with its
/// candidate: `emit(candidate, row0, col0, rows, cols)` for the main region
/// (rows [0, split_m) x columns [0, split_n), `kernel`) and the remainder
/// (`remainder` on rows [split_m, m) x all columns when M is split, else on
/// all rows x columns [split_n, n); empty without a patch). Emitted at
/// `b`'s insertion point; empty regions are the callee's to skip.
void forEachSelectedRegion(
    OpBuilder &b, Location loc, SelectOp select, Value m, Value n,
    function_ref<void(Value candidate, Value row0, Value col0, Value rows,
                      Value cols)>
        emit);

/// Runs the candidate that `which` (a runtime selection) names among
/// `runnable` (DispatchOp::getRunnableCandidates): `emitCase(b, i)` builds
/// the work of runnable[i] at `b`. A single runnable candidate (a fixed
/// policy's) is emitted directly, whatever `which` says; several go in an
/// scf.index_switch whose default does nothing (the runtime always returns
/// a candidate index).
void emitSelectedCandidate(OpBuilder &b, Location loc, Value which,
                           ArrayRef<int64_t> runnable,
                           function_ref<void(OpBuilder &, size_t)> emitCase);

} // namespace mlir::ukernel

#endif // QUILT_CONVERSION_UTILS_SELECTLOWERING_H
