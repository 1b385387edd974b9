//===- AdoptDeallocations.cpp - quilt-adopt-deallocations -----------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTADOPTDEALLOCATIONS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

/// The allocation a freed value is, looking through casts (which keep the
/// buffer); null when it is not one the function made.
Operation *allocationOf(Value freed) {
  while (auto cast = freed.getDefiningOp<memref::CastOp>())
    freed = cast.getSource();
  Operation *def = freed.getDefiningOp();
  if (def && isa<memref::AllocOp, memref::ReallocOp>(def))
    return def;
  return nullptr;
}

struct QuiltAdoptDeallocationsPass
    : public quilt::impl::QuiltAdoptDeallocationsBase<
          QuiltAdoptDeallocationsPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    bool failedAny = false;
    getOperation().walk([&](memref::DeallocOp dealloc) {
      Operation *allocation = allocationOf(dealloc.getMemref());
      if (allocation && allocation->getParentOfType<FunctionOpInterface>() ==
                            dealloc->getParentOfType<FunctionOpInterface>()) {
        deallocs.push_back(dealloc);
        return;
      }
      dealloc.emitError()
          << "frees a buffer this function did not allocate; Quilt's "
             "buffer deallocation frees only what a function allocates "
             "(memref.alloc), so the caller must free it";
      failedAny = true;
    });
    if (failedAny)
      return signalPassFailure();
    for (memref::DeallocOp dealloc : deallocs)
      dealloc.erase();
  }
};

} // namespace
