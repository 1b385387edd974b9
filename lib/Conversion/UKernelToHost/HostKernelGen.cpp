//===- HostKernelGen.cpp - One kernel function per candidate --------------===//
//
// Part of the Quilt project. A kernel function computes C = epilogue(C + A*B)
// on one region of a dispatch's GEMM view, for every batch element, in the
// BLIS loop structure:
//
//   for jc in N by nc:            B panel (kc x nc) lives in the last level
//     for pc in K by kc:          pack B[pc:, jc:] into nr-wide micro-panels
//       for ic in M by mc:        pack A[ic:, pc:] into mr-tall micro-panels
//         for jr in nc by nr:     one B micro-panel stays in L1
//           for ir in mc by mr:   mr x nr accumulators in vector registers
//
// The multi-threaded kernel (KernelSpec::parallel) runs the cache blocks
// (batch, jc, ic) as the iterations of one scf.parallel instead, each with
// its own packing buffers and its whole K loop: one cache block per core at
// a time, which is what the cost model assumes of CPUs.
//
// Packing zero-pads the last micro-panels, so the micro-kernel always runs
// full mr x nr x kb; only the update of C is masked at the edges. A
// configuration whose N block holds few register-block columns (and whose
// register blocks have few rows) does not pack A (KernelSpec::readsAInPlace):
// each A block would be read from its packed copy only that few times, so
// its register blocks read A's rows where they are stored.
//
// A problem small enough not to need the cache blocks skips packing
// (chooseOperandReads): the two inner loops run over it directly, reading A
// and B where they are stored, each register block over all of K. So does a
// skinny one (at most 16 rows), K block by K block.
//
//===----------------------------------------------------------------------===//

#include "HostKernel.h"

#include "Conversion/Utils/ConvIndex.h"
#include "CostModel/KernelConfig.h"
#include "Dialect/UKernel/IR/CostModelBridge.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::host;

//===----------------------------------------------------------------------===//
// KernelSpec
//===----------------------------------------------------------------------===//

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

bool KernelSpec::readsAInPlace() const {
  std::optional<quilt::ElemType> elem = toCostModelElemType(inputType);
  return !isConv() && elem && quilt::cpuReadsAInPlace(nc, mr, nr, *elem);
}

std::string KernelSpec::symbolName() const {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "__quilt_host_"
     << (isConv() ? stringifyContractionKind(kind) : StringRef("gemm")) << "_"
     << mc << "x" << nc << "x" << kc << "_r" << mr << "x" << nr << "_v" << lanes
     << "_" << typeName(inputType) << "_" << typeName(accType);
  if (biasType)
    os << "_bias_" << typeName(biasType);
  os << epilogueSymbolSuffix(epilogue, fused, fill);
  if (isBatched())
    os << "_batch";
  if (isConv() && (strideH != 1 || strideW != 1))
    os << "_s" << strideH << "x" << strideW;
  if (isConv() && (dilationH != 1 || dilationW != 1))
    os << "_d" << dilationH << "x" << dilationW;
  if (isConv() && stagedConvOutput)
    os << "_staged";
  if (!isConv() && transposeA)
    os << "_ta";
  if (!isConv() && transposeB)
    os << "_tb";
  // Non-contiguous operands, by position.
  if (!isConv() && (!contiguousA || !contiguousB || !contiguousC))
    os << "_strided" << (contiguousA ? "" : "A") << (contiguousB ? "" : "B")
       << (contiguousC ? "" : "C");
  if (parallel)
    os << "_par";
  return name;
}

SmallVector<Type> KernelSpec::argumentTypes(MLIRContext *ctx) const {
  int64_t dyn = ShapedType::kDynamic;
  // A strided view with dynamic sizes, strides and offset; the inner stride
  // is a static 1 when `unitInner`.
  auto strided = [&](Type elem, int64_t rank, bool unitInner) {
    SmallVector<int64_t> shape(rank, dyn), strides(rank, dyn);
    if (unitInner)
      strides.back() = 1;
    return MemRefType::get(shape, elem,
                           StridedLayoutAttr::get(ctx, dyn, strides));
  };
  auto identity = [&](Type elem, int64_t rank) {
    return MemRefType::get(SmallVector<int64_t>(rank, dyn), elem);
  };
  SmallVector<Type> types;
  if (isConv()) {
    types = {strided(inputType, 4, false), identity(inputType, 4),
             stagedConvOutput ? Type(strided(accType, 4, false))
                              : Type(identity(accType, 4))};
  } else {
    int64_t rank = matrixRank();
    types = {strided(inputType, rank, contiguousA),
             strided(inputType, rank, contiguousB),
             strided(accType, rank, contiguousC)};
  }
  if (biasType)
    types.push_back(strided(biasType, 1, false));
  if (fused) {
    for (auto [i, kind] : llvm::enumerate(fused.kinds)) {
      Type elem = fused.operandElementType(i);
      if (kind == EpilogueOperandKind::scalar)
        types.push_back(elem);
      else
        types.push_back(strided(
            elem, kind == EpilogueOperandKind::per_element ? matrixRank() : 1,
            /*unitInner=*/true));
    }
  }
  types.append(4, IndexType::get(ctx));
  return types;
}

func::FuncOp KernelCache::getOrCreate(const KernelSpec &spec, Location loc) {
  std::string name = spec.symbolName();
  if (auto existing = symbols.lookup<func::FuncOp>(name))
    return existing;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(
      b, loc, name, FunctionType::get(ctx, spec.argumentTypes(ctx), {}));
  func.setPrivate();
  // Internal linkage once in LLVM: the kernels are not part of the
  // library's interface, and the optimizer may specialize them.
  func->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
  symbols.insert(func);
  buildKernelBody(b, loc, spec, func);
  return func;
}

//===----------------------------------------------------------------------===//
// Kernel body
//===----------------------------------------------------------------------===//

