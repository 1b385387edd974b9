//===- StridedCopies.cpp - The quilt-strided-copies-to-loops pass ---------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "Conversion/Utils/Loops.h"
#include "Conversion/Utils/Views.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTSTRIDEDCOPIESTOLOOPS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

namespace {

struct QuiltStridedCopiesToLoopsPass
    : public quilt::impl::QuiltStridedCopiesToLoopsBase<
          QuiltStridedCopiesToLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      // Device code has its own lowering; identity layouts become memcpy.
      if (copy->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (!ukernel::hasIdentityLayout(copy.getSource()) ||
          !ukernel::hasIdentityLayout(copy.getTarget()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      if (asLinalg)
        linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                               copy.getTarget());
      else
        ukernel::copyElements(b, copy.getLoc(), copy.getSource(),
                              copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
