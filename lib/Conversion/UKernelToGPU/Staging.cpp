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
// A convolution's A is the image read as its im2col matrix, never
// materialized: each run's first element goes through the maps of
// Conversion/Utils/ConvIndex.h. An nhwc image with contiguous channels,
// C a multiple of the run (checked by the host with the alignment), has
// each run inside one filter tap's channels, consecutive in memory, so it
// moves like a matrix row's; an nchw image goes element by element.
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
        sharedElem(
            cast<MemRefType>(copy.shared.buffer.getType()).getElementType()),
        storedElem(cast<MemRefType>(copy.global.getType()).getElementType()) {}

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
      // A run stays inside one 16-byte chunk of a swizzled row.
      SharedAddress at = sharedTileAddress(sb, loc, copy.shared, r, c);
      vector::StoreOp::create(sb, loc, value, at.memref, at.indices);
      return;
    }
    for (int64_t i = 0; i < vec.getNumElements(); ++i)
      store(sb, vector::ExtractOp::create(sb, loc, value, i), r,
            im.add(c, im.c(i)));
  }

  /// Where stored element (row, col) is: in the matrix, or for a
  /// convolution's A, in the image (ConvIndex.h: row is GEMM row
  /// rowOrigin + row, col is GEMM column k).
  SmallVector<Value> elementIndices(OpBuilder &eb, Location l, Value row,
                                    Value col) const {
    if (!copy.conv)
      return {row, col};
    IndexMath em{eb, l};
    const ConvGeometry &conv = *copy.conv;
    // Sequenced, so that the IR does not depend on the host compiler's
    // order of evaluating arguments.
    ConvTap tap = conv.tap(em, col);
    ConvPixel pixel = conv.pixel(em, em.add(copy.rowOrigin, row));
    return llvm::to_vector(conv.imageIndex(em, pixel, tap));
  }

  /// The run of `width` elements at slice position (r, c): with cp.async
  /// when it can, else through registers.
  void copyRun(OpBuilder &rb, Value r, Value c, int64_t width) {
    int64_t bytes = width * storedElem.getIntOrFloatBitWidth() / 8;
    if (width > 1 && copiesAsync(bytes)) {
      IndexMath im{rb, loc};
      Value gr = im.add(copy.row0, r), gc = im.add(copy.col0, c);
      copyRunAsync(rb, r, c, gr, gc, im.lt(gr, copy.rows), width);
      return;
    }
    storeShared(rb, loadRun(rb, r, c, width), r, c);
  }

  /// The run of `width` elements at slice position (r, c) read into
  /// registers: a vector of stored elements (a scalar when `width` is 1),
  /// zero outside the matrix. One vector load when the run lies inside the
  /// matrix of an aligned operand.
  Value loadRun(OpBuilder &rb, Value r, Value c, int64_t width) {
    IndexMath im{rb, loc};
    Value gr = im.add(copy.row0, r), gc = im.add(copy.col0, c);
    Value rowIn = im.lt(gr, copy.rows);
    if (width == 1)
      return loadElement(rb, gr, gc, rowIn);
    Value runIn = arith::AndIOp::create(
        rb, loc, rowIn, arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::sle,
                                              im.add(gc, im.c(width)),
                                              copy.cols));
    Value vectorOk = arith::AndIOp::create(rb, loc, runIn, copy.useVectors);
    auto type = VectorType::get({width}, storedElem);
    int64_t bytes = width * storedElem.getIntOrFloatBitWidth() / 8;
    auto ifOp = scf::IfOp::create(
        rb, loc, vectorOk,
        [&](OpBuilder &tb, Location l) {
          Value v = vector::LoadOp::create(
              tb, l, type, copy.global, elementIndices(tb, l, gr, gc),
              /*nontemporal=*/false, llvm::MaybeAlign(bytes));
          scf::YieldOp::create(tb, l, v);
        },
        [&](OpBuilder &fb, Location l) {
          IndexMath fm{fb, l};
          Value v = zeros(fb, type);
          for (int64_t i = 0; i < width; ++i)
            v = vector::InsertOp::create(
                fb, l, loadElement(fb, gr, fm.add(gc, fm.c(i)), rowIn), v, i);
          scf::YieldOp::create(fb, l, v);
        });
    return ifOp.getResult(0);
  }

  /// What loadRun yields for a run past the tile (a thread's last round).
  Value zeroRun(OpBuilder &zb, int64_t width) {
    return width == 1 ? zeros(zb, storedElem)
                      : zeros(zb, VectorType::get({width}, storedElem));
  }

