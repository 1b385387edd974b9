//===- MatrixEngines.cpp - Register tiles per instruction family ----------===//
//
// Part of the Quilt project. Each engine owns the accumulators of one
// thread and knows the instruction's fragment layout: which elements of the
// staged tiles a lane feeds in, and where each accumulator element lands.
// The layouts are the ones the ISAs define:
//
//   mma.sync m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
//   g = lane / 4 and t = lane % 4:
//     A  a{0,1}: (g, 2t+{0,1})  a{2,3}: (g+8, 2t+{0,1})
//        a{4,5}: (g, 2t+8+{0,1})  a{6,7}: (g+8, 2t+8+{0,1})
//     B  b{0,1}: (k=2t+{0,1}, n=g)  b{2,3}: (k=2t+8+{0,1}, n=g)
//     C  c{0,1}: (g, 2t+{0,1})  c{2,3}: (g+8, 2t+{0,1})
//   mma.sync m16n8k8 tf32: A a0 (g, t) a1 (g+8, t) a2 (g, t+4) a3 (g+8, t+4);
//     B b0 (k=t, n=g) b1 (k=t+4, n=g); C as above.
//   v_mfma_f32_32x32x8 (64 lanes): A (row l%32, k 4(l/32)+i), B alike with
//     the column; D element v at row 8(v/4) + 4(l/32) + v%4, column l%32.
//   v_mfma_f32_16x16x16: A (row l%16, k 4(l/16)+i); D element v at row
//     4(l/16) + v, column l%16.
//   v_wmma_f32_16x16x16 (wave32): A (row l%16, k 0..15), B alike; D
//     element v at row 2v + l/16, column l%16.
//
// All staged tiles are zero outside the matrix, so no engine needs masks.
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"
#include "CostModel/GpuSharedMemory.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

MatrixEngine::~MatrixEngine() = default;

void MatrixEngine::forEachElement(
    OpBuilder &b, Location loc, const ThreadContext &thread, ValueRange accs,
    function_ref<void(Value, Value, Value)> fn) {
  forEachElementPosition(
      b, loc, thread,
      [&](unsigned acc, ArrayRef<int64_t> position, Value row, Value col) {
        fn(vector::ExtractOp::create(b, loc, accs[acc], position), row, col);
      });
}

namespace {

Value zeroVector(OpBuilder &b, Location loc, VectorType type) {
  return arith::ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
}

/// `count` consecutive elements of a staged tile row, as a vector.
Value loadRun(OpBuilder &b, Location loc, Value tile, Value row, Value col,
              int64_t count) {
  auto elem = cast<MemRefType>(tile.getType()).getElementType();
  return vector::LoadOp::create(b, loc, VectorType::get({count}, elem), tile,
                                ValueRange{row, col});
}

/// `count` K-consecutive elements of row (A) or column (B) `outer` from
/// depth `k` on, as a vector: one vector load from a K-contiguous tile,
/// `count` element loads down a K-major one.
Value loadKRun(OpBuilder &b, Location loc, const SharedTile &tile, Value outer,
               Value k, int64_t count) {
  auto elem = cast<MemRefType>(tile.buffer.getType()).getElementType();
  if (tile.kContiguous) {
    // (In a swizzled tile a run is contiguous inside a 16-byte chunk.)
    assert(
        (!tile.swizzleElems || count * elem.getIntOrFloatBitWidth() <= 128) &&
        "a run of a swizzled tile crosses its 16-byte chunk");
    SharedAddress at = sharedTileAddress(b, loc, tile, outer, k);
    return vector::LoadOp::create(b, loc, VectorType::get({count}, elem),
                                  at.memref, at.indices);
  }
  IndexMath im{b, loc};
  auto type = VectorType::get({count}, elem);
  Value run = arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(elem)));
  for (int64_t i = 0; i < count; ++i) {
    SharedAddress at =
        sharedTileAddress(b, loc, tile, im.add(k, im.c(i)), outer);
    Value v = memref::LoadOp::create(b, loc, at.memref, at.indices);
    run = vector::InsertOp::create(b, loc, v, run, i);
  }
  return run;
}

//===----------------------------------------------------------------------===//
// SIMT FMA
//===----------------------------------------------------------------------===//

