//===- WgmmaEngine.cpp - Warpgroup MMA (wgmma.mma_async, sm_90a) ----------===//
//
// Part of the Quilt project. Hopper's warpgroup instruction reads both
// operands from workgroup memory through matrix descriptors and
// accumulates a 64 x N tile of f32 in the registers of 128 threads (4
// consecutive warps). The staged tiles are stored in the 128-byte swizzle
// layout (GpuKernel.h, SharedTile), which wgmma reads without bank
// conflicts; a K tile of 64 halves is exactly one 128-byte row.
//
// Descriptors (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start
// address / 16, 16-29 the leading-dimension byte offset / 16, 32-45 the
// stride-dimension byte offset / 16, 62-63 the swizzle mode (1 = 128B).
// For both operand layouts the stride offset is 1024 bytes (8 rows of 128
// bytes, one swizzle atom):
//   K-major tile ([outer][64] rows, transpose bit 0): the leading offset is
//     unused; an instruction's rows start `outer * 128` bytes in and its
//     k16 step j at `32 j` bytes within the row (the hardware swizzles the
//     address, so the step stays inside the atom);
//   MN-major tile (panels of 64 outer elements x 64 K rows, transpose bit
//     1): the leading offset is the panel stride (64 x 128 bytes); 64
//     outer elements start one panel further and k16 step j `16 j` rows,
//     2048 j bytes, down.
// In CuTe's terms (cute/atom/mma_traits_sm90_gmma.hpp), these are the
// canonical SW128 layouts ((8,n),2):((8,SBO),1) (K-major) and
// ((8,n),(8,k)):((1,LBO),(8,SBO)) (MN-major), in units of 16 bytes.
//
// Accumulator fragment of m64nNk16 (PTX ISA, "Register Fragments ... for
// wgmma .m64nNk16", D): warp w of the warpgroup holds rows 16w..16w+15;
// with g = lane / 4 and t = lane % 4, element 4j + q (q < 4) is at row
// 16w + g + 8 (q / 2), column 8j + 2t + q % 2.
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"
#include "CostModel/GpuSharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

namespace {

constexpr int64_t kWarpgroupWarps = 4;
constexpr int64_t kInstM = 64, kInstK = 16;
/// Bytes of a swizzled row, and of a swizzle atom (8 rows).
constexpr int64_t kRowBytes = quilt::kSwizzlePanelBytes, kAtomBytes = 1024;

/// The block's warpgroups form a grid of warpsM / 4 x warpsN; each owns a
/// (tileM / rows) x (tileN / warpsN) part of the block tile.
struct WarpgroupGrid {
  int64_t rows, tileM, tileN;

  explicit WarpgroupGrid(const quilt::KernelConfig &c)
      : rows(c.warpsM / kWarpgroupWarps),
        tileM(c.tileM / std::max<int64_t>(rows, 1)),
        tileN(c.tileN / std::max<int64_t>(c.warpsN, 1)) {}
};

class WgmmaEngine final : public MatrixEngine {
public:
  WgmmaEngine(const GpuKernelSpec &spec, MLIRContext *ctx)
      : config(spec.config), grid(spec.config), elem(spec.inputType),
        canLeaveStepInFlight(spec.tmaLoads),
        // A slab's 64 x N f32 accumulators over 128 threads.
        accType(VectorType::get({grid.tileN / 2}, Float32Type::get(ctx))),
        accStruct(LLVM::LLVMStructType::getLiteral(
            ctx, SmallVector<Type>(grid.tileN / 2, Float32Type::get(ctx)))) {}

  bool sharedKContiguous(bool storedKContiguous) const override {
    return storedKContiguous;
  }
  Type sharedType() const override { return elem; }
  int64_t swizzleBytes() const override { return kRowBytes; }
  /// The 128-byte swizzle is a function of the address bits: each stage's
  /// tiles start on a 1024-byte boundary, as the descriptors assume.
  int64_t tileAlignment() const override { return kAtomBytes; }
  /// Elements 4j + q and 4j + q + 1 (q even) are adjacent columns of a row.
  int64_t columnRun() const override { return 2; }
  /// One call multiplies the whole staged K tile: one commit group.
  int64_t kStep() const override { return config.tileK; }

  /// A TMA kernel's stages are released by mbarriers, not by a barrier of
  /// the block, so a step's multiplication may run on while the next is
  /// issued (CUTLASS's and Triton's Hopper mainloops wait likewise for all
  /// but the last group). With threads staging the tiles, the block's
  /// barrier hands a buffer back, and every read of it must be done first.
  void leaveStepInFlight(bool leave) override {
    stepInFlight = leave && canLeaveStepInFlight;
  }
  bool leavesStepInFlight() const override { return stepInFlight; }
  void completeAccumulates(OpBuilder &b, Location loc) override {
    if (leavesStepInFlight())
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  }