private:
  Value zeros(OpBuilder &zb, Type type) {
    return arith::ConstantOp::create(zb, loc, type, zb.getZeroAttr(type));
  }

  /// Stored element (gr, col), zero outside the matrix.
  Value loadElement(OpBuilder &eb, Value gr, Value col, Value rowIn) {
    IndexMath em{eb, loc};
    Value in = arith::AndIOp::create(eb, loc, rowIn, em.lt(col, copy.cols));
    auto ifOp = scf::IfOp::create(
        eb, loc, in,
        [&](OpBuilder &tb, Location l) {
          Value v = memref::LoadOp::create(tb, l, copy.global,
                                           elementIndices(tb, l, gr, col));
          scf::YieldOp::create(tb, l, v);
        },
        [&](OpBuilder &fb, Location l) {
          scf::YieldOp::create(fb, l, zeros(fb, storedElem));
        });
    return ifOp.getResult(0);
  }

  /// The run (r, c) at stored (gr, gc) one element at a time, zero outside
  /// the matrix.
  void copyElements(OpBuilder &eb, Value r, Value c, Value gr, Value gc,
                    Value rowIn, int64_t width) {
    IndexMath em{eb, loc};
    for (int64_t i = 0; i < width; ++i) {
      Value col = em.add(gc, em.c(i));
      storeShared(eb, loadElement(eb, gr, col, rowIn), r, em.add(c, em.c(i)));
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
          // One statement each: both build ops, and the order of evaluating
          // a call's arguments is the host compiler's.
          SmallVector<Value> source = elementIndices(tb, l, srcRow, srcCol);
          SharedAddress destination =
              sharedTileAddress(tb, l, copy.shared, r, c);
          nvgpu::DeviceAsyncCopyOp::create(
              tb, l, nvgpu::DeviceAsyncTokenType::get(tb.getContext()),
              destination.memref, destination.indices, copy.global, source,
              tb.getIndexAttr(width), inside, tb.getUnitAttr());
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &fb, Location l) {
          copyElements(fb, r, c, gr, gc, rowIn, width);
          scf::YieldOp::create(fb, l);
        });
  }

  void store(OpBuilder &sb, Value value, Value r, Value c) {
    SharedAddress at = copy.transposeIntoShared
                           ? sharedTileAddress(sb, loc, copy.shared, c, r)
                           : sharedTileAddress(sb, loc, copy.shared, r, c);
    memref::StoreOp::create(sb, loc, value, at.memref, at.indices);
  }

  OpBuilder &b;
  Location loc;
  const StagingCopy &copy;
  Type sharedElem, storedElem;
};

} // namespace

/// Elements in one 16-byte chunk of `tile`, the unit its swizzle permutes.
static int64_t chunkElems(const SharedTile &tile) {
  Type elem = cast<MemRefType>(tile.buffer.getType()).getElementType();
  return 16 * 8 / elem.getIntOrFloatBitWidth();
}

SharedAddress mlir::ukernel::gpucg::sharedTileAddress(OpBuilder &b,
                                                      Location loc,
                                                      const SharedTile &tile,
                                                      Value r, Value c) {
  if (!tile.swizzleElems)
    return {tile.buffer, {r, c}};
  IndexMath im{b, loc};
  int64_t panelElems = tile.swizzleElems;
  int64_t chunk = chunkElems(tile);
  // n chunks a panel row; 8 / n rows share each 128 bytes of banks.
  int64_t chunks = panelElems / chunk;
  int64_t rowsPerBankRow = std::max<int64_t>(8 / chunks, 1);
  Value panel = im.div(c, im.c(panelElems));
  Value row = im.add(im.mul(panel, im.c(tile.logicalRows)), r);
  Value bankRow = rowsPerBankRow > 1 ? im.div(r, im.c(rowsPerBankRow)) : r;
  Value phase = im.rem(bankRow, im.c(chunks));
  // The panel row starts at a multiple of P in `flat` (flatOffset is one),
  // so the XOR changes the chunk bits of the column only.
  Value index = im.add(tile.flatOffset, im.add(im.mul(row, im.c(panelElems)),
                                               im.rem(c, im.c(panelElems))));
  Value swizzled =
      arith::XOrIOp::create(b, loc, index, im.mul(phase, im.c(chunk)));
  return {tile.flat, {swizzled}};
}

SharedAddress mlir::ukernel::gpucg::stepSharedAddress(
    OpBuilder &b, Location loc, const SharedTile &tile, const SharedAddress &at,
    int64_t rows, int64_t cols) {
  IndexMath im{b, loc};
  if (!tile.swizzleElems)
    return {
        at.memref,
        {im.add(at.indices[0], im.c(rows)), im.add(at.indices[1], im.c(cols))}};
  int64_t panel = tile.swizzleElems;
  assert(rows % 8 == 0 && cols % (2 * chunkElems(tile)) == 0 &&
         "a step the swizzle does not carry over");
  // Whole panels and rows move by their size; the rest of the columns stay
  // in the panel row, whose chunk bits they XOR.
  Value index = at.indices[0];
  if (cols % panel)
    index = arith::XOrIOp::create(b, loc, index, im.c(cols % panel));
  int64_t move = (cols / panel) * tile.logicalRows * panel + rows * panel;
  if (move)
    index = im.add(index, im.c(move));
  return {at.memref, {index}};
}

