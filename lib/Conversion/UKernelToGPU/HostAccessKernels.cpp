//===- HostAccessKernels.cpp - quilt-gpu-host-accesses-to-kernels ---------===//
//
// Part of the Quilt project. In a GPU program every buffer is device memory
// (quilt-gpu-device-buffers), which host code cannot dereference. The
// loads and stores a program writes itself, outside any linalg op (an
// exporter's KV-cache update, a hand-written attention loop), would read
// and write device pointers on the host: a crash on a GPU, and silently
// fine on an emulator whose device memory is host memory. Each such piece
// of code runs instead as a kernel of one thread, in program order.
//
//===----------------------------------------------------------------------===//

#include "AsyncGpuOps.h"

#include "Conversion/Passes.h"
#include "Conversion/Utils/Views.h"
#include "Dialect/UKernel/IR/UKernelDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTGPUHOSTACCESSESTOKERNELS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;
using mlir::ukernel::gpucg::issueAndWait;

namespace {

/// A load, store or atomic update of a buffer's elements.
bool isElementAccess(Operation *op) {
  return isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp>(op);
}

/// Whether `op` itself (not its regions) can run in a device kernel as it
/// is: scalar arithmetic, structured control flow, element accesses and the
/// views and sizes of buffers. Anything else (a product, a linalg op, a
/// call, an allocation, a copy) is the host code's to run.
bool runsInKernel(Operation *op) {
  if (isa<arith::ArithDialect, math::MathDialect, index::IndexDialect>(
          op->getDialect()))
    return true;
  return isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::YieldOp,
             scf::ConditionOp, memref::LoadOp, memref::StoreOp,
             memref::AtomicRMWOp, memref::DimOp, memref::CastOp,
             memref::SubViewOp>(op);
}

/// The buffer an element access reads or writes.
Value accessedBuffer(Operation *access) {
  if (auto load = dyn_cast<memref::LoadOp>(access))
    return load.getMemref();
  if (auto store = dyn_cast<memref::StoreOp>(access))
    return store.getMemref();
  return cast<memref::AtomicRMWOp>(access).getMemref();
}

/// Which buffers of the host code are host memory: what `memref.alloc`
/// still allocates after quilt-gpu-device-buffers (the deallocation
/// pipeline's bookkeeping), globals, and the arguments of private helpers
/// that every call gives host memory. Everything else (arguments of the
/// program's functions, `gpu.alloc`) is device memory.
class BufferPlaces {
public:
  explicit BufferPlaces(ModuleOp module) : module(module) {}

  bool isHost(Value view) {
    Value buffer = ukernel::viewRoot(view);
    if (Operation *def = buffer.getDefiningOp())
      return isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def);
    auto arg = cast<BlockArgument>(buffer);
    auto function = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!function || !function.isPrivate() ||
        arg.getOwner() != &function.getBody().front())
      return false;
    auto [it, inserted] = hostArgs.try_emplace(arg, false);
    if (!inserted)
      return it->second; // (false while being decided: a recursive call)
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(function, module);
    if (!uses)
      return false; // used where no symbol table says how
    bool host = true, called = false;
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto call = dyn_cast<func::CallOp>(use.getUser());
      if (!call) {
        host = false;
        break;
      }
      called = true;
      host &= isHost(call.getOperand(arg.getArgNumber()));
    }
    return hostArgs[arg] = host && called;
  }

private:
  ModuleOp module;
  DenseMap<Value, bool> hostArgs;
};

/// What a piece of host code would do on the device.
struct PieceAccesses {
  bool runsInKernel = true; // everything in it can
  bool device = false;      // it accesses elements of device memory
  bool host = false;        // it accesses elements of host memory
};

PieceAccesses classify(Operation *op, BufferPlaces &places) {
  PieceAccesses piece;
  op->walk([&](Operation *nested) {
    piece.runsInKernel &= runsInKernel(nested);
    if (isElementAccess(nested))
      (places.isHost(accessedBuffer(nested)) ? piece.host : piece.device) =
          true;
  });
  return piece;
}

