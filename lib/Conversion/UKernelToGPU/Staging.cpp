//===- Staging.cpp - Operand tiles from global to workgroup memory --------===//
//
// Part of the Quilt project. The block's threads split a stored tile into
// runs of `vectorWidth` elements along the stored contiguous dimension and
// copy them round-robin. A run that lies inside the matrix on an operand the
// host found aligned moves as one vector load (ld.global.v4 / v8 bytes,
// global_load_dwordx4); any other run goes element by element, with zeros
// outside the matrix, so the matrix engines never need masks. With
// asynchronous copies (cp.async), an aligned 16-byte run goes straight from
// global to workgroup memory, the part outside the matrix zero-filled by the
// instruction itself (its source size), and registers hold nothing.
// A convolution's A (the image read as its im2col matrix, never
// materialized) goes element by element through the maps of
// Conversion/Utils/ConvIndex.h.
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

namespace {

/// `x` (scalar or vector) converted to element type `to`.
Value convertElements(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = getElementTypeOrSelf(x.getType());
  if (from == to)
    return x;
  Type target = to;
  if (auto vec = dyn_cast<VectorType>(x.getType()))
    target = vec.clone(to);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, target, x);
  return arith::TruncFOp::create(b, loc, target, x);
}

class Stager {
public:
  Stager(OpBuilder &b, Location loc, const StagingCopy &copy)
      : b(b), loc(loc), copy(copy),
        sharedElem(cast<MemRefType>(copy.shared.getType()).getElementType()),
        storedElem(cast<MemRefType>(copy.global.getType()).getElementType()) {
  }

  /// Stores `value` (scalar or vector of consecutive stored columns) at
  /// slice position (r, c).
  void storeShared(OpBuilder &sb, Value value, Value r, Value c) {
    IndexMath im{sb, loc};
    value = convertElements(sb, loc, value, sharedElem);
    auto vec = dyn_cast<VectorType>(value.getType());
    if (!vec) {
      store(sb, value, r, c);
      return;
    }
    if (!copy.transposeIntoShared) {
      vector::StoreOp::create(sb, loc, value, copy.shared, ValueRange{r, c});
      return;
    }
    for (int64_t i = 0; i < vec.getNumElements(); ++i)
      store(sb, vector::ExtractOp::create(sb, loc, value, i), r,
            im.add(c, im.c(i)));
  }

  SmallVector<Value> globalIndices(Value row, Value col) const {
    if (copy.batch)
      return {copy.batch, row, col};
    return {row, col};
  }

  /// Where stored element (row, col) is: in the matrix, or for a
  /// convolution's A, in the image (ConvIndex.h: row is GEMM row
  /// rowOrigin + row, col is GEMM column k).
  SmallVector<Value> elementIndices(OpBuilder &eb, Location l, Value row,
                                    Value col) const {
    if (!copy.conv)
      return globalIndices(row, col);
    IndexMath em{eb, l};
    const ConvGeometry &conv = *copy.conv;
    return llvm::to_vector(conv.imageIndex(
        em, conv.pixel(em, em.add(copy.rowOrigin, row)), conv.tap(em, col)));
  }

  /// The run of `width` elements at slice position (r, c).
  void copyRun(OpBuilder &rb, Value r, Value c, int64_t width) {
    IndexMath im{rb, loc};
    Value gr = im.add(copy.row0, r), gc = im.add(copy.col0, c);
    Value rowIn = im.lt(gr, copy.rows);
    if (width == 1) {
      copyElements(rb, r, c, gr, gc, rowIn, width);
      return;
    }
    int64_t bytes = width * storedElem.getIntOrFloatBitWidth() / 8;
    if (copiesAsync(bytes)) {
      copyRunAsync(rb, r, c, gr, gc, rowIn, width);
      return;
    }
    // A whole run inside the matrix, on an aligned operand: one load.
    Value runIn = arith::AndIOp::create(
        rb, loc, rowIn, arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::sle,
                                              im.add(gc, im.c(width)),
                                              copy.cols));
    Value vectorOk = arith::AndIOp::create(rb, loc, runIn, copy.useVectors);
    scf::IfOp::create(
        rb, loc, vectorOk,
        [&](OpBuilder &tb, Location l) {
          Value v = vector::LoadOp::create(
              tb, l, VectorType::get({width}, storedElem), copy.global,
              globalIndices(gr, gc), /*nontemporal=*/false,
              llvm::MaybeAlign(bytes));
          storeShared(tb, v, r, c);
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &fb, Location l) {
          copyElements(fb, r, c, gr, gc, rowIn, width);
          scf::YieldOp::create(fb, l);
        });
  }