namespace {

/// How the block's threads split a stored tile: runs of `width` elements
/// along the contiguous dimension, dealt round-robin, `rounds` per thread.
struct RunLayout {
  int64_t width, runsPerRow, runs, rounds;

  RunLayout(const StagingCopy &copy, int64_t threads) {
    width = copy.contiguous ? std::gcd(std::max<int64_t>(copy.vectorWidth, 1),
                                       copy.tileCols)
                            : 1;
    runsPerRow = copy.tileCols / width;
    runs = copy.tileRows * runsPerRow;
    rounds = (runs + threads - 1) / threads;
  }

  /// The thread's run of `round`.
  Value run(IndexMath &im, const ThreadContext &thread, Value round,
            int64_t threads) const {
    return im.add(thread.tid, im.mul(round, im.c(threads)));
  }

  /// Slice position (r, c) of `run`.
  std::pair<Value, Value> position(OpBuilder &b, Location loc,
                                   Value run) const {
    IndexMath im{b, loc};
    Value perRow = im.c(runsPerRow);
    return {im.div(run, perRow), im.mul(im.rem(run, perRow), im.c(width))};
  }

  /// Every thread has a run in every round.
  bool even(int64_t threads) const { return runs % threads == 0; }

  /// Calls `body` for `run`, under a check that the run exists unless every
  /// thread has one in every round.
  void ifRunExists(OpBuilder &b, Location loc, Value run, int64_t threads,
                   function_ref<void(OpBuilder &)> body) const {
    if (even(threads)) {
      body(b);
      return;
    }
    IndexMath im{b, loc};
    scf::IfOp::create(b, loc, im.lt(run, im.c(runs)),
                      [&](OpBuilder &tb, Location l) {
                        body(tb);
                        scf::YieldOp::create(tb, l);
                      });
  }
};

} // namespace

void mlir::ukernel::gpucg::emitStagingCopy(OpBuilder &b, Location loc,
                                           const ThreadContext &thread,
                                           int64_t threads,
                                           const StagingCopy &copy) {
  IndexMath im{b, loc};
  RunLayout layout(copy, threads);
  Stager stager(b, loc, copy);
  scf::ForOp::create(
      b, loc, im.c(0), im.c(layout.rounds), im.c(1), ValueRange{},
      [&](OpBuilder &lb, Location l, Value round, ValueRange) {
        IndexMath lm{lb, l};
        Value run = layout.run(lm, thread, round, threads);
        layout.ifRunExists(lb, l, run, threads, [&](OpBuilder &rb) {
          auto [r, c] = layout.position(rb, l, run);
          stager.copyRun(rb, r, c, layout.width);
        });
        scf::YieldOp::create(lb, l);
      });
}

SmallVector<Value> mlir::ukernel::gpucg::emitStagingLoads(
    OpBuilder &b, Location loc, const ThreadContext &thread, int64_t threads,
    const StagingCopy &copy) {
  IndexMath im{b, loc};
  RunLayout layout(copy, threads);
  Stager stager(b, loc, copy);
  SmallVector<Value> loaded;
  // Unrolled: each round's registers are a value of their own.
  for (int64_t round = 0; round < layout.rounds; ++round) {
    Value run = layout.run(im, thread, im.c(round), threads);
    auto load = [&](OpBuilder &rb) {
      auto [r, c] = layout.position(rb, loc, run);
      return stager.loadRun(rb, r, c, layout.width);
    };
    if (layout.even(threads)) {
      loaded.push_back(load(b));
      continue;
    }
    auto ifOp = scf::IfOp::create(
        b, loc, im.lt(run, im.c(layout.runs)),
        [&](OpBuilder &tb, Location l) {
          scf::YieldOp::create(tb, l, load(tb));
        },
        [&](OpBuilder &fb, Location l) {
          scf::YieldOp::create(fb, l, stager.zeroRun(fb, layout.width));
        });
    loaded.push_back(ifOp.getResult(0));
  }
  return loaded;
}

void mlir::ukernel::gpucg::emitStagingStores(OpBuilder &b, Location loc,
                                             const ThreadContext &thread,
                                             int64_t threads,
                                             const StagingCopy &copy,
                                             ValueRange loaded) {
  IndexMath im{b, loc};
  RunLayout layout(copy, threads);
  assert(static_cast<int64_t>(loaded.size()) == layout.rounds &&
         "one loaded value per round");
  Stager stager(b, loc, copy);
  for (int64_t round = 0; round < layout.rounds; ++round) {
    Value run = layout.run(im, thread, im.c(round), threads);
    layout.ifRunExists(b, loc, run, threads, [&](OpBuilder &sb) {
      auto [r, c] = layout.position(sb, loc, run);
      stager.storeShared(sb, loaded[round], r, c);
    });
  }
}