  /// Staged tiles are written by cp.async or st.shared (the generic proxy)
  /// and read by wgmma (the async proxy).
  void fenceStagedTiles(OpBuilder &b, Location loc) override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }

  SmallVector<Value> initAccumulators(OpBuilder &b, Location loc) override {
    Value zero = arith::ConstantOp::create(
        b, loc, accType, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
    return SmallVector<Value>(slabs(), zero);
  }

  SmallVector<Value> accumulate(OpBuilder &b, Location loc,
                                const ThreadContext &thread,
                                const SharedTile &a, const SharedTile &bTile,
                                Value kk, ValueRange accs) override {
    IndexMath im{b, loc};
    auto [wgRow, wgCol] = warpgroupOf(im, thread);
    Value descA = descriptor(b, loc, a), descB = descriptor(b, loc, bTile);
    descB = advance(b, loc, descB,
                    outerOffset(im, bTile, im.mul(wgCol, im.c(grid.tileN))));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    SmallVector<Value> results;
    for (int64_t s = 0; s < slabs(); ++s) {
      Value rows = im.add(im.mul(wgRow, im.c(grid.tileM)), im.c(s * kInstM));
      Value slabA = advance(b, loc, descA, outerOffset(im, a, rows));
      Value acc = toStruct(b, loc, accs[s]);
      for (int64_t j = 0; j * kInstK < config.tileK; ++j)
        acc = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accStruct, acc, advance(b, loc, slabA, im.c(kOffset(a, j))),
            advance(b, loc, descB, im.c(kOffset(bTile, j))),
            NVVM::MMAShapeAttr::get(b.getContext(), kInstM, grid.tileN, kInstK),
            wgmmaType(), wgmmaType(), NVVM::WGMMATypes::f32,
            NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one, layoutA(a), layoutB(bTile),
            /*satfinite=*/nullptr);
      results.push_back(acc);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // The previous call's group (or, when nothing may stay in flight, this
    // one) is complete past here: its tiles may be overwritten.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, leavesStepInFlight() ? 1 : 0);
    return llvm::map_to_vector(
        results, [&](Value acc) { return fromStruct(b, loc, acc); });
  }

  void forEachElementPosition(
      OpBuilder &b, Location loc, const ThreadContext &thread,
      function_ref<void(unsigned, ArrayRef<int64_t>, Value, Value)> fn)
      override {
    IndexMath im{b, loc};
    auto [wgRow, wgCol] = warpgroupOf(im, thread);
    Value warpInGroup = im.rem(thread.warpId, im.c(kWarpgroupWarps));
    Value g = im.div(thread.laneId, im.c(4)),
          t = im.rem(thread.laneId, im.c(4));
    Value row0 = im.add(im.mul(wgRow, im.c(grid.tileM)),
                        im.add(im.mul(warpInGroup, im.c(16)), g));
    Value col0 = im.add(im.mul(wgCol, im.c(grid.tileN)), im.mul(t, im.c(2)));
    for (int64_t s = 0; s < slabs(); ++s)
      for (int64_t e = 0; e < accType.getNumElements(); ++e) {
        int64_t j = e / 4, q = e % 4;
        fn(s, {e}, im.add(row0, im.c(s * kInstM + 8 * (q / 2))),
           im.add(col0, im.c(8 * j + q % 2)));
      }
  }

private:
  int64_t slabs() const { return grid.tileM / kInstM; }

  /// The thread's warpgroup as (row, column) of the grid.
  std::pair<Value, Value> warpgroupOf(IndexMath &im,
                                      const ThreadContext &thread) const {
    Value wg = im.div(thread.warpId, im.c(kWarpgroupWarps));
    return {im.rem(wg, im.c(grid.rows)), im.div(wg, im.c(grid.rows))};
  }

  /// The descriptor of a staged tile's first element.
  Value descriptor(OpBuilder &b, Location loc, const SharedTile &tile) const {
    Type i64 = b.getI64Type();
    auto constant = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
    };
    Value address = arith::IndexCastUIOp::create(
        b, loc, i64,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, tile.buffer));
    // Workgroup addresses are below 2^18: 14 bits of 16-byte units.
    Value start = arith::ShRUIOp::create(
        b, loc, arith::AndIOp::create(b, loc, address, constant(0x3FFFF)),
        constant(4));
    int64_t leading = tile.kContiguous ? 1 : panelBytes() >> 4;
    int64_t fields =
        (leading << 16) | ((kAtomBytes >> 4) << 32) | (int64_t(1) << 62);
    return arith::OrIOp::create(b, loc, start, constant(fields));
  }

  /// `desc` moved `bytes` (index, a multiple of 16) further.
  Value advance(OpBuilder &b, Location loc, Value desc, Value bytes) const {
    IndexMath im{b, loc};
    Value units = arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                               im.div(bytes, im.c(16)));
    return arith::AddIOp::create(b, loc, desc, units);
  }

  /// Bytes from a tile's start to its outer element `outer` (a multiple of
  /// 64 for an MN-major tile).
  Value outerOffset(IndexMath &im, const SharedTile &tile, Value outer) const {
    if (tile.kContiguous)
      return im.mul(outer, im.c(kRowBytes));
    return im.mul(im.div(outer, im.c(tile.swizzleElems)), im.c(panelBytes()));
  }
  /// Bytes from a tile's start to k16 step `j`.
  int64_t kOffset(const SharedTile &tile, int64_t j) const {
    int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
    return tile.kContiguous ? j * kInstK * elemBytes : j * kInstK * kRowBytes;
  }
  /// An MN-major panel: the K tile's rows of 128 bytes.
  int64_t panelBytes() const { return config.tileK * kRowBytes; }

  /// K-major operands are wgmma's untransposed ones, MN-major ones set the
  /// transpose bit. The NVVM op names the layouts as BLAS does (A is M x K,
  /// B is K x N): a K-major A is row-major, a K-major B column-major.
  static NVVM::MMALayout layoutA(const SharedTile &tile) {
    return tile.kContiguous ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  }
  static NVVM::MMALayout layoutB(const SharedTile &tile) {
    return tile.kContiguous ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  }
  NVVM::WGMMATypes wgmmaType() const {
    return elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  }

  Value toStruct(OpBuilder &b, Location loc, Value acc) const {
    Value s = LLVM::PoisonOp::create(b, loc, accStruct);
    for (int64_t i = 0; i < accType.getNumElements(); ++i)
      s = LLVM::InsertValueOp::create(
          b, loc, s, vector::ExtractOp::create(b, loc, acc, i), i);
    return s;
  }
  Value fromStruct(OpBuilder &b, Location loc, Value s) const {
    SmallVector<Value> elements;
    for (int64_t i = 0; i < accType.getNumElements(); ++i)
      elements.push_back(LLVM::ExtractValueOp::create(b, loc, s, i));
    return vector::FromElementsOp::create(b, loc, accType, elements);
  }

  quilt::KernelConfig config;
  WarpgroupGrid grid;
  Type elem;
  /// Tiles staged by TMA, handed back by mbarriers (leaveStepInFlight).
  bool canLeaveStepInFlight;
  bool stepInFlight = false;
  VectorType accType;
  LLVM::LLVMStructType accStruct;
};

} // namespace

