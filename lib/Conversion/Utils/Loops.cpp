//===- Loops.cpp - Loop nests over a shape --------------------------------===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#include "Conversion/Utils/Loops.h"
#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>

using namespace mlir;
using namespace mlir::ukernel;

void mlir::ukernel::forEachIndex(
    OpBuilder &b, Location loc, ArrayRef<Value> sizes,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> ivs;
  std::function<void(OpBuilder &, Location, size_t)> nest = [&](OpBuilder &ob,
                                                                Location l,
                                                                size_t depth) {
    if (depth == sizes.size()) {
      body(ob, l, ivs);
      return;
    }
    IndexMath om{ob, l};
    scf::ForOp::create(ob, l, om.c(0), sizes[depth], om.c(1), ValueRange{},
                       [&](OpBuilder &ib, Location il, Value iv, ValueRange) {
                         ivs.push_back(iv);
                         nest(ib, il, depth + 1);
                         ivs.pop_back();
                         scf::YieldOp::create(ib, il);
                       });
  };
  nest(b, loc, 0);
}

void mlir::ukernel::copyElements(OpBuilder &b, Location loc, Value source,
                                 Value target) {
  SmallVector<Value> sizes;
  for (int64_t d = 0, e = cast<MemRefType>(source.getType()).getRank(); d < e;
       ++d)
    sizes.push_back(memref::DimOp::create(b, loc, source, d));
  forEachIndex(b, loc, sizes, [&](OpBuilder &ib, Location l, ValueRange ivs) {
    Value v = memref::LoadOp::create(ib, l, source, ivs);
    memref::StoreOp::create(ib, l, v, target, ivs);
  });
}