/// Threads form a (TM / ttM) x (TN / ttN) grid; each keeps a ttM x ttN
/// block of accumulators (ttM vectors of ttN, f32 or f64 for f64 inputs)
/// and forms outer products of a column of A and a row of B per K step,
/// both read as vectors from K-major tiles that hold the same type.
class SimtEngine : public MatrixEngine {
public:
  explicit SimtEngine(const GpuKernelSpec &spec)
      : cfg(spec.config), compute(spec.computeType()),
        row(VectorType::get({cfg.threadTileN}, compute)) {}

  // Columns of A and rows of B are vectors only in K-major tiles.
  bool sharedKContiguous(bool) const override { return false; }
  Type sharedType() const override { return compute; }
  int64_t kStep() const override { return 1; }
  /// A thread's tile rows are threadTileN consecutive columns.
  int64_t columnRun() const override { return cfg.threadTileN; }

  SmallVector<Value> initAccumulators(OpBuilder &b, Location loc) override {
    return SmallVector<Value>(cfg.threadTileM, zeroVector(b, loc, row));
  }

  SmallVector<Value> accumulate(OpBuilder &b, Location loc,
                                const ThreadContext &thread,
                                const SharedTile &a, const SharedTile &bTile,
                                Value kk, ValueRange accs) override {
    IndexMath im{b, loc};
    auto [ty, tx] = coordinates(im, thread);
    Value aCol = loadRun(b, loc, a.buffer, kk, im.mul(ty, im.c(cfg.threadTileM)),
                         cfg.threadTileM);
    Value bRow = loadRun(b, loc, bTile.buffer, kk,
                         im.mul(tx, im.c(cfg.threadTileN)), cfg.threadTileN);
    SmallVector<Value> result;
    for (int64_t i = 0; i < cfg.threadTileM; ++i) {
      Value ai = vector::ExtractOp::create(b, loc, aCol, i);
      Value splat = vector::BroadcastOp::create(b, loc, row, ai);
      result.push_back(vector::FMAOp::create(b, loc, splat, bRow, accs[i]));
    }
    return result;
  }

  void forEachElementPosition(
      OpBuilder &b, Location loc, const ThreadContext &thread,
      function_ref<void(unsigned, ArrayRef<int64_t>, Value, Value)> fn)
      override {
    IndexMath im{b, loc};
    auto [ty, tx] = coordinates(im, thread);
    Value row0 = im.mul(ty, im.c(cfg.threadTileM));
    Value col0 = im.mul(tx, im.c(cfg.threadTileN));
    for (int64_t i = 0; i < cfg.threadTileM; ++i)
      for (int64_t j = 0; j < cfg.threadTileN; ++j)
        fn(i, {j}, im.add(row0, im.c(i)), im.add(col0, im.c(j)));
  }

private:
  std::pair<Value, Value> coordinates(IndexMath &im,
                                      const ThreadContext &thread) {
    Value threadsN = im.c(cfg.tileN / cfg.threadTileN);
    return {arith::DivUIOp::create(im.b, im.loc, thread.tid, threadsN),
            arith::RemUIOp::create(im.b, im.loc, thread.tid, threadsN)};
  }

  quilt::KernelConfig cfg;
  Type compute;
  VectorType row;
};

//===----------------------------------------------------------------------===//
// Warp-level engines
//===----------------------------------------------------------------------===//

/// Common to the engines whose instruction computes an instM x instN tile
/// per warp (wavefront): warps form warpsM x warpsN over the block tile,
/// each covering (warpTileM / instM) x (warpTileN / instN) instruction
/// tiles, with one accumulator value per tile, M-major.
class WarpEngine : public MatrixEngine {
public:
  WarpEngine(const GpuKernelSpec &spec, int64_t instM, int64_t instN,
             int64_t instK)
      : cfg(spec.config), instM(instM), instN(instN), instK(instK),
        tilesM(cfg.warpTileM() / instM), tilesN(cfg.warpTileN() / instN) {}

  bool sharedKContiguous(bool stored) const override { return stored; }
  int64_t kStep() const override { return instK; }

