//===- TmaStaging.cpp - Operand tiles loaded by TMA (sm_90a) --------------===//
//
// Part of the Quilt project. A TMA kernel's tiles are copied by the tensor
// memory accelerator instead of by its threads: one thread issues
// `cp.async.bulk.tensor` copies of boxes described by tensor maps (encoded
// by the host per launch, quilt_gpu_tile_map, and passed by value as
// __grid_constant__ parameters) into the stage's swizzled
// tiles, and the stage's mbarrier completes when all their bytes have
// landed. Elements outside the matrix land as zeros, as the threads'
// staging writes them.
//
// The maps describe the launch's A and B windows as batches of row-major
// matrices (3-D: columns, rows, matrix), read with the 128-byte swizzle
// that the tiles' layout (GpuKernel.h, SharedTile) is: a K-contiguous tile
// [R][64] is one box of R rows; an MN-major tile, panels of 64 columns x
// the K tile's rows, one box per panel, each landing a panel (R * 128
// bytes) further.
//
// Two mbarriers per stage. `full` expects one arrival: the issuing
// thread's arrive.expect_tx with the stage's bytes (every box counts whole,
// zeros included). `empty` expects one arrival per reading warp, each made
// once the warp's reads of the tiles are complete; the issuer waits for it
// before it copies a later K step into the stage. The phase of step i's
// barriers is (i / stages) % 2.
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"
#include "CostModel/GpuSharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

namespace {

/// Bytes of a swizzled tile row.
constexpr int64_t kRowBytes = quilt::kSwizzlePanelBytes;
/// NVPTX's shared::cluster address space.
constexpr unsigned kSharedCluster = 7;
/// How long (ns) one mbarrier.try_wait may suspend before it polls again.
constexpr int32_t kWaitHintNs = 0x989680;

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value toI32(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
}

/// The workgroup-memory pointer at shared address `address` (index).
Value sharedPointer(OpBuilder &b, Location loc, Value address) {
  Value bits = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), /*addressSpace=*/3),
      bits);
}

Value tileAddress(OpBuilder &b, Location loc, const SharedTile &tile) {
  return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, tile.buffer);
}

} // namespace

int64_t TmaStaging::stageBytes() const {
  const quilt::KernelConfig &c = spec.config;
  int64_t elemBytes = spec.inputType.getIntOrFloatBitWidth() / 8;
  return (c.tileM + c.tileN) * c.tileK * elemBytes;
}

void TmaStaging::initBarriers(OpBuilder &b, Location loc, Value leader,
                              Value barriers, int64_t stages,
                              int64_t readers) const {
  scf::IfOp::create(b, loc, leader, [&](OpBuilder &tb, Location l) {
    IndexMath im{tb, l};
    auto init = [&](Value address, int64_t arrivals) {
      Value count = i32(tb, l, arrivals);
      Value pointer = sharedPointer(tb, l, address);
      NVVM::MBarrierInitOp::create(tb, l, pointer, count,
                                   /*predicate=*/Value());
    };
    for (int64_t s = 0; s < stages; ++s) {
      init(fullBarrier(tb, l, barriers, im.c(s)), 1);
      init(emptyBarrier(tb, l, barriers, im.c(s)), readers);
    }
    // The TMA unit (the async proxy) completes them.
    NVVM::FenceMbarrierInitOp::create(tb, l);
    // The maps (kernel parameters) into the descriptor cache, while the
    // block waits for its barriers.
    for (Value map : {mapA, mapB})
      NVVM::PrefetchOp::create(tb, l, /*cacheLevel=*/nullptr,
                               /*evictPriority=*/nullptr, map,
                               /*predicate=*/Value(), /*tensormap=*/true);
    scf::YieldOp::create(tb, l);
  });
}

Value TmaStaging::fullBarrier(OpBuilder &b, Location loc, Value barriers,
                              Value stage) {
  IndexMath im{b, loc};
  return im.add(barriers, im.mul(stage, im.c(kStageBarrierBytes)));
}

Value TmaStaging::emptyBarrier(OpBuilder &b, Location loc, Value barriers,
                               Value stage) {
  IndexMath im{b, loc};
  return im.add(fullBarrier(b, loc, barriers, stage), im.c(kBarrierBytes));
}

void TmaStaging::issue(OpBuilder &b, Location loc, Value k0, Value barrier,
                       const SharedTile &a, const SharedTile &bTile) const {
  IndexMath im{b, loc};
  Value bar = sharedPointer(b, loc, barrier);
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, /*res=*/Type(), bar, i32(b, loc, stageBytes()),
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA),
      b.getBoolAttr(false), /*predicate=*/Value());
  Value k = toI32(b, loc, k0), z = toI32(b, loc, batch);
  auto copy = [&](Value map, Value dst, Value col, Value row) {
    // The block's own shared::cta addresses are shared::cluster ones.
    Value clusterDst = LLVM::AddrSpaceCastOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext(), kSharedCluster),
        sharedPointer(b, loc, dst));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, clusterDst, map, ValueRange{col, row, z}, bar,
        /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/Value(),
        /*l2CacheHint=*/Value(),
        NVVM::TMALoadModeAttr::get(b.getContext(), NVVM::TMALoadMode::TILE),
        /*isCTAOnly=*/b.getBoolAttr(false), /*group=*/nullptr,
        /*predicate=*/Value());
  };
  // A K-contiguous tile is one box at (k0, outer0); an MN-major one a box
  // per panel p at (outer0 + p * 64, k0).
  auto copyTile = [&](Value map, const SharedTile &tile, Value outer0,
                      int64_t outerTile) {
    Value base = tileAddress(b, loc, tile);
    if (tile.kContiguous) {
      copy(map, base, k, toI32(b, loc, outer0));
      return;
    }
    int64_t panelBytes = tile.logicalRows * kRowBytes;
    for (int64_t p = 0; p * tile.swizzleElems < outerTile; ++p)
      copy(map, im.add(base, im.c(p * panelBytes)),
           toI32(b, loc, im.add(outer0, im.c(p * tile.swizzleElems))), k);
  };
  copyTile(mapA, a, row0, spec.config.tileM);
  copyTile(mapB, bTile, col0, spec.config.tileN);
}

void TmaStaging::release(OpBuilder &b, Location loc, Value barrier) const {
  NVVM::MBarrierArriveOp::create(b, loc, /*res=*/Type(),
                                 sharedPointer(b, loc, barrier),
                                 /*count=*/Value());
}

void TmaStaging::wait(OpBuilder &b, Location loc, Value barrier,
                      Value parity) const {
  NVVM::MBarrierTryWaitParityOp::create(
      b, loc, sharedPointer(b, loc, barrier),
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), parity),
      i32(b, loc, kWaitHintNs));
}