namespace {

/// The smallest problem (batch * M * N * K) a multi-threaded kernel runs in
/// parallel: about 40 us of one core's work at 100 GFLOP/s, ten times a
/// fork and join of an idle OpenMP team.
constexpr int64_t kParallelMinMacs = int64_t(1) << 21;

/// How many register blocks ahead a K block's rows of an A read in place are
/// prefetched (prefetchARows), after a block's update: so the rows arrive
/// about two blocks' compute before their block. Rows of a K block shorter
/// than A's are separate 256- to 512-byte runs, too short for the hardware
/// prefetchers. Measured on one Zen 5 core (docs/benchmarks.md, "Host,
/// attention products held out"): the P x V product batch_matmul B=24 M=401
/// N=64 K=401 (4x64 blocks, kc = 64) ran 0.63-0.9x oneDNN from one process
/// to the next without, 0.97-1.11x with the prefetches.
constexpr int64_t kAPrefetchBlocksAhead = 3;

/// The smallest block of C (mb * nb f32 elements, 128 KiB) whose tiles are
/// prefetched before their micro-kernels.
constexpr int64_t kPrefetchMinElems = int64_t(1) << 15;

Value convert(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// The [offsets, offsets + sizes) window of the last two dimensions of a
/// matrix view, all of its batch dimension (if any).
Value matrixWindow(OpBuilder &b, Location loc, Value view, Value row0,
                   Value col0, Value rows, Value cols) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<OpFoldResult> offsets, sizes;
  if (type.getRank() == 3) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(memref::getMixedSize(b, loc, view, 0));
  }
  offsets.append({row0, col0});
  sizes.append({rows, cols});
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, view, offsets, sizes, strides);
}

/// Batch element `index` of a rank-3 view as a rank-2 view; a rank-2 view
/// is its own single batch element.
Value batchElement(OpBuilder &b, Location loc, Value view, Value index) {
  auto type = cast<MemRefType>(view.getType());
  if (type.getRank() != 3)
    return view;
  SmallVector<OpFoldResult> offsets = {index, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                     memref::getMixedSize(b, loc, view, 1),
                                     memref::getMixedSize(b, loc, view, 2)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(1), type.getDimSize(2)}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, resultType, view, offsets, sizes,
                                   strides);
}

/// The per-block scratch buffers, allocated once per kernel call (or per
/// parallel iteration).
struct PackBuffers {
  Value packedA, packedB, rowOffsets, kOffsets;

  static PackBuffers allocate(OpBuilder &b, Location loc,
                              const KernelSpec &spec) {
    Type f32 = spec.computeType();
    IntegerAttr align = b.getI64IntegerAttr(64);
    // Whole micro-panels, so the zero padding of the last one fits.
    int64_t mcPadded = llvm::divideCeil(spec.mc, spec.mr) * spec.mr;
    int64_t ncPadded = llvm::divideCeil(spec.nc, spec.nr) * spec.nr;
    PackBuffers buffers;
    if (!spec.readsAInPlace())
      buffers.packedA = memref::AllocOp::create(
          b, loc, MemRefType::get({mcPadded * spec.kc}, f32), align);
    buffers.packedB = memref::AllocOp::create(
        b, loc, MemRefType::get({spec.kc * ncPadded}, f32), align);
    if (spec.isConv()) {
      Type index = b.getIndexType();
      buffers.rowOffsets = memref::AllocOp::create(
          b, loc, MemRefType::get({mcPadded}, index), align);
      buffers.kOffsets = memref::AllocOp::create(
          b, loc, MemRefType::get({spec.kc}, index), align);
    }
    return buffers;
  }

  void deallocate(OpBuilder &b, Location loc) {
    for (Value buffer : {packedA, packedB, rowOffsets, kOffsets})
      if (buffer)
        memref::DeallocOp::create(b, loc, buffer);
  }
};

/// The operands of the GEMM the blocked loops compute on, for one batch
/// element: A (or its im2col source), B and the f32 C with contiguous rows.
struct BlockOperands {
  ASource a;
  Value b, c;
  EpilogueSources epilogue;
};

/// Everything the loops need, over all batch elements of the region.
struct RegionOperands {
  ASource a;  ///< matrix: the region's (batched) view
  Value b, c; ///< the region's (batched) views
  /// The zero-padded f32 bias of the region's columns, and the fused
  /// epilogue's operands as the region's views (batched per_element ones).
  EpilogueSources epilogue;
  Value batch, m, n, k;

  BlockOperands at(OpBuilder &ob, Location loc, Value index) const {
    BlockOperands v;
    v.a = a;
    if (a.matrix)
      v.a.matrix = batchElement(ob, loc, a.matrix, index);
    v.b = batchElement(ob, loc, b, index);
    v.c = batchElement(ob, loc, c, index);
    v.epilogue = epilogue;
    for (Value &view : v.epilogue.fused)
      if (auto type = dyn_cast<MemRefType>(view.getType());
          type && type.getRank() == 3)
        view = batchElement(ob, loc, view, index);
    return v;
  }
};

void forLoop(OpBuilder &b, Location loc, Value lb, Value ub, int64_t step,
             function_ref<void(OpBuilder &, Value)> body) {
  IndexMath im{b, loc};
  scf::ForOp::create(b, loc, lb, ub, im.c(step), ValueRange{},
                     [&](OpBuilder &ib, Location, Value iv, ValueRange) {
                       body(ib, iv);
                       scf::YieldOp::create(ib, loc);
                     });
}