  SmallVector<Value> accumulate(OpBuilder &b, Location loc,
                                const ThreadContext &thread,
                                const SharedTile &a, const SharedTile &bTile,
                                Value kk, ValueRange accs) override {
    IndexMath im{b, loc};
    auto [rowBase, colBase] = warpOrigin(im, thread);
    // All A fragments, then the B fragments of one load (one or two
    // columns of instruction tiles), used at once: B fragments (2 registers
    // each on NVIDIA) are live for their columns only.
    SmallVector<Value> aFrags;
    for (int64_t i = 0; i < tilesM; ++i)
      aFrags.push_back(
          loadA(b, loc, thread, a, im.add(rowBase, im.c(i * instM)), kk));
    SmallVector<Value> result(accs.begin(), accs.end());
    for (int64_t j0 = 0; j0 < tilesN; j0 += bTilesPerLoad()) {
      int64_t count = std::min(bTilesPerLoad(), tilesN - j0);
      SmallVector<Value> bFrags = loadBColumns(
          b, loc, thread, bTile, im.add(colBase, im.c(j0 * instN)), kk, count);
      for (auto [offset, bFrag] : llvm::enumerate(bFrags)) {
        int64_t j = j0 + int64_t(offset);
        for (int64_t i = 0; i < tilesM; ++i)
          result[i * tilesN + j] =
              multiply(b, loc, aFrags[i], bFrag, accs[i * tilesN + j]);
      }
    }
    return result;
  }

  void forEachElementPosition(
      OpBuilder &b, Location loc, const ThreadContext &thread,
      function_ref<void(unsigned, ArrayRef<int64_t>, Value, Value)> fn)
      override {
    IndexMath im{b, loc};
    auto [rowBase, colBase] = warpOrigin(im, thread);
    for (int64_t i = 0; i < tilesM; ++i)
      for (int64_t j = 0; j < tilesN; ++j)
        forEachTileElement(
            b, loc, thread, im.add(rowBase, im.c(i * instM)),
            im.add(colBase, im.c(j * instN)),
            [&](ArrayRef<int64_t> position, Value row, Value col) {
              fn(i * tilesN + j, position, row, col);
            });
  }

protected:
  int64_t numTiles() const { return tilesM * tilesN; }

  /// The A fragment of the instruction tile at rows [row, row + instM),
  /// depth [kk, kk + instK); B likewise at columns [col, col + instN).
  virtual Value loadA(OpBuilder &b, Location loc, const ThreadContext &thread,
                      const SharedTile &tile, Value row, Value kk) = 0;
  virtual Value loadB(OpBuilder &b, Location loc, const ThreadContext &thread,
                      const SharedTile &tile, Value col, Value kk) = 0;
  /// How many adjacent columns of instruction tiles one B load can feed.
  virtual int64_t bTilesPerLoad() const { return 1; }
  /// The B fragments of `count` (at most bTilesPerLoad()) adjacent
  /// instruction tiles from column `col`.
  virtual SmallVector<Value> loadBColumns(OpBuilder &b, Location loc,
                                          const ThreadContext &thread,
                                          const SharedTile &tile, Value col,
                                          Value kk, int64_t count) {
    IndexMath im{b, loc};
    SmallVector<Value> frags;
    for (int64_t j = 0; j < count; ++j)
      frags.push_back(
          loadB(b, loc, thread, tile, im.add(col, im.c(j * instN)), kk));
    return frags;
  }
  virtual Value multiply(OpBuilder &b, Location loc, Value a, Value bFrag,
                         Value acc) = 0;
  /// Calls `fn` with the position of each element of an instruction tile's
  /// accumulator and its row and column, for the tile at (row, col).
  virtual void
  forEachTileElement(OpBuilder &b, Location loc, const ThreadContext &thread,
                     Value row, Value col,
                     function_ref<void(ArrayRef<int64_t>, Value, Value)> fn) = 0;

  quilt::KernelConfig cfg;
  int64_t instM, instN, instK, tilesM, tilesN;

private:
  std::pair<Value, Value> warpOrigin(IndexMath &im,
                                     const ThreadContext &thread) {
    Value warpsN = im.c(cfg.warpsN);
    Value wm = arith::DivUIOp::create(im.b, im.loc, thread.warpId, warpsN);
    Value wn = arith::RemUIOp::create(im.b, im.loc, thread.warpId, warpsN);
    return {im.mul(wm, im.c(cfg.warpTileM())),
            im.mul(wn, im.c(cfg.warpTileN()))};
  }
};

