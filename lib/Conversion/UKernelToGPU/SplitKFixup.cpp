//===- SplitKFixup.cpp - The last block of a shared tile finishes it ------===//
//
// Part of the Quilt project. A split-K candidate launches its kernel over
// (matrices x splits) in grid z: each block multiplies its split's range of
// K and stores the tile's partial sums into a workspace matrix of its own;
// a stream-K block stores its part of a tile it shares with other blocks
// into one of its two workspace slots (KernelBuilder.cpp). Then it counts
// its arrival on the tile's counter, and the block that arrives last
// finishes the tile, in the same launch (the "serial fixup" of CUTLASS's
// split-K and stream-K kernels, without their wait):
//
//   every thread: store the tile's partial sums (the caller)
//   barrier
//   thread 0: release fence; old = relaxed atomic add(counter[tile], 1)
//             last = old == contributors - 1
//             if last: acquire fence, counter[tile] = 0
//             publish `last` in workgroup memory
//   barrier
//   if last: each element of the tile inside C, a thread each in turn:
//     sum = ((0 + P[0]) + P[1]) + ... + P[contributors - 1]
//     C   = epilogue(C + sum)
//
// The contributors (splits, or stream-K blocks) are summed in K order,
// whichever block arrives last, so the same inputs give the same bits. The
// fences are the device scope's (the blocks may run on any compute unit); the
// barrier before thread 0's release fence makes every thread's stores part of
// what it releases (cumulativity), and the barrier after the acquire orders the
// block's reads after it. Thread 0 publishes `last` in a word of workgroup
// memory after the kernel's tiles and mbarriers (quilt::splitKFlagOffset, which
// the cost model's shared-memory estimate counts too). Resetting the counter
// leaves the runtime's buffer zero for the next launch
// (quilt_gpu_arrival_counters).
//
//===----------------------------------------------------------------------===//

#include "GpuKernel.h"

#include "Conversion/Utils/IndexMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ukernel;
using namespace mlir::ukernel::gpucg;

/// The synchronization scope of one GPU, as each backend names it.
static StringRef deviceScope(Vendor vendor) {
  return vendor == Vendor::amd ? "agent" : "device";
}

void mlir::ukernel::gpucg::emitConsumerBarrier(OpBuilder &b, Location loc,
                                               const GpuKernelSpec &spec) {
  if (spec.producerThreads == 0) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  // Barrier 0 is the whole block's (gpu.barrier); the consumers are whole
  // warps.
  Value id = arith::ConstantIntOp::create(b, loc, 1, 32);
  Value threads = arith::ConstantIntOp::create(b, loc, spec.config.threads, 32);
  NVVM::BarrierOp::create(b, loc, Type(), id, threads,
                          NVVM::BarrierReductionAttr(), Value());
}

