//===- CheckLowered.cpp - quilt-check-lowered -----------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "NestedModules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "llvm/ADT/MapVector.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTCHECKLOWERED
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

/// Ops a completely lowered module may hold.
bool isLowered(Operation *op) {
  Dialect *dialect = op->getDialect();
  return isa_and_present<LLVM::LLVMDialect, omp::OpenMPDialect>(dialect) ||
         isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op);
}

struct QuiltCheckLoweredPass
    : public quilt::impl::QuiltCheckLoweredBase<QuiltCheckLoweredPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The first op of each kind left, and how many there are.
    llvm::MapVector<OperationName, std::pair<Operation *, int>> left;
    bool nestedModule = false;
    module.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<ModuleOp>(op)) {
        quilt::emitNestedModuleError(op);
        nestedModule = true;
        return WalkResult::skip();
      }
      if (isLowered(op))
        return WalkResult::advance();
      auto [it, inserted] = left.try_emplace(op->getName(), op, 0);
      ++it->second.second;
      return WalkResult::advance();
    });
    // Casts left between types are the trace of an op that was not
    // converted: said only when nothing else is.
    bool onlyCasts = !nestedModule && llvm::all_of(left, [](const auto &entry) {
      return isa<UnrealizedConversionCastOp>(entry.second.first);
    });
    for (auto &[name, first] : left) {
      auto [op, count] = first;
      if (isa<UnrealizedConversionCastOp>(op) && !onlyCasts)
        continue;
      InFlightDiagnostic diag = op->emitError()
                                << "'" << name << "' was not lowered";
      if (count > 1)
        diag << " (nor " << count - 1 << " more)";
      diag << ": no pattern of the pipeline converts it for this target";
    }
    if (nestedModule || !left.empty())
      signalPassFailure();
  }
};

} // namespace
