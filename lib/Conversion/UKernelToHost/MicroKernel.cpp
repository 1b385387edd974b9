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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

/// f32 elements per 64-byte cache line: one prefetch each.
static constexpr int64_t kF32PerLine = 16;

MicroKernelReader::AReader
mlir::ukernel::host::packedAReader(const KernelSpec &spec, Value packedA,
                                   Value aOffset) {
  return [=, mr = spec.mr](OpBuilder &b, Location loc, Value k, int64_t i) {
    IndexMath im{b, loc};
    Value at = im.add(im.add(aOffset, im.mul(k, im.c(mr))), im.c(i));
    return memref::LoadOp::create(b, loc, packedA, ValueRange{at}).getResult();
  };
}

MicroKernelReader::BReader
mlir::ukernel::host::packedBReader(const KernelSpec &spec, Value packedB,
                                   Value bOffset) {
  // Packed panels are zero-padded: every vector is loaded whole.
  return [=, nr = spec.nr, lanes = spec.lanes, compute = spec.computeType()](
             OpBuilder &b, Location loc, Value k, int64_t j, bool) {
    IndexMath im{b, loc};
    Value at = im.add(im.add(bOffset, im.mul(k, im.c(nr))), im.c(j * lanes));
    auto vecType = VectorType::get({lanes}, compute);
    return vector::LoadOp::create(b, loc, vecType, packedB, ValueRange{at})
        .getResult();
  };
}

MicroKernelReader::AReader
mlir::ukernel::host::inPlaceAReader(OpBuilder &b, Location loc,
                                    const KernelSpec &spec, Value a, Value row,
                                    Value rows, Value k0) {
  IndexMath im{b, loc};
  // Row i of the block reads row min(i, rows - 1): in bounds, and without a
  // branch in the k loop.
  SmallVector<Value> aRows;
  Value lastRow = im.sub(rows, im.c(1));
  for (int64_t i = 0; i < spec.mr; ++i)
    aRows.push_back(im.add(row, im.min(im.c(i), lastRow)));
  return [=, transposed = spec.transposeA](OpBuilder &ob, Location l, Value k,
                                           int64_t i) {
    IndexMath om{ob, l};
    SmallVector<Value> index = {aRows[i], k0 ? om.add(k0, k) : k};
    if (transposed)
      std::swap(index[0], index[1]);
    return memref::LoadOp::create(ob, l, a, index).getResult();
  };
}

MicroKernelReader mlir::ukernel::host::inPlaceReader(OpBuilder &b, Location loc,
                                                     const KernelSpec &spec,
                                                     Value a, Value bmat,
                                                     Value row, Value col,
                                                     Value rows, Value cols) {
  IndexMath im{b, loc};
  MicroKernelReader read;
  read.a = inPlaceAReader(b, loc, spec, a, row, rows, /*k0=*/Value());
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
  auto vecType = VectorType::get({spec.lanes}, spec.computeType());
  Value zeroVec =
      arith::ConstantOp::create(b, loc, vecType, b.getZeroAttr(vecType));
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
  // One prefetch per line of each row; rows and columns past the edge
  // repeat the last valid ones.
  Value lastRow = im.sub(rows, im.c(1)), lastCol = im.sub(cols, im.c(1));
  for (int64_t i = 0; i < spec.mr; ++i) {
    Value r = im.add(row, im.min(im.c(i), lastRow));
    for (int64_t j = 0; j < spec.nr; j += kF32PerLine)
      memref::PrefetchOp::create(
          b, loc, c, ValueRange{r, im.add(col, im.min(im.c(j), lastCol))},
          b.getBoolAttr(true), b.getI32IntegerAttr(3), b.getBoolAttr(true));
  }
}