/// Runs `op` as a kernel of one thread in one block, where it was; returns
/// a builder at the end of the kernel's body, after `op`.
OpBuilder runInOneThread(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
  Block &body = launch.getBody().front();
  op->moveBefore(&body, body.end());
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(body.getTerminator());
  return b;
}

/// A load of device memory whose value host code uses: a one-thread
/// kernel reads the element into a device cell, which is copied into a
/// host cell that the host loads.
void readOnDevice(memref::LoadOp load) {
  Location loc = load.getLoc();
  OpBuilder b(load);
  auto cellType = MemRefType::get({1}, load.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value deviceCell;
  issueAndWait(b, loc, [&](Value token) {
    auto alloc =
        gpu::AllocOp::create(b, loc, cellType, token.getType(),
                             ValueRange{token}, ValueRange{}, ValueRange{});
    deviceCell = alloc.getMemref();
    return alloc.getAsyncToken();
  });
  Value loaded = load.getResult();
  OpBuilder kernel = runInOneThread(load);
  auto store = memref::StoreOp::create(kernel, loc, loaded, deviceCell,
                                       ValueRange{zero});
  b.setInsertionPointAfter(load->getParentOp()); // after the launch
  Value hostCell = memref::AllocOp::create(b, loc, cellType);
  issueAndWait(b, loc, [&](Value token) {
    return gpu::MemcpyOp::create(b, loc, token.getType(), ValueRange{token},
                                 hostCell, deviceCell)
        .getAsyncToken();
  });
  Value value = memref::LoadOp::create(b, loc, hostCell, ValueRange{zero});
  loaded.replaceAllUsesExcept(value, store);
  memref::DeallocOp::create(b, loc, hostCell);
  issueAndWait(b, loc, [&](Value token) {
    return gpu::DeallocOp::create(b, loc, token.getType(), ValueRange{token},
                                  deviceCell)
        .getAsyncToken();
  });
}

struct QuiltGpuHostAccessesToKernelsPass
    : public quilt::impl::QuiltGpuHostAccessesToKernelsBase<
          QuiltGpuHostAccessesToKernelsPass> {
  void runOnOperation() override {
    BufferPlaces places(getOperation());
    getOperation().walk([&](func::FuncOp function) {
      if (!function->getParentOfType<gpu::GPUModuleOp>())
        for (Block &block : function.getBody())
          moveToDevice(block, places);
    });
    if (failed)
      signalPassFailure();
  }

  /// Whether `op` is device code already, or becomes kernels with its
  /// body (linalg ops, dispatches): never looked into.
  static bool isDeviceOrKernelOp(Operation &op) {
    return isa<gpu::LaunchOp, gpu::GPUModuleOp, linalg::LinalgOp>(op) ||
           isa_and_nonnull<ukernel::UKernelDialect>(op.getDialect());
  }

  /// Moves each outermost piece of `block` that runs in a kernel, defines
  /// no value and accesses device memory (and no host memory) into a
  /// one-thread kernel. Inside the other pieces (holding host work, host
  /// memory, or defining values the host uses), each access of device
  /// memory moves alone: a store into a kernel of its own, a load through
  /// a host cell (readOnDevice).
  void moveToDevice(Block &block, BufferPlaces &places) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isDeviceOrKernelOp(op))
        continue;
      PieceAccesses piece = classify(&op, places);
      if (!piece.device)
        continue;
      if (op.getNumResults() == 0 && piece.runsInKernel && !piece.host) {
        runInOneThread(&op);
        continue;
      }
      if (isElementAccess(&op)) {
        if (isa<memref::StoreOp>(op)) {
          runInOneThread(&op);
        } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
          readOnDevice(load);
        } else {
          op.emitError() << "updates device memory atomically in host code "
                            "and returns the old value to it; write the "
                            "update as a linalg op, or compile for a CPU "
                            "target";
          failed = true;
        }
        continue;
      }
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          moveToDevice(nested, places);
    }
  }

  bool failed = false;
};

} // namespace