/// The micro-kernel for a panel of `cols` columns: at the N edge, only the
/// vectors that hold columns are multiplied (the panel reads as zeros past
/// them). Small matrices, such as attention's per-head products with N = 24
/// or 43 against nr = 64, would otherwise spend most FMAs on padding. A
/// reader that masks partial vectors gets one more micro-kernel, for whole
/// panels, without masks.
SmallVector<Value> emitEdgeAwareMicroKernel(OpBuilder &b, Location loc,
                                            const KernelSpec &spec,
                                            const MicroKernelReader &read,
                                            Value depth, Value cols) {
  int64_t nv = spec.numVectors();
  // One micro-kernel per count of vectors that hold columns, the last of
  // them possibly partial.
  auto byVectorCount = [&](OpBuilder &ob) -> SmallVector<Value> {
    if (nv == 1)
      return emitMicroKernel(ob, loc, spec, read, depth, nv,
                             /*lastWhole=*/false);
    IndexMath im{ob, loc};
    Value vectors = im.ceilDiv(cols, im.c(spec.lanes));
    SmallVector<int64_t> cases;
    for (int64_t v = 1; v < nv; ++v)
      cases.push_back(v);
    auto vecType = VectorType::get({spec.lanes}, spec.computeType());
    SmallVector<Type> types(spec.mr * nv, vecType);
    auto sw = scf::IndexSwitchOp::create(ob, loc, types, vectors, cases,
                                         cases.size());
    auto fill = [&](Region &region, int64_t count) {
      OpBuilder rb = OpBuilder::atBlockBegin(&region.emplaceBlock());
      SmallVector<Value> accs = emitMicroKernel(rb, loc, spec, read, depth,
                                                count, /*lastWhole=*/false);
      scf::YieldOp::create(rb, loc, accs);
    };
    for (auto [region, count] : llvm::zip(sw.getCaseRegions(), cases))
      fill(region, count);
    fill(sw.getDefaultRegion(), nv);
    return SmallVector<Value>(sw.getResults());
  };
  if (!read.masksPartialVectors)
    return byVectorCount(b);
  IndexMath im{b, loc};
  auto ifOp = scf::IfOp::create(
      b, loc, im.eq(cols, im.c(spec.nr)),
      [&](OpBuilder &tb, Location l) {
        scf::YieldOp::create(tb, l,
                             emitMicroKernel(tb, l, spec, read, depth, nv,
                                             /*lastWhole=*/true));
      },
      [&](OpBuilder &eb, Location l) {
        scf::YieldOp::create(eb, l, byVectorCount(eb));
      });
  return SmallVector<Value>(ifOp.getResults());
}

/// Adds `accs`, one K block's product for a register block, to the tile of
/// `c` at (row, col), applying the epilogue when `isLast` holds (the last K
/// block): the epilogue applies to the finished sum only. With a folded
/// fill, the first K block (`isFirst`) starts from the fill instead of C.
void emitBlockUpdate(OpBuilder &b, Location loc, const KernelSpec &spec,
                     ArrayRef<Value> accs, Value c,
                     const EpilogueSources &sources, Value row, Value col,
                     Value rows, Value cols, Value isFirst, Value isLast) {
  // `emit(builder, flag)`: specialized on `cond` when `specialize` holds,
  // else once with the flag false.
  auto branch = [&](OpBuilder &ob, Value cond, bool specialize,
                    function_ref<void(OpBuilder &, bool)> emit) {
    if (!specialize) {
      emit(ob, false);
      return;
    }
    scf::IfOp::create(
        ob, loc, cond,
        [&](OpBuilder &tb, Location l) {
          emit(tb, true);
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &eb, Location l) {
          emit(eb, false);
          scf::YieldOp::create(eb, l);
        });
  };
  branch(b, isLast, spec.hasEpilogue(), [&](OpBuilder &lb, bool last) {
    branch(lb, isFirst, bool(spec.fill), [&](OpBuilder &fb, bool first) {
      emitTileUpdate(fb, loc, spec, accs, c, row, col, rows, cols, sources,
                     /*withEpilogue=*/last, /*fromFill=*/first);
    });
  });
}

/// The two inner loops over one mb x kb block of A (packed, or read in
/// place from `a` at column `pc` when spec.readsAInPlace()) and one packed
/// kb x nb panel of B: each register block of C at (ic + ir, jc + jr) gets
/// its product, and the epilogue when `isLast` (the last K block).
void emitMacroKernel(OpBuilder &b, Location loc, const KernelSpec &spec,
                     const PackBuffers &buffers, const ASource &a, Value c,
                     const EpilogueSources &sources, Value ic, Value jc,
                     Value pc, Value mb, Value nb, Value kb, Value isFirst,
                     Value isLast) {
  IndexMath im{b, loc};
  Value kcV = im.c(spec.kc);
  // A block of C past kPrefetchMinElems is not in L1/L2 when the K loop
  // comes back to it: each tile is prefetched before its micro-kernel. A
  // smaller one is, and prefetching it only costs instructions.
  Value prefetchC = im.lt(im.c(kPrefetchMinElems - 1), im.mul(mb, nb));
  forLoop(b, loc, im.c(0), nb, spec.nr, [&](OpBuilder &b4, Value jr) {
    IndexMath m4{b4, loc};
    Value cols = m4.min(m4.c(spec.nr), m4.sub(nb, jr));
    Value col = m4.add(jc, jr);
    Value bOffset = m4.mul(jr, kcV);
    forLoop(b4, loc, m4.c(0), mb, spec.mr, [&](OpBuilder &b5, Value ir) {
      IndexMath m5{b5, loc};
      Value rows = m5.min(m5.c(spec.mr), m5.sub(mb, ir));
      Value row = m5.add(ic, ir);
      scf::IfOp::create(b5, loc, prefetchC, [&](OpBuilder &pb, Location l) {
        prefetchTile(pb, l, spec, c, row, col, rows, cols);
        scf::YieldOp::create(pb, l);
      });
      MicroKernelReader read;
      read.a = spec.readsAInPlace()
                   ? inPlaceAReader(b5, loc, spec, a.matrix, row, rows, pc)
                   : packedAReader(spec, buffers.packedA, m5.mul(ir, kcV));
      read.b = packedBReader(spec, buffers.packedB, bOffset);
      SmallVector<Value> accs =
          emitEdgeAwareMicroKernel(b5, loc, spec, read, kb, cols);
      emitBlockUpdate(b5, loc, spec, accs, c, sources, row, col, rows, cols,
                      isFirst, isLast);
      // A's rows for a later block, in the N block's first register-block
      // column only: the later columns find them in L2 (prefetching in
      // every column cost BERT's large products 3-9%). After the update,
      // where no vector value is live across the call: issued before the
      // micro-kernel, the call (even never made) made the OpenMP-outlined
      // 8x48 kernel spill its accumulators and run at half speed (B=16
      // M=1025 N=1025 K=64, two threads: 5.3 -> 12.1 ms).
      if (spec.readsAInPlace() && !spec.transposeA) {
        Value ahead = m5.add(row, m5.c(kAPrefetchBlocksAhead * spec.mr));
        Value firstColumn = m5.eq(jr, m5.c(0));
        prefetchARows(b5, loc, spec, a.module, a.matrix, ahead, pc, kb,
                      firstColumn);
      }
    });
  });
}

