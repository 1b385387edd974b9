//===- DeviceBuffers.cpp - The quilt-gpu-device-buffers pass --------------===//
//
// Part of the Quilt project. Host code of a GPU program only passes buffers
// to kernels, so each buffer it creates must be device memory: allocations,
// deallocations and copies become their gpu dialect counterparts, each
// issued asynchronously and waited for at once: the only form gpu-to-llvm
// lowers (it leaves a synchronous gpu.alloc or gpu.dealloc alone).
//
//===----------------------------------------------------------------------===//

#include "AsyncGpuOps.h"

#include "Conversion/Passes.h"
#include "Conversion/Utils/Views.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace quilt {
#define GEN_PASS_DEF_QUILTGPUDEVICEBUFFERS
#include "Conversion/Passes.h.inc"
} // namespace quilt

using namespace mlir;

void mlir::ukernel::gpucg::issueAndWait(
    OpBuilder &b, Location loc, function_ref<Value(Value token)> issue) {
  Type tokenType = gpu::AsyncTokenType::get(b.getContext());
  Value start =
      gpu::WaitOp::create(b, loc, tokenType, ValueRange{}).getAsyncToken();
  Value done = issue(start);
  gpu::WaitOp::create(b, loc, Type(), ValueRange{done});
}

namespace {

using mlir::ukernel::gpucg::issueAndWait;

/// Whether `user` uses `buffer` the way the deallocation pipeline's host
/// bookkeeping does: its elements read or written on the host, freed, cast,
/// or passed to a private helper of this module (@dealloc_helper).
bool isBookkeepingUse(Operation *user, Value buffer) {
  if (auto store = dyn_cast<memref::StoreOp>(user))
    return store.getMemref() == buffer;
  if (isa<memref::LoadOp, memref::DeallocOp>(user))
    return true;
  if (auto cast = dyn_cast<memref::CastOp>(user))
    return llvm::all_of(cast->getUsers(), [&](Operation *castUser) {
      return isBookkeepingUse(castUser, cast.getResult());
    });
  if (auto call = dyn_cast<func::CallOp>(user)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    return callee && callee.isPrivate() && !callee.isExternal();
  }
  return false;
}

/// The deallocation pipeline's bookkeeping (the base pointers and ownership
/// flags of the buffers one `bufferization.dealloc` frees, memref<N x index>
/// and memref<N x i1>): host data that no kernel reads, so it stays in host
/// memory, where the host code that fills and reads it can.
bool isHostBookkeeping(memref::AllocOp alloc) {
  Type elem = alloc.getType().getElementType();
  if (!elem.isIndex() && !elem.isInteger(1))
    return false;
  return llvm::all_of(alloc->getUsers(), [&](Operation *user) {
    return isBookkeepingUse(user, alloc.getResult());
  });
}

/// Whether `buffer` is host memory after this pass: a `memref.alloc` it
/// left alone (bookkeeping) or a global.
bool isHostMemory(Value buffer) {
  Operation *root = ukernel::viewRoot(buffer).getDefiningOp();
  return root && isa<memref::AllocOp, memref::GetGlobalOp>(root);
}

/// Stages the buffers `call` passes to a function the program only declares
/// (MLIR's printMemrefF32, a C helper): such a function runs on the host,
/// which cannot dereference device memory. Each device buffer is copied
/// into a new host buffer for the call, and back after it unless the
/// declaration says the callee only reads it (`bufferization.access =
/// "read"`, which quilt-mark-runner-utils-reads gives the runner
/// utilities). An unranked buffer is staged through the ranked one it was
/// cast from.
LogicalResult stageHostCall(func::CallOp call, func::FuncOp callee) {
  OpBuilder b(call);
  Location loc = call.getLoc();
  SmallVector<std::pair<Value, Value>> copiedBack; // (device, host)
  SmallVector<Value> hostBuffers;
  for (OpOperand &operand : call->getOpOperands()) {
    Value passed = operand.get();
    if (!isa<BaseMemRefType>(passed.getType()))
      continue;
    Value device = passed;
    auto unrankedCast = passed.getDefiningOp<memref::CastOp>();
    if (isa<UnrankedMemRefType>(passed.getType())) {
      if (!unrankedCast)
        return call.emitOpError("passes an unranked buffer to @")
               << callee.getName()
               << ", a host function; it cannot be copied out of device "
                  "memory without its rank (cast a ranked buffer instead)";
      device = unrankedCast.getSource();
    }
    if (isHostMemory(device))
      continue;
    auto type = cast<MemRefType>(device.getType());
    if (!ukernel::hasIdentityLayout(device))
      return call.emitOpError("passes a strided view of device memory (")
             << type << ") to @" << callee.getName()
             << ", a host function; copy it into a buffer of its own first";
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(memref::DimOp::create(b, loc, device, d));
    Value host = memref::AllocOp::create(b, loc, type, sizes);
    issueAndWait(b, loc, [&](Value token) {
      return gpu::MemcpyOp::create(b, loc, token.getType(), ValueRange{token},
                                   host, device)
          .getAsyncToken();
    });
    hostBuffers.push_back(host);
    operand.set(unrankedCast
                    ? memref::CastOp::create(b, loc, passed.getType(), host)
                          .getResult()
                    : host);
    auto access = callee.getArgAttrOfType<StringAttr>(
        operand.getOperandNumber(),
        bufferization::BufferizationDialect::kBufferAccessAttrName);
    if (!access || access.getValue() != "read")
      copiedBack.push_back({device, host});
  }
  b.setInsertionPointAfter(call);
  for (auto [device, host] : copiedBack)
    issueAndWait(b, loc, [&](Value token) {
      return gpu::MemcpyOp::create(b, loc, token.getType(), ValueRange{token},
                                   device, host)
          .getAsyncToken();
    });
  for (Value host : hostBuffers)
    memref::DeallocOp::create(b, loc, host);
  return success();
}

struct QuiltGpuDeviceBuffersPass
    : public quilt::impl::QuiltGpuDeviceBuffersBase<QuiltGpuDeviceBuffersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    bool ok = true;
    getOperation().walk([&](Operation *op) {
      if (op->getParentOfType<gpu::GPUModuleOp>())
        return WalkResult::skip();
      if (isa<memref::AllocaOp>(op)) {
        op->emitOpError("cannot be placed in device memory: a GPU program's "
                        "host code may only allocate with memref.alloc");
        ok = false;
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        // Contiguous buffers whose types differ only in static sizes (a
        // dynamic view of a static buffer) are one copy once cast; copies
        // of strided views are kernels (quilt-strided-copies-to-loops).
        Type source = copy.getSource().getType();
        Type target = copy.getTarget().getType();
        bool contiguous = ukernel::hasIdentityLayout(copy.getSource()) &&
                          ukernel::hasIdentityLayout(copy.getTarget());
        if (source != target &&
            !(contiguous &&
              memref::CastOp::areCastCompatible(source, target))) {
          copy.emitOpError("copies between different layouts (")
              << source << " to " << target
              << ") are not supported in a GPU program's host code";
          ok = false;
        }
        ops.push_back(op);
      } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!isHostBookkeeping(alloc))
          ops.push_back(op);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        auto alloc = ukernel::viewRoot(dealloc.getMemref())
                         .getDefiningOp<memref::AllocOp>();
        if (!alloc || !isHostBookkeeping(alloc))
          ops.push_back(op);
      }
      return WalkResult::advance();
    });
    if (!ok)
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        Value memref;
        issueAndWait(rewriter, loc, [&](Value token) {
          auto replacement = gpu::AllocOp::create(
              rewriter, loc, alloc.getType(), token.getType(),
              ValueRange{token}, alloc.getDynamicSizes(),
              alloc.getSymbolOperands());
          memref = replacement.getMemref();
          return replacement.getAsyncToken();
        });
        rewriter.replaceOp(alloc, memref);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        issueAndWait(rewriter, loc, [&](Value token) {
          return gpu::DeallocOp::create(rewriter, loc, token.getType(),
                                        ValueRange{token}, dealloc.getMemref())
              .getAsyncToken();
        });
        rewriter.eraseOp(dealloc);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        Value source = copy.getSource();
        if (source.getType() != copy.getTarget().getType())
          source = memref::CastOp::create(rewriter, loc,
                                          copy.getTarget().getType(), source);
        issueAndWait(rewriter, loc, [&](Value token) {
          return gpu::MemcpyOp::create(rewriter, loc, token.getType(),
                                       ValueRange{token}, copy.getTarget(),
                                       source)
              .getAsyncToken();
        });
        rewriter.eraseOp(copy);
      }
    }

    // Host functions' buffers, now that every buffer is where it lives.
    SmallVector<std::pair<func::CallOp, func::FuncOp>> hostCalls;
    getOperation().walk([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      auto call = dyn_cast<func::CallOp>(op);
      if (!call)
        return WalkResult::advance();
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (callee && callee.isExternal() &&
          llvm::any_of(call.getOperandTypes(), llvm::IsaPred<BaseMemRefType>))
        hostCalls.push_back({call, callee});
      return WalkResult::advance();
    });
    for (auto [call, callee] : hostCalls)
      if (failed(stageHostCall(call, callee)))
        return signalPassFailure();
  }
};

} // namespace
