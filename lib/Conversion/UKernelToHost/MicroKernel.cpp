//===- MicroKernel.cpp - Register-blocked vector FMA micro-kernel ---------===//
//
// Part of the Quilt project. The micro-kernel keeps an mr x nr block of C in
// mr * (nr / lanes) vector registers for a whole K block: each k step loads
// nr / lanes vectors of the packed B micro-panel, broadcasts mr scalars of
// the packed A micro-panel and issues mr * nr / lanes FMAs. The loop carries
// the accumulators as iter_args, so after lowering they are SSA values that
// the register allocator keeps in registers, and the packed buffers are
// static-shaped memrefs whose loads are plain address arithmetic.
//
// Problems small enough not to need cache blocking are not packed: the
// micro-kernel then reads A and B where they are stored (inPlaceReader),
// with masked loads at the N edge.
//
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

MicroKernelReader
mlir::ukernel::host::packedReader(const KernelSpec &spec, Value packedA,
                                  Value aOffset, Value packedB, Value bOffset) {
  MicroKernelReader read;
  read.a = [=, mr = spec.mr](OpBuilder &b, Location loc, Value k, int64_t i) {
    IndexMath im{b, loc};
    Value at = im.add(im.add(aOffset, im.mul(k, im.c(mr))), im.c(i));
    return memref::LoadOp::create(b, loc, packedA, ValueRange{at}).getResult();
  };
  // Packed panels are zero-padded: every vector is loaded whole.
  read.b = [=, nr = spec.nr, lanes = spec.lanes](OpBuilder &b, Location loc,
                                                 Value k, int64_t j, bool) {
    IndexMath im{b, loc};
    Value at = im.add(im.add(bOffset, im.mul(k, im.c(nr))), im.c(j * lanes));
    auto vecType = VectorType::get({lanes}, b.getF32Type());
    return vector::LoadOp::create(b, loc, vecType, packedB, ValueRange{at})
        .getResult();
  };
  return read;
}

MicroKernelReader mlir::ukernel::host::inPlaceReader(OpBuilder &b, Location loc,
                                                     const KernelSpec &spec,
                                                     Value a, Value bmat,
                                                     Value row, Value col,
                                                     Value rows, Value cols) {
  IndexMath im{b, loc};
  // Row i of the block reads row min(i, rows - 1): in bounds, and without a
  // branch in the k loop.
  SmallVector<Value> aRows;
  Value lastRow = im.sub(rows, im.c(1));
  for (int64_t i = 0; i < spec.mr; ++i)
    aRows.push_back(im.add(row, im.min(im.c(i), lastRow)));
  // Vector j holds columns [j * lanes, (j + 1) * lanes) of the panel; at
  // the N edge the lanes past `cols` are masked off (read as zeros).
  assert(spec.inputType.isF32() && "operands read in place are f32");
  auto vecType = VectorType::get({spec.lanes}, b.getF32Type());
  auto maskType = VectorType::get({spec.lanes}, b.getI1Type());
  SmallVector<Value> bCols, masks;
  for (int64_t j = 0; j < spec.numVectors(); ++j) {
    bCols.push_back(im.add(col, im.c(j * spec.lanes)));
    masks.push_back(vector::CreateMaskOp::create(
        b, loc, maskType, ValueRange{im.sub(cols, im.c(j * spec.lanes))}));
  }
  Value zeros = arith::ConstantOp::create(
      b, loc, vecType, DenseElementsAttr::get(vecType, b.getF32FloatAttr(0)));

  MicroKernelReader read;
  read.a = [=, transposed = spec.transposeA](OpBuilder &ob, Location l, Value k,
                                             int64_t i) {
    SmallVector<Value> index = {aRows[i], k};
    if (transposed)
      std::swap(index[0], index[1]);
    return memref::LoadOp::create(ob, l, a, index).getResult();
  };
  read.b = [=](OpBuilder &ob, Location l, Value k, int64_t j, bool whole) {
    SmallVector<Value, 2> index = {k, bCols[j]};
    if (whole)
      return vector::LoadOp::create(ob, l, vecType, bmat, index).getResult();
    return vector::MaskedLoadOp::create(ob, l, vecType, bmat, index, masks[j],
                                        zeros)
        .getResult();
  };
  read.masksPartialVectors = true;
  return read;
}

SmallVector<Value>
mlir::ukernel::host::emitMicroKernel(OpBuilder &b, Location loc,
                                     const KernelSpec &spec,
                                     const MicroKernelReader &read, Value depth,
                                     int64_t vectors, bool lastWhole) {
  IndexMath im{b, loc};
  int64_t nv = vectors;
  auto vecType = VectorType::get({spec.lanes}, b.getF32Type());
  Value zeroVec = arith::ConstantOp::create(
      b, loc, vecType, DenseElementsAttr::get(vecType, b.getF32FloatAttr(0)));
  SmallVector<Value> inits(spec.mr * nv, zeroVec);

  auto loop = scf::ForOp::create(
      b, loc, im.c(0), depth, im.c(1), inits,
      [&](OpBuilder &kb, Location l, Value kk, ValueRange accs) {
        SmallVector<Value> bVecs;
        for (int64_t j = 0; j < nv; ++j)
          bVecs.push_back(read.b(kb, l, kk, j, j + 1 < nv || lastWhole));
        SmallVector<Value> next(accs.begin(), accs.end());
        for (int64_t i = 0; i < spec.mr; ++i) {
          Value aVec =
              vector::BroadcastOp::create(kb, l, vecType, read.a(kb, l, kk, i));
          for (int64_t j = 0; j < nv; ++j)
            next[i * nv + j] =
                vector::FMAOp::create(kb, l, aVec, bVecs[j], next[i * nv + j]);
        }
        scf::YieldOp::create(kb, l, next);
      });
  // Rows of spec.numVectors() vectors, zero past the ones computed.
  SmallVector<Value> accs;
  for (int64_t i = 0; i < spec.mr; ++i)
    for (int64_t j = 0; j < spec.numVectors(); ++j)
      accs.push_back(j < nv ? loop.getResult(i * nv + j) : zeroVec);
  return accs;
}