/// One K block of `blockSize` rows from `pc`: its size, and whether it is
/// the first and the last.
struct KBlock {
  Value pc, kb, isFirst, isLast;
};

KBlock kBlock(OpBuilder &b, Location loc, int64_t blockSize, Value pc,
              Value k) {
  IndexMath im{b, loc};
  Value kb = im.min(im.c(blockSize), im.sub(k, pc));
  return {pc, kb, im.eq(pc, im.c(0)), im.eq(im.add(pc, kb), k)};
}

/// Whether the kernel can multiply its operands where they are stored: B's
/// rows must be contiguous along N (its vectors are loaded from them); A is
/// read a scalar at a time either way. f16/bf16 operands are packed: read in
/// place, every element would be widened once per register block that uses
/// it (A's scalars cost a conversion and a broadcast each, against a
/// broadcast FMA operand when packed), which measured slower than packing
/// on the BERT per-head products (0.82x against 0.86x OpenBLAS).
bool canReadInPlace(const KernelSpec &spec) {
  return !spec.isConv() && !spec.transposeB && spec.contiguousB &&
         spec.inputType.isF32();
}

/// The product of one batch element with its operands read in place, over
/// columns [col0, colEnd): the register blocks of C, each over all of K (a
/// single K block), with the epilogue.
void emitInPlaceProduct(OpBuilder &b, Location loc, const KernelSpec &spec,
                        const BlockOperands &v, Value m, Value col0,
                        Value colEnd, Value k) {
  forLoop(b, loc, col0, colEnd, spec.nr, [&](OpBuilder &b1, Value jr) {
    IndexMath m1{b1, loc};
    Value cols = m1.min(m1.c(spec.nr), m1.sub(colEnd, jr));
    forLoop(b1, loc, m1.c(0), m, spec.mr, [&](OpBuilder &b2, Value ir) {
      IndexMath m2{b2, loc};
      Value rows = m2.min(m2.c(spec.mr), m2.sub(m, ir));
      MicroKernelReader read =
          inPlaceReader(b2, loc, spec, v.a.matrix, v.b, ir, jr, rows, cols);
      SmallVector<Value> accs =
          emitEdgeAwareMicroKernel(b2, loc, spec, read, k, cols);
      emitTileUpdate(b2, loc, spec, accs, v.c, ir, jr, rows, cols, v.epilogue,
                     /*withEpilogue=*/spec.hasEpilogue(),
                     /*fromFill=*/bool(spec.fill));
    });
  });
}

/// The most rows of a product read in place as skinny (OperandReads::Skinny).
/// C's rows are read and written once per K block, from L2 (16 x 12288 f32
/// is 768 KB): at 17 to 64 rows on a 4096 x 4096 B that cost more than
/// packing saves (M = 24: 23 ms against 12.6 packed, Zen 4, one core).
constexpr int64_t kSkinnyRows = 16;

/// The K block of a skinny product: the rows of B read across their width
/// before the next block's. Few rows at a time keep the streams the
/// hardware prefetcher follows few: on Zen 4 (one core) M=5 N=K=4096 took
/// 11.9 ms with the configuration's kc = 128, 4.4 ms with 16, 3.6 ms with
/// 8, 5.5 ms with 4 (C's traffic per block grows); M=1 N=12288 K=4096
/// streamed B at 25 GB/s with 8.
constexpr int64_t kSkinnyKBlock = 8;

/// The product of one batch element with few rows (OperandReads::Skinny),
/// over columns [col0, colEnd), its operands read in place: per K block of
/// kSkinnyKBlock rows, the register blocks of each column strip, added to C
/// (a few rows, which stay in cache). Each K block's rows of B are read
/// across their width before the next block's: the pages and prefetch
/// streams in use stay few, where a strip over all of K would touch a page
/// per row of B (rows of transformer weights are 16-48 KB apart) on every
/// strip.
void emitSkinnyProduct(OpBuilder &b, Location loc, const KernelSpec &spec,
                       const BlockOperands &v, Value m, Value col0,
                       Value colEnd, Value k) {
  IndexMath im{b, loc};
  Value zero = im.c(0);
  Value width = memref::DimOp::create(b, loc, v.b, 1);
  forLoop(b, loc, zero, k, kSkinnyKBlock, [&](OpBuilder &b1, Value pc) {
    KBlock kblk = kBlock(b1, loc, kSkinnyKBlock, pc, k);
    Value a = spec.transposeA
                  ? matrixWindow(b1, loc, v.a.matrix, pc, zero, kblk.kb, m)
                  : matrixWindow(b1, loc, v.a.matrix, zero, pc, m, kblk.kb);
    Value rowsOfB = matrixWindow(b1, loc, v.b, pc, zero, kblk.kb, width);
    forLoop(b1, loc, col0, colEnd, spec.nr, [&](OpBuilder &b2, Value jr) {
      IndexMath m2{b2, loc};
      Value cols = m2.min(m2.c(spec.nr), m2.sub(colEnd, jr));
      auto registerBlock = [&](OpBuilder &b3, Value ir, Value rows) {
        MicroKernelReader read =
            inPlaceReader(b3, loc, spec, a, rowsOfB, ir, jr, rows, cols);
        SmallVector<Value> accs =
            emitEdgeAwareMicroKernel(b3, loc, spec, read, kblk.kb, cols);
        emitBlockUpdate(b3, loc, spec, accs, v.c, v.epilogue, ir, jr, rows,
                        cols, kblk.isFirst, kblk.isLast);
      };
      // The strip's few rows of B stay in L1 across its register blocks.
      // Rows that fit one register block get it without the loop around
      // it: with the loop, M=1 N=12288 K=4096 took 8.4-8.6 ms against
      // 7.6-8.1 ms.
      scf::IfOp::create(
          b2, loc, m2.le(m, m2.c(spec.mr)),
          [&](OpBuilder &tb, Location l) {
            registerBlock(tb, zero, m);
            scf::YieldOp::create(tb, l);
          },
          [&](OpBuilder &eb, Location l) {
            forLoop(eb, loc, zero, m, spec.mr, [&](OpBuilder &b3, Value ir) {
              IndexMath m3{b3, loc};
              registerBlock(b3, ir, m3.min(m3.c(spec.mr), m3.sub(m, ir)));
            });
            scf::YieldOp::create(eb, l);
          });
    });
  });
}