/// NVIDIA mma.sync: m16n8k16 on f16/bf16 (pairs of K-adjacent elements per
/// register; bf16 through nvvm.mma.sync directly) or m16n8k8 on tf32
/// (single elements). Also serves wgmma configurations (see
/// docs/gpu-codegen.md): same block and warp tiles, issued as mma.sync.
class MmaSyncEngine : public WarpEngine {
public:
  MmaSyncEngine(const GpuKernelSpec &spec, MLIRContext *ctx, bool tf32)
      : WarpEngine(spec, 16, 8, tf32 ? 8 : 16), tf32(tf32),
        elem(spec.inputType), f32(Float32Type::get(ctx)),
        accType(VectorType::get({2, 2}, f32)) {}

  Type sharedType() const override { return elem; }
  /// Lane l holds columns 2 (l % 4) and 2 (l % 4) + 1 of a fragment row.
  int64_t columnRun() const override { return 2; }
  int64_t rowPad() const override {
    return quilt::rowPadElems(tf32 ? quilt::InstKind::MmaSyncTf32
                                   : quilt::InstKind::MmaSyncF16);
  }
  /// ldmatrix reads the 16-bit tiles 8 rows of one 16-byte chunk at a time:
  /// XOR-swizzled rows put those in 8 distinct bank groups without padding
  /// (quilt::sharedTileFormat). tf32's scalar fragment loads read 4 rows of
  /// 8 elements (a K-major B) or 8 rows of 4 at a time, which the 16-byte
  /// chunk permutation does not spread: its tiles stay padded.
  int64_t swizzleBytes() const override {
    return tf32 ? 0 : quilt::kSwizzlePanelBytes;
  }
  /// Swizzled tiles start at multiples of their panels (SharedTile::flat).
  int64_t tileAlignment() const override {
    return tf32 ? 16 : quilt::kSwizzlePanelBytes;
  }

  SmallVector<Value> initAccumulators(OpBuilder &b, Location loc) override {
    return SmallVector<Value>(numTiles(), zeroVector(b, loc, accType));
  }

protected:
  Value loadA(OpBuilder &b, Location loc, const ThreadContext &thread,
              const SharedTile &tile, Value row, Value kk) override {
    if (!tf32)
      return loadMatrices(b, loc, thread, tile, row, kk, /*tilesOuter=*/2);
    // tf32, one element a register: (g, t), (g + 8, t), (g, t + 4),
    // (g + 8, t + 4).
    IndexMath im{b, loc};
    auto [g, t] = groupAndThread(im, thread);
    Value r = im.add(row, g), k = im.add(kk, t);
    std::pair<int64_t, int64_t> parts[4] = {{0, 0}, {8, 0}, {0, 4}, {8, 4}};
    return assemble(b, loc, 4, 1, [&](int64_t i) {
      return loadKRun(b, loc, tile, im.add(r, im.c(parts[i].first)),
                      im.add(k, im.c(parts[i].second)), 1);
    });
  }

  Value loadB(OpBuilder &b, Location loc, const ThreadContext &thread,
              const SharedTile &tile, Value col, Value kk) override {
    if (!tf32)
      return loadMatrices(b, loc, thread, tile, col, kk, /*tilesOuter=*/1);
    // tf32: (k = t, n = g), (k = t + 4, n = g).
    IndexMath im{b, loc};
    auto [g, t] = groupAndThread(im, thread);
    Value n = im.add(col, g), k = im.add(kk, t);
    return assemble(b, loc, 2, 1, [&](int64_t i) {
      return loadKRun(b, loc, tile, n, im.add(k, im.c(i * 4)), 1);
    });
  }

  /// A 16-bit B fragment is two 8x8 matrices: ldmatrix.x4 loads those of
  /// two adjacent instruction tiles at once.
  int64_t bTilesPerLoad() const override { return tf32 ? 1 : 2; }