void mlir::ukernel::gpucg::emitTileFixup(OpBuilder &b, Location loc,
                                         const GpuKernelSpec &spec,
                                         const ThreadContext &thread,
                                         int64_t threads, const TileFixup &tile,
                                         const EpilogueWriter &cWriter) {
  const quilt::KernelConfig &cfg = spec.config;
  IndexMath im{b, loc};
  StringRef scope = deviceScope(spec.vendor);
  Type i32 = b.getI32Type();
  auto flagType = MemRefType::get(
      {1}, i32, MemRefLayoutAttrInterface(),
      cast<MemRefType>(tile.workgroup.getType()).getMemorySpace());
  Value flag = memref::ViewOp::create(b, loc, flagType, tile.workgroup,
                                      im.c(tile.flagOffset), ValueRange{});

  Value counterIndex = tile.counterIndex;
  emitConsumerBarrier(b, loc, spec);
  scf::IfOp::create(
      b, loc, im.eq(thread.tid, im.c(0)), [&](OpBuilder &tb, Location l) {
        IndexMath tm{tb, l};
        LLVM::FenceOp::create(tb, l, LLVM::AtomicOrdering::release, scope);
        // The fences order the block's memory accesses around the count:
        // the atomic itself is relaxed, at the device's scope (memref's
        // atomic_rmw would be acq_rel at the system's, which on gfx90a
        // invalidates L2).
        Value base = memref::ExtractAlignedPointerAsIndexOp::create(
            tb, l, tile.counters);
        Value address = tm.add(base, tm.mul(counterIndex, tm.c(4)));
        Value address64 =
            arith::IndexCastUIOp::create(tb, l, tb.getI64Type(), address);
        auto globalPtr = LLVM::LLVMPointerType::get(tb.getContext(), 1);
        Value counter = LLVM::IntToPtrOp::create(tb, l, globalPtr, address64);
        Value one = arith::ConstantIntOp::create(tb, l, 1, 32);
        Value old = LLVM::AtomicRMWOp::create(
            tb, l, LLVM::AtomicBinOp::add, counter, one,
            LLVM::AtomicOrdering::monotonic, scope);
        Value contributors32 =
            arith::IndexCastUIOp::create(tb, l, i32, tile.contributors);
        Value lastArrival = arith::CmpIOp::create(
            tb, l, arith::CmpIPredicate::eq,
            arith::AddIOp::create(tb, l, old, one), contributors32);
        scf::IfOp::create(tb, l, lastArrival, [&](OpBuilder &lb, Location ll) {
          LLVM::FenceOp::create(lb, ll, LLVM::AtomicOrdering::acquire, scope);
          Value zero = arith::ConstantIntOp::create(lb, ll, 0, 32);
          memref::StoreOp::create(lb, ll, zero, tile.counters,
                                  ValueRange{counterIndex});
          scf::YieldOp::create(lb, ll);
        });
        Value published = arith::ExtUIOp::create(tb, l, i32, lastArrival);
        memref::StoreOp::create(tb, l, published, flag, ValueRange{tm.c(0)});
        scf::YieldOp::create(tb, l);
      });
  emitConsumerBarrier(b, loc, spec);
  Value published = memref::LoadOp::create(b, loc, flag, ValueRange{im.c(0)});
  Value last =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, published,
                            arith::ConstantIntOp::create(b, loc, 0, 32));

  scf::IfOp::create(b, loc, last, [&](OpBuilder &tb, Location l) {
    IndexMath tm{tb, l};
    // Consecutive threads take consecutive columns of a row. (Operands are
    // built one statement at a time: the order in which a call's arguments
    // are evaluated, and so the order of the ops, is the compiler's.)
    Type computeType = spec.computeType();
    Value elements = tm.c(cfg.tileM * cfg.tileN);
    Value step = tm.c(threads);
    scf::ForOp::create(
        tb, l, thread.tid, elements, step, ValueRange{},
        [&](OpBuilder &eb, Location el, Value e, ValueRange) {
          IndexMath em{eb, el};
          Value gr = em.add(tile.row0, em.div(e, em.c(cfg.tileN)));
          Value gc = em.add(tile.col0, em.rem(e, em.c(cfg.tileN)));
          Value rowIn = em.lt(gr, tile.m);
          Value colIn = em.lt(gc, tile.n);
          Value inside = arith::AndIOp::create(eb, el, rowIn, colIn);
          scf::IfOp::create(eb, el, inside, [&](OpBuilder &ib, Location il) {
            IndexMath sm{ib, il};
            Value zero = arith::ConstantOp::create(
                ib, il, ib.getFloatAttr(computeType, 0.0));
            auto sum = scf::ForOp::create(
                ib, il, sm.c(0), tile.contributors, sm.c(1), ValueRange{zero},
                [&](OpBuilder &lb, Location ll, Value s, ValueRange partial) {
                  Value part = tile.loadPartial(lb, ll, s, gr, gc);
                  scf::YieldOp::create(lb, ll,
                                       ValueRange{arith::AddFOp::create(
                                           lb, ll, partial[0], part)});
                });
            cWriter.storeInside(ib, il, sum.getResult(0), gr, gc);
            scf::YieldOp::create(ib, il);
          });
          scf::YieldOp::create(eb, el);
        });
    scf::YieldOp::create(tb, l);
  });
}