/// The columns of B one parallel iteration of a multi-threaded skinny
/// product reads (rounded up to the register block's nr).
constexpr int64_t kSkinnyParallelColumns = 2048;

/// How a kernel call reads its operands, chosen per call from the sizes.
enum class OperandReads {
  /// Small enough not to need cache blocking: one M block and one N block
  /// (M <= mc, N <= nc), and A and B together no larger than the A block
  /// and B panel the configuration sizes its caches for (M*K + K*N <=
  /// mc*kc + kc*nc). Such operands stay in cache after their first use,
  /// and packing them costs about as much as multiplying them: attention's
  /// per-head products (M, N, K = 5..128) spent a third of their time
  /// packing.
  SmallInPlace,
  /// Skinny: few rows (M <= kSkinnyRows), whatever N and K. B is read
  /// where it is stored, a few rows at a time (kSkinnyKBlock), each strip
  /// of them reused from L1 by the strip's register blocks: B streams from
  /// memory once, where packing would read it, write its copy and read
  /// that again. Decode steps of language models (M = 1..16 against
  /// 4096 x 4096 weights) are bound by that one read.
  Skinny,
  /// Packed cache blocks.
  Packed,
};

/// Emits `read(kind)` for each way the operands may be read, under the
/// run-time conditions that choose between them (OperandReads; both in-place
/// kinds need K > 0 and operands that can be read in place).
void chooseOperandReads(
    OpBuilder &b, Location loc, const KernelSpec &spec, const RegionOperands &r,
    function_ref<void(OpBuilder &, Location, OperandReads)> read) {
  if (!canReadInPlace(spec)) {
    read(b, loc, OperandReads::Packed);
    return;
  }
  IndexMath im{b, loc};
  // M*K and K*N are operand sizes, which the dispatch's checks bound.
  Value aSize = im.mul(r.m, r.k);
  Value bSize = im.mul(r.k, r.n);
  Value footprint = im.add(aSize, bSize);
  int64_t blockFootprint = spec.mc * spec.kc + spec.kc * spec.nc;
  auto all = [&](std::initializer_list<Value> conds) {
    Value result = *conds.begin();
    for (Value cond : llvm::drop_begin(conds))
      result = arith::AndIOp::create(b, loc, result, cond);
    return result;
  };
  Value hasK = im.lt(im.c(0), r.k);
  Value small = all({im.le(r.m, im.c(spec.mc)), im.le(r.n, im.c(spec.nc)),
                     im.le(footprint, im.c(blockFootprint)), hasK});
  Value skinny = all({im.le(r.m, im.c(kSkinnyRows)), hasK});
  auto branch = [&](OpBuilder &ob, Value cond, OperandReads then,
                    function_ref<void(OpBuilder &, Location)> otherwise) {
    scf::IfOp::create(
        ob, loc, cond,
        [&](OpBuilder &tb, Location l) {
          read(tb, l, then);
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &eb, Location l) {
          otherwise(eb, l);
          scf::YieldOp::create(eb, l);
        });
  };
  branch(b, small, OperandReads::SmallInPlace, [&](OpBuilder &ob, Location) {
    branch(ob, skinny, OperandReads::Skinny, [&](OpBuilder &pb, Location l) {
      read(pb, l, OperandReads::Packed);
    });
  });
}

/// The sequential loop nest: B panels are packed once per (jc, pc) and
/// shared by every A block.
void emitSequentialLoops(OpBuilder &b, Location loc, const KernelSpec &spec,
                         const RegionOperands &r) {
  auto forEachBatchElement =
      [&](OpBuilder &ob, Location l,
          function_ref<void(OpBuilder &, const BlockOperands &)> body) {
        IndexMath om{ob, l};
        if (!spec.isBatched()) {
          body(ob, r.at(ob, l, om.c(0)));
          return;
        }
        forLoop(ob, l, om.c(0), r.batch, 1, [&](OpBuilder &b0, Value index) {
          body(b0, r.at(b0, l, index));
        });
      };
  auto inPlace = [&](OpBuilder &ob, Location l, OperandReads reads) {
    forEachBatchElement(ob, l, [&](OpBuilder &b0, const BlockOperands &v) {
      IndexMath m0{b0, l};
      if (reads == OperandReads::Skinny)
        emitSkinnyProduct(b0, l, spec, v, r.m, m0.c(0), r.n, r.k);
      else
        emitInPlaceProduct(b0, l, spec, v, r.m, m0.c(0), r.n, r.k);
    });
  };
  auto packed = [&](OpBuilder &ob, Location l) {
    PackBuffers buffers = PackBuffers::allocate(ob, l, spec);
    forEachBatchElement(ob, l, [&](OpBuilder &b0, const BlockOperands &v) {
      IndexMath m0{b0, l};
      forLoop(b0, l, m0.c(0), r.n, spec.nc, [&](OpBuilder &b1, Value jc) {
        IndexMath m1{b1, l};
        Value nb = m1.min(m1.c(spec.nc), m1.sub(r.n, jc));
        forLoop(b1, l, m1.c(0), r.k, spec.kc, [&](OpBuilder &b2, Value pc) {
          KBlock kblk = kBlock(b2, l, spec.kc, pc, r.k);
          packB(b2, l, spec, v.b, pc, jc, kblk.kb, nb, buffers.packedB);
          forLoop(b2, l, m1.c(0), r.m, spec.mc, [&](OpBuilder &b3, Value ic) {
            IndexMath m3{b3, l};
            Value mb = m3.min(m3.c(spec.mc), m3.sub(r.m, ic));
            ASource a = v.a;
            a.rowOffsets = buffers.rowOffsets;
            a.kOffsets = buffers.kOffsets;
            if (!spec.readsAInPlace())
              packA(b3, l, spec, a, ic, pc, mb, kblk.kb, buffers.packedA);
            emitMacroKernel(b3, l, spec, buffers, a, v.c, v.epilogue, ic, jc,
                            pc, mb, nb, kblk.kb, kblk.isFirst, kblk.isLast);
          });
        });
      });
    });
    buffers.deallocate(ob, l);
  };
  chooseOperandReads(b, loc, spec, r,
                     [&](OpBuilder &ob, Location l, OperandReads reads) {
                       if (reads == OperandReads::Packed)
                         packed(ob, l);
                       else
                         inPlace(ob, l, reads);
                     });
}