  SmallVector<Value> loadBColumns(OpBuilder &b, Location loc,
                                  const ThreadContext &thread,
                                  const SharedTile &tile, Value col, Value kk,
                                  int64_t count) override {
    if (count != 2)
      return WarpEngine::loadBColumns(b, loc, thread, tile, col, kk, count);
    // The four matrices come columns fastest: (n0, k0), (n1, k0), (n0, k8),
    // (n1, k8); tile j's fragment is registers j and j + 2.
    Value both = loadMatrices(b, loc, thread, tile, col, kk, /*tilesOuter=*/2);
    SmallVector<Value> frags;
    for (int64_t j = 0; j < 2; ++j)
      frags.push_back(assemble(b, loc, 2, 2, [&](int64_t half) -> Value {
        return vector::ExtractOp::create(b, loc, both, j + 2 * half);
      }));
    return frags;
  }

  Value multiply(OpBuilder &b, Location loc, Value a, Value bFrag,
                 Value acc) override {
    if (elem.isBF16())
      return multiplyBf16(b, loc, a, bFrag, acc);
    return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, acc,
                                    ArrayRef<int64_t>{instM, instN, instK},
                                    tf32);
  }

  void forEachTileElement(
      OpBuilder &b, Location loc, const ThreadContext &thread, Value row,
      Value col,
      function_ref<void(ArrayRef<int64_t>, Value, Value)> fn) override {
    IndexMath im{b, loc};
    auto [g, t] = groupAndThread(im, thread);
    Value r = im.add(row, g);
    Value c = im.add(col, im.mul(t, im.c(2)));
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t j = 0; j < 2; ++j)
        fn({half, j}, im.add(r, im.c(half * 8)), im.add(c, im.c(j)));
  }

private:
  std::pair<Value, Value> groupAndThread(IndexMath &im,
                                         const ThreadContext &thread) {
    Value four = im.c(4);
    return {arith::DivUIOp::create(im.b, im.loc, thread.laneId, four),
            arith::RemUIOp::create(im.b, im.loc, thread.laneId, four)};
  }

  /// 16-bit fragments with one ldmatrix: the 8x8 matrices at (outer, kk),
  /// `tilesOuter` of them along M or N (2 for A's 16 rows or two B tiles'
  /// 16 columns, 1 for one B tile's 8 columns) by two along K, in the order
  /// of the registers (outer fastest). Lane l gives the address of
  /// row l % 8 of matrix l / 8 (lanes past the last matrix repeat the first
  /// ones). A K-contiguous tile holds the matrices as they are; a K-major
  /// one holds them transposed, and .trans hands each lane the same
  /// elements.
  Value loadMatrices(OpBuilder &b, Location loc, const ThreadContext &thread,
                     const SharedTile &tile, Value outer, Value kk,
                     int64_t tilesOuter) {
    IndexMath im{b, loc};
    int64_t matrices = 2 * tilesOuter;
    Value lane = arith::RemUIOp::create(b, loc, thread.laneId,
                                        im.c(8 * matrices));
    Value matrix = arith::DivUIOp::create(b, loc, lane, im.c(8));
    Value line = arith::RemUIOp::create(b, loc, lane, im.c(8));
    Value outerBlock = arith::RemUIOp::create(b, loc, matrix,
                                              im.c(tilesOuter));
    Value kBlock = arith::DivUIOp::create(b, loc, matrix, im.c(tilesOuter));
    Value o = im.add(outer, im.mul(outerBlock, im.c(8)));
    Value k = im.mul(kBlock, im.c(8));
    // Row `line` of the matrix: along K in a K-major tile, else along the
    // outer dimension. Addressed at the K step's start, then moved by the
    // step's depth (a constant of the unrolled K tile).
    SharedAddress at =
        tile.kContiguous ? sharedTileAddress(b, loc, tile, im.add(o, line), k)
                         : sharedTileAddress(b, loc, tile, im.add(k, line), o);
    std::optional<int64_t> depth = getConstantIntValue(kk);
    assert(depth && "K steps are unrolled");
    at = tile.kContiguous ? stepSharedAddress(b, loc, tile, at, 0, *depth)
                          : stepSharedAddress(b, loc, tile, at, *depth, 0);
    auto type = VectorType::get({matrices, 2}, elem);
    return nvgpu::LdMatrixOp::create(b, loc, type, at.memref, at.indices,
                                     b.getBoolAttr(!tile.kContiguous),
                                     b.getI32IntegerAttr(matrices));
  }

  /// m16n8k16 on bf16, which nvgpu.mma.sync does not lower: nvvm.mma.sync
  /// takes each register's pair of bf16 as an i32 and returns the four f32
  /// of C (c0, c1 at row g, c2, c3 at row g + 8) as a struct.
  Value multiplyBf16(OpBuilder &b, Location loc, Value a, Value bFrag,
                     Value acc) {
    Type i32 = b.getI32Type();
    auto pairAsI32 = [&](Value frag, int64_t row) -> Value {
      Value pair = vector::ExtractOp::create(b, loc, frag, row);
      Value word = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32),
                                             pair);
      return vector::ExtractOp::create(b, loc, word, 0);
    };
    SmallVector<Value> aRegs, bRegs, cRegs;
    for (int64_t i = 0; i < 4; ++i)
      aRegs.push_back(pairAsI32(a, i));
    for (int64_t i = 0; i < 2; ++i)
      bRegs.push_back(pairAsI32(bFrag, i));
    for (int64_t i = 0; i < 4; ++i)
      cRegs.push_back(vector::ExtractOp::create(
          b, loc, acc, ArrayRef<int64_t>{i / 2, i % 2}));
    auto resultType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    Value d = NVVM::MmaOp::create(
        b, loc, resultType, aRegs, bRegs, cRegs,
        ArrayRef<int64_t>{instM, instN, instK}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> elements;
    for (int64_t i = 0; i < 4; ++i)
      elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
    return vector::FromElementsOp::create(b, loc, accType, elements);
  }

  /// A vector<rows x per x elem> from `rows` loads of `per` elements.
  Value assemble(OpBuilder &b, Location loc, int64_t rows, int64_t per,
                 function_ref<Value(int64_t)> part) {
    Value frag = zeroVector(b, loc, VectorType::get({rows, per}, elem));
    for (int64_t i = 0; i < rows; ++i)
      frag = vector::InsertOp::create(b, loc, part(i), frag, i);
    return frag;
  }

  bool tf32;
  Type elem, f32;
  VectorType accType;
};