bool mlir::ukernel::gpucg::canIssueWgmma(const GpuKernelSpec &spec,
                                         StringRef chip) {
  const quilt::KernelConfig &c = spec.config;
  if (c.inst != quilt::InstKind::Wgmma || chip != "sm_90a" || !spec.inputType ||
      !(spec.inputType.isF16() || spec.inputType.isBF16()))
    return false;
  // A K tile is one 128-byte swizzled row of halves.
  if (c.tileK * 2 != kRowBytes || c.warpsM % kWarpgroupWarps != 0 ||
      c.threads != c.warpsM * c.warpsN * spec.warpSize)
    return false;
  WarpgroupGrid grid(c);
  // Whole instructions (N a multiple of 8 up to 256) in whole panels.
  int64_t panel = kRowBytes / 2;
  // (The block tile is a multiple of the warpgroup's in both dimensions.)
  return grid.rows > 0 && grid.tileM % kInstM == 0 && grid.tileN % panel == 0 &&
         grid.tileN <= 256 && c.vectorWidth * 2 <= 16;
}

bool mlir::ukernel::gpucg::canLoadWithTma(const GpuKernelSpec &spec) {
  // A convolution's image is gathered, not a matrix a tensor map describes.
  if (!spec.nativeWgmma || spec.isConv() || !spec.contiguousA ||
      !spec.contiguousB)
    return false;
  // A box dimension holds at most 256 elements.
  constexpr int64_t kMaxBoxDim = 256;
  return tmaBox(spec, /*operandB=*/false).rows <= kMaxBoxDim &&
         tmaBox(spec, /*operandB=*/true).rows <= kMaxBoxDim;
}

TmaBox mlir::ukernel::gpucg::tmaBox(const GpuKernelSpec &spec, bool operandB) {
  const quilt::KernelConfig &c = spec.config;
  int64_t panel = kRowBytes / 2;
  bool kContiguous = operandB ? spec.transposeB : !spec.transposeA;
  if (kContiguous)
    return {operandB ? c.tileN : c.tileM, c.tileK};
  return {c.tileK, panel};
}

std::unique_ptr<MatrixEngine>
mlir::ukernel::gpucg::createWgmmaEngine(const GpuKernelSpec &spec,
                                        MLIRContext *ctx) {
  return std::make_unique<WgmmaEngine>(spec, ctx);
}