/// The multi-threaded loop nest: one parallel iteration per cache block
/// (batch element, jc, ic), each packing its own A block and B panel; or,
/// read in place, one per batch element (small problems) or per batch
/// element and wide block of columns (skinny ones).
void emitParallelLoops(OpBuilder &b, Location loc, const KernelSpec &spec,
                       const RegionOperands &r) {
  auto inPlace = [&](OpBuilder &ob, Location l) {
    IndexMath om{ob, l};
    scf::ParallelOp::create(
        ob, l, ValueRange{om.c(0)}, ValueRange{r.batch}, ValueRange{om.c(1)},
        [&](OpBuilder &pb, Location pl, ValueRange ivs) {
          IndexMath pm{pb, pl};
          emitInPlaceProduct(pb, pl, spec, r.at(pb, pl, ivs[0]), r.m, pm.c(0),
                             r.n, r.k);
        });
  };
  // Wide column blocks: each thread reads long runs of B's rows, which is
  // what lets a skinny product stream (blocks of nc = 128 columns, 512 bytes
  // of a row at a time, ran M=9 N=11008 K=4096 on two threads no faster
  // than on one).
  int64_t skinnyColumns = llvm::alignTo(kSkinnyParallelColumns, spec.nr);
  auto skinny = [&](OpBuilder &ob, Location l) {
    IndexMath om{ob, l};
    Value zero = om.c(0), one = om.c(1);
    Value nBlocks = om.ceilDiv(r.n, om.c(skinnyColumns));
    scf::ParallelOp::create(
        ob, l, ValueRange{zero, zero}, ValueRange{r.batch, nBlocks},
        ValueRange{one, one}, [&](OpBuilder &pb, Location pl, ValueRange ivs) {
          IndexMath pm{pb, pl};
          Value jc = pm.mul(ivs[1], pm.c(skinnyColumns));
          Value end = pm.min(pm.add(jc, pm.c(skinnyColumns)), r.n);
          emitSkinnyProduct(pb, pl, spec, r.at(pb, pl, ivs[0]), r.m, jc, end,
                            r.k);
        });
  };
  auto packed = [&](OpBuilder &ob, Location l) {
    IndexMath om{ob, l};
    Value zero = om.c(0), one = om.c(1);
    Value nBlocks = om.ceilDiv(r.n, om.c(spec.nc));
    Value mBlocks = om.ceilDiv(r.m, om.c(spec.mc));
    scf::ParallelOp::create(
        ob, l, ValueRange{zero, zero, zero},
        ValueRange{r.batch, nBlocks, mBlocks}, ValueRange{one, one, one},
        [&](OpBuilder &pb, Location pl, ValueRange ivs) {
          IndexMath pm{pb, pl};
          BlockOperands v = r.at(pb, pl, ivs[0]);
          Value jc = pm.mul(ivs[1], pm.c(spec.nc));
          Value ic = pm.mul(ivs[2], pm.c(spec.mc));
          Value nb = pm.min(pm.c(spec.nc), pm.sub(r.n, jc));
          Value mb = pm.min(pm.c(spec.mc), pm.sub(r.m, ic));
          PackBuffers buffers = PackBuffers::allocate(pb, pl, spec);
          ASource a = v.a;
          a.rowOffsets = buffers.rowOffsets;
          a.kOffsets = buffers.kOffsets;
          forLoop(pb, pl, pm.c(0), r.k, spec.kc, [&](OpBuilder &kb, Value pc) {
            KBlock kblk = kBlock(kb, pl, spec.kc, pc, r.k);
            packB(kb, pl, spec, v.b, pc, jc, kblk.kb, nb, buffers.packedB);
            if (!spec.readsAInPlace())
              packA(kb, pl, spec, a, ic, pc, mb, kblk.kb, buffers.packedA);
            emitMacroKernel(kb, pl, spec, buffers, a, v.c, v.epilogue, ic, jc,
                            pc, mb, nb, kblk.kb, kblk.isFirst, kblk.isLast);
          });
          buffers.deallocate(pb, pl);
        });
  };
  chooseOperandReads(b, loc, spec, r,
                     [&](OpBuilder &ob, Location l, OperandReads reads) {
                       switch (reads) {
                       case OperandReads::SmallInPlace:
                         return inPlace(ob, l);
                       case OperandReads::Skinny:
                         return skinny(ob, l);
                       case OperandReads::Packed:
                         return packed(ob, l);
                       }
                     });
}