/// AMD matrix cores: MFMA 32x32x8 / 16x16x16 (CDNA, wave64) and WMMA
/// 16x16x16 (RDNA 3, wave32). A lane feeds a run of `run` K-consecutive
/// elements of one row of A and one column of B; `kGroups` lane groups
/// split the instruction's K.
class AmdMatrixEngine : public WarpEngine {
public:
  enum class Kind { Mfma32x32x8, Mfma16x16x16, Wmma16x16x16 };

  AmdMatrixEngine(const GpuKernelSpec &spec, MLIRContext *ctx, Kind kind)
      : WarpEngine(spec, kind == Kind::Mfma32x32x8 ? 32 : 16,
                   kind == Kind::Mfma32x32x8 ? 32 : 16,
                   kind == Kind::Mfma32x32x8 ? 8 : 16),
        kind(kind), elem(spec.inputType), f32(Float32Type::get(ctx)) {
    run = kind == Kind::Wmma16x16x16 ? 16 : 4;
    int64_t accElems = kind == Kind::Mfma32x32x8    ? 16
                       : kind == Kind::Mfma16x16x16 ? 4
                                                    : 8;
    accType = VectorType::get({accElems}, f32);
  }

  Type sharedType() const override { return elem; }
  int64_t rowPad() const override { return quilt::rowPadElems(cfg.inst); }

  SmallVector<Value> initAccumulators(OpBuilder &b, Location loc) override {
    return SmallVector<Value>(numTiles(), zeroVector(b, loc, accType));
  }

protected:
  Value loadA(OpBuilder &b, Location loc, const ThreadContext &thread,
              const SharedTile &tile, Value row, Value kk) override {
    return loadOperand(b, loc, thread, tile, row, kk);
  }
  Value loadB(OpBuilder &b, Location loc, const ThreadContext &thread,
              const SharedTile &tile, Value col, Value kk) override {
    return loadOperand(b, loc, thread, tile, col, kk);
  }

