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
    getOperation().walk([](FunctionOpInterface function) {
      SmallVector<memref::DeallocOp> deallocs;
      bool managesItsMemory = false;
      function.walk([&](memref::DeallocOp dealloc) {
        Operation *allocation = allocationOf(dealloc.getMemref());
        if (allocation &&
            allocation->getParentOfType<FunctionOpInterface>() == function)
          deallocs.push_back(dealloc);
        else
          managesItsMemory = true;
      });
      if (managesItsMemory) {
        function->setAttr(quilt::kManagesItsMemoryAttrName,
                          UnitAttr::get(function->getContext()));
        return WalkResult::skip();
      }
      for (memref::DeallocOp dealloc : deallocs)
        dealloc.erase();
      return WalkResult::skip();
    });
  }
};

} // namespace