/// The image of a convolution as A: a flat view of its buffer, its strides,
/// and the sizes that map GEMM rows and columns to pixels and filter taps.
ASource convSource(OpBuilder &b, Location loc, const KernelSpec &spec,
                   Value image, Value filter, Value output, Value r0) {
  IndexMath im{b, loc};
  bool nhwc = spec.kind == ContractionKind::conv2d_nhwc;
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, image);
  // The flat view spans the image's last element: offset + 1 +
  // sum((size - 1) * stride), clamped at 0 for an empty image.
  Value extent = im.add(meta.getOffset(), im.c(1));
  for (auto [size, stride] : llvm::zip(meta.getSizes(), meta.getStrides()))
    extent = im.add(extent, im.mul(im.sub(size, im.c(1)), stride));
  extent = arith::MaxSIOp::create(b, loc, extent, im.c(0));
  Type elem = cast<MemRefType>(image.getType()).getElementType();
  ASource a;
  a.image = memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, elem),
      meta.getBaseBuffer(), OpFoldResult(b.getIndexAttr(0)),
      ArrayRef<OpFoldResult>{extent},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  a.imageOffset = meta.getOffset();
  ValueRange strides = meta.getStrides();
  a.strideN = strides[0];
  a.strideC = strides[nhwc ? 3 : 1];
  a.strideH = strides[nhwc ? 1 : 2];
  a.strideW = strides[nhwc ? 2 : 3];
  a.channels = memref::DimOp::create(b, loc, image, nhwc ? 3 : 1);
  a.filterR = memref::DimOp::create(b, loc, filter, nhwc ? 0 : 2);
  a.filterS = memref::DimOp::create(b, loc, filter, nhwc ? 1 : 3);
  a.outH = memref::DimOp::create(b, loc, output, nhwc ? 1 : 2);
  a.outW = memref::DimOp::create(b, loc, output, nhwc ? 2 : 3);
  a.rowOrigin = r0;
  return a;
}

/// Element (m, f) of a convolution's output, for GEMM row m and column f
/// (the maps of Conversion/Utils/ConvIndex.h, as the GPU kernels use).
SmallVector<Value> convOutputElement(IndexMath &im, const KernelSpec &spec,
                                     const ASource &a, Value m, Value f) {
  ConvPixel pixel = convOutputPixel(im, m, a.outH, a.outW);
  return SmallVector<Value>(convOutputIndex(spec.kind, pixel, f));
}

/// Copies the region of C into the f32 work buffer (`toWork`) or back.
void copyStaged(OpBuilder &b, Location loc, const KernelSpec &spec,
                const ASource &a, Value cRegion, Value work, Value r0, Value c0,
                bool toWork) {
  auto workType = cast<MemRefType>(work.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < workType.getRank(); ++d)
    sizes.push_back(memref::DimOp::create(b, loc, work, d));
  forEachIndex(b, loc, sizes, [&](OpBuilder &ib, Location l, ValueRange ivs) {
    IndexMath em{ib, l};
    SmallVector<Value> cIndex(ivs.begin(), ivs.end());
    if (spec.isConv())
      cIndex = convOutputElement(em, spec, a, em.add(r0, ivs[0]),
                                 em.add(c0, ivs[1]));
    if (toWork) {
      Value v = memref::LoadOp::create(ib, l, cRegion, cIndex);
      memref::StoreOp::create(ib, l, convert(ib, l, v, spec.computeType()),
                              work, ivs);
    } else {
      Value v = memref::LoadOp::create(ib, l, work, ivs);
      memref::StoreOp::create(ib, l, convert(ib, l, v, spec.accType), cRegion,
                              cIndex);
    }
  });
}

} // namespace