  Value multiply(OpBuilder &b, Location loc, Value a, Value bFrag,
                 Value acc) override {
    if (kind == Kind::Wmma16x16x16)
      return amdgpu::WMMAOp::create(b, loc, accType, instM, instN, instK, a,
                                    bFrag, acc);
    return amdgpu::MFMAOp::create(b, loc, accType, instM, instN, instK,
                                  /*blocks=*/1, a, bFrag, acc);
  }

  void forEachTileElement(
      OpBuilder &b, Location loc, const ThreadContext &thread, Value row,
      Value col,
      function_ref<void(ArrayRef<int64_t>, Value, Value)> fn) override {
    IndexMath im{b, loc};
    Value lane = thread.laneId;
    Value c = im.add(col, arith::RemUIOp::create(b, loc, lane, im.c(instN)));
    Value group = arith::DivUIOp::create(b, loc, lane, im.c(instN));
    int64_t count = accType.getNumElements();
    for (int64_t v = 0; v < count; ++v) {
      Value r;
      switch (kind) {
      case Kind::Mfma32x32x8:
        r = im.add(im.c(8 * (v / 4) + v % 4), im.mul(group, im.c(4)));
        break;
      case Kind::Mfma16x16x16:
        r = im.add(im.c(v), im.mul(group, im.c(4)));
        break;
      case Kind::Wmma16x16x16:
        r = im.add(im.c(2 * v), group);
        break;
      }
      fn({v}, im.add(row, r), c);
    }
  }

private:
  /// Row (A) or column (B) `base + lane % inst`, K run starting at
  /// `kk + run * (lane / inst)` (WMMA: every lane reads the whole K).
  Value loadOperand(OpBuilder &b, Location loc, const ThreadContext &thread,
                    const SharedTile &tile, Value base, Value kk) {
    IndexMath im{b, loc};
    Value lane = thread.laneId;
    Value r = im.add(base, arith::RemUIOp::create(b, loc, lane, im.c(instM)));
    Value k = kk;
    if (kind != Kind::Wmma16x16x16)
      k = im.add(kk, im.mul(arith::DivUIOp::create(b, loc, lane, im.c(instM)),
                            im.c(run)));
    return loadKRun(b, loc, tile, r, k, run);
  }

  Kind kind;
  Type elem, f32;
  int64_t run = 4;
  VectorType accType;
};

} // namespace

std::unique_ptr<MatrixEngine>
mlir::ukernel::gpucg::createMatrixEngine(const GpuKernelSpec &spec,
                                         MLIRContext *ctx, std::string &why) {
  // The dispatch verifier has checked the configuration against the target
  // (quilt::checkForTarget): the instruction exists there and takes the
  // element type, and the thread tiles cover the block tile exactly.
  if (spec.nativeWgmma)
    return createWgmmaEngine(spec, ctx);
  switch (spec.config.inst) {
  case quilt::InstKind::SimtFma:
    return std::make_unique<SimtEngine>(spec);
  case quilt::InstKind::MmaSyncF16:
  case quilt::InstKind::Wgmma: // where the wgmma engine does not take it
    return std::make_unique<MmaSyncEngine>(spec, ctx, /*tf32=*/false);
  case quilt::InstKind::MmaSyncTf32:
    return std::make_unique<MmaSyncEngine>(spec, ctx, /*tf32=*/true);
  case quilt::InstKind::Mfma32x32x8:
    return std::make_unique<AmdMatrixEngine>(
        spec, ctx, AmdMatrixEngine::Kind::Mfma32x32x8);
  case quilt::InstKind::Mfma16x16x16:
    return std::make_unique<AmdMatrixEngine>(
        spec, ctx, AmdMatrixEngine::Kind::Mfma16x16x16);
  case quilt::InstKind::Wmma16x16x16:
    return std::make_unique<AmdMatrixEngine>(
        spec, ctx, AmdMatrixEngine::Kind::Wmma16x16x16);
  case quilt::InstKind::CpuFma:
    break;
  }
  why = "'" + std::string(quilt::stringify(spec.config.inst)) +
        "' is not a GPU instruction";
  return nullptr;
}