/// The function that prefetches `mr` rows of an f32 A from (row, k0), kb
/// columns each (prefetchARows), created once per module. A is taken as a
/// fully dynamic strided matrix, so one function serves every layout.
static func::FuncOp getOrCreateRowPrefetcher(ModuleOp module, Location loc,
                                             int64_t mr) {
  std::string name = "__quilt_host_prefetch_a_rows_r" + std::to_string(mr);
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;

  MLIRContext *ctx = module.getContext();
  int64_t dyn = ShapedType::kDynamic;
  auto aType =
      MemRefType::get({dyn, dyn}, Float32Type::get(ctx),
                      StridedLayoutAttr::get(ctx, dyn, {dyn, dyn}));
  OpBuilder mb(ctx);
  mb.setInsertionPointToEnd(module.getBody());
  Type index = mb.getIndexType();
  auto func = func::FuncOp::create(
      mb, loc, name, FunctionType::get(ctx, {aType, index, index, index}, {}));
  func.setPrivate();
  func->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
  // Out of line: inlined, the prefetch loop (never entered there) cost the
  // Q x K^T products 2-3% (B=48 M=145 N=145 K=64, one Zen 5 core), its
  // mere presence changing the code of the register-block loop.
  func->setAttr("passthrough", mb.getArrayAttr({mb.getStringAttr("noinline")}));

  Block *body = func.addEntryBlock();
  mb.setInsertionPointToStart(body);
  Value a = body->getArgument(0), row = body->getArgument(1),
        k0 = body->getArgument(2), kb = body->getArgument(3);
  IndexMath im{mb, loc};
  Value lastRow = im.sub(memref::DimOp::create(mb, loc, a, 0), im.c(1));
  SmallVector<Value> rows;
  for (int64_t i = 0; i < mr; ++i)
    rows.push_back(im.min(im.add(row, im.c(i)), lastRow));
  auto prefetchColumn = [&](OpBuilder &ob, Value col) {
    for (Value r : rows)
      memref::PrefetchOp::create(ob, loc, a, ValueRange{r, col},
                                 /*isWrite=*/false, /*localityHint=*/3,
                                 /*isDataCache=*/true);
  };
  // One prefetch per line of each row from the block's first column, and
  // the last column's, for rows that start mid-line.
  Value end = im.add(k0, kb);
  scf::ForOp::create(mb, loc, k0, end, im.c(kF32PerLine), ValueRange{},
                     [&](OpBuilder &lb, Location, Value col, ValueRange) {
                       prefetchColumn(lb, col);
                       scf::YieldOp::create(lb, loc);
                     });
  prefetchColumn(mb, im.sub(end, im.c(1)));
  func::ReturnOp::create(mb, loc);
  return func;
}

void mlir::ukernel::host::prefetchARows(OpBuilder &b, Location loc,
                                        const KernelSpec &spec, ModuleOp module,
                                        Value a, Value row, Value k0,
                                        Value kb, Value firstReads) {
  IndexMath im{b, loc};
  // Where the block's rows are contiguous (a K block that is all of a
  // row-major A's K), they are one stream the hardware prefetcher follows.
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, a);
  Value prefetch = arith::AndIOp::create(
      b, loc, im.lt(kb, meta.getStrides()[0]), firstReads);
  func::FuncOp prefetcher = getOrCreateRowPrefetcher(module, loc, spec.mr);
  scf::IfOp::create(b, loc, prefetch, [&](OpBuilder &tb, Location l) {
    Value view = memref::CastOp::create(
        tb, l, prefetcher.getArgumentTypes().front(), a);
    func::CallOp::create(tb, l, prefetcher, ValueRange{view, row, k0, kb});
    scf::YieldOp::create(tb, l);
  });
}