void mlir::ukernel::host::prefetchTile(OpBuilder &b, Location loc,
                                       const KernelSpec &spec, Value c,
                                       Value row, Value col, Value rows,
                                       Value cols) {
  IndexMath im{b, loc};
  // One prefetch per 64-byte line of f32 (16 elements) of each row; rows
  // and columns past the edge repeat the last valid ones.
  constexpr int64_t kLineElems = 16;
  Value lastRow = im.sub(rows, im.c(1)), lastCol = im.sub(cols, im.c(1));
  for (int64_t i = 0; i < spec.mr; ++i) {
    Value r = im.add(row, im.min(im.c(i), lastRow));
    for (int64_t j = 0; j < spec.nr; j += kLineElems)
      memref::PrefetchOp::create(b, loc, c,
                                 ValueRange{r, im.add(col, im.min(im.c(j),
                                                                  lastCol))},
                                 b.getBoolAttr(true), b.getI32IntegerAttr(3),
                                 b.getBoolAttr(true));
  }
}

void mlir::ukernel::host::emitTileUpdate(OpBuilder &b, Location loc,
                                         const KernelSpec &spec,
                                         ArrayRef<Value> accs, Value c,
                                         Value row, Value col, Value rows,
                                         Value cols, Value bias,
                                         bool withEpilogue) {
  IndexMath im{b, loc};
  int64_t nv = spec.numVectors();
  auto vecType = VectorType::get({spec.lanes}, b.getF32Type());
  auto maskType = VectorType::get({spec.lanes}, b.getI1Type());

  // Bias vectors for the block's columns; the buffer is padded past N.
  auto biasVectors = [&](OpBuilder &ob, Location l) {
    SmallVector<Value> vecs(nv);
    if (!withEpilogue || !bias)
      return vecs;
    IndexMath om{ob, l};
    for (int64_t j = 0; j < nv; ++j)
      vecs[j] = vector::LoadOp::create(
          ob, l, vecType, bias, ValueRange{om.add(col, om.c(j * spec.lanes))});
    return vecs;
  };
  auto finish = [&](OpBuilder &ob, Location l, Value sum, Value biasVec) {
    return withEpilogue ? applyEpilogue(ob, l, spec.epilogue, sum, biasVec)
                        : sum;
  };

  Value full = arith::AndIOp::create(b, loc, im.eq(rows, im.c(spec.mr)),
                                     im.eq(cols, im.c(spec.nr)));
  scf::IfOp::create(
      b, loc, full,
      [&](OpBuilder &tb, Location l) {
        // The common case: whole vectors, no masks.
        IndexMath tm{tb, l};
        SmallVector<Value> biasVecs = biasVectors(tb, l);
        for (int64_t i = 0; i < spec.mr; ++i) {
          Value r = tm.add(row, tm.c(i));
          for (int64_t j = 0; j < nv; ++j) {
            SmallVector<Value> idx = {r, tm.add(col, tm.c(j * spec.lanes))};
            Value old = vector::LoadOp::create(tb, l, vecType, c, idx);
            Value sum = arith::AddFOp::create(tb, l, old, accs[i * nv + j]);
            vector::StoreOp::create(tb, l, finish(tb, l, sum, biasVecs[j]), c,
                                    idx);
          }
        }
        scf::YieldOp::create(tb, l);
      },
      [&](OpBuilder &eb, Location l) {
        // An edge tile: rows past `rows` are skipped, columns past `cols`
        // masked off.
        IndexMath em{eb, l};
        SmallVector<Value> biasVecs = biasVectors(eb, l);
        SmallVector<Value> masks;
        for (int64_t j = 0; j < nv; ++j)
          masks.push_back(vector::CreateMaskOp::create(
              eb, l, maskType, ValueRange{em.sub(cols, em.c(j * spec.lanes))}));
        Value passThru = arith::ConstantOp::create(
            eb, l, vecType,
            DenseElementsAttr::get(vecType, eb.getF32FloatAttr(0)));
        for (int64_t i = 0; i < spec.mr; ++i) {
          scf::IfOp::create(
              eb, l, em.lt(em.c(i), rows), [&](OpBuilder &rb, Location rl) {
                IndexMath rm{rb, rl};
                Value r = rm.add(row, rm.c(i));
                for (int64_t j = 0; j < nv; ++j) {
                  SmallVector<Value> idx = {r,
                                            rm.add(col, rm.c(j * spec.lanes))};
                  Value old = vector::MaskedLoadOp::create(
                      rb, rl, vecType, c, idx, masks[j], passThru);
                  Value sum =
                      arith::AddFOp::create(rb, rl, old, accs[i * nv + j]);
                  vector::MaskedStoreOp::create(
                      rb, rl, c, idx, masks[j],
                      finish(rb, rl, sum, biasVecs[j]));
                }
                scf::YieldOp::create(rb, rl);
              });
        }
        scf::YieldOp::create(eb, l);
      });
}
