//===- StridedCopies.cpp - The quilt-strided-copies-to-loops pass ---------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Passes.h"
#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTSTRIDEDCOPIESTOLOOPS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using mlir::ukernel::IndexMath;

namespace {

bool hasIdentityLayout(Value view) {
  return cast<MemRefType>(view.getType()).getLayout().isIdentity();
}

/// target[ivs] = source[ivs] over `source`'s shape, as nested scf.for.
void copyAsLoops(OpBuilder &b, Location loc, Value source, Value target) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<Value> ivs;
  std::function<void(OpBuilder &, int64_t)> nest = [&](OpBuilder &ob,
                                                       int64_t dim) {
    if (dim == type.getRank()) {
      Value v = memref::LoadOp::create(ob, loc, source, ivs);
      memref::StoreOp::create(ob, loc, v, target, ivs);
      return;
    }
    IndexMath im{ob, loc};
    Value size = memref::DimOp::create(ob, loc, source, dim);
    scf::ForOp::create(ob, loc, im.c(0), size, im.c(1), ValueRange{},
                       [&](OpBuilder &ib, Location, Value iv, ValueRange) {
                         ivs.push_back(iv);
                         nest(ib, dim + 1);
                         ivs.pop_back();
                         scf::YieldOp::create(ib, loc);
                       });
  };
  nest(b, 0);
}

struct QuiltStridedCopiesToLoopsPass
    : public quilt::impl::QuiltStridedCopiesToLoopsBase<
          QuiltStridedCopiesToLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      // Device code has its own lowering; identity layouts become memcpy.
      if (copy->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (!hasIdentityLayout(copy.getSource()) ||
          !hasIdentityLayout(copy.getTarget()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      copyAsLoops(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