void mlir::ukernel::host::emitTileUpdate(
    OpBuilder &b, Location loc, const KernelSpec &spec, ArrayRef<Value> accs,
    Value c, Value row, Value col, Value rows, Value cols,
    const EpilogueSources &sources, bool withEpilogue, bool fromFill) {
  IndexMath im{b, loc};
  int64_t nv = spec.numVectors();
  auto vecType = VectorType::get({spec.lanes}, spec.computeType());
  auto maskType = VectorType::get({spec.lanes}, b.getI1Type());

  // The epilogue's inputs of each column vector j, shared by every row.
  auto columnInputs = [&](OpBuilder &ob, Location l, ArrayRef<Value> masks) {
    SmallVector<SmallVector<Value>> inputs(nv);
    if (!withEpilogue)
      return inputs;
    IndexMath om{ob, l};
    for (int64_t j = 0; j < nv; ++j)
      inputs[j] = loadColumnEpilogueInputs(
          ob, l, spec, sources, om.add(col, om.c(j * spec.lanes)), spec.lanes,
          masks.empty() ? Value() : masks[j]);
    return inputs;
  };

  // C = epilogue(C + acc) on vector j of row i; `masks` empty for a whole
  // tile.
  auto update = [&](OpBuilder &ob, Location l, int64_t i, int64_t j,
                    ArrayRef<Value> masks, ArrayRef<Value> column) {
    IndexMath om{ob, l};
    Value r = om.add(row, om.c(i));
    Value cj = om.add(col, om.c(j * spec.lanes));
    SmallVector<Value> idx = {r, cj};
    Value mask = masks.empty() ? Value() : masks[j];
    Value old;
    if (fromFill) {
      // A folded fill: the tile starts from its value, C is not read.
      auto value =
          FloatAttr::get(spec.computeType(), spec.fill.getValueAsDouble());
      old = arith::ConstantOp::create(
          ob, l, vecType, DenseElementsAttr::get(vecType, value.getValue()));
    } else if (mask) {
      Value passThru =
          arith::ConstantOp::create(ob, l, vecType, ob.getZeroAttr(vecType));
      old =
          vector::MaskedLoadOp::create(ob, l, vecType, c, idx, mask, passThru);
    } else {
      old = vector::LoadOp::create(ob, l, vecType, c, idx);
    }
    Value sum = arith::AddFOp::create(ob, l, old, accs[i * nv + j]);
    if (withEpilogue)
      sum = emitElementEpilogue(ob, l, spec, sources, column, sum, r, cj,
                                spec.lanes, mask);
    if (mask)
      vector::MaskedStoreOp::create(ob, l, c, idx, mask, sum);
    else
      vector::StoreOp::create(ob, l, sum, c, idx);
  };

  Value full = arith::AndIOp::create(b, loc, im.eq(rows, im.c(spec.mr)),
                                     im.eq(cols, im.c(spec.nr)));
  scf::IfOp::create(
      b, loc, full,
      [&](OpBuilder &tb, Location l) {
        // The common case: whole vectors, no masks.
        SmallVector<SmallVector<Value>> columns = columnInputs(tb, l, {});
        for (int64_t i = 0; i < spec.mr; ++i)
          for (int64_t j = 0; j < nv; ++j)
            update(tb, l, i, j, {}, columns[j]);
        scf::YieldOp::create(tb, l);
      },
      [&](OpBuilder &eb, Location l) {
        // An edge tile: rows past `rows` are skipped, columns past `cols`
        // masked off.
        IndexMath em{eb, l};
        SmallVector<Value> masks;
        for (int64_t j = 0; j < nv; ++j)
          masks.push_back(vector::CreateMaskOp::create(
              eb, l, maskType, ValueRange{em.sub(cols, em.c(j * spec.lanes))}));
        SmallVector<SmallVector<Value>> columns = columnInputs(eb, l, masks);
        for (int64_t i = 0; i < spec.mr; ++i) {
          scf::IfOp::create(eb, l, em.lt(em.c(i), rows),
                            [&](OpBuilder &rb, Location rl) {
                              for (int64_t j = 0; j < nv; ++j)
                                update(rb, rl, i, j, masks, columns[j]);
                              scf::YieldOp::create(rb, rl);
                            });
        }
        scf::YieldOp::create(eb, l);
      });
}