void mlir::ukernel::host::buildKernelBody(OpBuilder &b, Location loc,
                                          const KernelSpec &spec,
                                          func::FuncOp func) {
  Block *entry = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  IndexMath im{b, loc};
  Type f32 = spec.computeType();
  int64_t dyn = ShapedType::kDynamic;
  IntegerAttr align = b.getI64IntegerAttr(64);

  Value a = entry->getArgument(0);
  Value bArg = entry->getArgument(1);
  Value c = entry->getArgument(2);
  unsigned next = 3;
  Value biasArg = spec.biasType ? entry->getArgument(next++) : Value();
  SmallVector<Value> fusedArgs;
  if (spec.fused)
    for (size_t i = 0; i < spec.fused.kinds.size(); ++i)
      fusedArgs.push_back(entry->getArgument(next++));
  Value r0 = entry->getArgument(next), c0 = entry->getArgument(next + 1);
  Value rows = entry->getArgument(next + 2),
        cols = entry->getArgument(next + 3);

  RegionOperands r;
  r.batch =
      spec.isBatched() ? Value(memref::DimOp::create(b, loc, c, 0)) : im.c(1);
  r.m = rows;
  r.n = cols;

  // B as a matrix: a convolution's filter collapses to K x F (nhwc) or
  // F x K (nchw, B transposed); it has an identity layout.
  Value bmat = bArg;
  if (spec.kind == ContractionKind::conv2d_nhwc)
    bmat = memref::CollapseShapeOp::create(
        b, loc, bArg, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  else if (spec.kind == ContractionKind::conv2d_nchw)
    bmat = memref::CollapseShapeOp::create(
        b, loc, bArg, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  int64_t first = spec.matrixRank() - 2;
  r.k = memref::DimOp::create(b, loc, bmat, first + (spec.transposeB ? 1 : 0));
  Value zero = im.c(0);
  r.b = spec.transposeB ? matrixWindow(b, loc, bmat, c0, zero, cols, r.k)
                        : matrixWindow(b, loc, bmat, zero, c0, r.k, cols);

  // A: the region's rows of the matrix, or the image.
  if (spec.isConv())
    r.a = convSource(b, loc, spec, a, bArg, c, r0);
  else
    r.a.matrix = spec.transposeA ? matrixWindow(b, loc, a, zero, r0, r.k, rows)
                                 : matrixWindow(b, loc, a, r0, zero, rows, r.k);
  r.a.module = func->getParentOfType<ModuleOp>();

  // C: the region of the matrix (a direct convolution output collapses to
  // M x F), or an f32 copy of it. The blocked loops accumulate partial K
  // blocks into C in f32 with vector accesses along rows; accumulating
  // rounded partial sums in f16 would lose the precision the f32
  // accumulation is there for.
  Value cMatrix = c;
  if (spec.isConv() && !spec.stagesC())
    cMatrix = memref::CollapseShapeOp::create(
        b, loc, c, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  Value cRegion = spec.isConv() && spec.stagesC()
                      ? c
                      : matrixWindow(b, loc, cMatrix, r0, c0, rows, cols);
  Value staging;
  r.c = cRegion;
  if (spec.stagesC()) {
    SmallVector<Value> shape = {rows, cols};
    if (spec.isBatched())
      shape.insert(shape.begin(), r.batch);
    staging = memref::AllocOp::create(
        b, loc, MemRefType::get(SmallVector<int64_t>(shape.size(), dyn), f32),
        shape, align);
    // A folded fill writes every element before any is read.
    if (!spec.fill)
      copyStaged(b, loc, spec, r.a, cRegion, staging, r0, c0,
                 /*toWork=*/true);
    r.c = staging;
  }

  // The region's bias in f32, padded with zeros so that a whole register
  // block's columns can be loaded at any column below N.
  if (spec.biasType) {
    Value padded = im.add(cols, im.c(spec.nr));
    r.epilogue.bias = memref::AllocOp::create(
        b, loc, MemRefType::get({dyn}, f32), ValueRange{padded}, align);
    Value zeroF =
        arith::ConstantOp::create(b, loc, f32, b.getFloatAttr(f32, 0));
    forLoop(b, loc, zero, padded, 1, [&](OpBuilder &ib, Value j) {
      IndexMath jm{ib, loc};
      Value inside = jm.lt(j, cols);
      auto ifOp = scf::IfOp::create(
          ib, loc, inside,
          [&](OpBuilder &tb, Location l) {
            IndexMath tm{tb, l};
            Value v = memref::LoadOp::create(tb, l, biasArg,
                                             ValueRange{tm.add(c0, j)});
            scf::YieldOp::create(tb, l, convert(tb, l, v, f32));
          },
          [&](OpBuilder &eb, Location l) {
            scf::YieldOp::create(eb, l, zeroF);
          });
      memref::StoreOp::create(ib, loc, ifOp.getResult(0), r.epilogue.bias,
                              ValueRange{j});
    });
  }

  // The fused epilogue's operands as views of the region, indexed like C.
  for (auto [arg, kind] : llvm::zip(fusedArgs, spec.fused.kinds)) {
    Value view = arg;
    auto window1d = [&](Value offset, Value size) -> Value {
      return memref::SubViewOp::create(
          b, loc, arg, ArrayRef<OpFoldResult>{offset},
          ArrayRef<OpFoldResult>{size},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    };
    if (kind == EpilogueOperandKind::per_column)
      view = window1d(c0, cols);
    else if (kind == EpilogueOperandKind::per_row)
      view = window1d(r0, rows);
    else if (kind == EpilogueOperandKind::per_element)
      view = matrixWindow(b, loc, arg, r0, c0, rows, cols);
    r.epilogue.fused.push_back(view);
  }

  if (spec.parallel) {
    // A parallel region costs a fork and a join of the thread team
    // (microseconds, more on a busy machine): problems of one cache block
    // or under kParallelMinMacs multiply-adds run on the calling thread.
    Value blocks = im.mul(r.batch, im.mul(im.ceilDiv(r.n, im.c(spec.nc)),
                                          im.ceilDiv(r.m, im.c(spec.mc))));
    Value macs = im.mul(r.batch, im.mul(r.m, im.mul(r.n, r.k)));
    Value worthIt =
        arith::AndIOp::create(b, loc, im.lt(im.c(1), blocks),
                              im.lt(im.c(kParallelMinMacs - 1), macs));
    scf::IfOp::create(
        b, loc, worthIt,
        [&](OpBuilder &tb, Location l) {
          emitParallelLoops(tb, l, spec, r);
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &eb, Location l) {
          emitSequentialLoops(eb, l, spec, r);
          scf::YieldOp::create(eb, l);
        });
  } else {
    emitSequentialLoops(b, loc, spec, r);
  }

  // With K = 0 the loops above store nothing, yet the epilogue still
  // applies to C (C + A*B is just C), and a folded fill still fills it.
  if (spec.hasEpilogue() || spec.fill) {
    scf::IfOp::create(b, loc, im.eq(r.k, zero), [&](OpBuilder &tb, Location l) {
      auto type = cast<MemRefType>(r.c.getType());
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        sizes.push_back(memref::DimOp::create(tb, l, r.c, d));
      forEachIndex(
          tb, l, sizes, [&](OpBuilder &ib, Location il, ValueRange ivs) {
            Value x = spec.fill
                          ? Value(arith::ConstantOp::create(
                                ib, il,
                                ib.getFloatAttr(spec.computeType(),
                                                spec.fill.getValueAsDouble())))
                          : Value(memref::LoadOp::create(ib, il, r.c, ivs));
            // (batch,) row, column: a batched per_element view is whole.
            EpilogueSources sources = r.epilogue;
            if (spec.isBatched())
              sources = r.at(ib, il, ivs[0]).epilogue;
            Value row = ivs[ivs.size() - 2], col = ivs.back();
            Value y = x;
            if (spec.hasEpilogue()) {
              SmallVector<Value> column = loadColumnEpilogueInputs(
                  ib, il, spec, sources, col, /*lanes=*/0, /*mask=*/Value());
              y = emitElementEpilogue(ib, il, spec, sources, column, x, row,
                                      col, /*lanes=*/0, /*mask=*/Value());
            }
            memref::StoreOp::create(ib, il, y, r.c, ivs);
          });
      scf::YieldOp::create(tb, l);
    });
  }

  if (staging) {
    copyStaged(b, loc, spec, r.a, cRegion, staging, r0, c0, /*toWork=*/false);
    memref::DeallocOp::create(b, loc, staging);
  }
  if (r.epilogue.bias)
    memref::DeallocOp::create(b, loc, r.epilogue.bias);
  func::ReturnOp::create(b, loc);
}