private:
  /// The run (r, c) at stored (gr, gc) one element at a time, zero outside
  /// the matrix.
  void copyElements(OpBuilder &eb, Value r, Value c, Value gr, Value gc,
                    Value rowIn, int64_t width) {
    IndexMath em{eb, loc};
    for (int64_t i = 0; i < width; ++i) {
      Value col = em.add(gc, em.c(i));
      Value in = arith::AndIOp::create(eb, loc, rowIn, em.lt(col, copy.cols));
      auto ifOp = scf::IfOp::create(
          eb, loc, in,
          [&](OpBuilder &tb, Location l) {
            Value v = memref::LoadOp::create(tb, l, copy.global,
                                             elementIndices(tb, l, gr, col));
            scf::YieldOp::create(tb, l, v);
          },
          [&](OpBuilder &fb, Location l) {
            Value zero = arith::ConstantOp::create(
                fb, l, storedElem, fb.getZeroAttr(storedElem));
            scf::YieldOp::create(fb, l, zero);
          });
      storeShared(eb, ifOp.getResult(0), r, em.add(c, em.c(i)));
    }
  }

  /// cp.async moves 16-byte runs of unconverted elements into rows.
  bool copiesAsync(int64_t runBytes) const {
    return copy.async && runBytes == 16 && !copy.transposeIntoShared &&
           sharedElem == storedElem;
  }

  /// On an aligned operand, the run (r, c) at stored (gr, gc) as one
  /// cp.async that reads the part inside the matrix and zero-fills the rest;
  /// element by element otherwise. The source address stays inside the
  /// matrix even when nothing is read from it.
  void copyRunAsync(OpBuilder &rb, Value r, Value c, Value gr, Value gc,
                    Value rowIn, int64_t width) {
    scf::IfOp::create(
        rb, loc, copy.useVectors,
        [&](OpBuilder &tb, Location l) {
          IndexMath tm{tb, l};
          Value zero = tm.c(0);
          Value colIn = tm.lt(gc, copy.cols);
          Value left = arith::SubIOp::create(tb, l, copy.cols, gc);
          Value inside = arith::MinSIOp::create(
              tb, l, arith::MaxSIOp::create(tb, l, left, zero), tm.c(width));
          inside = arith::SelectOp::create(tb, l, rowIn, inside, zero);
          Value srcRow = arith::SelectOp::create(tb, l, rowIn, gr, zero);
          Value srcCol = arith::SelectOp::create(tb, l, colIn, gc, zero);
          nvgpu::DeviceAsyncCopyOp::create(
              tb, l, nvgpu::DeviceAsyncTokenType::get(tb.getContext()),
              copy.shared, ValueRange{r, c}, copy.global,
              globalIndices(srcRow, srcCol), tb.getIndexAttr(width), inside,
              tb.getUnitAttr());
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &fb, Location l) {
          copyElements(fb, r, c, gr, gc, rowIn, width);
          scf::YieldOp::create(fb, l);
        });
  }

  void store(OpBuilder &sb, Value value, Value r, Value c) {
    SmallVector<Value> idx = copy.transposeIntoShared ? SmallVector<Value>{c, r}
                                                      : SmallVector<Value>{r, c};
    memref::StoreOp::create(sb, loc, value, copy.shared, idx);
  }

  OpBuilder &b;
  Location loc;
  const StagingCopy &copy;
  Type sharedElem, storedElem;
};

} // namespace

void mlir::ukernel::gpucg::emitStagingCopy(OpBuilder &b, Location loc,
                                           const ThreadContext &thread,
                                           int64_t threads,
                                           const StagingCopy &copy) {
  IndexMath im{b, loc};
  int64_t width = copy.contiguous
                      ? std::gcd(std::max<int64_t>(copy.vectorWidth, 1),
                                 copy.tileCols)
                      : 1;
  int64_t runsPerRow = copy.tileCols / width;
  int64_t runs = copy.tileRows * runsPerRow;
  int64_t rounds = (runs + threads - 1) / threads;
  Stager stager(b, loc, copy);
  scf::ForOp::create(
      b, loc, im.c(0), im.c(rounds), im.c(1), ValueRange{},
      [&](OpBuilder &lb, Location l, Value round, ValueRange) {
        IndexMath lm{lb, l};
        Value run = lm.add(thread.tid, lm.mul(round, lm.c(threads)));
        auto body = [&](OpBuilder &rb) {
          IndexMath rm{rb, l};
          Value perRow = rm.c(runsPerRow);
          Value r = arith::DivUIOp::create(rb, l, run, perRow);
          Value c = rm.mul(arith::RemUIOp::create(rb, l, run, perRow),
                           rm.c(width));
          stager.copyRun(rb, r, c, width);
        };
        if (runs % threads == 0) {
          body(lb);
        } else {
          scf::IfOp::create(lb, l, lm.lt(run, lm.c(runs)),
                            [&](OpBuilder &tb, Location tl) {
                              body(tb);
                              scf::YieldOp::create(tb, tl);
                            });
        }
        scf::YieldOp::create(lb, l);
      });
}
